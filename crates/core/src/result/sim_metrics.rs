//! What only a simulated run reports: the array's internals, its paths and components, its
//! events and rebuilds.

use serde::{Deserialize, Serialize};

use crate::LatencySummaryMs;

/// Per RAID group / rank figures of a simulated array.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ArrayMetrics {
    /// RAID group name.
    pub name: String,
    /// RAID level.
    pub level: String,
    /// Disk reads per second issued for host read misses and prefetch.
    pub read_iops: f64,
    /// Disk operations per second caused by destaging (reads of RAID 5/6 updates included).
    pub destage_iops: f64,
    /// Mean time of a disk read from issue by the controller to completion, ms ("rank read delay").
    pub read_delay_ms: f64,
    /// Mean time of a destage disk operation from issue to completion, ms.
    pub destage_delay_ms: f64,
    /// Mean time of one destage to the rank, from the issue of its first disk operation to
    /// the completion of its last, ms ("rank destage delay"): a RAID 5/6 update's reads and
    /// then its writes, a mirror's two writes side by side, a full stripe's writes.
    #[serde(default)]
    pub rank_destage_delay_ms: f64,
    /// Host reads served from cache, percent.
    pub cache_read_hit_pct: f64,
    /// Host writes that waited for free write cache, percent.
    pub nvs_full_delay_pct: f64,
    /// Full-stripe, read-modify-write and reconstruct-write stripe updates per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe_writes: Option<StripeWrites>,
}

/// Stripe update methods chosen by a parity RAID group, per second.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StripeWrites {
    /// Full-stripe writes per second.
    pub full_stripe: f64,
    /// Read-modify-write updates per second.
    pub read_modify_write: f64,
    /// Reconstruct-write updates per second.
    pub reconstruct_write: f64,
}

/// Per host path figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PathMetrics {
    /// Path name.
    pub name: String,
    /// I/Os per second carried.
    pub iops: f64,
    /// MB/s carried.
    pub mbps: f64,
    /// Failed by the end of the run.
    pub failed: bool,
}

/// A component inside a simulated array with a capacity of its own (a back-end loop, a
/// controller's processors, the internal link between controllers): how busy it was, what
/// it carried and how long work queued for it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ComponentMetrics {
    /// Name (`back-end loop0`, `controller 1 processors`, `internal link 0`).
    pub name: String,
    /// `host_port`, `processors`, `internal_link`, `back_end` or `redundancy_set`.
    pub kind: String,
    /// Share of the measured window the component was busy, percent (for several servers,
    /// the mean over them).
    pub util_pct: f64,
    /// Operations per second it served.
    pub ops_per_s: f64,
    /// MB/s it carried (0 for processors).
    pub mbps: f64,
    /// Mean time an operation waited for the component before its service began, ms.
    pub wait_ms: f64,
    /// Mean service time of an operation, ms.
    pub service_ms: f64,
}

/// Something that happened during a run (failures, rebuilds, data loss).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SimEvent {
    /// Simulated seconds since the start (warm-up included).
    pub t_s: f64,
    /// What happened:
    /// - `failure`: a failure of the run's list (`--fail`, `[[failures]]`) takes effect;
    /// - `failover`: a controller's LUNs move to a surviving one;
    /// - `data_loss`: a group, redundancy set or unmirrored write cache lost data;
    /// - `data_unavailable`: no path or controller is left to serve some LUNs;
    /// - `spare_failed`: a spare still in its pool fails and leaves the pool;
    /// - `no_spare`: a failed disk stays failed (no spare or reserved capacity left);
    /// - `rebuild_start`, `rebuild_done`: a rebuild onto a spare or into reserved capacity;
    /// - `rebuild_stop`: the spare under a rebuild fails (the member is rebuilt onto the
    ///   next spare, if any);
    /// - simulated databases: `checkpoint`, `checkpoint not complete`, `log switch`,
    ///   `archive`, `job`.
    pub kind: String,
    /// What it happened to.
    pub target: String,
    /// Plain-words detail.
    pub detail: String,
}

/// A rebuild onto a spare and what foreground I/O saw around it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RebuildMetrics {
    /// Group and member rebuilt (`r5-0.d3`).
    pub member: String,
    /// Spare device written.
    pub spare: String,
    /// Start, simulated seconds.
    pub start_s: f64,
    /// End, simulated seconds; absent when the run ended first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_s: Option<f64>,
    /// Duration (so far, if unfinished), seconds.
    pub duration_s: f64,
    /// Data rebuilt, MB.
    pub rebuilt_mb: f64,
    /// Host latency before the first failure.
    pub latency_ms_before: LatencySummaryMs,
    /// Host latency while degraded or rebuilding.
    pub latency_ms_during: LatencySummaryMs,
    /// Host latency after every rebuild finished.
    pub latency_ms_after: LatencySummaryMs,
}
