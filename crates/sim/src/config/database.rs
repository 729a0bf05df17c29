//! The `[database]` section of a workload file: a simulated database running a DPAWS test on
//! the simulated stack, its data on one target and its log on another.
//!
//! ```toml
//! [database]
//! test = "dpaws/update-row"   # dpaws/{update,select}-{row,range},
//!                             # orabench/load-conventional, oltp/medium, oltp/heavy
//! sessions = 80               # default: the suite's (range 32, oltp 50 / 100)
//! data = "datavol"            # a volume, or LUN and group names (like a stream's target)
//! log = "logvol"
//! tables = 15                  # DPAWS: 15 tables of `rows` rows each
//! rows = 10000000             # rows per table
//! row_bytes = [14, 805]       # one size, or [smallest, largest] spread over the tables
//! buffer = "2GiB"             # database buffer cache
//! os_cache = "16GiB"          # the host's file cache under the data files (0: none)
//! os_cache_warm = true        # it starts holding the database (as right after loading it)
//! archive = "archvol"         # optional: archive each filled log file to this target
//! ```

use serde::{Deserialize, Serialize};
use storlab_core::{ByteSize, TimeSpan};

use super::workload::{resolve_placement, Placement};
use super::{limits, ConfigError, SystemSpec};

/// Most sessions of a simulated database (each costs a few hundred bytes and its events).
const MAX_SESSIONS: u64 = 100_000;
/// Largest buffer cache: 1 TiB (about 1 GB of model memory).
const MAX_BUFFER_BYTES: u64 = 1 << 40;
/// Largest operating-system cache: 256 GiB (about 1.5 GB of model memory when warm).
const MAX_OS_CACHE_BYTES: u64 = 256 << 30;
use crate::db::layout::Layout;
use crate::db::{MeasuredProfile, Table};

/// The tests the model runs (the names of `storlab db`'s suites).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum DbTest {
    /// Update one random row by primary key, commit.
    UpdateRow,
    /// Select one random row by primary key.
    SelectRow,
    /// Update `range_rows` consecutive rows, commit.
    UpdateRange,
    /// Select `range_rows` consecutive rows.
    SelectRange,
    /// Insert `rows_per_commit` rows at the end of a table (primary key at its right edge),
    /// commit.
    LoadConventional,
    /// The OLTP mix: 60% read transactions of 5 primary-key reads, 40% write transactions
    /// updating 2 rows and appending 1 to a history table; 10 ms think time; 50 sessions
    /// (`medium`) or 100 (`heavy`).
    OltpMedium,
    OltpHeavy,
}

impl DbTest {
    pub const NAMES: [&'static str; 7] = [
        "dpaws/update-row",
        "dpaws/select-row",
        "dpaws/update-range",
        "dpaws/select-range",
        "orabench/load-conventional",
        "oltp/medium",
        "oltp/heavy",
    ];

