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
