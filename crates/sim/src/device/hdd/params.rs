//! Parameters of a hard disk model and their checks (see the parent module for the model).

use serde::{Deserialize, Serialize};

use super::geometry::MAX_STEP_MS;

mod overheads;
mod zone;

pub use overheads::{ExtraWriteDisconnect, Overheads};
pub use zone::{Sparing, SurfaceOrder, ZoneSpec};

/// Most cylinders of one sparing range (`spare_range_cylinders`).
pub(crate) const MAX_SPARE_RANGE_CYLINDERS: u16 = 10_000;

/// Most commands a drive's tagged queue holds.
pub(crate) const MAX_QUEUE_DEPTH: usize = 256;

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
    /// Measured seek curve: `[cylinders, ms]` points, interpolated linearly (empty: the
    /// curve fitted to the three data-sheet seek times).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seek_curve: Vec<[f64; 2]>,
    /// Measured zones, outer to inner (empty: `zones` bands derived from the media rates).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zone_table: Vec<ZoneSpec>,
    /// Where each zone's spare sectors lie (`spares` of a zone row).
    #[serde(default, skip_serializing_if = "Sparing::is_none")]
    pub sparing: Sparing,
    /// Cylinders of one sparing range with `sparing = "sectors_per_range"`: each range keeps
    /// its zone's `spares` sectors at its end (DiskSim's `Rangesize for sparing`).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub spare_range_cylinders: u16,
    /// Order of each cylinder's surfaces in the block order (DiskSim's `LBN-to-PBN mapping
    /// scheme`): with `"alternate"` or `"alternate_in_zone"` a cylinder switch stays on one
    /// surface, which matters where a head switch takes longer than a short seek.
    #[serde(default, skip_serializing_if = "SurfaceOrder::is_ascending")]
    pub surface_order: SurfaceOrder,
    /// Overheads by kind of command (absent: `command_overhead_ms` for every kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_overheads_ms: Option<Box<Overheads>>,
    /// Buffer segments of the drive's cache (0: one read-ahead buffer of `readahead_kib`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_segments: u32,
    /// A read's own data stays in its segment after it is sent (false: the segment keeps
    /// only what was read ahead beyond it).
    #[serde(default, skip_serializing_if = "is_false")]
    pub cache_keeps_read_data: bool,
    /// What one buffer segment holds, KiB: once read-ahead has filled more, the segment
    /// keeps its last `cache_segment_kib` (a read's own data is overwritten first). 0: no
    /// bound beyond where read-ahead stops.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub cache_segment_kib: f64,
    /// Writes complete once their data is in the buffer and reach the media afterwards.
    #[serde(default, skip_serializing_if = "is_false")]
    pub write_cache: bool,
    /// Where read-ahead after a read stops.
    #[serde(default, skip_serializing_if = "ReadaheadLimit::is_segment")]
    pub readahead_limit: ReadaheadLimit,
    /// Share of a read missed in the buffer that is read from the media before the drive
    /// starts sending it (0: it sends each sector as it arrives).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub read_watermark: f64,
    /// Interface rate of a write's data into the drive, MB/s, where it differs from
    /// `interface_mbps` (0: the same).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub interface_write_mbps: f64,
    /// Least time from a write's command to the head starting to write, in place of a
    /// shorter (or no) seek: a drive that must settle before writing even on its track
    /// (DiskSim's `Minimum seek delay`), ms.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub write_seek_min_ms: f64,
    /// The early disconnect of a write after a write elsewhere (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_write_disconnect_ms: Option<Box<ExtraWriteDisconnect>>,
    /// A read served whole from a segment no longer read ahead into starts read-ahead
    /// from that segment's end (DiskSim's `Read-ahead on idle hit`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub readahead_after_hit: bool,
    /// Least read-ahead after a read, KiB: the drive serves no other command that needs
    /// the head (any but a read hit on the data read ahead) before it has read this far
    /// past the read, or to where read-ahead stops if that comes first (DiskSim's `Minimum
    /// read-ahead (blks)`, half a KiB each).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub readahead_min_kib: f64,
    /// A write overlapping the data being read ahead waits for the least read-ahead like
    /// any other command (DiskSim's `Write hit stop prefetch = 0`; false: it stops
    /// read-ahead at once).
    #[serde(default, skip_serializing_if = "is_false")]
    pub write_hit_keeps_readahead: bool,
    /// The read water mark as a fixed amount, KiB, in place of `read_watermark`'s share of
    /// each read (DiskSim's `Set watermark by reqsize = 0`: the high water mark's share of
    /// the segment, rounded up to whole blocks); 0: the share of each read.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub read_watermark_kib: f64,
    /// A read whose first blocks are buffered, fewer than its water mark, sends nothing
    /// before the water mark is buffered, like a miss (DiskSim's `Immed transfer partial
    /// hit = 0`); false: the buffered blocks go out at once.
    #[serde(default, skip_serializing_if = "is_false")]
    pub partial_hit_waits: bool,
    /// A read never hits on a write's data in the buffer: it reads from the media, once
    /// the data is written (DiskSim's `Allow read hits on write data = 0`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub write_data_unreadable: bool,
    /// A write is never a buffer hit: it pays its miss overhead even on or right after
    /// buffered data (DiskSim's `Combine seq writes = 0`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub writes_never_hit: bool,
}