    pub fn parse(s: &str) -> Option<DbTest> {
        const ALL: [DbTest; 7] = [
            DbTest::UpdateRow,
            DbTest::SelectRow,
            DbTest::UpdateRange,
            DbTest::SelectRange,
            DbTest::LoadConventional,
            DbTest::OltpMedium,
            DbTest::OltpHeavy,
        ];
        DbTest::NAMES.iter().position(|n| *n == s).map(|i| ALL[i])
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Its operations change data and commit (the OLTP mix: its write transactions).
    pub fn writes(self) -> bool {
        !matches!(self, DbTest::SelectRow | DbTest::SelectRange)
    }

    pub fn ranged(self) -> bool {
        matches!(self, DbTest::UpdateRange | DbTest::SelectRange)
    }

    /// The OLTP mix.
    pub fn oltp(self) -> bool {
        matches!(self, DbTest::OltpMedium | DbTest::OltpHeavy)
    }

    /// Its tables grow: inserts at their end (the load's tables, the OLTP history).
    pub fn appends(self) -> bool {
        matches!(self, DbTest::LoadConventional) || self.oltp()
    }

    /// Sessions when the section does not say: the suites' client counts.
    fn default_sessions(self) -> u32 {
        match self {
            DbTest::UpdateRange | DbTest::SelectRange => 32,
            DbTest::OltpMedium => 50,
            DbTest::OltpHeavy => 100,
            _ => 80,
        }
    }
}

/// Rows of the OLTP history table's records (item, delta, timestamp).
const HISTORY_ROW_BYTES: u64 = 24;

/// A resolved `[database]` section.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DbSpec {
    pub test: DbTest,
    pub sessions: u32,
    pub data: Placement,
    pub log: Placement,
    /// The test's tables (DPAWS: 15 of equal row count), sized for what they hold at the
    /// end: growing tables (`DbTest::appends`) have room for `rows` more.
    pub tables: Vec<Table>,
    /// Rows each table starts with.
    pub rows: u64,
    /// Rows per range test operation.
    pub range_rows: u64,
    /// Rows per commit of the load.
    pub rows_per_commit: u64,
    /// Buffer cache, blocks of 8 KiB.
    pub buffer_blocks: u64,
    /// The host's file-system cache under the data files, blocks of 8 KiB: PostgreSQL reads
    /// and writes through it, so a buffer miss it holds costs no device read. 0: none (a
    /// database on raw devices, ASM or O_DIRECT, as in the classic studies).
    pub os_cache_blocks: u64,
    /// Time of a read the file cache serves (system call and 8 KiB copy), ns.
    pub os_read_ns: u64,
    /// The file cache starts holding the database's blocks (as far as it can), as it does
    /// right after the tables were loaded through it.
    pub os_cache_warm: bool,
    /// Think time between a session's operations, ns.
    pub think_ns: u64,
    /// CPU time per block access (buffer lookup, row processing), ns.
    pub cpu_ns_per_block: u64,
    /// CPU time per row processed and returned, ns.
    pub cpu_ns_per_row: u64,
    /// CPU time the load generator spends per operation on the same host CPUs (a client on
    /// the database host, as `storlab db`'s driver is), ns; 0: clients run elsewhere.
    pub client_cpu_ns: u64,
    /// Host CPUs the sessions share.
    pub cpus: u32,
    /// Log bytes per changed row (record headers, the new tuple).
    pub log_bytes_per_row: u64,
    /// Log bytes of a commit record.
    pub log_bytes_per_commit: u64,
    /// Database writer: writes in flight at most, and its round interval, ns.
    pub dbwr_outstanding: u32,
    pub dbwr_interval_ns: u64,
    /// Checkpoint interval, ns (0: none).
    pub checkpoint_ns: u64,
    /// Log file size and number of files in the ring.
    pub log_file_bytes: u64,
    pub log_groups: u32,
    /// Data and log on the same target: the log files start at this byte, after the data
    /// (logs striped with the data). None when the log has its own target.
    pub log_offset: Option<u64>,
    /// Where filled log files are archived (copied after each switch); None: no archiving.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<Placement>,
    /// A block profile measured on a real database (`--profile-from`); None: schema
    /// arithmetic alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<MeasuredProfile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    test: String,
    #[serde(default)]
    sessions: Option<u32>,
    data: Names,
    log: Names,
    #[serde(default = "d_rows")]
    rows: u64,
    #[serde(default = "d_tables")]
    tables: u32,
    #[serde(default = "d_row_bytes")]
    row_bytes: RowBytes,
    #[serde(default = "d_range")]
    range_rows: u64,
    #[serde(default = "d_rows_per_commit")]
    rows_per_commit: u64,
    #[serde(default = "d_buffer")]
    buffer: ByteSize,
    #[serde(default)]
    os_cache: ByteSize,
    #[serde(default = "d_os_read")]
    os_read: TimeSpan,
    #[serde(default)]
    os_cache_warm: bool,
    #[serde(default)]
    think: Option<TimeSpan>,
    #[serde(default = "d_cpu")]
    cpu_per_block: TimeSpan,
    #[serde(default = "d_cpu_row")]
    cpu_per_row: TimeSpan,
    #[serde(default)]
    client_cpu: TimeSpan,
    #[serde(default = "d_cpus")]
    cpus: u32,
    #[serde(default = "d_log_row")]
    log_bytes_per_row: u64,
    #[serde(default = "d_log_commit")]
    log_bytes_per_commit: u64,
    #[serde(default = "d_dbwr")]
    dbwr_outstanding: u32,
    #[serde(default = "d_dbwr_interval")]
    dbwr_interval: TimeSpan,
    #[serde(default = "d_checkpoint")]
    checkpoint_interval: TimeSpan,
    #[serde(default = "d_log_file")]
    log_file_size: ByteSize,
    #[serde(default = "d_log_groups")]
    log_files: u32,
    #[serde(default)]
    archive: Option<Names>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Names {
    One(String),
    Many(Vec<String>),
}

fn d_rows() -> u64 {
    1_000_000
}
fn d_row_bytes() -> RowBytes {
    RowBytes::One(100)
}
fn d_tables() -> u32 {
    1
}

/// Row size of every table, or `[smallest, largest]` spread evenly over the tables (DPAWS:
/// 14 to 805 bytes).
#[derive(Deserialize)]
#[serde(untagged)]
enum RowBytes {
    One(u64),
    Spread([u64; 2]),
}

impl RowBytes {
    fn of_table(&self, k: u64, tables: u64) -> u64 {
        match *self {
            RowBytes::One(b) => b,
            RowBytes::Spread([lo, hi]) if tables > 1 => {
                lo + (hi.saturating_sub(lo)) * k / (tables - 1)
            }
            RowBytes::Spread([lo, _]) => lo,
        }
    }

