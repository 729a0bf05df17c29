//! The keys of a `[database]` section, declared once: the parser fills the defaults in and
//! checks the bounds from this table, and docs/db.md is generated from it.

use storlab_core::keys::{Default, Key, Kind};

use super::super::limits::{MAX_IO_LATENCY_NS, MAX_SIM_TIME_NS};

/// Most sessions of a simulated database (each costs a few hundred bytes and its events).
pub const MAX_SESSIONS: u64 = 100_000;
/// Largest buffer cache: 1 TiB (about 1 GB of model memory).
pub const MAX_BUFFER_BYTES: u64 = 1 << 40;
/// Largest operating-system cache: 256 GiB (about 1.5 GB of model memory when warm).
pub const MAX_OS_CACHE_BYTES: u64 = 256 << 30;
/// Most host CPUs.
pub const MAX_CPUS: u64 = 4096;
/// Most log bytes per row or per commit record.
pub const MAX_LOG_BYTES: u64 = 1 << 20;
/// Most blocks of a multiblock read (8 MiB of 8 KiB blocks).
pub const MAX_MULTIBLOCK_READ_COUNT: u64 = 1024;

const NAMES: Kind = Kind::NameOrNames;
const ROW_BYTES: Kind = Kind::Other("integer, [smallest, largest] or one per table");
use Default::Value as D;

/// Largest row of a simulated table, bytes (a row fits in an 8 KiB block).
pub const MAX_ROW_BYTES: u64 = 8_000;

/// `row_bytes`: each size, both ends of `[smallest, largest]`, or each table's, within the
/// bounds.
pub const ROW_SIZE: Key = Key::new(
    "row_bytes",
    ROW_BYTES,
    Default::Derived(
        "the test's: DPAWS [14, 805], orabench 270 or 300, OLTP 100; a job's table 100",
    ),
    "row size of every table, `[smallest, largest]` spread evenly over the tables \
     (DPAWS: [14, 805]), or a list of one size per table (as many as `tables`)",
)
.int(1, MAX_ROW_BYTES)
.unit("bytes");

