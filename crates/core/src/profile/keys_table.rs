//! The keys of an I/O profile, declared once: a simulated workload's `[[streams]]` and
//! `storlab io`'s profile files and flags are checked from these, and docs/config.md lists
//! them.

use crate::keys::{Default::Derived, Default::Required, Default::Value as D, Key, Kind};

use super::{MAX_BLOCK_BYTES, MAX_RATE_IOPS};

/// Longest think time between a closed-loop job's I/Os: 1 hour.
pub const MAX_THINK_NS: u64 = 3_600 * 1_000_000_000;
/// Farthest end of a profile's region: 4 PiB (the capacity of the largest simulated array).
pub const MAX_REGION_BYTES: u64 = 1 << 52;

/// An open-loop arrival rate (a profile's `rate_iops`, each rate of `--sweep-rates`).
pub const RATE_IOPS_KEY: Key = Key::new(
    "rate_iops",
    Kind::Number,
    Derived("none: closed loop"),
    "open loop: total arrival rate over all jobs (Poisson arrivals)",
)
.float_above(0.0, MAX_RATE_IOPS)
.unit("IO/s");

/// The keys of a profile: a built-in `profile` as the base, any key overriding it.
pub const PROFILE_KEYS: [Key; 12] = [
    Key::new(
        "profile",
        Kind::Text,
        Derived("none"),
        "a built-in profile as the base (`randread-8k`, `oltp-60-40`, ...)",
    ),
    Key::new("name", Kind::Text, D("\"custom\""), "name used in results"),
    Key::new(
        "pattern",
        Kind::Choice(&["random", "sequential"]),
        D("\"random\""),
        "access pattern",
    ),
    Key::new("read_pct", Kind::Number, D("100.0"), "share of reads")
        .float(0.0, 100.0)
        .unit("%"),
    Key::new(
        "block_sizes",
        Kind::Tables,
        D("[{ size = \"8KiB\", weight = 1.0 }]"),
        "block-size mix: tables of `size` and `weight`; one entry for a fixed size",
    ),
    Key::new(
        "jobs",
        Kind::Count,
        D("1"),
        "independent streams (fio's numjobs)",
    )
    .int(1, 4096),
    Key::new(
        "iodepth",
        Kind::Count,
        D("1"),
        "outstanding I/Os per job in closed loop (fio's iodepth)",
    )
    .int(1, 65536),
    RATE_IOPS_KEY,
    Key::new(
        "think_time",
        Kind::Time,
        D("0"),
        "closed loop: pause between an I/O's completion and the slot's next issue",
    )
    .int(0, MAX_THINK_NS),
    Key::new(
        "sync_writes",
        Kind::Bool,
        D("false"),
        "writes are synchronous (acknowledged from stable storage)",
    ),
    Key::new(
        "region_offset",
        Kind::Size,
        D("0"),
        "start of the region inside the target, a multiple of 512 bytes",
    )
    .int(0, MAX_REGION_BYTES),
    Key::new(
        "region_size",
        Kind::Size,
        Derived("to the end of the target"),
        "size of the region, at least one block",
    )
    .int(512, MAX_REGION_BYTES),
];

/// Most committers of a group-commit stream (`storlab io --group-commit`, `group_commit`).
pub const MAX_COMMITTERS: u64 = 4096;

/// The keys of a `storlab io` workload file's `[[streams]]` besides the profile's (the
/// stream's `name` is the profile's `name`).
pub const IO_STREAM_KEYS: &[Key] = &[
    Key::new(
        "target",
        Kind::Text,
        Derived("--target"),
        "file or block device the stream runs on",
    ),
    GROUP_COMMIT_KEY,
];

/// A commit path's committers (`group_commit`, `storlab io --group-commit`).
pub const GROUP_COMMIT_KEY: Key = Key::new(
    "group_commit",
    Kind::Count,
    Derived("none"),
    "a commit path: this many committers share one log writer that batches their records \
     (every I/O a synchronous write of one block of the profile)",
)
.int(1, MAX_COMMITTERS)
.unit("committers");

/// One entry of a profile's `block_sizes` mix.
pub const BLOCK_SIZE_KEYS: &[Key] = &[
    Key::new(
        "size",
        Kind::Size,
        Required,
        "size of the I/O, a multiple of 512 bytes",
    )
    .int(512, MAX_BLOCK_BYTES),
    Key::new(
        "weight",
        Kind::Number,
        Required,
        "relative weight (the weights are normalised)",
    )
    .float_above(0.0, f64::MAX),
];
