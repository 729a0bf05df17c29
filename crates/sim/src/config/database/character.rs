//! A simulated database that runs a workload characterization: the characterization gives
//! the transactions, the data set, the sessions, the buffer cache, the host CPUs and the
//! engine; the `[database]` keys give the placement (`data`, `log`, `archive`) and the
//! engine's other settings (writer, checkpoints, log files, file cache), with their defaults.
//! When no placement is given the data and the log go where
//! [`SystemSpec::default_db_targets`] says: `datavol` (else the array's only volume, else
//! every LUN) and `logvol` (else with the data, after it).

use serde::Serialize;
use storlab_core::character::{Characterization, SegmentKind};

use super::super::{ConfigError, SystemSpec, WorkloadSpec};
use super::parse_database;
use crate::db::workload_mix::{WorkloadMix, BLOCK_BYTES};

/// Blocks of a scan's multiblock read under PostgreSQL: the host's default read-ahead
/// (128 KiB) over 8 KiB blocks. Oracle's default is 1 MiB over the block size:
/// [`crate::db::scan_path::multiblock_read_count`] gives either.
pub const DEFAULT_MULTIBLOCK_READ_COUNT: u64 = 16;

/// The built-in test whose settings carry a characterization's run (its operations are not
/// run: every transaction comes from the characterization, and every one is counted).
const CARRIER_TEST: &str = "oltp/medium";

/// A characterization as the simulated database runs it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CharacterSpec {
    pub workload: Characterization,
    pub mix: WorkloadMix,
    /// A built-in query's: every execution scans every table segment whole, in order
    /// ([`crate::db::query`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub full_scans: bool,
    /// A built-in query's temp passes: the bytes each writes, in order (each reads back
    /// what the one before wrote, [`crate::db::query`]); empty: its `temp_bytes` are one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub temp_passes: Vec<u64>,
}

