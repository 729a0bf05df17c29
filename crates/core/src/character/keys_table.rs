//! The keys of a workload characterization, declared once per section: the parser fills the
//! defaults in and checks the bounds from these tables, and docs/workload-characterization.md
//! shows them (a test keeps the two equal).

use super::access::UNKNOWN_SIZE;
use crate::keys::{Default, Key, Kind};

/// Most sessions of a characterized workload.
pub const MAX_SESSIONS: u64 = 100_000;
/// Most blocks a transaction visits or changes per execution: 1e9 blocks (8 TB of 8 KiB
/// blocks, a whole-database scan of a large warehouse).
pub const MAX_BLOCKS: f64 = 1e9;
/// Most rows a transaction inserts per execution.
pub const MAX_ROWS: f64 = 1e12;
/// Most redo/WAL bytes per execution: 10 TB.
pub const MAX_REDO_BYTES: f64 = 1e13;
/// Most temp bytes per execution (sort runs, hash partitions): 100 TB.
pub const MAX_TEMP_BYTES: f64 = 1e14;
/// Most CPU milliseconds or statements per execution (1e9 ms: about 11.6 days).
pub const MAX_PER_EXEC: f64 = 1e9;
/// Longest think time between two executions of a session: one day.
pub const MAX_THINK_MS: f64 = 86_400_000.0;
/// Largest segment: 1 PiB.
pub const MAX_SEGMENT_BYTES: u64 = 1 << 50;
/// Most host CPUs.
pub const MAX_CPUS: u64 = 4096;
/// Largest buffer cache: 64 TiB.
pub const MAX_BUFFER_CACHE_BYTES: u64 = 64 << 40;
/// Largest log buffer: 4 GiB.
pub const MAX_LOG_BUFFER_BYTES: u64 = 4 << 30;
/// Largest observed rate, per second, of any counter.
pub const MAX_RATE_PER_S: f64 = 1e12;
/// Largest observed total of a counter over the report's interval.
pub const MAX_TOTAL: f64 = 1e15;
/// Longest observed average wait: 1e7 ms (about 2.8 hours).
pub const MAX_WAIT_MS: f64 = 1e7;

const NOT_OBSERVED: Default = Default::Derived("none: not observed");
const TABLES: Kind = Kind::Tables;
const TABLE: Kind = Kind::Table;
use Default::Value as D;

/// Keys at the top of a characterization.
pub const CHARACTERIZATION_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Default::Required,
        "what the workload is called in results",
    ),
    Key::new(
        "engine",
        Kind::Choice(&["oracle", "postgresql"]),
        Default::Required,
        "the database engine whose mechanics run the workload",
    ),
    Key::new(
        "source",
        Kind::Text,
        D("\"hand\""),
        "where the characterization came from: `awr:FILE`, `statspack:FILE`, \
         `builtin:dpaws/update-row`, `pg-capture:...`, or `hand`",
    ),
    Key::new(
        "sessions",
        Kind::Count,
        Default::Required,
        "database sessions running the transactions, each with its think time",
    )
    .int(1, MAX_SESSIONS)
    .unit("sessions"),
    Key::new(
        "block_bytes",
        Kind::Count,
        D("8192"),
        "database block size; a power of two",
    )
    .int(512, 65_536)
    .unit("bytes"),
    Key::new(
        "transactions",
        TABLES,
        Default::Required,
        "the mix of transaction types (`[[transactions]]`, at least one)",
    ),
    Key::new(
        "segments",
        TABLES,
        Default::Required,
        "the data set (`[[segments]]`, at least one)",
    ),
    Key::new(
        "instance",
        TABLE,
        Default::Required,
        "the server the workload ran on (`[instance]`)",
    ),
    Key::new(
        "observed",
        TABLE,
        NOT_OBSERVED,
        "rates measured on the real server (`[observed]`), for calibrating and checking",
    ),
];

