//! Analytic queries as the simulated database runs them: full scans of two tables, a hash
//! join whose build side may exceed the session's work memory, and a sort of the joined rows
//! that may exceed it too. A query is one transaction of a workload characterization: its
//! scans are the transaction's block visits (multiblock reads, or Oracle's direct path reads
//! when a table is larger than a tenth of the buffer cache), its spills its `temp_bytes`
//! (written to temp and read back, [`super::engine`]'s temp I/O), and its elapsed time is the
//! transaction's response time.
//!
//! The spill arithmetic:
//! - **Grace hash join.** A build side of B bytes fits in a work memory of M bytes: no temp.
//!   Else both inputs are split into partitions on the join key, each partition's build part
//!   small enough for memory: B/M partitions, each needing one write buffer of the temp I/O
//!   size, so one pass splits into at most M / io partitions (the fan-out). Every pass writes
//!   both inputs, B + P bytes, to temp and reads them back; passes = ⌈log_fanout(B / M)⌉.
//! - **External merge sort.** S bytes fit in M: no temp. Else sorted runs of M bytes are
//!   written (S bytes) and merged, at most M / io runs at a time; each merge pass but the last
//!   (which feeds the query's output) writes S bytes again: S × ⌈log_fanin(S / M)⌉.
//!
//! The order on the device ([`QueryDef::temp_passes`], the engine's temp schedule): the
//! first partitioning pass writes while the scans read (each input split as it is read),
//! each further pass reads the partitions of the one before while writing its own, the last
//! partitions are read back and joined while the sort's runs are written (the join feeds the
//! sort; when the join fits, the runs are written during the scans), each merge pass but the
//! last reads and writes, and the last merge reads.

use storlab_core::character::{
    Characterization, Engine, Instance, Segment, SegmentKind, SegmentSize, Transaction,
};
use storlab_core::keys::{self, Default as KeyDefault, Key, Kind};
use storlab_core::ByteSize;

use crate::config::{ConfigError, DbSpec, SystemSpec};

/// CPU a query spends per 8 KiB block it scans, joins and sorts, ns: about 1.6 GB/s of rows
/// processed per CPU.
pub const CPU_NS_PER_BLOCK: u64 = 5_000;

/// One built-in analytic query: its tables, its work memory and what it sorts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryDef {
    /// `suite/test`, declared in `storlab_core::dbtest`.
    pub name: &'static str,
    /// The probe side (a fact table) and the build side (a dimension), bytes.
    pub probe_bytes: u64,
    pub build_bytes: u64,
    /// Bytes of the joined rows the query sorts.
    pub sort_bytes: u64,
    /// The session's work memory for the join and for the sort, each (Oracle's PGA work
    /// area, PostgreSQL's `work_mem`).
    pub work_mem_bytes: u64,
    /// Buffer cache of the database.
    pub buffer_bytes: u64,
}

/// The built-in queries.
pub const QUERIES: &[QueryDef] = &[QueryDef {
    name: "orabench/analytic-query",
    probe_bytes: 512 << 20,
    build_bytes: 128 << 20,
    sort_bytes: 64 << 20,
    work_mem_bytes: 16 << 20,
    buffer_bytes: 256 << 20,
}];

/// Largest table a query scans, and largest sort: 64 TiB.
pub const MAX_QUERY_BYTES: u64 = 64 << 40;
/// Largest work memory: 1 TiB.
pub const MAX_WORK_MEM_BYTES: u64 = 1 << 40;

/// The keys an analytic query adds to `[database]` (defaults: the built-in query's).
pub const QUERY_KEYS: &[Key] = &[
    Key::new(
        "probe_size",
        Kind::Size,
        KeyDefault::Value("\"512MiB\""),
        "analytic query: the probe side of its hash join (the fact table), scanned in full",
    )
    .int(1 << 20, MAX_QUERY_BYTES),
    Key::new(
        "build_size",
        Kind::Size,
        KeyDefault::Value("\"128MiB\""),
        "analytic query: the build side of its hash join (the dimension), scanned in full; \
         beyond `work_mem` both sides are partitioned to temp (grace hash join)",
    )
    .int(1 << 20, MAX_QUERY_BYTES),
    Key::new(
        "sort_size",
        Kind::Size,
        KeyDefault::Value("\"64MiB\""),
        "analytic query: bytes of the joined rows it sorts; beyond `work_mem` sorted runs \
         are written to temp and merged (0: no sort)",
    )
    .int(0, MAX_QUERY_BYTES),
    Key::new(
        "work_mem",
        Kind::Size,
        KeyDefault::Value("\"16MiB\""),
        "analytic query: work memory of the join and of the sort, each (PostgreSQL's \
         `work_mem`, Oracle's PGA work area)",
    )
    .int(64 << 10, MAX_WORK_MEM_BYTES),
];

