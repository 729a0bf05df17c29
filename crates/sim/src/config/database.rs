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
//! row_bytes = [14, 805]       # one size, [smallest, largest] spread evenly, or one per table
//! buffer = "2GiB"             # database buffer cache
//! os_cache = "16GiB"          # the host's file cache under the data files (0: none)
//! os_cache_warm = true        # it starts holding the database (as right after loading it)
//! archive = "archvol"         # optional: archive each filled log file to this target
//! engine = "oracle"           # default "postgresql"; oracle: undo, LGWR triggers, members
//! log_members = ["logvol2"]   # oracle: a second member of every log group
//! ```

use serde::{Deserialize, Serialize};
use storlab_core::character::Engine;
use storlab_core::{ByteSize, TimeSpan};

use storlab_core::dbtest::{self, mix, Access, DbTestDef};
use storlab_core::keys;

use super::workload::{resolve_placement, Placement};
use super::{ConfigError, SystemSpec};

mod after;
mod character;
mod job;
mod keys_table;
mod rows;
mod sizing;
mod suite;
mod targets;

pub use after::{durations_ns as after_durations_ns, PriorTest};
pub use character::{character_workload, CharacterSpec, DEFAULT_MULTIBLOCK_READ_COUNT};

pub use job::{JobExtents, JobKind, JobSpec, JOB_KEYS};
pub use keys_table::DATABASE_KEYS;
use rows::{engine_table, range_rows, RowBytes};
pub use suite::{
    characters_md, declared_character, insert_log_bytes, INDEX_INSERT_LOG_BYTES, INSERT_LOG_BYTES,
};
use targets::{log_members, temp_placement};

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

/// Where each variant, in the order of [`DbTest::NAMES`], is declared in
/// `storlab_core::dbtest::DB_TESTS` (a unit test checks the names match).
const DEF_INDEX: [usize; 7] = [0, 2, 1, 3, 4, 15, 16];

/// Every variant, in the order of [`DbTest::NAMES`].
const ALL_TESTS: [DbTest; 7] = [
    DbTest::UpdateRow,
    DbTest::SelectRow,
    DbTest::UpdateRange,
    DbTest::SelectRange,
    DbTest::LoadConventional,
    DbTest::OltpMedium,
    DbTest::OltpHeavy,
];

impl DbTest {
    /// The names of the tests the model runs (each declared in `storlab_core::dbtest`).
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
        DbTest::NAMES
            .iter()
            .position(|n| *n == s)
            .map(|i| ALL_TESTS[i])
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The test as declared once for `storlab db` and the simulator (an index, not a search:
    /// the model asks on every operation).
    #[inline]
    pub fn def(self) -> &'static DbTestDef {
        &dbtest::DB_TESTS[DEF_INDEX[self as usize]]
    }

    /// Its operations change data and commit (the OLTP mix: its write transactions).
    pub fn writes(self) -> bool {
        self.def().access.writes()
    }

    pub fn ranged(self) -> bool {
        self.def().ranged()
    }

    /// The OLTP mix.
    pub fn oltp(self) -> bool {
        self.def().access == Access::Mix
    }

    /// Its tables grow: inserts at their end (the load's tables, the OLTP history).
    pub fn appends(self) -> bool {
        self.def()
            .mix
            .iter()
            .flat_map(|t| t.statements)
            .any(|s| s.shape == mix::Shape::Append)
    }

    /// Its mix appends to a history table, which follows the test's tables.
    pub fn has_history(self) -> bool {
        mix::has_history(self.def().mix)
    }

    /// Sessions when the section does not say: the suites' client counts.
    pub fn default_sessions(self) -> u32 {
        self.def().default_clients
    }
}