fn one() -> u16 {
    1
}

fn is_one(v: &u16) -> bool {
    *v == 1
}

pub(super) fn is_zero_f64(v: &f64) -> bool {
    *v == 0.0
}

/// Where a drive's read-ahead stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadaheadLimit {
    /// `readahead_kib` past the end of the read.
    #[default]
    Segment,
    /// The end of the track holding the read's last sector (at most `readahead_kib`).
    Track,
    /// The end of its cylinder (at most `readahead_kib`).
    Cylinder,
    /// For a read that continues a sequential stream (it starts where the previous read
    /// ended), the end of the track after the read's; after any other read, none (DiskSim's `Buffer continuous read = 4`: stay a
    /// track ahead of a stream once one is seen).
    TrackOrStream,
}

impl ReadaheadLimit {
    fn is_segment(&self) -> bool {
        *self == ReadaheadLimit::Segment
    }
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

pub(super) fn is_false(v: &bool) -> bool {
    !*v
}

/// Checks a drive's parameters: each against its declaration in
/// [`crate::config::keys::HDD_KEYS`] (a model built in code gets the same checks as one read
/// from a file), then the rules between them.
pub(crate) fn check_params(p: &HddParams) -> Result<(), String> {
    crate::device::check_declared(p, crate::config::keys::HDD_KEYS)?;
    if p.media_rate_inner_mbps > p.media_rate_outer_mbps {
        return Err(format!(
            "media_rate_inner_mbps ({}) must not exceed media_rate_outer_mbps ({})",
            p.media_rate_inner_mbps, p.media_rate_outer_mbps
        ));
    }
    check_detail(p)
}

/// Checks of the measured-drive keys.
fn check_detail(p: &HddParams) -> Result<(), String> {
    if let Some(o) = &p.command_overheads_ms {
        for (key, v) in o.all() {
            if !(v.is_finite() && (0.0..MAX_STEP_MS).contains(&v)) {
                return Err(format!(
                    "command_overheads_ms.{key} must be 0 to {MAX_STEP_MS} ms; got {v}"
                ));
            }
        }
    }
    if let Some(x) = &p.extra_write_disconnect_ms {
        for (key, v) in x.all() {
            if !(v.is_finite() && (0.0..MAX_STEP_MS).contains(&v)) {
                return Err(format!(
                    "extra_write_disconnect_ms.{key} must be 0 to {MAX_STEP_MS} ms; got {v}"
                ));
            }
        }
    }
    if !(1..=MAX_SPARE_RANGE_CYLINDERS).contains(&p.spare_range_cylinders) {
        return Err(format!(
            "spare_range_cylinders must be 1 to {MAX_SPARE_RANGE_CYLINDERS}; got {}",
            p.spare_range_cylinders
        ));
    }
    if !(p.write_seek_min_ms.is_finite() && (0.0..MAX_STEP_MS).contains(&p.write_seek_min_ms)) {
        return Err(format!(
            "write_seek_min_ms must be 0 to {MAX_STEP_MS} ms; got {}",
            p.write_seek_min_ms
        ));
    }
    let mut last = 0.0;
    for (i, [d, ms]) in p.seek_curve.iter().copied().enumerate() {
        if !((1.0..=1e7).contains(&d)
            && d > last
            && ms.is_finite()
            && (0.0..MAX_STEP_MS).contains(&ms))
        {
            return Err(format!(
                "seek_curve point {} ([{d}, {ms}]) must have cylinders above the previous point's (and 1 to 10000000) and 0 <= ms < {MAX_STEP_MS}",
                i + 1
            ));
        }
        last = d;
    }
    zone::check_zone_table(p)
}
