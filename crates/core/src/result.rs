//! The result schema `storlab.results/1`: what every run writes, real or simulated.
//!
//! One serde type per JSON object; fields that do not apply to a run are omitted, never
//! faked. Rates use decimal megabytes (1 MB = 10^6 bytes) per second, latencies milliseconds.

use serde::{Deserialize, Serialize};

use crate::histogram::LatencySummaryMs;

mod db_evidence;
mod job;
mod pg_stat_io;
mod sim_metrics;
#[doc(hidden)]
pub mod test_run;
mod users_sweep;
pub use db_evidence::{
    CheckpointStats, DbEvidence, RoleIostat, StatementStats, WaitEvent, WalStats,
};
pub use job::{JobOutcome, JobVolumeIo};
pub use pg_stat_io::{PgStatIo, PgStatIoRow};
pub use sim_metrics::{
    ArrayMetrics, ComponentMetrics, PathMetrics, RebuildMetrics, SimEvent, StripeWrites,
};
pub use users_sweep::{DeviceUtil, Knee, UsersPoint, UsersSweep};

/// Schema identifier written into every result file.
pub const SCHEMA: &str = "storlab.results/1";

/// A result file: one or more runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// storlab version that wrote the file.
    pub storlab_version: String,
    /// Git commit storlab was built from (`unknown` outside a checkout).
    pub git_commit: String,
    /// The runs.
    pub runs: Vec<Run>,
    /// A users sweep over the runs (one run per user count); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub users_sweep: Option<UsersSweep>,
}

impl Results {
    /// A result file holding `runs`.
    pub fn new(git_commit: &str, runs: Vec<Run>) -> Results {
        Results {
            schema: SCHEMA.to_string(),
            storlab_version: crate::VERSION.to_string(),
            git_commit: git_commit.to_string(),
            runs,
            users_sweep: None,
        }
    }
}

/// Real hardware or simulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// Simulated array.
    Sim,
    /// Real file, device or database.
    Real,
}

/// What ran: the storage under test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// Name (array name, path).
    pub name: String,
    /// Real or simulated.
    pub kind: TargetKind,
    /// Configuration file it came from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// One-line description (levels, disk counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// I/O profile or database test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadKind {
    /// I/O profile.
    Io,
    /// Database test.
    Db,
}

/// The workload that ran, with its effective parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// `randwrite-8k`, `dpaws/update-row`, ...
    pub name: String,
    /// I/O or database.
    pub kind: WorkloadKind,
    /// Measured window in seconds (after warm-up).
    pub duration_s: f64,
    /// Warm-up excluded from the measurement, seconds: the warm-up actually used (with
    /// `--warmup auto`, as long as it took to reach steady state).
    pub warmup_s: f64,
    /// The warm-up was automatic (`--warmup auto`): extended until steady, up to a limit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub warmup_auto: bool,
    /// Effective parameters (profiles, streams), as given to the engine.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub parameters: serde_json::Value,
}

/// Throughput and latency over the measured window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Completed I/Os per second.
    pub iops: f64,
    /// Reads per second.
    pub read_iops: f64,
    /// Writes per second.
    pub write_iops: f64,
    /// MB/s (10^6 bytes).
    pub mbps: f64,
    /// Read MB/s.
    pub read_mbps: f64,
    /// Write MB/s.
    pub write_mbps: f64,
    /// Latency of all I/Os.
    pub latency_ms: LatencySummaryMs,
    /// Latency of reads, when there were reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_latency_ms: Option<LatencySummaryMs>,
    /// Latency of writes, when there were writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_latency_ms: Option<LatencySummaryMs>,
    /// I/Os completed in the measured window.
    pub ios: u64,
    /// I/Os that failed (no path, lost data) in the measured window.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub io_errors: u64,
    /// Database runs: rows processed per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows_per_s: Option<f64>,
    /// Database runs: transactions per minute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_per_min: Option<f64>,
    /// Database runs: WAL (redo) generated, MB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal_mb_per_s: Option<f64>,
    /// Database runs: commit latency, the commit's wait for the log writer to make it
    /// durable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_ms: Option<LatencySummaryMs>,
    /// Database runs: transaction response time, from the transaction's start (after the
    /// session's think time) to its commit completing, or to its last statement for a
    /// transaction that commits nothing; every transaction type together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_latency_ms: Option<LatencySummaryMs>,
    /// Database runs: each transaction type's count, rate and response time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transactions: Vec<TransactionMetrics>,
    /// Database runs: top wait events.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waits: Vec<WaitEvent>,
    /// Jobs run to completion: the job's elapsed time, s (the time limit when it did not
    /// finish; see `job`). Absent for runs measured over a window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<f64>,
    /// Jobs run to completion: finished or not, the share done, the I/O per volume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<JobOutcome>,
}

