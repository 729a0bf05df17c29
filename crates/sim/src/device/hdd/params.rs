//! Parameters of a hard disk model and their checks (see the parent module for the model).

use serde::{Deserialize, Serialize};

use super::geometry::MAX_STEP_MS;

/// Most commands a drive's tagged queue holds.
pub(super) const MAX_QUEUE_DEPTH: usize = 256;

/// Order in which the drive serves its queued commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduler {
    /// Arrival order.
    Fifo,
    /// LOOK: sweep in one direction serving the nearest cylinder ahead, then turn.
    Elevator,
    /// Shortest seek time first.
    Sstf,
    /// Shortest positioning (seek + rotation) time first.
    Sptf,
}

/// Parameters of a hard disk model (the `[disk_models.NAME]` keys for `kind = "hdd"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HddParams {
    /// Spindle speed.
    pub rpm: u32,
    /// Capacity in decimal gigabytes.
    pub capacity_gb: f64,
    /// Recording surfaces (heads).
    pub heads: u32,
    /// Zones (bands of equal sectors per track).
    pub zones: u32,
    /// Media rate on the outermost zone, MB/s.
    pub media_rate_outer_mbps: f64,
    /// Media rate on the innermost zone, MB/s.
    pub media_rate_inner_mbps: f64,
    /// Seek to the adjacent cylinder, ms.
    pub seek_track_to_track_ms: f64,
    /// Data-sheet average seek (over random start and end cylinders), ms.
    pub seek_avg_ms: f64,
    /// Seek across the whole stroke, ms.
    pub seek_full_stroke_ms: f64,
    /// Change of surface on the same cylinder, ms.
    pub head_switch_ms: f64,
    /// Extra settling before a write after any head movement (data sheets give write seeks
    /// this much longer than read seeks), ms.
    pub write_settle_ms: f64,
    /// Controller overhead per command that is not overlapped by queueing, ms.
    pub command_overhead_ms: f64,
    /// Interface rate for data served from the drive's buffer, MB/s.
    pub interface_mbps: f64,
    /// Commands the drive accepts at once (tagged command queue depth).
    pub queue_depth: u32,
    /// Reordering policy.
    pub scheduler: Scheduler,
    /// Read-ahead buffer size, KiB (0 disables read-ahead).
    pub readahead_kib: u32,
    /// A command older than this is served next regardless of position, ms.
    pub max_queue_age_ms: f64,
}

pub(super) fn check_params(p: &HddParams) -> Result<(), String> {
    let positive = [
        ("capacity_gb", p.capacity_gb),
        ("media_rate_outer_mbps", p.media_rate_outer_mbps),
        ("media_rate_inner_mbps", p.media_rate_inner_mbps),
        ("interface_mbps", p.interface_mbps),
    ];
    for (key, v) in positive {
        if !(v > 0.0 && v.is_finite()) {
            return Err(format!("{key} must be a positive number; got {v}"));
        }
    }
    let non_negative = [
        ("head_switch_ms", p.head_switch_ms),
        ("write_settle_ms", p.write_settle_ms),
        ("command_overhead_ms", p.command_overhead_ms),
        ("max_queue_age_ms", p.max_queue_age_ms),
    ];
    for (key, v) in non_negative {
        if !(v >= 0.0 && v.is_finite()) {
            return Err(format!("{key} must be zero or more; got {v}"));
        }
    }
    crate::device::check_model_bounds(
        p.capacity_gb,
        &[
            ("media_rate_outer_mbps", p.media_rate_outer_mbps),
            ("media_rate_inner_mbps", p.media_rate_inner_mbps),
            ("interface_mbps", p.interface_mbps),
        ],
        // The age limit is a threshold, not a time the model waits: any finite value goes.
        &[],
    )?;
    // Like the full-stroke seek (checked where the seek curve is fitted).
    for (key, v) in [
        ("head_switch_ms", p.head_switch_ms),
        ("write_settle_ms", p.write_settle_ms),
        ("command_overhead_ms", p.command_overhead_ms),
    ] {
        if v >= MAX_STEP_MS {
            return Err(format!(
                "{key} must be below {MAX_STEP_MS} ms (a second); got {v}"
            ));
        }
    }
    if !(1000..=30000).contains(&p.rpm) {
        return Err(format!("rpm must be between 1000 and 30000; got {}", p.rpm));
    }
    if p.media_rate_inner_mbps > p.media_rate_outer_mbps {
        return Err(format!(
            "media_rate_inner_mbps ({}) must not exceed media_rate_outer_mbps ({})",
            p.media_rate_inner_mbps, p.media_rate_outer_mbps
        ));
    }
    if !(1..=64).contains(&p.heads) {
        return Err(format!("heads must be 1..=64; got {}", p.heads));
    }
    if !(1..=256).contains(&p.zones) {
        return Err(format!("zones must be 1..=256; got {}", p.zones));
    }
    if !(1..=MAX_QUEUE_DEPTH as u32).contains(&p.queue_depth) {
        return Err(format!(
            "queue_depth must be 1..={MAX_QUEUE_DEPTH}; got {}",
            p.queue_depth
        ));
    }
    Ok(())
}