    fn valid(&self) -> bool {
        let ok = |b: u64| (1..=8_000).contains(&b);
        match *self {
            RowBytes::One(b) => ok(b),
            RowBytes::Spread([lo, hi]) => ok(lo) && ok(hi) && lo <= hi,
        }
    }
}
fn d_range() -> u64 {
    100
}
fn d_rows_per_commit() -> u64 {
    2
}
fn d_buffer() -> ByteSize {
    ByteSize(128 << 20)
}
/// Assumed: a pread of 8 KiB served by the Linux page cache (system call, page lookup and
/// copy) takes a few microseconds.
fn d_os_read() -> TimeSpan {
    TimeSpan(3_000)
}
fn d_cpu() -> TimeSpan {
    TimeSpan(5_000)
}
fn d_cpu_row() -> TimeSpan {
    TimeSpan(2_000)
}
fn d_cpus() -> u32 {
    8
}
fn d_log_row() -> u64 {
    150
}
fn d_log_commit() -> u64 {
    50
}
fn d_dbwr() -> u32 {
    64
}
fn d_dbwr_interval() -> TimeSpan {
    TimeSpan(200_000_000)
}
fn d_checkpoint() -> TimeSpan {
    TimeSpan(300_000_000_000)
}
fn d_log_file() -> ByteSize {
    ByteSize(256 << 20)
}
fn d_log_groups() -> u32 {
    3
}

fn placement(
    names: Names,
    system: &SystemSpec,
    file: &str,
    key: &str,
) -> Result<Placement, ConfigError> {
    let names = match names {
        Names::One(s) => vec![s],
        Names::Many(v) => v,
    };
    resolve_placement(&names, system)
        .map_err(|e| ConfigError::invalid(file, format!("database.{key}"), e))
}

/// The key of a `[database]` table that does not parse (the one without which the rest does),
/// as `database.KEY`; `database` when no single key is to blame.
fn culprit(value: &toml::Value) -> String {
    if let Some(table) = value.as_table() {
        for key in table.keys() {
            let mut rest = table.clone();
            rest.remove(key);
            if toml::Value::Table(rest).try_into::<Raw>().is_ok() {
                return format!("database.{key}");
            }
        }
    }
    "database".into()
}

/// Parses and checks a `[database]` table.
pub fn parse_database(
    value: toml::Value,
    file: &str,
    system: &SystemSpec,
) -> Result<DbSpec, ConfigError> {
    let bad = |k: &str, r: String| ConfigError::invalid(file, format!("database.{k}"), r);
    let raw: Raw = value.clone().try_into().map_err(|e: toml::de::Error| {
        ConfigError::invalid(file, culprit(&value), e.message().to_string())
    })?;
    let test = DbTest::parse(&raw.test).ok_or_else(|| {
        bad(
            "test",
            format!(
                "unknown test {:?}; use {}",
                raw.test,
                DbTest::NAMES.join(", ")
            ),
        )
    })?;
    check_bounds(&raw, file)?;
    if raw.cpus == 0 {
        return Err(bad("cpus", "must be at least 1".into()));
    }
    let sessions = raw.sessions.unwrap_or(test.default_sessions());
    if sessions == 0 {
        return Err(bad("sessions", "must be at least 1".into()));
    }
    if raw.rows_per_commit == 0 {
        return Err(bad("rows_per_commit", "must be at least 1".into()));
    }
    if raw.rows == 0 {
        return Err(bad("rows", "must be at least 1".into()));
    }
    if !raw.row_bytes.valid() {
        return Err(bad(
            "row_bytes",
            "must be 1 to 8000, or [smallest, largest] in that range".into(),
        ));
    }
    if raw.tables == 0 || raw.tables > 1000 {
        return Err(bad("tables", "must be 1 to 1000".into()));
    }
    if raw.range_rows == 0 || raw.range_rows > raw.rows {
        return Err(bad(
            "range_rows",
            format!("must be 1 to rows ({})", raw.rows),
        ));
    }
    let buffer_blocks = raw.buffer.0 / 8192;
    if buffer_blocks < 16 {
        return Err(bad(
            "buffer",
            "must hold at least 16 blocks of 8 KiB".into(),
        ));
    }
    if raw.dbwr_outstanding == 0 || raw.dbwr_interval.0 == 0 {
        return Err(bad(
            "dbwr_outstanding",
            "writer limits must be more than zero".into(),
        ));
    }
    if raw.log_files < 2 || raw.log_file_size.0 < (1 << 20) {
        return Err(bad(
            "log_files",
            "at least 2 log files of at least 1 MiB".into(),
        ));
    }
    let data = placement(raw.data, system, file, "data")?;
    let log = placement(raw.log, system, file, "log")?;
    // Growing tables get room for as many rows again (the inserts then wrap to the middle).
    let capacity = if test.appends() {
        2 * raw.rows
    } else {
        raw.rows
    };
    let mut tables: Vec<Table> = (0..u64::from(raw.tables))
        .map(|k| Table {
            rows: capacity,
            row_bytes: raw.row_bytes.of_table(k, u64::from(raw.tables)),
            fillfactor: 100,
            key_bytes: 8,
        })
        .collect();
    if test.oltp() {
        tables.push(Table {
            rows: capacity,
            row_bytes: HISTORY_ROW_BYTES,
            fillfactor: 100,
            key_bytes: 8,
        });
    }
    let blocks = Layout::new(&tables).blocks();
    if blocks >= u64::from(u32::MAX) {
        return Err(bad(
            "rows",
            format!(
                "the tables and indexes need {blocks} blocks of 8 KiB; at most {} (32 TiB) are \
                 simulated",
                u32::MAX - 1
            ),
        ));
    }
    let need = blocks * 8192;
    let have = data.bytes(system);
    if need > have {
        return Err(bad(
            "rows",
            format!("the tables and indexes need {need} bytes; the data target has {have}"),
        ));
    }
    let log_need = raw.log_file_size.0 * u64::from(raw.log_files);
    let shared = data.volume == log.volume && data.luns == log.luns;
    let log_offset = shared.then(|| need.div_ceil(1 << 20) << 20);
    if !shared {
        let data_luns = data.member_luns(system);
        if log
            .member_luns(system)
            .iter()
            .any(|l| data_luns.contains(l))
        {
            return Err(bad(
                "log",
                "shares some LUNs with database.data; name the same target for both (the log \
                 files then follow the data on it) or targets with no LUN in common"
                    .into(),
            ));
        }
    }
    let log_have = log.bytes(system).saturating_sub(log_offset.unwrap_or(0));
    if log_need > log_have {
        return Err(bad(
            "log_file_size",
            format!("the log files need {log_need} bytes; the log target has {log_have} free"),
        ));
    }
    let archive = match raw.archive {
        None => None,
        Some(names) => {
            let a = placement(names, system, file, "archive")?;
            let used: Vec<u32> = data
                .member_luns(system)
                .into_iter()
                .chain(log.member_luns(system))
                .collect();
            if a.member_luns(system).iter().any(|l| used.contains(l)) {
                return Err(bad(
                    "archive",
                    "shares LUNs with database.data or database.log; archive to a target of its own"
                        .into(),
                ));
            }
            if a.bytes(system) < raw.log_file_size.0 {
                return Err(bad(
                    "archive",
                    format!(
                        "the archive target ({} bytes) cannot hold one log file of {}",
                        a.bytes(system),
                        raw.log_file_size.0
                    ),
                ));
            }
            Some(a)
        }
    };
    Ok(DbSpec {
        test,
        sessions,
        data,
        log,
        tables,
        rows: raw.rows,
        range_rows: raw.range_rows,
        rows_per_commit: raw.rows_per_commit,
        buffer_blocks,
        os_cache_blocks: raw.os_cache.0 / 8192,
        os_read_ns: raw.os_read.0,
        os_cache_warm: raw.os_cache_warm,
        // The OLTP suite's clients think 10 ms between transactions.
        think_ns: raw
            .think
            .map_or(if test.oltp() { 10_000_000 } else { 0 }, |t| t.0),
        cpu_ns_per_block: raw.cpu_per_block.0,
        cpu_ns_per_row: raw.cpu_per_row.0,
        client_cpu_ns: raw.client_cpu.0,
        cpus: raw.cpus,
        log_bytes_per_row: raw.log_bytes_per_row,
        log_bytes_per_commit: raw.log_bytes_per_commit,
        dbwr_outstanding: raw.dbwr_outstanding,
        dbwr_interval_ns: raw.dbwr_interval.0,
        checkpoint_ns: raw.checkpoint_interval.0,
        log_file_bytes: raw.log_file_size.0,
        log_groups: raw.log_files,
        log_offset,
        archive,
        profile: None,
    })
}

/// Bounds on the keys that drive the model's memory (sessions, caches) or its time (every
/// duration), see [`limits`].
fn check_bounds(raw: &Raw, file: &str) -> Result<(), ConfigError> {
    let key = |k: &str| format!("database.{k}");
    let sessions = u64::from(raw.sessions.unwrap_or(0));
    limits::check_count(file, key("sessions"), sessions, MAX_SESSIONS, "sessions")?;
    limits::check_count(file, key("cpus"), raw.cpus.into(), 4096, "CPUs")?;
    for (k, size, max) in [
        ("buffer", raw.buffer, MAX_BUFFER_BYTES),
        ("os_cache", raw.os_cache, MAX_OS_CACHE_BYTES),
    ] {
        if size.0 > max {
            return Err(ConfigError::invalid(
                file,
                key(k),
                format!("must be at most {}; got {size}", ByteSize(max)),
            ));
        }
    }
    let per_op = [
        ("os_read", raw.os_read),
        ("cpu_per_block", raw.cpu_per_block),
        ("cpu_per_row", raw.cpu_per_row),
        ("client_cpu", raw.client_cpu),
        ("think", raw.think.unwrap_or_default()),
    ];
    for (k, t) in per_op {
        limits::check_time(file, key(k), t.0, limits::MAX_IO_LATENCY_NS)?;
    }
    for (k, t) in [
        ("dbwr_interval", raw.dbwr_interval),
        ("checkpoint_interval", raw.checkpoint_interval),
    ] {
        limits::check_time(file, key(k), t.0, limits::MAX_SIM_TIME_NS)?;
    }
    for (k, n) in [
        ("log_bytes_per_row", raw.log_bytes_per_row),
        ("log_bytes_per_commit", raw.log_bytes_per_commit),
    ] {
        limits::check_count(file, key(k), n, 1 << 20, "log bytes")?;
    }
    Ok(())
}