fn steady_default() -> bool {
    true
}

/// One transaction type of a database run (`read` and `write` of an OLTP mix; the test's one
/// type otherwise: `read`, `update`, `insert`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TransactionMetrics {
    /// The type's name.
    pub name: String,
    /// Transactions of the type completed in the measured window.
    pub count: u64,
    /// Transactions of the type per second.
    pub tx_per_s: f64,
    /// Their response time, measured as [`Metrics::tx_latency_ms`] is.
    pub latency_ms: LatencySummaryMs,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// Per physical (or block) device figures, iostat-style.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceMetrics {
    /// Device name (`rg0.d3` in the simulator).
    pub name: String,
    /// Device model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Operations per second.
    pub iops: f64,
    /// Reads per second.
    pub read_iops: f64,
    /// Writes per second.
    pub write_iops: f64,
    /// MB/s.
    pub mbps: f64,
    /// Busy time share in percent.
    pub util_pct: f64,
    /// Mean time from queueing at the device to completion, ms.
    pub await_ms: f64,
    /// Mean media service time (busy time per operation), ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_ms: Option<f64>,
    /// Time-averaged number of operations queued or in service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_len: Option<f64>,
}

/// One interval of the time series.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// Interval start, seconds since the measured window began.
    pub t_s: f64,
    /// I/Os per second completed in the interval.
    pub iops: f64,
    /// Reads per second.
    pub read_iops: f64,
    /// Writes per second.
    pub write_iops: f64,
    /// MB/s.
    pub mbps: f64,
    /// Mean latency of the interval's I/Os, ms.
    pub latency_ms_mean: f64,
    /// Database runs: rows processed in the interval, per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows_per_s: Option<f64>,
}

/// iostat -x figures of one block device for one interval (or averaged).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IostatFigures {
    /// Reads per second.
    pub r_s: f64,
    /// Writes per second.
    pub w_s: f64,
    /// Read MB/s.
    pub rmb_s: f64,
    /// Write MB/s.
    pub wmb_s: f64,
    /// Mean read time, ms.
    pub r_await_ms: f64,
    /// Mean write time, ms.
    pub w_await_ms: f64,
    /// Average queue size.
    pub aqu_sz: f64,
    /// Busy time, percent.
    pub util_pct: f64,
}

impl IostatFigures {
    /// Applies `f` to each field.
    pub fn map(&self, f: impl Fn(f64) -> f64) -> IostatFigures {
        self.zip_with(self, |x, _| f(x))
    }

    /// Applies `f` to each pair of fields.
    pub fn zip_with(&self, other: &IostatFigures, f: impl Fn(f64, f64) -> f64) -> IostatFigures {
        IostatFigures {
            r_s: f(self.r_s, other.r_s),
            w_s: f(self.w_s, other.w_s),
            rmb_s: f(self.rmb_s, other.rmb_s),
            wmb_s: f(self.wmb_s, other.wmb_s),
            r_await_ms: f(self.r_await_ms, other.r_await_ms),
            w_await_ms: f(self.w_await_ms, other.w_await_ms),
            aqu_sz: f(self.aqu_sz, other.aqu_sz),
            util_pct: f(self.util_pct, other.util_pct),
        }
    }
}

/// A block device under a real target, sampled every second from /proc/diskstats.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceIostat {
    /// Device name (`vda`, `dm-0`).
    pub device: String,
    /// One-second samples taken.
    pub samples: u32,
    /// Lowest of each figure over the samples.
    pub min: IostatFigures,
    /// Mean of each figure over the samples.
    pub avg: IostatFigures,
    /// Highest of each figure over the samples.
    pub max: IostatFigures,
}

/// One I/O class of a run with several (its own pattern, rate and target).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassMetrics {
    /// Class name (the profile's, or the workload file's).
    pub name: String,
    /// Target path.
    pub target: String,
    /// The class's own throughput and latency.
    pub metrics: Metrics,
    /// Group commit figures when the class is a commit path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<CommitMetrics>,
}

/// A group-commit log: committers waiting for one log writer that batches their records.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CommitMetrics {
    /// Committing sessions.
    pub committers: u32,
    /// Commits per second.
    pub commits_per_s: f64,
    /// Commit latency: from asking to commit to the record being durable.
    pub latency_ms: LatencySummaryMs,
    /// Mean commits per log write.
    pub mean_batch: f64,
}

