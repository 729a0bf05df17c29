//! The parameters of a disk model (`[disk_models.NAME]` with `kind = "hdd"` or `"ssd"`, or
//! `base = "hdd-10k"` plus the keys that differ). docs/models.md lists them with the values of
//! every built-in model.

use storlab_core::keys::{Default::Required, Key, Kind};

/// A hard disk drive.
pub const HDD_KEYS: &[Key] = &[
    Key::new("rpm", Kind::Count, Required, "spindle speed").unit("rpm"),
    Key::new(
        "capacity_gb",
        Kind::Number,
        Required,
        "capacity in decimal gigabytes",
    )
    .unit("GB"),
    Key::new("heads", Kind::Count, Required, "recording surfaces"),
    Key::new(
        "zones",
        Kind::Count,
        Required,
        "zones: bands of equal sectors per track",
    ),
    Key::new(
        "media_rate_outer_mbps",
        Kind::Number,
        Required,
        "media rate on the outermost zone",
    )
    .unit("MB/s"),
    Key::new(
        "media_rate_inner_mbps",
        Kind::Number,
        Required,
        "media rate on the innermost zone",
    )
    .unit("MB/s"),
    Key::new(
        "seek_track_to_track_ms",
        Kind::Number,
        Required,
        "seek to the adjacent cylinder",
    )
    .unit("ms"),
    Key::new(
        "seek_avg_ms",
        Kind::Number,
        Required,
        "data-sheet average seek (over random start and end cylinders)",
    )
    .unit("ms"),
    Key::new(
        "seek_full_stroke_ms",
        Kind::Number,
        Required,
        "seek across the whole stroke",
    )
    .unit("ms"),
    Key::new(
        "head_switch_ms",
        Kind::Number,
        Required,
        "change of surface on the same cylinder",
    )
    .unit("ms"),
    Key::new(
        "write_settle_ms",
        Kind::Number,
        Required,
        "extra settling before a write after any head movement",
    )
    .unit("ms"),
    Key::new(
        "command_overhead_ms",
        Kind::Number,
        Required,
        "controller overhead per command not overlapped by queueing",
    )
    .unit("ms"),
    Key::new(
        "interface_mbps",
        Kind::Number,
        Required,
        "interface rate for data served from the drive's buffer",
    )
    .unit("MB/s"),
    Key::new(
        "queue_depth",
        Kind::Count,
        Required,
        "commands the drive accepts at once",
    )
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
    .unit("KiB"),
    Key::new(
        "max_queue_age_ms",
        Kind::Number,
        Required,
        "a command older than this is served next regardless of position",
    )
    .unit("ms"),
    Key::new(
        "seek_curve",
        Kind::Other("list of [cylinders, ms] points"),
        storlab_core::keys::Default::Derived("fitted to the three seek times"),
        "measured seek curve, interpolated linearly (`storlab drive import` writes it)",
    ),
    Key::new(
        "zone_table",
        Kind::Other("list of tables: first_cylinder, last_cylinder, sectors_per_track, track_skew_sectors, cylinder_skew_sectors, reserved_front_sectors, spares, slips"),
        storlab_core::keys::Default::Derived("`zones` bands from the media rates"),
        "measured zones, outer to inner, with skews, spares and slipped sectors",
    ),
    Key::new(
        "sparing",
        Kind::Choice(&["none", "tracks", "sectors_per_cylinder", "sectors_per_track"]),
        storlab_core::keys::Default::Value("\"none\""),
        "where each zone's `spares` lie (whole tracks at the zone's end, or sectors at the end of every cylinder or track)",
    ),
    Key::new(
        "command_overheads_ms",
        Kind::Other("table: read_hit_after_read ... write_miss_after_write, read_completion, write_completion"),
        storlab_core::keys::Default::Derived("command_overhead_ms for every kind"),
        "overheads by kind: read or write, buffer hit or miss, after a read or a write; completion overheads",
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
        "write_cache",
        Kind::Bool,
        storlab_core::keys::Default::Value("false"),
        "writes complete when their data is in the buffer and reach the media afterwards",
    ),
    Key::new(
        "readahead_limit",
        Kind::Choice(&["segment", "track", "cylinder", "track_or_stream"]),
        storlab_core::keys::Default::Value("\"segment\""),
        "where read-ahead stops: readahead_kib on, the end of the read's track or cylinder, or of the next track and one more for a sequential stream",
    ),
    Key::new(
        "read_watermark",
        Kind::Number,
        storlab_core::keys::Default::Value("0"),
        "share of a read missed in the buffer that is read from the media before the drive starts sending it",
    )
    .float(0.0, 1.0),
];

/// A solid-state drive.
pub const SSD_KEYS: &[Key] = &[
    Key::new(
        "capacity_gb",
        Kind::Number,
        Required,
        "capacity in decimal gigabytes",
    )
    .unit("GB"),
    Key::new("page_kib", Kind::Count, Required, "flash page size").unit("KiB"),
    Key::new("channels", Kind::Count, Required, "independent channels"),
    Key::new(
        "dies_per_channel",
        Kind::Count,
        Required,
        "dies per channel",
    ),
    Key::new("read_us", Kind::Number, Required, "page read time").unit("us"),
    Key::new("program_us", Kind::Number, Required, "page program time").unit("us"),
    Key::new(
        "write_amplification",
        Kind::Number,
        Required,
        "steady-state write amplification (garbage collection), at least 1",
    ),
    Key::new(
        "channel_mbps",
        Kind::Number,
        Required,
        "channel transfer rate",
    )
    .unit("MB/s"),
    Key::new(
        "interface_mbps",
        Kind::Number,
        Required,
        "host interface rate",
    )
    .unit("MB/s"),
    Key::new(
        "controller_us",
        Kind::Number,
        Required,
        "controller time per command",
    )
    .unit("us"),
    Key::new(
        "queue_depth",
        Kind::Count,
        Required,
        "commands the drive accepts at once",
    )
    .unit("commands"),
];