/// A resolved `[database]` section.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DbSpec {
    pub test: DbTest,
    pub engine: Engine,
    pub sessions: u32,
    pub data: Placement,
    pub log: Placement,
    /// The test's tables (DPAWS: 15 of equal row count), sized for what they hold at the
    /// end: tables that receive inserts have room for `rows` more, the others none.
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
    /// CPU time per statement besides its blocks and rows (user call, bind and execute of a
    /// cached statement), ns.
    pub cpu_ns_per_statement: u64,
    /// CPU time per commit besides its statement (commit record, lock release, posting), ns.
    pub cpu_ns_per_commit: u64,
    /// CPU time the load generator spends per operation on the same host CPUs (a client on
    /// the database host, as `storlab db`'s driver is), ns; 0: clients run elsewhere.
    pub client_cpu_ns: u64,
    /// Host CPUs the sessions share.
    pub cpus: u32,
    /// CPU time the log writer needs before each log write, on the same host CPUs, ns (0:
    /// none, the write is issued at once).
    #[serde(skip_serializing_if = "is_zero")]
    pub log_writer_cpu_ns: u64,
    /// Think times and CPU bursts are drawn from exponential distributions with their
    /// means (`variability = "exponential"`); fixed otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exponential_times: bool,
    /// Log bytes per changed row (record headers, the new tuple).
    pub log_bytes_per_row: u64,
    /// Log bytes of a commit record.
    pub log_bytes_per_commit: u64,
    /// Database writer: writes in flight at most, and its round interval, ns.
    pub dbwr_outstanding: u32,
    pub dbwr_interval_ns: u64,
    /// Checkpoint interval, ns (0: none).
    pub checkpoint_ns: u64,
    /// Oracle: longest a block stays dirty before the incremental checkpoint writes it
    /// (`log_checkpoint_timeout`; 0: no time target).
    pub log_checkpoint_timeout_ns: u64,
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
    /// The log buffer, bytes (Oracle: a third of it unwritten starts a log write).
    pub log_buffer_bytes: u64,
    /// PostgreSQL: hint bits are WAL-logged (data checksums or `wal_log_hints`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub data_checksums: bool,
    /// Further members of every log group, each on its own target (none: one member).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub log_members: Vec<Placement>,
    /// Blocks of a characterization's multiblock reads, when `[database]` sets them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiblock_read_count: Option<u64>,
    /// A workload characterization the sessions run instead of the test's operations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub character: Option<Box<CharacterSpec>>,
    /// Where a characterization's temp I/O goes, when not to the data target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temp: Option<Placement>,
    /// A fixed-size job the database runs once, to completion, instead of the test's
    /// operations (`test` is then the base whose tables the job works on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<JobSpec>,
    /// Tests the database runs before `test`, in order, on the same tables (`after`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<PriorTest>,
}