/// Data verification of a real run (`--verify`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyResult {
    /// Blocks read and checked.
    pub blocks_checked: u64,
    /// Sectors whose checksum or magic was wrong (torn or corrupted).
    pub corrupt: u64,
    /// Sectors holding another offset's data (misplaced writes).
    pub misplaced: u64,
    /// Sectors older than their last completed write (lost writes).
    pub lost: u64,
    /// Sectors never written by storlab where its data was expected.
    pub unwritten: u64,
    /// The first faults: kind and byte offset.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<VerifyFault>,
}

/// One verification fault.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyFault {
    /// `corrupt`, `misplaced`, `lost`, `unwritten`.
    pub kind: String,
    /// Byte offset of the sector.
    pub offset: u64,
    /// Generation expected.
    pub expected_gen: u64,
    /// Generation found.
    pub found_gen: u64,
    /// Offset the sector's header names.
    pub found_offset: u64,
}

/// What running the workload cost storlab itself (real runs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCost {
    /// Engine (`psync`, `io_uring`).
    pub engine: String,
    /// CPU time of the storlab process (user + system) per I/O, ns: over the measured window
    /// (set-up and warm-up excluded), per I/O completed in it.
    pub cpu_ns_per_io: f64,
    /// CPU seconds used over the measured window, user + system.
    pub cpu_s: f64,
    /// I/Os per system call that submitted or reaped them (io_uring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ios_per_syscall: Option<f64>,
    /// Requested rate (open loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_iops: Option<f64>,
    /// Achieved rate.
    pub achieved_iops: f64,
    /// Open loop: I/Os issued after their intended start (no free slot or thread in time).
    pub late_ios: u64,
}

/// Simulator bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SimInfo {
    /// The seed every random stream was derived from.
    pub seed: u64,
    /// Events processed.
    pub events: u64,
    /// Host I/Os completed over the whole run (warm-up included).
    pub host_ios: u64,
    /// Wall-clock seconds the simulation took (the only field that varies between identical runs).
    pub wall_s: f64,
    /// Open-loop arrivals dropped in the measured window because the simulated array could
    /// not keep up and the stream's backlog was full (overload; absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped_ios: u64,
}

/// One run: target x workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// Storage under test.
    pub target: Target,
    /// Workload.
    pub workload: Workload,
    /// Throughput and latency.
    pub metrics: Metrics,
    /// Per-device figures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceMetrics>,
    /// Per RAID group figures (simulated arrays).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arrays: Vec<ArrayMetrics>,
    /// Per-interval series.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<SeriesPoint>,
    /// Per host path figures (simulated arrays).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<PathMetrics>,
    /// Components inside a simulated array with their own capacity (back-end loops,
    /// controller processors, the internal link); absent when the array declares none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<ComponentMetrics>,
    /// Failures, failovers, rebuilds, data loss.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SimEvent>,
    /// Rebuilds onto spares.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rebuilds: Vec<RebuildMetrics>,
    /// Per-class figures of a run with several I/O classes or a commit path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<ClassMetrics>,
    /// iostat view of the devices under a real target.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iostat: Vec<DeviceIostat>,
    /// Database evidence (real database runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db: Option<DbEvidence>,
    /// Data verification (real runs with `--verify`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyResult>,
    /// The tool's own cost (real runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolCost>,
    /// Simulator bookkeeping (simulated runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sim: Option<SimInfo>,
    /// True when the run was interrupted and holds the results gathered so far.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// The measured window was at steady state: no real trend in throughput, latency (or a
    /// database's buffer-cache hit ratio) beyond the bounds of [`crate::steady::CRITERIA`].
    /// Files written before the field existed read as steady.
    #[serde(default = "steady_default")]
    pub steady: bool,
    /// Why the run is not steady ("rows/s still rising 14%/min over the last 30 s").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_reason: Option<String>,
    /// Warnings about the run ("only 3 samples: raise --duration").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Run {
    /// A run of `workload` on `target` with these metrics and nothing else: no devices,
    /// series, evidence or warnings yet (the callers add what they measured).
    pub fn new(target: Target, workload: Workload, metrics: Metrics) -> Run {
        Run {
            target,
            workload,
            metrics,
            devices: Vec::new(),
            arrays: Vec::new(),
            series: Vec::new(),
            paths: Vec::new(),
            components: Vec::new(),
            events: Vec::new(),
            rebuilds: Vec::new(),
            classes: Vec::new(),
            iostat: Vec::new(),
            db: None,
            verify: None,
            tool: None,
            sim: None,
            partial: false,
            steady: true,
            steady_reason: None,
            warnings: Vec::new(),
        }
    }
}
