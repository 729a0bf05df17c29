//! What a database run gathers beside its rates (the statspack of the tool): wait events,
//! server settings, WAL, checkpoints, per-statement block profiles and the devices under each
//! role of the database.

use serde::{Deserialize, Serialize};

use super::{DeviceIostat, PgStatIo};

/// A wait event's share of database time (sampled from pg_stat_activity).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WaitEvent {
    /// `IO:DataFileRead`, `IO:WALSync`, `LWLock:WALWrite`, `CPU` (active, not waiting).
    pub event: String,
    /// Share of the sampled active session time, percent.
    pub time_pct: f64,
    /// Mean length of one wait, ms: the simulator's exact figure; for a real server the
    /// server's own timing of that operation (`avg_from` says which view), or, for waits the
    /// server does not time, an estimate from consecutive samples of a session when the waits
    /// clearly outlast the sampling interval. Absent (null) when neither can time it.
    #[serde(default)]
    pub avg_ms: Option<f64>,
    /// Where a real server's `avg_ms` comes from: `pg_stat_wal`, `pg_stat_io`,
    /// `pg_stat_database` (the server timed every operation) or `samples` (run lengths of
    /// the 10 ms wait samples). Absent for simulated runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg_from: Option<String>,
}

impl WaitEvent {
    /// Decimals to print a mean wait of `ms` with: microsecond waits (reads from the OS page
    /// cache) need the third, millisecond ones two. Every table of waits uses it.
    pub fn avg_decimals(ms: f64) -> usize {
        if ms < 1.0 {
            3
        } else {
            2
        }
    }
}

/// The statspack of a database run: server settings, WAL, checkpoints, statements, devices.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DbEvidence {
    /// Server version.
    pub server_version: String,
    /// Settings storlab chose (or found), as name -> value.
    pub settings: std::collections::BTreeMap<String, String>,
    /// WAL activity over the measured window (pg_stat_wal).
    pub wal: WalStats,
    /// Checkpoints and buffer writes (pg_stat_bgwriter).
    pub checkpoints: CheckpointStats,
    /// The heaviest statements (pg_stat_statements), per call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub statements: Vec<StatementStats>,
    /// iostat view of the devices by role (data, wal, tablespace:NAME).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<RoleIostat>,
    /// Relation I/O by backend type, object and context (pg_stat_io; PostgreSQL 16+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pg_stat_io: Option<PgStatIo>,
    /// CPU time (user + system) the server's processes (postmaster, backends, background
    /// processes) used over the measured window, seconds: known when storlab started the
    /// server on this machine. The backends serving storlab's own monitoring (the wait
    /// sampler, the statistics snapshots) are not counted: `monitor_cpu_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cpu_s: Option<f64>,
    /// CPU time the server's backends for storlab's monitoring connections used over the
    /// window, seconds (excluded from `server_cpu_s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monitor_cpu_s: Option<f64>,
    /// `server_cpu_s` per operation the clients completed in the window, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cpu_ns_per_op: Option<f64>,
    /// Notes for the reader ("reads served from the OS page cache").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// WAL figures of a window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WalStats {
    /// WAL records.
    pub records: u64,
    /// Full-page images.
    pub full_page_images: u64,
    /// Bytes.
    pub bytes: u64,
    /// MB/s.
    pub mb_per_s: f64,
    /// WAL writes.
    pub writes: u64,
    /// WAL syncs.
    pub syncs: u64,
    /// Time writing WAL, ms.
    pub write_ms: f64,
    /// Time syncing WAL, ms.
    pub sync_ms: f64,
}

/// Checkpoint figures of a window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckpointStats {
    /// Checkpoints by timeout.
    pub timed: u64,
    /// Checkpoints requested (WAL size, explicit).
    pub requested: u64,
    /// Buffers written by the checkpointer.
    pub buffers_checkpoint: u64,
    /// Buffers written by the background writer.
    pub buffers_clean: u64,
    /// Buffers written by backends themselves.
    pub buffers_backend: u64,
}

/// Per-call block profile of one statement (pg_stat_statements).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatementStats {
    /// Normalised query text (shortened).
    pub query: String,
    /// Calls in the window.
    pub calls: u64,
    /// Mean execution time, ms.
    pub mean_ms: f64,
    /// Rows per call.
    pub rows_per_call: f64,
    /// Shared blocks hit per call.
    pub shared_blks_hit: f64,
    /// Shared blocks read per call.
    pub shared_blks_read: f64,
    /// Shared blocks dirtied per call.
    pub shared_blks_dirtied: f64,
    /// Shared blocks written per call.
    pub shared_blks_written: f64,
    /// WAL bytes per call.
    pub wal_bytes: f64,
}

/// Devices of one database role.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RoleIostat {
    /// `data`, `wal`, `tablespace:NAME`.
    pub role: String,
    /// Path of the role.
    pub path: String,
    /// The devices under it.
    pub devices: Vec<DeviceIostat>,
}
