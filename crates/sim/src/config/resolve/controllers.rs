//! The `[controllers]` section resolved: caches in segments and pages, times in nanoseconds,
//! and the rules between its keys (the write cache fits in the cache, the destage marks are
//! ordered); each key's own bounds are checked from its declaration first.

use serde::{Deserialize, Serialize};

use super::super::keys::READ_SEGMENT;
use super::super::{limits, ConfigError, ControllersFile};
use crate::device::DiskModel;
use storlab_core::ByteSize;

/// Smallest write cache of a write-back controller.
pub const MIN_WRITE_BACK_CACHE_BYTES: u64 = 1 << 20;

/// When the host gets its write acknowledgement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    /// From the battery-backed cache; disks are written later (destage).
    #[default]
    WriteBack,
    /// After the disks.
    WriteThrough,
}

/// What a read miss brings into the cache besides the blocks asked for.
///
/// Track-mode caches stage by the track of the emulated device: IBM's DASD caches staged
/// from the requested record to the end of its track (Easton and Howard, IBM, EP 0130349,
/// 1984: "starting with the requested record and continuing until either the cache block is
/// full, the end of track is reached, or a record already in the cache is encountered"; the
/// IBM Multiprise 3000 internal disk's cache does the same on a miss in the middle of a
/// track); the DS6000/DS8000 choose per track among the page asked for, the page and the
/// rest of its track, or the whole track (IBM Redbook SG24-6786, DS8000 Series: Concepts and
/// Architecture, 2.2, "Cache management").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Staging {
    /// Only the read segments the request covers.
    #[default]
    Block,
    /// From the first segment asked for to the end of its track, stopping before a segment
    /// already cached or on its way.
    RecordToEndOfTrack,
    /// The whole track around the request, stopping on each side before a segment already
    /// cached or on its way.
    Track,
}

/// Which dirty data a destage takes first.
///
/// A write cache can destage by address (CSCAN: short seeks between destages) or by age
/// (LRW, least recently written: the data least likely to be written again soon, wherever
/// it lies); Gill and Modha (WOW, FAST 2005) name both as the policies storage controllers
/// use, and combine them. By age, successive destages land anywhere in the group's data, so
/// each one seeks as a random write does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DestageOrder {
    /// In ascending address order from where the previous destage ended, wrapping.
    #[default]
    Address,
    /// The page dirty longest first, with the dirty pages after it in its stripe.
    Age,
}

/// Controller settings, resolved into sectors and nanoseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct ControllerSpec {
    /// Controllers.
    pub count: u32,
    /// Read cache per controller in segments.
    pub read_cache_segments: u64,
    /// Read cache per controller in slots (its unit of allocation).
    pub read_cache_slots: u64,
    /// Segments per slot: 1 when each segment is allocated on its own.
    pub slot_segments: u64,
    /// Write cache per controller in 4 KiB pages.
    pub write_cache_pages: u64,
    /// Write-back or write-through.
    pub write_policy: WritePolicy,
    /// Mirror writes to the peer.
    pub mirror_writes: bool,
    /// Write policy of a controller that took over a failed peer's LUNs.
    pub failover_write_policy: WritePolicy,
    /// Nanoseconds per byte on the mirror link.
    pub mirror_ns_per_byte: f64,
    /// Fixed mirror copy cost.
    pub mirror_latency_ns: u64,
    /// Processing per host I/O.
    pub overhead_ns: u64,
    /// Processors per controller.
    pub processors: u32,
    /// Processor time of a read hit, a read miss, a write (each `overhead` unless set).
    pub read_hit_ns: u64,
    pub read_miss_ns: u64,
    pub write_ns: u64,
    /// Processor time of one RAID 5/6 stripe update.
    pub parity_ns: u64,
    /// ALUA: fixed cost of forwarding an I/O from the non-owning controller (None: none).
    pub forward_ns: Option<u64>,
    /// Commands the controller keeps at each drive (None: the drive's own queue depth).
    pub disk_queue_depth: Option<u32>,
    /// Dirty pages that start destaging.
    pub destage_high_pages: u64,
    /// Dirty pages that stop destaging.
    pub destage_low_pages: u64,
    /// Destage paced by the dirty level between the watermarks (`paced_destage`).
    pub paced_destage: bool,
    /// Destage disk operations outstanding per member disk, when set in the file; otherwise
    /// each group's follows its disks ([`ControllerSpec::destage_queue_for`]).
    pub destage_queue_per_disk: Option<u32>,
    /// How long the partial stripe at a sequential writer's head waits to be filled, from
    /// the writer's last write (0: destaged like any dirty data).
    pub full_stripe_hold_ns: u64,
    /// Read segment in sectors.
    pub segment_sectors: u64,
    /// Prefetch distance in sectors.
    pub prefetch_sectors: u64,
    /// Sequential reads before prefetch starts.
    pub sequential_trigger: u32,
    /// What a read miss stages.
    pub staging: Staging,
    /// Which dirty data a destage takes first.
    pub destage_order: DestageOrder,
    /// The cache's track in sectors, a whole number of segments (0 when `staging` is
    /// `block`).
    pub track_sectors: u64,
}