/// Keys of one `[[transactions]]` entry; every quantity is per execution.
pub const TRANSACTION_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Default::Required,
        "the transaction type's name",
    ),
    Key::new(
        "weight",
        Kind::Number,
        Default::Required,
        "its share of the executions; the weights of all types sum to 1 (within 1e-6)",
    )
    .float(0.0, 1.0),
    Key::new(
        "logical_reads",
        Kind::Number,
        Default::Required,
        "blocks visited (buffer gets), index and table",
    )
    .float(0.0, MAX_BLOCKS)
    .unit("blocks"),
    Key::new(
        "index_share",
        Kind::Number,
        D("0.0"),
        "share of the logical reads that visit index blocks",
    )
    .float(0.0, 1.0),
    Key::new(
        "scan_share",
        Kind::Number,
        D("0.0"),
        "share of the logical reads made by multiblock or full scans",
    )
    .float(0.0, 1.0),
    Key::new(
        "blocks_changed",
        Kind::Number,
        D("0.0"),
        "table and index blocks changed (under `engine = \"oracle\"` the simulated undo adds \
         each change's undo record; Oracle's db block changes count both)",
    )
    .float(0.0, MAX_BLOCKS)
    .unit("blocks"),
    Key::new("rows_inserted", Kind::Number, D("0.0"), "rows inserted")
        .float(0.0, MAX_ROWS)
        .unit("rows"),
    Key::new(
        "redo_bytes",
        Kind::Number,
        D("0.0"),
        "redo or WAL generated",
    )
    .float(0.0, MAX_REDO_BYTES)
    .unit("bytes"),
    Key::new(
        "cpu_ms",
        Kind::Number,
        Default::Required,
        "database CPU time spent by the execution",
    )
    .float(0.0, MAX_PER_EXEC)
    .unit("ms"),
    Key::new(
        "statements",
        Kind::Number,
        D("1.0"),
        "SQL statements executed",
    )
    .float(0.0, MAX_PER_EXEC)
    .unit("statements"),
    Key::new(
        "think_ms",
        Kind::Number,
        D("0.0"),
        "time a session waits after the execution before the next one",
    )
    .float(0.0, MAX_THINK_MS)
    .unit("ms"),
    Key::new(
        "temp_bytes",
        Kind::Number,
        D("0.0"),
        "bytes sorts and hash joins write to temp and read back (work beyond their memory): \
         written in large direct writes and read back once, bypassing the buffer cache",
    )
    .float(0.0, MAX_TEMP_BYTES)
    .unit("bytes"),
    Key::new(
        "physical_reads",
        Kind::Number,
        NOT_OBSERVED,
        "blocks read from storage, as observed on the real server",
    )
    .float(0.0, MAX_BLOCKS)
    .unit("blocks"),
    Key::new(
        "physical_writes",
        Kind::Number,
        NOT_OBSERVED,
        "blocks written to storage, as observed on the real server",
    )
    .float(0.0, MAX_BLOCKS)
    .unit("blocks"),
    Key::new(
        "steps",
        TABLES,
        Default::Derived("none: visits drawn by share"),
        "the statements by key, range or append (`[[transactions.steps]]`); when given, they \
         plan the blocks visited, changed and inserted, and `logical_reads`, `index_share`, \
         `blocks_changed` and `rows_inserted` state their averages",
    ),
];

/// Most rows a step reaches.
pub const MAX_STEP_ROWS: u64 = 1 << 40;
/// Most times a step runs per execution.
pub const MAX_STEP_TIMES: u64 = 100_000;

/// Keys of one `[[transactions.steps]]` entry: a statement reaching rows by primary key
/// (one key, or a range of consecutive keys) or appending them at a table's end.
pub const STEP_KEYS: &[Key] = &[
    Key::new(
        "table",
        Kind::Text,
        Default::Required,
        "the table segment it works on (one with `rows`), or `\"*\"`: one of the tables with \
         a primary key, picked evenly once per execution (every `\"*\"` step of the execution \
         on the same table)",
    ),
    Key::new(
        "reach",
        Kind::Choice(&["key", "range", "append"]),
        Default::Required,
        "`key`/`range`: `rows` consecutive keys from a random first one (the index levels \
         above the leaves, the leaves holding the keys, the heap blocks holding the rows); \
         `append`: `rows` rows inserted at the table's end and its primary key's right edge, \
         filling the last block before the next (blocks created, not read)",
    ),
    Key::new(
        "rows",
        Kind::Count,
        D("1"),
        "rows reached per run: a range's consecutive keys, an append's rows",
    )
    .int(1, MAX_STEP_ROWS)
    .unit("rows"),
    Key::new(
        "changes",
        Kind::Choice(&["none", "table", "table+index"]),
        Default::Derived("`none` for key and range, `table+index` for append"),
        "the blocks it changes, of those holding the rows it reached: none, the heap blocks, \
         or the heap blocks and the index leaves (an unindexed table has no leaves to change)",
    ),
    Key::new(
        "times",
        Kind::Count,
        D("1"),
        "runs per execution, each from its own random key",
    )
    .int(1, MAX_STEP_TIMES),
];