/// The simulated database workload of characterization `c`, with the `[database]` keys in
/// `database` (placement and engine settings; `source` names them in messages) and scans read
/// `multiblock_read_count` blocks at a time.
pub fn character_workload(
    c: &Characterization,
    mut database: toml::Table,
    source: &str,
    system: &SystemSpec,
    multiblock_read_count: u64,
) -> Result<WorkloadSpec, ConfigError> {
    let file = source;
    if u64::from(c.block_bytes) != BLOCK_BYTES {
        return Err(ConfigError::invalid(
            file,
            "block_bytes",
            format!(
                "the simulated database runs 8 KiB blocks; got {} (convert the per-execution \
                 block counts to 8 KiB blocks)",
                c.block_bytes
            ),
        ));
    }
    // The log's size comes from the log files (`log_file_size`, `log_files`), not from its
    // segment.
    let unknown = c.segments.iter().enumerate().find(|(_, s)| {
        s.kind != SegmentKind::Log && s.size == storlab_core::character::SegmentSize::Unknown
    });
    if let Some((i, s)) = unknown {
        return Err(ConfigError::invalid(
            file,
            format!("segments[{i}].size ({})", s.name),
            "is unknown; give every segment's size before simulating (--segment-size NAME=SIZE)",
        ));
    }
    let mix = WorkloadMix::new(c, multiblock_read_count)
        .map_err(|e| ConfigError::invalid(file, "segments", e))?;
    let mut put = |k: &str, v: toml::Value| {
        database.entry(k.to_string()).or_insert(v);
    };
    let (data, log) = system.default_db_targets();
    put("data", toml::Value::String(data));
    put("log", toml::Value::String(log));
    put("sessions", toml::Value::Integer(i64::from(c.sessions)));
    let buffer = i64::try_from(c.instance.buffer_cache.0).unwrap_or(i64::MAX);
    put("buffer", toml::Value::Integer(buffer));
    put("cpus", toml::Value::Integer(i64::from(c.instance.cpus)));
    // A captured server's checkpoint interval (`[instance.settings] checkpoint_timeout`).
    if let Some(ns) = storlab_core::character::settings::checkpoint_timeout_ns(&c.instance.settings)
    {
        put(
            "checkpoint_interval",
            toml::Value::String(format!("{ns}ns")),
        );
    }
    // An Oracle report's log file size and checkpoint timeout, in bytes and seconds.
    let setting = |k: &str| c.instance.settings.get(k)?.trim().parse::<i64>().ok();
    if let Some(bytes) = setting("log_file_size").filter(|b| *b > 0) {
        put("log_file_size", toml::Value::Integer(bytes));
    }
    if let Some(s) = setting("log_checkpoint_timeout").filter(|s| *s >= 0) {
        put(
            "log_checkpoint_timeout",
            toml::Value::String(format!("{s}s")),
        );
    }
    // An Oracle report's log writer CPU per write, in microseconds.
    if let Some(us) = setting("log_writer_cpu_us").filter(|us| *us > 0) {
        put("log_writer_cpu", toml::Value::String(format!("{us}us")));
    }
    // A captured PostgreSQL server's data checksums and major version.
    let on_off = |v: &String| match v.trim() {
        "on" | "true" => Some("on"),
        "off" | "false" => Some("off"),
        _ => None,
    };
    if let Some(v) = c.instance.settings.get("data_checksums").and_then(on_off) {
        put("data_checksums", toml::Value::String(v.into()));
    }
    let major = c.instance.settings.get("server_version").and_then(|v| {
        let digits: String = v.trim().chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<i64>().ok().filter(|m| (9..=99).contains(m))
    });
    if let Some(m) = major {
        put("postgresql_version", toml::Value::Integer(m));
    }
    put("log_bytes_per_commit", toml::Value::Integer(0));
    // The carrier test's own settings, which a characterization replaces.
    for (k, v) in [
        ("test", toml::Value::String(CARRIER_TEST.into())),
        ("rows", toml::Value::Integer(1000)),
        ("tables", toml::Value::Integer(1)),
        ("think", toml::Value::String("0s".into())),
        ("cpu_per_block", toml::Value::String("0s".into())),
        ("cpu_per_row", toml::Value::String("0s".into())),
        ("cpu_per_statement", toml::Value::String("0s".into())),
        ("cpu_per_commit", toml::Value::String("0s".into())),
        ("client_cpu", toml::Value::String("0s".into())),
    ] {
        database.insert(k.into(), v);
    }
    let mut spec = parse_database(toml::Value::Table(database), source, system)?;
    let bad = |k: &str, r: String| ConfigError::invalid(source, format!("database.{k}"), r);
    let need = mix.blocks * BLOCK_BYTES;
    if mix.blocks >= u64::from(u32::MAX) {
        return Err(ConfigError::invalid(
            file,
            "segments",
            format!(
                "the segments need {} blocks of 8 KiB; at most {} (32 TiB) are simulated",
                mix.blocks,
                u32::MAX - 1
            ),
        ));
    }
    let have = spec.data.bytes(system);
    if need > have {
        return Err(bad(
            "data",
            format!("the segments (and the room of growing tables) need {need} bytes; the data target has {have}"),
        ));
    }
    if spec.log_offset.is_some() {
        let offset = need.div_ceil(1 << 20) << 20;
        let log_need = spec.log_file_bytes * u64::from(spec.log_groups);
        if offset + log_need > have {
            return Err(bad(
                "log_file_size",
                format!(
                    "the log files need {log_need} bytes after the data's {offset}; the data \
                     target has {have}"
                ),
            ));
        }
        spec.log_offset = Some(offset);
    }
    spec.tables.clear();
    spec.rows = 0;
    spec.engine = c.engine;
    let mut mix = mix;
    if let Some(n) = spec.multiblock_read_count {
        mix.multiblock_read_count = n;
    }
    spec.character = Some(Box::new(CharacterSpec {
        workload: c.clone(),
        mix,
        full_scans: false,
        temp_passes: Vec::new(),
    }));
    Ok(WorkloadSpec {
        name: c.name.clone(),
        streams: Vec::new(),
        database: Some(spec),
    })
}
