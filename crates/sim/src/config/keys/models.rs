//! The parameters of a disk model (`[disk_models.NAME]` with `kind = "hdd"` or `"ssd"`, or
//! `base = "hdd-10k"` plus the keys that differ). docs/models.md lists them with the values of
//! every built-in model.

use storlab_core::keys::{Default::Required, Key, Kind};

use crate::config::limits::MBPS_RANGE;
use crate::device::hdd::{MAX_QUEUE_DEPTH, MAX_STEP_MS};
use crate::device::MAX_CAPACITY_GB;

/// Smallest disk capacity: 1 MB (tests rebuild small disks in a simulated second).
const MIN_CAPACITY_GB: f64 = 0.001;
/// Longest flash operation or controller time per command: a second.
const MAX_FLASH_US: f64 = 1e6;
/// Largest read-ahead buffer of an HDD: 1 GiB.
const MAX_READAHEAD_KIB: u64 = 1 << 20;
/// Longest queue age limit: a day (a threshold, never a time the model waits).
const MAX_QUEUE_AGE_MS: f64 = 86_400_000.0;

/// A hard disk drive.
pub const HDD_KEYS: &[Key] = &[
    Key::new("rpm", Kind::Count, Required, "spindle speed")
        .int(1000, 30000)
        .unit("rpm"),
    Key::new(
        "capacity_gb",
        Kind::Number,
        Required,
        "capacity in decimal gigabytes",
    )
    .float(MIN_CAPACITY_GB, MAX_CAPACITY_GB)
    .unit("GB"),
    Key::new("heads", Kind::Count, Required, "recording surfaces").int(1, 64),
    Key::new(
        "zones",
        Kind::Count,
        Required,
        "zones: bands of equal sectors per track",
    )
    .int(1, 256),
    Key::new(
        "media_rate_outer_mbps",
        Kind::Number,
        Required,
        "media rate on the outermost zone",
    )
    .float(MBPS_RANGE.0, MBPS_RANGE.1)
    .unit("MB/s"),
    Key::new(
        "media_rate_inner_mbps",
        Kind::Number,
        Required,
        "media rate on the innermost zone, at most the outermost's",
    )
    .float(MBPS_RANGE.0, MBPS_RANGE.1)
    .unit("MB/s"),
    Key::new(
        "seek_track_to_track_ms",
        Kind::Number,
        Required,
        "seek to the adjacent cylinder; track-to-track < average < full stroke, below a second",
    )
    .float_below(0.0, MAX_STEP_MS)
    .unit("ms"),
    Key::new(
        "seek_avg_ms",
        Kind::Number,
        Required,
        "data-sheet average seek (over random start and end cylinders)",
    )
    .float_below(0.0, MAX_STEP_MS)
    .unit("ms"),
    Key::new(
        "seek_full_stroke_ms",
        Kind::Number,
        Required,
        "seek across the whole stroke",
    )
    .float_below(0.0, MAX_STEP_MS)
    .unit("ms"),
    Key::new(
        "head_switch_ms",
        Kind::Number,
        Required,
        "change of surface on the same cylinder",
    )
    .float_below(0.0, MAX_STEP_MS)
    .unit("ms"),
    Key::new(
        "write_settle_ms",
        Kind::Number,
        Required,
        "extra settling before a write after any head movement; negative on a drive whose writes position faster than its seek curve (DiskSim's `Add. write settling delay`), the move never below zero",
    )
    .float_between(-MAX_STEP_MS, MAX_STEP_MS)
    .unit("ms"),
    Key::new(
        "command_overhead_ms",
        Kind::Number,
        Required,
        "controller overhead per command not overlapped by queueing",
    )
    .float_below(0.0, MAX_STEP_MS)
    .unit("ms"),
    Key::new(
        "interface_mbps",
        Kind::Number,
        Required,
        "interface rate for data served from the drive's buffer",
    )
    .float(MBPS_RANGE.0, MBPS_RANGE.1)
    .unit("MB/s"),
    Key::new(
        "queue_depth",
        Kind::Count,
        Required,
        "commands the drive accepts at once",
    )
    .int(1, MAX_QUEUE_DEPTH as u64)
    .unit("commands"),
    Key::new(
        "scheduler",
        Kind::Choice(&["fifo", "elevator", "sstf", "sptf"]),
        Required,
        "order in which the drive serves its queued commands",
    ),
    Key::new(
        "readahead_kib",
        Kind::Count,
        Required,
        "read-ahead buffer (0: none)",
    )
    .int(0, MAX_READAHEAD_KIB)
    .unit("KiB"),
    Key::new(
        "max_queue_age_ms",
        Kind::Number,
        Required,
        "a command older than this is served next regardless of position",
    )
    .float(0.0, MAX_QUEUE_AGE_MS)
    .unit("ms"),
    Key::new(
        "seek_curve",
        Kind::Other("list of [cylinders, ms] points"),
        storlab_core::keys::Default::Derived("fitted to the three seek times"),
        "measured seek curve, interpolated linearly (`storlab drive import` writes it)",
    ),
    Key::new(
        "zone_table",
        Kind::Other("list of tables: first_cylinder, last_cylinder, sectors_per_track, track_skew_sectors, cylinder_skew_sectors, first_block_offset_sectors, reserved_front_sectors, spares, slips, remaps"),
        storlab_core::keys::Default::Derived("`zones` bands from the media rates"),
        "measured zones, outer to inner, with skews, spares, slipped sectors and defective sectors remapped to spares (`[defect, spare]` sector numbers in the zone)",
    ),
    Key::new(
        "sparing",
        Kind::Choice(&["none", "tracks", "sectors_per_cylinder", "sectors_per_cylinder_at_front", "sectors_per_track", "sectors_per_range", "sectors_per_zone"]),
        storlab_core::keys::Default::Value("\"none\""),
        "where each zone's `spares` lie (whole tracks at the zone's end, or sectors at the end of every cylinder, at the front of every cylinder, at the end of every track, of every range of `spare_range_cylinders` cylinders, or of the zone)",
    ),
    Key::new(
        "spare_range_cylinders",
        Kind::Count,
        storlab_core::keys::Default::Value("1"),
        "cylinders of one sparing range with `sparing = \"sectors_per_range\"`: each range keeps the zone's `spares` sectors at its end and a slipped sector moves blocks only within its range (DiskSim's `Rangesize for sparing`)",
    )
    .int(1, 10_000),
    Key::new(
        "surface_order",
        Kind::Choice(&["ascending", "alternate_in_zone", "alternate"]),
        storlab_core::keys::Default::Value("\"ascending\""),
        "order of a cylinder's surfaces in the block order: from the first on every cylinder, or reversed on every other cylinder of a zone (from its first) or on every odd-numbered cylinder, so that a cylinder switch stays on one surface (DiskSim's `LBN-to-PBN mapping scheme` 0, 1, 2)",
    ),
    Key::new(
        "command_overheads_ms",
        Kind::Other("table: read_hit_after_read ... write_miss_after_write, read_completion, write_completion, data_prep, reselect, read_disconnect_after_read, read_disconnect_after_write, write_disconnect, read_frees_bus, read_any_free_blocks, immediate_write"),
        storlab_core::keys::Default::Derived("command_overhead_ms for every kind"),
        "overheads by kind: read or write, buffer hit or miss, after a read or a write; completion overheads; a disconnecting drive's data preparation, reselect and disconnect overheads; whether a read frees the bus when it runs dry (DiskSim's `Hold bus entire read xfer = 0`), a read miss keeps the blocks it passes before its own (`Read any free blocks`), writes are zero-latency (`Immediate buffer write`)",
    )
    .unit("ms"),
    Key::new(
        "cache_segments",
        Kind::Count,
        storlab_core::keys::Default::Value("0"),
        "segments of the drive's buffer, each up to readahead_kib (0: one read-ahead buffer)",
    )
    .int(0, 64),
    Key::new(
        "cache_keeps_read_data",
        Kind::Bool,
        storlab_core::keys::Default::Value("false"),
        "a read's own data stays in its segment (false: only what was read ahead beyond it)",
    ),
    Key::new(
        "cache_segment_kib",
        Kind::Number,
        storlab_core::keys::Default::Value("0"),
        "what one buffer segment holds: once read-ahead filled more, the segment keeps its last cache_segment_kib, a read's own data overwritten first (DiskSim's `Segment size`; 0: no bound beyond where read-ahead stops)",
    )
    .float_below(0.0, 1048576.0)
    .unit("KiB"),
    Key::new(
        "write_cache",
        Kind::Bool,
        storlab_core::keys::Default::Value("false"),
        "writes complete when their data is in the buffer and reach the media afterwards (false: a write completes once on the media, the head writing each sector only after its data crossed the interface, a revolution later when the sector passed first)",
    ),
    Key::new(
        "readahead_limit",
        Kind::Choice(&["segment", "track", "cylinder", "track_or_stream"]),
        storlab_core::keys::Default::Value("\"segment\""),
        "where read-ahead stops: readahead_kib on, the end of the read's track or cylinder, or (track_or_stream) the end of the track after the read's for a read that starts where the previous read ended (a sequential stream) and nothing after any other read",
    ),
    Key::new(
        "read_watermark",
        Kind::Number,
        storlab_core::keys::Default::Value("0"),
        "share of a read missed in the buffer that is read from the media before the drive starts sending it",
    )
    .float(0.0, 1.0),
    Key::new(
        "interface_write_mbps",
        Kind::Number,
        storlab_core::keys::Default::Value("0"),
        "interface rate of a write's data into the drive where it differs from interface_mbps (0: the same; DiskSim's bus `Write block transfer time` against `Read block transfer time`)",
    )
    .float(0.0, MBPS_RANGE.1)
    .unit("MB/s"),
    Key::new(
        "write_seek_min_ms",
        Kind::Number,
        storlab_core::keys::Default::Value("0"),
        "least time a write positions for, in place of a shorter seek or none (DiskSim's `Minimum seek delay`: the drive settles before writing even on its own track)",
    )
    .float(0.0, 1000.0)
    .unit("ms"),
    Key::new(
        "extra_write_disconnect_ms",
        Kind::Other("table: command, disconnect, inter_disconnect, second_disconnect, seek_delta, reselect"),
        storlab_core::keys::Default::Derived("none"),
        "a write after a write elsewhere disconnects before taking its data (DiskSim's `Extra write disconnect`): the head starts positioning command + seek_delta after the command, the data comes inter_disconnect after the disconnect; such a drive writes nothing until min(write, 10) sectors (15 for a write over 44) are buffered",
    )
    .unit("ms"),
    Key::new(
        "readahead_after_hit",
        Kind::Bool,
        storlab_core::keys::Default::Value("false"),
        "a read served whole from a buffer segment no longer read ahead into starts read-ahead from that segment's end, the head positioning for it once the read is done (DiskSim's `Read-ahead on idle hit`)",
    ),
    Key::new(
        "readahead_min_kib",
        Kind::Number,
        storlab_core::keys::Default::Value("0"),
        "least read-ahead after a read: the drive serves no command that needs the head (any but a read hit on the data read ahead) before it has read this far past the read, or to where read-ahead stops (DiskSim's `Minimum read-ahead (blks)`, half a KiB each)",
    )
    .float_below(0.0, 1048576.0)
    .unit("KiB"),
    Key::new(
        "write_hit_keeps_readahead",
        Kind::Bool,
        storlab_core::keys::Default::Value("false"),
        "a write overlapping the data being read ahead waits for readahead_min_kib like any other command (DiskSim's `Write hit stop prefetch = 0`); false: it stops read-ahead at once",
    ),
    Key::new(
        "read_watermark_kib",
        Kind::Number,
        storlab_core::keys::Default::Value("0"),
        "the read water mark as a fixed amount in place of read_watermark's share of each read (DiskSim's `Set watermark by reqsize = 0`: the high water mark's share of the segment, in whole blocks); 0: the share of each read",
    )
    .float_below(0.0, 1048576.0)
    .unit("KiB"),
    Key::new(
        "partial_hit_waits",
        Kind::Bool,
        storlab_core::keys::Default::Value("false"),
        "a read whose first blocks are buffered, fewer than its water mark, sends nothing before its water mark is buffered, like a miss (DiskSim's `Immed transfer partial hit = 0`); false: the buffered blocks go out at once",
    ),
    Key::new(
        "write_data_unreadable",
        Kind::Bool,
        storlab_core::keys::Default::Value("false"),
        "a read never hits on a write's data in the buffer; it reads from the media once the data is written (DiskSim's `Allow read hits on write data = 0`)",
    ),
    Key::new(
        "writes_never_hit",
        Kind::Bool,
        storlab_core::keys::Default::Value("false"),
        "a write always pays its miss overhead, even on or right after buffered data (DiskSim's `Combine seq writes = 0`)",
    ),
];