/// When `table`'s test is a built-in query: the query with the sizes its keys give (taken
/// out of `table`, checked against their bounds).
pub(crate) fn take_if_query(
    table: &mut toml::Table,
    file: &str,
) -> Result<Option<QueryDef>, ConfigError> {
    let Some(q) = table
        .get("test")
        .and_then(toml::Value::as_str)
        .and_then(find)
    else {
        return Ok(None);
    };
    let mut own = toml::Table::new();
    for k in QUERY_KEYS {
        if let Some(v) = table.remove(k.name) {
            own.insert(k.name.to_string(), v);
        }
    }
    keys::check_table(&own, QUERY_KEYS)
        .map_err(|(k, r)| ConfigError::invalid(file, format!("database.{k}"), r))?;
    let size = |k: &str, default: u64| -> Result<u64, ConfigError> {
        match own.get(k).cloned() {
            Some(v) => v.try_into::<ByteSize>().map(|b| b.0).map_err(|e| {
                ConfigError::invalid(file, format!("database.{k}"), e.message().to_string())
            }),
            None => Ok(default),
        }
    };
    Ok(Some(QueryDef {
        probe_bytes: size("probe_size", q.probe_bytes)?,
        build_bytes: size("build_size", q.build_bytes)?,
        sort_bytes: size("sort_size", q.sort_bytes)?,
        work_mem_bytes: size("work_mem", q.work_mem_bytes)?,
        ..*q
    }))
}

/// The built-in queries' names.
pub fn names() -> Vec<&'static str> {
    QUERIES.iter().map(|q| q.name).collect()
}

/// The built-in query named `name`.
pub fn find(name: &str) -> Option<&'static QueryDef> {
    QUERIES.iter().find(|q| q.name == name)
}

/// ⌈log_base(x)⌉ for x ≥ 1 and base ≥ 2, in whole passes.
fn passes(x: f64, base: u64) -> u64 {
    let base = base.max(2) as f64;
    let mut n = 0;
    let mut reach = 1.0;
    while reach < x {
        reach *= base;
        n += 1;
    }
    n
}

/// The temp passes of a grace hash join (build side of `build` bytes, probe side of
/// `probe`, `memory` bytes of work memory, temp I/Os of `io` bytes): the bytes each
/// partitioning pass writes, both inputs each time; none when the build side fits.
pub fn grace_hash_join_passes(build: u64, probe: u64, memory: u64, io: u64) -> Vec<u64> {
    if build <= memory {
        return Vec::new();
    }
    let fanout = memory / io.max(1);
    let n = passes(build as f64 / memory.max(1) as f64, fanout);
    vec![build + probe; n as usize]
}

/// The temp passes of an external merge sort of `input` bytes (`memory` bytes of work
/// memory, temp I/Os of `io` bytes): the runs, then each merge pass but the last; none when
/// the input fits.
pub fn sort_passes(input: u64, memory: u64, io: u64) -> Vec<u64> {
    if input <= memory {
        return Vec::new();
    }
    let fanin = memory / io.max(1);
    let n = passes(input as f64 / memory.max(1) as f64, fanin).max(1);
    vec![input; n as usize]
}

/// Temp bytes a grace hash join writes (and reads back) with a build side of `build` bytes,
/// a probe side of `probe` and `memory` bytes of work memory, in temp I/Os of `io` bytes.
pub fn grace_hash_join_temp_bytes(build: u64, probe: u64, memory: u64, io: u64) -> u64 {
    grace_hash_join_passes(build, probe, memory, io)
        .iter()
        .sum()
}