/// Destage operations kept outstanding per HDD: one head serves one command at a time; a
/// few queued writes let the drive reorder them, and reads do not wait behind many writes.
pub const HDD_DESTAGE_QUEUE: u32 = 4;

impl ControllerSpec {
    /// Destage operations kept outstanding per member disk of a group of `model` disks:
    /// `destage_queue_per_disk` when the file sets it, else what the disk can work on at
    /// once. An HDD: [`HDD_DESTAGE_QUEUE`]. An SSD programs one page per flash die at a
    /// time, so one write per die keeps every die busy (fewer leave dies idle while dirty
    /// pages wait in the write cache); never more than the drive accepts (its queue depth)
    /// nor than the key's bound.
    pub fn destage_queue_for(&self, model: &DiskModel) -> u32 {
        self.destage_queue_per_disk.unwrap_or(match model {
            DiskModel::Hdd(_) => HDD_DESTAGE_QUEUE,
            DiskModel::Ssd(p) => (p.channels.saturating_mul(p.dies_per_channel))
                .min(p.queue_depth)
                .clamp(1, MAX_DESTAGE_QUEUE),
        })
    }
}

/// Bound of `destage_queue_per_disk`.
pub const MAX_DESTAGE_QUEUE: u32 = 256;

/// Write-cache page: the granularity of dirty tracking and destage.
pub const PAGE_SECTORS: u64 = 8;

/// One `[controllers]` table (`prefix` names it in messages: `controllers`,
/// `arrays[1].controllers`).
pub(super) fn resolve_controllers(
    c: &ControllersFile,
    file: &str,
    prefix: &str,
) -> Result<ControllerSpec, ConfigError> {
    let bad =
        |key: &str, reason: String| ConfigError::invalid(file, format!("{prefix}.{key}"), reason);
    // Mirroring needs a peer: one controller has nothing to copy its writes to.
    let mirror_writes = c.mirror_writes && c.count > 1;
    let nvs_footprint = c.write_cache.0 * if mirror_writes { 2 } else { 1 };
    if c.cache.0 < nvs_footprint {
        return Err(bad(
            "write_cache",
            format!(
                "{} of write cache{} does not fit in {} of cache",
                c.write_cache,
                if mirror_writes {
                    " (twice, with the peer's mirror copy)"
                } else {
                    ""
                },
                c.cache
            ),
        ));
    }
    if c.write_policy == WritePolicy::WriteBack && c.write_cache.0 < MIN_WRITE_BACK_CACHE_BYTES {
        return Err(bad(
            "write_cache",
            format!(
                "write-back needs at least {} of write cache; got {}",
                ByteSize(MIN_WRITE_BACK_CACHE_BYTES),
                c.write_cache
            ),
        ));
    }
    if !(0.0 < c.destage_low_pct
        && c.destage_low_pct < c.destage_high_pct
        && c.destage_high_pct <= 100.0)
    {
        return Err(bad(
            "destage_high_pct",
            format!(
                "need 0 < destage_low_pct < destage_high_pct <= 100; got low {} high {}",
                c.destage_low_pct, c.destage_high_pct
            ),
        ));
    }
    let seg = c.read_segment.0;
    // The bounds are declared and checked before; a power of two is this rule.
    if !seg.is_power_of_two() {
        return Err(bad(
            READ_SEGMENT.name,
            format!(
                "must be a power of two from {}; got {}",
                READ_SEGMENT.describe_bounds(),
                c.read_segment
            ),
        ));
    }
    if !c.prefetch.0.is_multiple_of(512) {
        return Err(bad(
            "prefetch",
            format!("must be a multiple of 512 bytes; got {}", c.prefetch),
        ));
    }
    let page_bytes = PAGE_SECTORS * 512;
    let write_cache_pages = c.write_cache.0 / page_bytes;
    let read_cache_segments = (c.cache.0 - nvs_footprint) / seg;
    if read_cache_segments > limits::MAX_READ_CACHE_SEGMENTS {
        return Err(bad(
            "cache",
            format!(
                "the read cache holds {read_cache_segments} segments of {}; at most {} are \
                 simulated: raise read_segment or lower cache",
                c.read_segment,
                limits::MAX_READ_CACHE_SEGMENTS
            ),
        ));
    }
    let track_sectors = resolve_track(c, file)?;
    let slot_segments = resolve_slot(c, file)?;
    Ok(ControllerSpec {
        count: c.count,
        read_cache_segments,
        read_cache_slots: read_cache_segments / slot_segments,
        slot_segments,
        write_cache_pages,
        write_policy: c.write_policy,
        mirror_writes,
        failover_write_policy: c.failover_write_policy,
        mirror_ns_per_byte: 1e3 / c.mirror_mbps,
        mirror_latency_ns: c.mirror_latency.0,
        overhead_ns: c.overhead.0,
        processors: c.processors,
        read_hit_ns: c.read_hit_cost.map_or(c.overhead.0, |t| t.0),
        read_miss_ns: c.read_miss_cost.map_or(c.overhead.0, |t| t.0),
        write_ns: c.write_cost.map_or(c.overhead.0, |t| t.0),
        parity_ns: c.parity_cost.0,
        forward_ns: c.forward_cost.map(|t| t.0),
        disk_queue_depth: c.disk_queue_depth,
        destage_high_pages: (write_cache_pages as f64 * c.destage_high_pct / 100.0) as u64,
        destage_low_pages: (write_cache_pages as f64 * c.destage_low_pct / 100.0) as u64,
        paced_destage: c.paced_destage,
        destage_queue_per_disk: c.destage_queue_per_disk,
        full_stripe_hold_ns: c.full_stripe_hold.0,
        segment_sectors: seg / 512,
        prefetch_sectors: c.prefetch.0 / 512,
        sequential_trigger: c.sequential_trigger,
        staging: c.staging,
        destage_order: c.destage_order,
        track_sectors,
    })
}