/// A solid-state drive.
pub const SSD_KEYS: &[Key] = &[
    Key::new(
        "capacity_gb",
        Kind::Number,
        Required,
        "capacity in decimal gigabytes",
    )
    .float(MIN_CAPACITY_GB, MAX_CAPACITY_GB)
    .unit("GB"),
    Key::new(
        "page_kib",
        Kind::Count,
        Required,
        "flash page size, a power of two",
    )
    .int(1, 64)
    .unit("KiB"),
    Key::new("channels", Kind::Count, Required, "independent channels").int(1, 4096),
    Key::new(
        "dies_per_channel",
        Kind::Count,
        Required,
        "dies per channel; channels x dies at most 4096",
    )
    .int(1, 4096),
    Key::new("read_us", Kind::Number, Required, "page read time")
        .float_above(0.0, MAX_FLASH_US)
        .unit("us"),
    Key::new("program_us", Kind::Number, Required, "page program time")
        .float_above(0.0, MAX_FLASH_US)
        .unit("us"),
    Key::new(
        "write_amplification",
        Kind::Number,
        Required,
        "steady-state write amplification (garbage collection)",
    )
    .float(1.0, 20.0),
    Key::new(
        "channel_mbps",
        Kind::Number,
        Required,
        "channel transfer rate",
    )
    .float(MBPS_RANGE.0, MBPS_RANGE.1)
    .unit("MB/s"),
    Key::new(
        "interface_mbps",
        Kind::Number,
        Required,
        "host interface rate",
    )
    .float(MBPS_RANGE.0, MBPS_RANGE.1)
    .unit("MB/s"),
    Key::new(
        "controller_us",
        Kind::Number,
        Required,
        "controller time per command",
    )
    .float(0.0, MAX_FLASH_US)
    .unit("us"),
    Key::new(
        "queue_depth",
        Kind::Count,
        Required,
        "commands the drive accepts at once",
    )
    .int(1, 65536)
    .unit("commands"),
];