impl DbSpec {
    /// Sessions of the busiest test the database runs (its own or one of `after`): the
    /// sessions the database is built with, Oracle's undo segments among their state.
    pub fn busiest_sessions(&self) -> u32 {
        self.after
            .iter()
            .map(|p| p.sessions)
            .fold(self.sessions, u32::max)
    }
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A `[database]` table checked and with the declared defaults filled in ([`DATABASE_KEYS`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    test: String,
    #[serde(default)]
    sessions: Option<u32>,
    #[serde(default)]
    after: Option<toml::Value>,
    data: Names,
    log: Names,
    rows: u64,
    #[serde(default)]
    tables: Option<u32>,
    #[serde(default)]
    row_bytes: Option<RowBytes>,
    #[serde(default)]
    range_rows: Option<u64>,
    rows_per_commit: u64,
    buffer: ByteSize,
    os_cache: ByteSize,
    os_read: TimeSpan,
    os_cache_warm: bool,
    #[serde(default)]
    think: Option<TimeSpan>,
    cpu_per_block: TimeSpan,
    cpu_per_row: TimeSpan,
    cpu_per_statement: TimeSpan,
    cpu_per_commit: TimeSpan,
    client_cpu: TimeSpan,
    cpus: u32,
    log_writer_cpu: TimeSpan,
    variability: String,
    log_bytes_per_row: u64,
    log_bytes_per_commit: u64,
    dbwr_outstanding: u32,
    dbwr_interval: TimeSpan,
    checkpoint_interval: TimeSpan,
    log_checkpoint_timeout: TimeSpan,
    log_file_size: ByteSize,
    log_files: u32,
    #[serde(default)]
    archive: Option<Names>,
    engine: Engine,
    data_checksums: String,
    postgresql_version: u32,
    log_buffer: ByteSize,
    #[serde(default)]
    log_members: Vec<String>,
    #[serde(default)]
    db_file_multiblock_read_count: Option<u64>,
    #[serde(default)]
    temp: Option<Names>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Names {
    One(String),
    Many(Vec<String>),
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
            keys::fill_defaults(&mut rest, DATABASE_KEYS);
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
    let mut table = match value.as_table() {
        Some(t) => t.clone(),
        None => return Err(ConfigError::invalid(file, "database", "must be a table")),
    };
    let after_given = table.contains_key("after");
    let job = job::take_if_job(&mut table, file, system)?;
    let query = crate::db::query::take_if_query(&mut table, file)?;
    let query_table = query.is_some().then(|| table.clone());
    keys::check_section(&mut table, DATABASE_KEYS).map_err(|(k, reason)| bad(&k, reason))?;
    let raw: Raw = toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| {
            ConfigError::invalid(file, culprit(&value), e.message().to_string())
        })?;
    if after_given && (job.is_some() || query.is_some()) {
        return Err(bad(
            "after",
            "a job or a query runs alone; only the tests of a suite run one after another".into(),
        ));
    }
    if let (Some(q), Some(t)) = (query, query_table) {
        return crate::db::query::database(&q, t, file, system);
    }
    let test = DbTest::parse(&raw.test).ok_or_else(|| {
        bad(
            "test",
            format!(
                "unknown test {:?}; use {}, {}, or a job: {}",
                raw.test,
                DbTest::NAMES.join(", "),
                crate::db::query::names().join(", "),
                dbtest::JOB_NAMES.join(", ")
            ),
        )
    })?;
    let sessions = raw.sessions.unwrap_or(test.default_sessions());
    let after = after::resolve(raw.after, test, file)?;
    // The data set the suite declares for the test, unless given.
    let n_tables = raw.tables.unwrap_or(test.def().table_count());
    let row_bytes = raw.row_bytes.unwrap_or(match test.def().row_bytes {
        [lo, hi] if lo == hi => RowBytes::One(lo),
        spread => RowBytes::Spread(spread),
    });
    row_bytes
        .check(u64::from(n_tables))
        .map_err(|r| bad("row_bytes", r))?;
    let range_rows =
        range_rows(test, raw.range_rows, raw.rows).map_err(|r| bad("range_rows", r))?;
    let buffer_blocks = raw.buffer.0 / 8192;
    let data = placement(raw.data, system, file, "data")?;
    let log = placement(raw.log, system, file, "log")?;
    // A table that grows gets room for as many rows again (the inserts then wrap to the
    // middle); one that never grows reserves nothing: the load's tables grow, the OLTP mix's
    // item tables do not (its inserts go to the history table).
    let grown = 2 * raw.rows;
    let capacity = if mix::appends_to_tables(test.def().mix) {
        grown
    } else {
        raw.rows
    };
    let mut tables: Vec<Table> = (0..u64::from(n_tables))
        .map(|k| {
            engine_table(
                raw.engine,
                capacity,
                row_bytes.of_table(k, u64::from(n_tables)),
            )
        })
        .collect();
    if test.has_history() {
        tables.push(engine_table(raw.engine, grown, mix::OLTP_HISTORY_ROW_BYTES));
    }
    let log_need = raw.log_file_size.0 * u64::from(raw.log_files);
    let shared = data.volume == log.volume && data.luns == log.luns;
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
    let log_members = log_members(&raw.log_members, &data, &log, log_need, system, file)?;
    let temp = temp_placement(raw.temp, &data, &log, system, file)?;
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
    let mut spec = DbSpec {
        test,
        engine: raw.engine,
        sessions,
        data,
        log,
        tables,
        rows: raw.rows,
        range_rows,
        rows_per_commit: raw.rows_per_commit,
        buffer_blocks,
        os_cache_blocks: raw.os_cache.0 / 8192,
        os_read_ns: raw.os_read.0,
        os_cache_warm: raw.os_cache_warm,
        // The suite's clients think between operations (OLTP: 10 ms).
        think_ns: raw.think.map_or(test.def().think_ms * 1_000_000, |t| t.0),
        cpu_ns_per_block: raw.cpu_per_block.0,
        cpu_ns_per_row: raw.cpu_per_row.0,
        cpu_ns_per_statement: raw.cpu_per_statement.0,
        cpu_ns_per_commit: raw.cpu_per_commit.0,
        client_cpu_ns: raw.client_cpu.0,
        cpus: raw.cpus,
        log_writer_cpu_ns: raw.log_writer_cpu.0,
        exponential_times: raw.variability == "exponential",
        log_bytes_per_row: raw.log_bytes_per_row,
        log_bytes_per_commit: raw.log_bytes_per_commit,
        dbwr_outstanding: raw.dbwr_outstanding,
        dbwr_interval_ns: raw.dbwr_interval.0,
        checkpoint_ns: raw.checkpoint_interval.0,
        log_checkpoint_timeout_ns: raw.log_checkpoint_timeout.0,
        log_file_bytes: raw.log_file_size.0,
        log_groups: raw.log_files,
        // Set by the sizing check, after the page space when the log shares its target.
        log_offset: None,
        archive,
        profile: None,
        log_buffer_bytes: raw.log_buffer.0,
        data_checksums: match raw.data_checksums.as_str() {
            "on" => true,
            "off" => false,
            // initdb enables data checksums by default from PostgreSQL 18 (--no-data-checksums
            // turns them off); before, --data-checksums turns them on.
            _ => raw.postgresql_version >= 18,
        },
        log_members,
        multiblock_read_count: raw.db_file_multiblock_read_count,
        character: None,
        temp,
        job: None,
        after,
    };
    sizing::place(&mut spec, system, file)?;
    job::attach(spec, job, file, system)
}

#[cfg(test)]
mod tests;
