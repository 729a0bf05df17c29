//! PostgreSQL's relation I/O by who did it, on what and how (pg_stat_io, PostgreSQL 16+),
//! over a database run's measured window.

use serde::{Deserialize, Serialize};

/// pg_stat_io over the measured window, or why the server could not say.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PgStatIo {
    /// Why there are no figures ("pg_stat_io needs PostgreSQL 16 or later; the server is
    /// 15.8"); absent when the view was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// Whether track_io_timing was on (omitted when off): the `_ms` figures are zero without.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timing: bool,
    /// The rows with activity in the window, most reads + writes first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<PgStatIoRow>,
}

/// One (backend type, object, context) row of pg_stat_io: counts of 8 KiB block operations
/// and the time they took. Operations a row cannot do (NULL in the view) count as 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PgStatIoRow {
    /// `client backend`, `checkpointer`, `background writer`, `autovacuum worker`, ...
    pub backend_type: String,
    /// `relation`, `temp relation` (and `wal` from PostgreSQL 18).
    pub object: String,
    /// `normal`, `vacuum`, `bulkread`, `bulkwrite` (and `init` from PostgreSQL 18).
    pub context: String,
    /// Read operations.
    pub reads: u64,
    /// Time in reads, ms.
    pub read_ms: f64,
    /// Write operations.
    pub writes: u64,
    /// Time in writes, ms.
    pub write_ms: f64,
    /// Writeback requests to the kernel.
    pub writebacks: u64,
    /// Relation extensions.
    pub extends: u64,
    /// Block found in a buffer (no read needed).
    pub hits: u64,
    /// Blocks evicted from a buffer to make room.
    pub evictions: u64,
    /// fsync calls.
    pub fsyncs: u64,
    /// Time in fsync calls, ms.
    pub fsync_ms: f64,
}