/// Keys of one `[[segments]]` entry.
pub const SEGMENT_KEYS: &[Key] = &[
    Key::new("name", Kind::Text, Default::Required, "the segment's name"),
    Key::new(
        "kind",
        Kind::Choice(&["table", "index", "undo", "temp", "log"]),
        Default::Required,
        "what the segment holds",
    ),
    Key::new(
        "size",
        Kind::Size,
        Default::Required,
        "its size; `\"unknown\"` marks a size the source did not give, to be filled in \
         before the workload is simulated",
    )
    .int(0, MAX_SEGMENT_BYTES)
    .or_word(UNKNOWN_SIZE),
    Key::new(
        "tablespace",
        Kind::Text,
        Default::Derived("the segment's name"),
        "the tablespace (or file group) it lives in, for placement",
    ),
    Key::new(
        "access",
        Kind::Other("`uniform`, `zipf:THETA`, `hot:DATA/ACCESSES`"),
        D("\"uniform\""),
        "how accesses spread over its blocks: evenly, Zipf with exponent THETA (0 to 10), or \
         a hot set: the fraction DATA of the blocks takes the fraction ACCESSES of the accesses",
    ),
    Key::new(
        "share",
        Kind::Number,
        Default::Required,
        "its share of the workload's block accesses; the shares of all segments sum to 1 \
         (within 1e-6)",
    )
    .float(0.0, 1.0),
    Key::new(
        "rows",
        Kind::Count,
        Default::Derived("none: not reached by key"),
        "a table's rows, for steps; its blocks hold them evenly (rows per block: `rows` over \
         its blocks, rounded up)",
    )
    .int(1, MAX_STEP_ROWS)
    .unit("rows"),
    Key::new(
        "table",
        Kind::Text,
        Default::Derived("none: no table's primary key"),
        "an index's table: the index is its primary key, one entry per row (and per row its \
         growth room holds, when steps append to it)",
    ),
    Key::new(
        "levels",
        Kind::Count,
        Default::Derived("none; required with `table`"),
        "a primary key's B-tree height, root to leaf (Oracle's BLEVEL + 1; PostgreSQL's \
         tree_level + 1); the segment holds a header block, the upper levels, then the leaves",
    )
    .int(1, 16)
    .unit("levels"),
    Key::new(
        "leaf_blocks",
        Kind::Count,
        Default::Derived("the segment's blocks less a header and one block per upper level"),
        "a primary key's leaf blocks (Oracle's LEAF_BLOCKS, PostgreSQL's leaf_pages); the \
         keys spread evenly over them",
    )
    .int(1, u64::MAX)
    .unit("blocks"),
    Key::new(
        "change_share",
        Kind::Number,
        Default::Derived("none: the changes are each transaction's first visits"),
        "its share of the workload's changed blocks; when any segment gives one, the changes \
         fall on the segments that do, by these shares",
    )
    .float(0.0, 1.0),
    Key::new(
        "change_set",
        Kind::Size,
        Default::Derived("none: the whole segment"),
        "the blocks its changes fall on, evenly: its first, as many as this size holds (at \
         most the segment)",
    )
    .int(1, MAX_SEGMENT_BYTES),
];

/// `[instance]`'s `cpus`, also what `storlab db --capture --cpus` takes.
pub const CPUS: Key = Key::new(
    "cpus",
    Kind::Count,
    Default::Required,
    "host CPUs the sessions share",
)
.int(1, MAX_CPUS)
.unit("CPUs");

/// Keys of `[instance]`.
pub const INSTANCE_KEYS: &[Key] = &[
    CPUS,
    Key::new(
        "cpu_busy_pct",
        Kind::Number,
        NOT_OBSERVED,
        "host CPU busy over the observed interval",
    )
    .float(0.0, 100.0)
    .unit("%"),
    Key::new(
        "buffer_cache",
        Kind::Size,
        Default::Required,
        "the database buffer cache",
    )
    .int(0, MAX_BUFFER_CACHE_BYTES),
    Key::new(
        "log_buffer",
        Kind::Size,
        D("\"16m\""),
        "the redo log / WAL buffer",
    )
    .int(0, MAX_LOG_BUFFER_BYTES),
    Key::new(
        "db_time_per_s",
        Kind::Number,
        NOT_OBSERVED,
        "database time per second: the average number of active sessions",
    )
    .float(0.0, MAX_SESSIONS as f64)
    .unit("sessions"),
    Key::new(
        "settings",
        TABLE,
        Default::Derived("none: not captured"),
        "the server's settings as it reported them (`[instance.settings]`)",
    ),
];