/// Every key of `[database]`, in the order the docs list them.
pub const DATABASE_KEYS: &[Key] = &[
    Key::new(
        "test",
        Kind::Other("test name"),
        Default::Required,
        "the test the sessions run, as `storlab db` names it (see the tests above)",
    ),
    Key::new(
        "sessions",
        Kind::Count,
        Default::Derived("the test's clients"),
        "database sessions, each running the test's operations back to back",
    )
    .int(1, MAX_SESSIONS)
    .unit("sessions"),
    Key::new(
        "after",
        Kind::Other("list of test names or tables { test, sessions, duration }"),
        Default::Derived("none: the test starts on a database no transaction has changed"),
        "tests the database runs first, in turn, on the same tables (DPAWS: `[\"dpaws/update-row\", \
         \"dpaws/update-range\"]` before a select, as the suite's cycle runs them): the blocks \
         they leave dirty, the log's position and Oracle's blocks left to clean out carry over \
         to `test`, whose run is measured. Each runs `duration` (default: the run's fixed warm-up; required with `--warmup auto`) \
         with `sessions` (default: its clients); then `test` runs its own warm-up and window",
    ),
    Key::new(
        "data",
        NAMES,
        Default::Required,
        "where the tables live: a volume, or LUN and group names (like a stream's target)",
    ),
    Key::new(
        "log",
        NAMES,
        Default::Required,
        "where the log lives; the same target as `data` puts the log files after the data",
    ),
    Key::new(
        "rows",
        Kind::Count,
        D("1000000"),
        "rows each table starts with",
    )
    .int(1, u64::MAX)
    .unit("rows"),
    Key::new(
        "tables",
        Kind::Count,
        Default::Derived("the test's: DPAWS 15, the others 1"),
        "tables of `rows` rows each (DPAWS: 15); operations pick one at random",
    )
    .int(1, 1000),
    ROW_SIZE,
    Key::new(
        "range_rows",
        Kind::Count,
        Default::Derived("the test's rows per statement"),
        "rows one range operation touches (DPAWS range tests: 10000); at most `rows`",
    )
    .int(1, u64::MAX)
    .unit("rows"),
    Key::new(
        "rows_per_commit",
        Kind::Count,
        D("2"),
        "rows each commit of `orabench/load-conventional` inserts",
    )
    .int(1, u64::MAX)
    .unit("rows"),
    Key::new(
        "buffer",
        Kind::Size,
        D("\"128MiB\""),
        "the database buffer cache (at least 16 blocks of 8 KiB)",
    )
    .int(16 * 8192, MAX_BUFFER_BYTES),
    Key::new(
        "os_cache",
        Kind::Size,
        D("0"),
        "the host's file cache under the data files (0: none, as on raw devices or O_DIRECT)",
    )
    .int(0, MAX_OS_CACHE_BYTES),
    Key::new(
        "os_read",
        Kind::Time,
        D("\"3us\""),
        "time of a read the file cache serves (system call and 8 KiB copy)",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "os_cache_warm",
        Kind::Bool,
        D("false"),
        "the file cache starts holding the database, as right after loading it",
    ),
    Key::new(
        "think",
        Kind::Time,
        Default::Derived("the test's (oltp: 10ms, else 0)"),
        "think time between a session's operations",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "cpu_per_block",
        Kind::Time,
        D("\"5us\""),
        "CPU time per block visited (buffer lookup, row processing)",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "cpu_per_row",
        Kind::Time,
        D("\"2us\""),
        "CPU time per row processed and returned",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "cpu_per_statement",
        Kind::Time,
        D("\"10us\""),
        "CPU time the server spends per statement besides its blocks and rows: the user call \
         (receiving the request, sending the reply) and the bind and execute of a cached \
         statement",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "cpu_per_commit",
        Kind::Time,
        D("\"6us\""),
        "CPU time the server spends per commit besides the commit's statement: the commit \
         record, releasing the transaction's locks, asking the log writer and being posted",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "client_cpu",
        Kind::Time,
        D("0"),
        "CPU time the load generator spends per operation on the same host CPUs (0: clients \
         run elsewhere)",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new("cpus", Kind::Count, D("8"), "host CPUs the sessions share")
        .int(1, MAX_CPUS)
        .unit("CPUs"),
    Key::new(
        "log_writer_cpu",
        Kind::Time,
        D("0"),
        "CPU time the log writer needs before each log write (waking, gathering the redo, \
         issuing the write, posting the commits), taken in turn with the sessions' CPU bursts \
         on the host CPUs: on a busy host it waits in the run queue, its writes come later and \
         carry more commits (0: the write is issued at once)",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "variability",
        Kind::Choice(&["fixed", "exponential"]),
        D("\"fixed\""),
        "think times and CPU bursts: fixed, or drawn from exponential distributions with the \
         same means (as queueing theory's closed networks assume; for checks against it)",
    ),
    Key::new(
        "log_bytes_per_row",
        Kind::Count,
        D("150"),
        "log bytes per changed row (record headers, the new tuple)",
    )
    .int(0, MAX_LOG_BYTES)
    .unit("bytes"),
    Key::new(
        "log_bytes_per_commit",
        Kind::Count,
        D("50"),
        "log bytes of a commit record",
    )
    .int(0, MAX_LOG_BYTES)
    .unit("bytes"),
    Key::new(
        "dbwr_outstanding",
        Kind::Count,
        D("64"),
        "writes the database writer keeps in flight at most",
    )
    .int(1, u64::MAX)
    .unit("writes"),
    Key::new(
        "dbwr_interval",
        Kind::Time,
        D("\"200ms\""),
        "the database writer's round interval",
    )
    .int(1, MAX_SIM_TIME_NS),
    Key::new(
        "checkpoint_interval",
        Kind::Time,
        D("\"300s\""),
        "PostgreSQL engine: timed checkpoint interval (0: none); the Oracle engine has no \
         timed full checkpoint (incremental and log-switch checkpoints only)",
    )
    .int(0, MAX_SIM_TIME_NS),
    Key::new(
        "log_checkpoint_timeout",
        Kind::Time,
        D("\"1800s\""),
        "Oracle engine: longest a block stays dirty before the incremental checkpoint writes \
         it (LOG_CHECKPOINT_TIMEOUT, default 1800 s; 0: no time target)",
    )
    .int(0, MAX_SIM_TIME_NS),
    Key::new(
        "log_file_size",
        Kind::Size,
        D("\"256MiB\""),
        "size of each log file",
    )
    .int(1 << 20, u64::MAX),
    Key::new("log_files", Kind::Count, D("3"), "log files in the ring")
        .int(2, u32::MAX as u64)
        .unit("files"),
    Key::new(
        "archive",
        NAMES,
        Default::Derived("none"),
        "archive each filled log file to this target (LUNs of its own)",
    ),
    Key::new(
        "engine",
        Kind::Choice(&["oracle", "postgresql"]),
        D("\"postgresql\""),
        "whose mechanics the database runs: `oracle` adds undo (each change dirties an undo \
         block and logs it), a log writer that also writes every 3 s and when a third of \
         `log_buffer` is full, multiplexed log members, and a checkpoint at each log switch",
    ),
    Key::new(
        "data_checksums",
        Kind::Choice(&["initdb", "on", "off"]),
        D("\"initdb\""),
        "PostgreSQL engine: data checksums (or `wal_log_hints = on`, the same for the WAL): \
         the first hint bit set on a page since the last checkpoint began writes a full-page \
         image to the WAL; `initdb`: what initdb does by default for `postgresql_version` \
         (on from PostgreSQL 18, off before)",
    ),
    Key::new(
        "postgresql_version",
        Kind::Count,
        D("15"),
        "PostgreSQL engine: the major version whose defaults apply (`data_checksums`)",
    )
    .int(9, 99),
    Key::new(
        "log_buffer",
        Kind::Size,
        D("\"8MiB\""),
        "Oracle's log buffer (`log_buffer`; Oracle sizes it from the SGA, a few MB to 32 MB): \
         a third of it unwritten starts a log write, and when it is full of redo not yet \
         written sessions wait for space (`log buffer space`); unused with \
         `engine = \"postgresql\"`",
    )
    .int(3 * 512, 1 << 30),
    Key::new(
        "log_members",
        Kind::Names,
        Default::Derived("none: one member, on `log`"),
        "further members of every log group, one per target (Oracle's multiplexed redo \
         logs; LUNs of their own): each log write goes to `log` and to every one of them",
    ),
    Key::new(
        "db_file_multiblock_read_count",
        Kind::Count,
        Default::Derived("1 MiB over the block size (oracle: 128), else 16 (128 KiB read-ahead)"),
        "blocks a characterization's scan reads at most in one multiblock or direct path read \
         (Oracle's `db_file_multiblock_read_count`); the built-in tests do not scan",
    )
    .int(1, MAX_MULTIBLOCK_READ_COUNT)
    .unit("blocks"),
    Key::new(
        "temp",
        NAMES,
        Default::Derived("the data target"),
        "where a characterization's sorts and hash joins write their temp segments \
         (`temp_bytes`): a target of their own, or by default the data target (its `temp` \
         segment, else its room after the segments and log files)",
    ),
];