/// Temp bytes an external merge sort of `input` bytes writes (and reads back) with `memory`
/// bytes of work memory, merging with temp I/Os of `io` bytes.
pub fn sort_temp_bytes(input: u64, memory: u64, io: u64) -> u64 {
    sort_passes(input, memory, io).iter().sum()
}

impl QueryDef {
    /// Temp bytes of one execution with temp I/Os of `io` bytes: the join's and the sort's.
    pub fn temp_bytes(&self, io: u64) -> u64 {
        self.temp_passes(io).iter().sum()
    }

    /// The temp passes of one execution, in the order they run: the join's partitioning
    /// passes (the first while the scans read), then the sort's runs (written as the join
    /// produces its rows) and merge passes.
    pub fn temp_passes(&self, io: u64) -> Vec<u64> {
        let m = self.work_mem_bytes;
        let mut p = grace_hash_join_passes(self.build_bytes, self.probe_bytes, m, io);
        p.extend(sort_passes(self.sort_bytes, m, io));
        p
    }

    /// The query as a characterization for `engine` with `sessions` sessions, its temp I/Os of
    /// `io` bytes.
    pub fn characterization(&self, engine: Engine, sessions: u32, io: u64) -> Characterization {
        let blocks = (self.probe_bytes + self.build_bytes) / 8192;
        let segment = |name: &str, kind, bytes: u64, share| {
            Segment::plain(name, kind, SegmentSize::Known(ByteSize(bytes)), name, share)
        };
        let sort_blocks = self.sort_bytes / 8192;
        let cpu_ms = ((blocks + sort_blocks) * CPU_NS_PER_BLOCK) as f64 / 1e6;
        let temp = self.temp_bytes(io);
        Characterization {
            name: self.name.into(),
            engine,
            source: format!("builtin:{}", self.name),
            sessions,
            block_bytes: 8192,
            transactions: vec![Transaction {
                name: "query".into(),
                weight: 1.0,
                logical_reads: blocks as f64,
                index_share: 0.0,
                scan_share: 1.0,
                blocks_changed: 0.0,
                rows_inserted: 0.0,
                redo_bytes: 0.0,
                cpu_ms,
                statements: 1.0,
                think_ms: 0.0,
                temp_bytes: temp as f64,
                physical_reads: None,
                physical_writes: None,
                steps: Vec::new(),
            }],
            segments: vec![
                segment("dimension", SegmentKind::Table, self.build_bytes, 0.2),
                segment("fact", SegmentKind::Table, self.probe_bytes, 0.8),
                // Room for every session's runs and partitions at once.
                segment(
                    "temp",
                    SegmentKind::Temp,
                    temp.max(io) * u64::from(sessions),
                    0.0,
                ),
            ],
            instance: Instance {
                cpus: 8,
                cpu_busy_pct: None,
                buffer_cache: ByteSize(self.buffer_bytes),
                log_buffer: ByteSize(16 << 20),
                db_time_per_s: None,
                settings: Default::default(),
            },
            observed: None,
        }
    }
}

/// The `[database]` section `table` whose `test` is the query `q`: its characterization run
/// with the section's other keys (placement, sessions, engine settings).
pub fn database(
    q: &QueryDef,
    mut table: toml::Table,
    file: &str,
    system: &SystemSpec,
) -> Result<DbSpec, ConfigError> {
    let engine = match table.get("engine").and_then(|v| v.as_str()) {
        Some("oracle") => Engine::Oracle,
        _ => Engine::Postgresql,
    };
    let sessions = match table.remove("sessions") {
        Some(v) => v
            .as_integer()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n >= 1)
            .ok_or_else(|| {
                ConfigError::invalid(file, "database.sessions", "must be a whole number from 1")
            })?,
        None => storlab_core::dbtest::find(q.name).map_or(1, |d| d.default_clients),
    };
    table.remove("test");
    let mbrc = match table.get("db_file_multiblock_read_count") {
        Some(v) => v.as_integer().map_or(1, |n| n.max(1) as u64),
        None => super::scan_path::multiblock_read_count(engine, 8192),
    };
    let c = q.characterization(engine, sessions, mbrc * 8192);
    let w = crate::config::character_workload(&c, table, file, system, mbrc)?;
    let mut spec = w
        .database
        .ok_or_else(|| ConfigError::invalid(file, "database", "no database"))?;
    if let Some(ch) = spec.character.as_mut() {
        ch.full_scans = true;
        ch.temp_passes = q.temp_passes(mbrc * 8192);
    }
    Ok(spec)
}