/// Keys of `[observed]`: what the real server did, per second of the observed interval.
pub const OBSERVED_KEYS: &[Key] = &[
    Key::new(
        "elapsed_s",
        Kind::Number,
        NOT_OBSERVED,
        "length of the observed interval",
    )
    .float(0.0, 1e9)
    .unit("s"),
    rate("transactions_per_s", "transactions (commits and rollbacks)"),
    rate("logical_reads_per_s", "logical reads (blocks)"),
    rate("physical_reads_per_s", "blocks read from storage"),
    rate("physical_writes_per_s", "blocks written to storage"),
    rate("redo_bytes_per_s", "redo or WAL bytes"),
    rate("block_changes_per_s", "blocks changed"),
    rate("user_calls_per_s", "calls from clients"),
    rate("executes_per_s", "SQL executions"),
    rate("parses_per_s", "SQL parses"),
    rate("rollbacks_per_s", "rollbacks"),
    rate("db_cpu_per_s", "database CPU seconds"),
    rate(
        "background_cpu_per_s",
        "background processes' CPU seconds (the log writer, the database writer)",
    ),
    rate(
        "direct_reads_per_s",
        "blocks read by direct path, bypassing the buffer cache",
    ),
    rate("index_fetches_per_s", "index probes by key"),
    Key::new(
        "events",
        TABLES,
        NOT_OBSERVED,
        "top timed events (`[[observed.events]]`)",
    ),
    Key::new(
        "tablespaces",
        TABLES,
        NOT_OBSERVED,
        "I/O per tablespace (`[[observed.tablespaces]]`)",
    ),
    Key::new(
        "files",
        TABLES,
        NOT_OBSERVED,
        "I/O per data file (`[[observed.files]]`)",
    ),
];

const fn rate(name: &'static str, help: &'static str) -> Key {
    Key::new(name, Kind::Number, NOT_OBSERVED, help)
        .float(0.0, MAX_RATE_PER_S)
        .unit("per s")
}

/// Keys of one `[[observed.events]]` entry.
pub const EVENT_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Default::Required,
        "the event (`db file sequential read`, `DB CPU`)",
    ),
    Key::new(
        "waits",
        Kind::Number,
        NOT_OBSERVED,
        "waits over the interval",
    )
    .float(0.0, MAX_TOTAL)
    .unit("waits"),
    Key::new(
        "time_s",
        Kind::Number,
        Default::Required,
        "time waited over the interval",
    )
    .float(0.0, MAX_TOTAL)
    .unit("s"),
    Key::new("avg_ms", Kind::Number, NOT_OBSERVED, "average wait")
        .float(0.0, MAX_WAIT_MS)
        .unit("ms"),
    Key::new(
        "pct_db_time",
        Kind::Number,
        NOT_OBSERVED,
        "share of database time",
    )
    .float(0.0, 100.0)
    .unit("%"),
    Key::new(
        "wait_class",
        Kind::Text,
        NOT_OBSERVED,
        "Oracle's wait class (`User I/O`, `Commit`)",
    ),
];

/// Keys of one `[[observed.tablespaces]]` or `[[observed.files]]` entry.
pub const IO_KEYS: &[Key] = &[
    Key::new(
        "tablespace",
        Kind::Text,
        Default::Required,
        "the tablespace",
    ),
    Key::new(
        "file",
        Kind::Text,
        Default::Derived("none: the tablespace's total"),
        "the data file",
    ),
    Key::new(
        "reads",
        Kind::Number,
        NOT_OBSERVED,
        "read requests over the interval",
    )
    .float(0.0, MAX_TOTAL)
    .unit("reads"),
    rate("reads_per_s", "read requests"),
    Key::new(
        "read_avg_ms",
        Kind::Number,
        NOT_OBSERVED,
        "average read time",
    )
    .float(0.0, MAX_WAIT_MS)
    .unit("ms"),
    Key::new(
        "blocks_per_read",
        Kind::Number,
        NOT_OBSERVED,
        "average blocks per read",
    )
    .float(0.0, 65_536.0)
    .unit("blocks"),
    Key::new(
        "writes",
        Kind::Number,
        NOT_OBSERVED,
        "write requests over the interval",
    )
    .float(0.0, MAX_TOTAL)
    .unit("writes"),
    rate("writes_per_s", "write requests"),
    Key::new(
        "buffer_waits",
        Kind::Number,
        NOT_OBSERVED,
        "buffer busy waits over the interval",
    )
    .float(0.0, MAX_TOTAL)
    .unit("waits"),
    Key::new(
        "buffer_wait_avg_ms",
        Kind::Number,
        NOT_OBSERVED,
        "average buffer busy wait",
    )
    .float(0.0, MAX_WAIT_MS)
    .unit("ms"),
];

/// Every section's keys with the heading the docs give it, in the docs' order.
pub const SECTIONS: &[(&str, &[Key])] = &[
    ("top level", CHARACTERIZATION_KEYS),
    ("[[transactions]]", TRANSACTION_KEYS),
    ("[[transactions.steps]]", STEP_KEYS),
    ("[[segments]]", SEGMENT_KEYS),
    ("[instance]", INSTANCE_KEYS),
    ("[instance.settings]", super::settings::SETTINGS_KEYS),
    ("[observed]", OBSERVED_KEYS),
    ("[[observed.events]]", EVENT_KEYS),
    ("[[observed.tablespaces]] and [[observed.files]]", IO_KEYS),
];