/// The track `staging` stages by, in sectors: none for block staging; otherwise `track`,
/// which must be given and hold a whole number of read segments.
fn resolve_track(c: &super::super::ControllersFile, file: &str) -> Result<u64, ConfigError> {
    if c.staging == Staging::Block {
        return Ok(0);
    }
    let Some(track) = c.track else {
        return Err(ConfigError::invalid(
            file,
            "controllers.track",
            format!(
                "staging = \"{}\" needs the cache's track size (e.g. track = \"32KiB\"); got none",
                staging_name(c.staging)
            ),
        ));
    };
    let seg = c.read_segment.0;
    if track.0 < seg || !track.0.is_multiple_of(seg) {
        return Err(ConfigError::invalid(
            file,
            "controllers.track",
            format!(
                "must be a whole number of read segments ({}); got {}",
                c.read_segment, track
            ),
        ));
    }
    Ok(track.0 / 512)
}

/// Read segments per cache slot: 1 without `cache_slot`; else a power of two from 1 to 64.
fn resolve_slot(c: &super::super::ControllersFile, file: &str) -> Result<u64, ConfigError> {
    let Some(slot) = c.cache_slot else {
        return Ok(1);
    };
    let seg = c.read_segment.0;
    let per_slot = slot.0 / seg;
    if !slot.0.is_power_of_two() || slot.0 < seg || per_slot > MAX_SLOT_SEGMENTS {
        return Err(ConfigError::invalid(
            file,
            "controllers.cache_slot",
            format!(
                "must be a power of two from read_segment ({}) to {MAX_SLOT_SEGMENTS} of them \
                 ({}); got {}",
                c.read_segment,
                ByteSize(seg * MAX_SLOT_SEGMENTS),
                slot
            ),
        ));
    }
    Ok(per_slot)
}

/// Most read segments in one cache slot (one bit each in a word).
const MAX_SLOT_SEGMENTS: u64 = 64;

/// The file's name of a staging unit.
fn staging_name(s: Staging) -> &'static str {
    match s {
        Staging::Block => "block",
        Staging::RecordToEndOfTrack => "record-to-end-of-track",
        Staging::Track => "track",
    }
}