/// A query's plan: every block of its table segments in order, all of it one scan (the
/// mix's own draw replaced). Returns the scan's range.
pub(crate) fn full_scans(
    c: &Characterization,
    mix: &super::workload_mix::WorkloadMix,
    plan: &mut Vec<(u64, bool)>,
) -> (usize, usize) {
    plan.clear();
    for (s, m) in c.segments.iter().zip(&mix.segments) {
        if s.kind == SegmentKind::Table {
            plan.extend((m.first_block..m.first_block + m.blocks).map(|b| (b, false)));
        }
    }
    (0, plan.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_build_side_within_memory_spills_nothing() {
        assert_eq!(
            grace_hash_join_temp_bytes(64 * MIB, 4096 * MIB, 64 * MIB, MIB),
            0
        );
        assert_eq!(sort_temp_bytes(64 * MIB, 64 * MIB, MIB), 0);
    }

    #[test]
    fn a_grace_hash_join_writes_both_inputs_once_per_partitioning_pass() {
        // 512 MiB over 64 MiB: 8 partitions, within a fan-out of 64: one pass, B + P.
        assert_eq!(
            grace_hash_join_temp_bytes(512 * MIB, 2048 * MIB, 64 * MIB, MIB),
            2560 * MIB
        );
        // 1 GiB over 4 MiB: 256 partitions, fan-out 4: four passes (4^4 = 256).
        assert_eq!(
            grace_hash_join_temp_bytes(1024 * MIB, 1024 * MIB, 4 * MIB, MIB),
            4 * 2048 * MIB
        );
        // Just over memory: still one whole pass over both inputs.
        assert_eq!(
            grace_hash_join_temp_bytes(65 * MIB, 100 * MIB, 64 * MIB, MIB),
            165 * MIB
        );
    }

    #[test]
    fn an_external_sort_writes_its_input_once_per_merge_level() {
        // 256 MiB in 64 MiB: 4 runs, one merge of 4: the runs written once.
        assert_eq!(sort_temp_bytes(256 * MIB, 64 * MIB, MIB), 256 * MIB);
        // 1 GiB in 4 MiB: 256 runs merged 4 at a time: 4 levels, the last feeds the output.
        assert_eq!(sort_temp_bytes(1024 * MIB, 4 * MIB, MIB), 4 * 1024 * MIB);
    }

    #[test]
    fn the_built_in_query_spills_its_join_and_its_sort() {
        let q = find("orabench/analytic-query").expect("declared");
        // 128 MiB over 16 MiB: 8 partitions, one pass of 640 MiB; 64 MiB sorted in 4 runs.
        assert_eq!(q.temp_bytes(MIB), 640 * MIB + 64 * MIB);
        // In order: the join's pass (written with the scans), then the sort's runs.
        assert_eq!(q.temp_passes(MIB), vec![640 * MIB, 64 * MIB]);
        // Two join passes when 1 GiB is partitioned with a fan-out of 4 from 256 MiB.
        let two = QueryDef {
            build_bytes: 1 << 30,
            work_mem_bytes: 4 * MIB,
            sort_bytes: 0,
            ..*q
        };
        assert_eq!(two.temp_passes(MIB), vec![1536 * MIB; 4]);
        let c = q.characterization(Engine::Oracle, 2, MIB);
        c.validate("query").expect("a valid characterization");
        assert_eq!(c.transactions[0].temp_bytes, (704 * MIB) as f64);
        let in_memory = QueryDef {
            work_mem_bytes: 1 << 30,
            ..*q
        };
        assert_eq!(in_memory.temp_bytes(MIB), 0);
        assert!(storlab_core::dbtest::find(q.name).is_some());
    }
}
