//! Every key of an array file and a workload file, declared once with its type, default,
//! bounds, unit and help (the `[database]` section's are in `database::DATABASE_KEYS`). The
//! docs tables (docs/config.md, docs/models.md, docs/db.md) are generated from these
//! declarations; unit tests check that each section declares exactly the keys its parser
//! accepts and that the declared defaults are the parser's.

use storlab_core::keys::{Default::Derived, Default::Required, Default::Value as D, Key, Kind};

use super::limits::{
    MAX_GROUPS, MAX_GROUP_BYTES, MAX_GROUP_DISKS, MAX_IO_LATENCY_NS, MAX_SIM_TIME_NS, MBPS_RANGE,
    STRIPE_UNIT_BYTES,
};
use crate::raid::sets::SET_DISKS_RANGE;
use storlab_core::profile::PROFILE_KEYS;

mod controllers;
mod models;

pub use controllers::{BACK_END_KEYS, CONTROLLER_KEYS, HOST_PORT_KEYS, READ_SEGMENT};
pub use models::{HDD_KEYS, SSD_KEYS};

/// Most controllers of an array.
pub const MAX_CONTROLLERS: u64 = 16;
/// Most host I/Os outstanding per LUN (`queue_depth_per_lun`): as many as the closed-loop
/// streams of a workload may keep outstanding in all.
const MAX_QUEUE_DEPTH_PER_LUN: u64 = super::limits::MAX_OUTSTANDING;
/// Farthest prefetch distance: 1 GiB.
pub(crate) const MAX_PREFETCH_BYTES: u64 = 1 << 30;
/// Most sequential reads before prefetching starts.
pub(crate) const MAX_SEQUENTIAL_TRIGGER: u64 = 1 << 20;
/// Largest stripe of a striped volume, allocation unit of an ASM-like one: 1 GiB.
const MAX_VOLUME_CHUNK_BYTES: u64 = 1 << 30;

const LIST: Kind = Kind::Tables;
const TABLE: Kind = Kind::Table;
const NAMES: Kind = Kind::NameOrNames;
const STRINGS: Kind = Kind::Names;
pub(crate) const WRITE_POLICY: Kind = Kind::Choice(&["write-back", "write-through"]);

/// One section of a file: its TOML path and its keys.
pub struct Section {
    /// `[controllers]`, `[[raid_groups]]`.
    pub path: &'static str,
    /// One sentence about the section.
    pub about: &'static str,
    /// Its keys.
    pub keys: &'static [Key],
}

/// The top of an array file.
pub const ARRAY_KEYS: &[Key] = &[
    Key::new("name", Kind::Text, Required, "array name, used in results"),
    Key::new("description", Kind::Text, D("\"\""), "one line for reports"),
    Key::new("host", TABLE, Derived("see [host]"), "host links and multipathing"),
    Key::new("controllers", TABLE, Derived("see [controllers]"), "controllers and caches"),
    Key::new("arrays", LIST, D("[]"),
        "several arrays, each with its own controllers and caches (see [[arrays]]); groups, disk groups, paths and failures name theirs with `array` (none: one array, its controllers in `[controllers]`)"),
    Key::new("raid_groups", LIST, D("[]"), "RAID groups; each is one LUN unless `luns` carve it"),
    Key::new("disk_groups", LIST, D("[]"), "disk groups of a virtualized array"),
    Key::new("virtual_disks", LIST, D("[]"), "virtual disks striped over a whole disk group"),
    Key::new("luns", LIST, D("[]"), "LUNs carved from groups (groups not named are one LUN each)"),
    Key::new("volumes", LIST, D("[]"), "host volumes over LUNs"),
    Key::new("host_ports", LIST, D("[]"),
        "the array's host ports with their bandwidth and the paths on each (none: each path is its own port)"),
    Key::new("back_ends", LIST, D("[]"),
        "back-end loops or buses with their bandwidth and disks (none: unlimited)"),
    Key::new("failures", LIST, D("[]"), "failure events"),
    Key::new("rebuild", TABLE, Derived("see [rebuild]"), "rebuild policy"),
    Key::new("disk_models", TABLE, D("{}"),
        "user disk models: `[disk_models.NAME]` with `kind` or `base` plus parameters (docs/models.md)"),
];

/// `[host]`.
pub const HOST_KEYS: &[Key] = &[
    Key::new("links", Kind::Count, D("2"), "front-end paths (FC links); I/O is spread round-robin")
        .int(1, 64),
    Key::new("link_mbps", Kind::Number, D("400.0"), "bandwidth of each link (2 Gb FC ~ 200, 4 Gb FC ~ 400)")
        .float(MBPS_RANGE.0, MBPS_RANGE.1).unit("MB/s"),
    Key::new("link_latency", Kind::Time, D("\"20us\""), "fixed latency per I/O on a link (protocol and switch)")
        .int(0, MAX_IO_LATENCY_NS),
    Key::new("paths", LIST, D("[]"),
        "explicit paths (see [[host.paths]]); when given, `links`, `link_mbps` and `link_latency` are not used"),
    Key::new("multipath", Kind::Choice(&["round-robin", "preferred", "single"]), D("\"round-robin\""),
        "path choice: round-robin, the per-LUN path to the owning controller (failover), or one path"),
    Key::new("queue_depth_per_lun", Kind::Count, D("0"),
        "host I/Os outstanding per LUN (0: no limit); more wait in the host queue")
        .int(0, MAX_QUEUE_DEPTH_PER_LUN).unit("I/Os"),
    Key::new("scheduler", Kind::Choice(&["none", "deadline"]), D("\"none\""),
        "order of the host queue: FIFO, or by address with a 500 ms deadline"),
    Key::new("nr_requests", Kind::Count, D("0"),
        "requests the host holds per LUN, outstanding plus in the scheduler's queue, like Linux `nr_requests` (0: no limit); more wait, unsorted, until one completes")
        .int(0, MAX_QUEUE_DEPTH_PER_LUN).unit("I/Os"),
];

/// `[[host.paths]]`.
pub const PATH_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Required,
        "path name (`p0`), used by failure events",
    ),
    Key::new("mbps", Kind::Number, D("400.0"), "bandwidth")
        .float(MBPS_RANGE.0, MBPS_RANGE.1)
        .unit("MB/s"),
    Key::new(
        "latency",
        Kind::Time,
        D("\"20us\""),
        "fixed latency per I/O",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "controller",
        Kind::Count,
        Derived("none"),
        "controller whose port the path reaches (for the preferred policy); with `array`, counted inside that array",
    )
    .int(0, MAX_CONTROLLERS - 1),
    Key::new(
        "array",
        Kind::Text,
        Derived("the only array"),
        "the `[[arrays]]` entry it belongs to (required when the file has `[[arrays]]`)",
    ),
];

/// `[[raid_groups]]`.
pub const RAID_GROUP_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Required,
        "name; with `count` > 1 the groups are `name-0`, `name-1`, ...",
    ),
    Key::new("count", Kind::Count, D("1"), "how many identical groups").int(1, MAX_GROUPS),
    Key::new(
        "level",
        Kind::Choice(&["jbod", "raid0", "raid1", "raid10", "raid5", "raid6"]),
        Required,
        "RAID level",
    ),
    Key::new(
        "disks",
        Kind::Count,
        Required,
        "member disks per group (spares not included)",
    )
    .int(1, MAX_GROUP_DISKS as u64)
    .unit("disks"),
    Key::new(
        "disk_model",
        Kind::Text,
        Required,
        "a built-in model or a `[disk_models]` name (docs/models.md)",
    ),
    Key::new(
        "stripe_unit",
        Kind::Size,
        D("\"64KiB\""),
        "per-disk chunk, a power of two from 4 KiB to 1 MiB",
    )
    .int(STRIPE_UNIT_BYTES.0, STRIPE_UNIT_BYTES.1),
    Key::new("spares", Kind::Count, D("0"), "hot spares per group")
        .int(0, MAX_GROUP_DISKS as u64)
        .unit("disks"),
    Key::new(
        "controller",
        Kind::Count,
        Derived("round-robin"),
        "controller owning the group; with `array`, counted inside that array",
    )
    .int(0, MAX_CONTROLLERS - 1),
    Key::new(
        "array",
        Kind::Text,
        Derived("the only array"),
        "the `[[arrays]]` entry it belongs to (required when the file has `[[arrays]]`)",
    ),
    Key::new(
        "read_cache",
        Kind::Bool,
        D("true"),
        "read cache on for the group's LUNs",
    ),
    Key::new(
        "write_cache",
        Kind::Bool,
        D("true"),
        "write-back caching on for the group's LUNs",
    ),
    Key::new(
        "mirror_read",
        Kind::Choice(&["shortest-queue", "round-robin", "primary"]),
        D("\"shortest-queue\""),
        "which copy of a RAID 1/10 mirror serves a read",
    ),
];

/// `[[arrays]]`.
pub const ARRAY_ENTRY_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Required,
        "array name: other sections name it in `array`, results in `array NAME controller N`",
    ),
    Key::new(
        "controllers",
        TABLE,
        Derived("see [controllers]"),
        "this array's controllers and caches (`[arrays.controllers]`, the keys of [controllers])",
    ),
];

/// A virtual disk's `segment_size`; besides its bounds, a power of two.
pub const SEGMENT_SIZE: Key = Key::new(
    "segment_size",
    Kind::Size,
    D("\"2MiB\""),
    "allocation segment: each goes to the next redundancy set in turn; with `sparing` only",
)
.int(1 << 20, MAX_SEGMENT_BYTES);

/// `[[disk_groups]]`.
pub const DISK_GROUP_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Required,
        "name; its disks are `name.d0` ...",
    ),
    Key::new("disks", Kind::Count, Required, "disks in the group")
        .int(2, MAX_GROUP_DISKS as u64)
        .unit("disks"),
    Key::new(
        "disk_model",
        Kind::Text,
        Required,
        "a built-in or user disk model",
    ),
    Key::new("spares", Kind::Count, D("0"), "spare disks of the group")
        .int(0, MAX_GROUP_DISKS as u64)
        .unit("disks"),
    Key::new(
        "sparing",
        Kind::Choice(&["none", "single", "double"]),
        Derived("no redundancy sets"),
        "lay the group out as redundancy sets with distributed sparing: reserved capacity on \
         every disk for rebuilding one (single) or two (double) failed disks of each set, or none; \
         without it, virtual disks stripe over the whole group",
    ),
    Key::new(
        "set_disks",
        Kind::Count,
        D("8"),
        "disks per redundancy set the split aims at (sets hold 6 to 11); with `sparing` only",
    )
    .int(SET_DISKS_RANGE.0 as u64, SET_DISKS_RANGE.1 as u64)
    .unit("disks"),
    SEGMENT_SIZE,
    Key::new(
        "array",
        Kind::Text,
        Derived("the only array"),
        "the `[[arrays]]` entry it belongs to, with its virtual disks (required when the file has `[[arrays]]`)",
    ),
];

/// Largest allocation segment of a disk group with redundancy sets: 64 MiB.
pub(crate) const MAX_SEGMENT_BYTES: u64 = 64 << 20;

/// `[[virtual_disks]]`.
pub const VIRTUAL_DISK_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Required,
        "name; with `count` > 1: `name-0`, `name-1`, ...",
    ),
    Key::new("count", Kind::Count, D("1"), "how many").int(1, MAX_GROUPS),
    Key::new("disk_group", Kind::Text, Required, "disk group it lives in"),
    Key::new(
        "level",
        Kind::Choice(&["vraid0", "vraid1", "vraid5"]),
        Required,
        "virtual RAID level",
    ),
    Key::new("size", Kind::Size, Required, "usable size").int(1, MAX_GROUP_BYTES),
    Key::new(
        "stripe_unit",
        Kind::Size,
        D("\"128KiB\""),
        "chunk per disk, a power of two",
    )
    .int(STRIPE_UNIT_BYTES.0, STRIPE_UNIT_BYTES.1),
    Key::new(
        "controller",
        Kind::Count,
        Derived("round-robin"),
        "owning controller",
    )
    .int(0, MAX_CONTROLLERS - 1),
    Key::new("read_cache", Kind::Bool, D("true"), "read cache on"),
    Key::new(
        "write_cache",
        Kind::Bool,
        D("true"),
        "write-back caching on",
    ),
];

/// `[[luns]]`.
pub const LUN_KEYS: &[Key] = &[
    Key::new("name", Kind::Text, Required, "LUN name"),
    Key::new(
        "group",
        Kind::Text,
        Required,
        "RAID group or virtual disk it is carved from",
    ),
    Key::new(
        "size",
        Kind::Size,
        Derived("the rest of the free space it starts in"),
        "size",
    )
    .int(512, MAX_GROUP_BYTES),
    Key::new(
        "offset",
        Kind::Size,
        Derived("the first free space from the outer edge that holds it, in file order"),
        "where it starts in the group's address space, a multiple of 512 bytes (0: the start of every member, a hard disk's outer edge); LUNs of one group must not overlap",
    )
    .int(0, MAX_GROUP_BYTES),
];

/// `[[volumes]]`.
pub const VOLUME_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Required,
        "volume name (workload targets use it)",
    ),
    Key::new(
        "kind",
        Kind::Choice(&["concat", "stripe", "multiplex", "asm"]),
        Required,
        "how the LUNs are combined",
    ),
    Key::new(
        "luns",
        STRINGS,
        D("[]"),
        "members (concat, stripe, multiplex)",
    ),
    Key::new(
        "stripe",
        Kind::Size,
        Derived("none"),
        "stripe size (stripe)",
    )
    .int(512, MAX_VOLUME_CHUNK_BYTES),
    Key::new(
        "redundancy",
        Kind::Choice(&["normal", "high"]),
        Derived("none"),
        "2 or 3 copies (asm)",
    ),
    Key::new("au", Kind::Size, Derived("1MiB"), "allocation unit (asm)")
        .int(512, MAX_VOLUME_CHUNK_BYTES),
    Key::new(
        "failure_groups",
        LIST,
        D("[]"),
        "failure groups (asm): tables of `name` and `luns`",
    ),
    Key::new(
        "preferred_read",
        Kind::Text,
        Derived("none"),
        "failure group that serves reads while healthy (asm)",
    ),
];

/// One entry of a volume's `failure_groups`.
pub const FAILURE_GROUP_KEYS: &[Key] = &[
    Key::new("name", Kind::Text, Required, "failure group name"),
    Key::new("luns", STRINGS, Required, "LUNs in the group"),
];

/// One entry of a stream's `block_sizes` mix (a profile's, declared with it).
pub use storlab_core::profile::BLOCK_SIZE_KEYS;

/// `[[failures]]`: exactly one of the target keys.
pub const FAILURE_KEYS: &[Key] = &[
    Key::new("at", Kind::Time, Required, "simulated time of the failure").int(0, MAX_SIM_TIME_NS),
    Key::new(
        "disk",
        Kind::Text,
        Derived("none"),
        "`group.dN` member disk, or `group.spareN` hot spare (fails where it is: in its pool, under a rebuild, or in the member it replaced)",
    ),
    Key::new("path", Kind::Text, Derived("none"), "path name"),
    Key::new(
        "controller",
        Kind::Count,
        Derived("none"),
        "controller index: of the system (the arrays' controllers numbered in their order), or with `array` inside that array",
    )
    .int(0, MAX_CONTROLLERS - 1),
    Key::new(
        "array",
        Kind::Text,
        Derived("the only array"),
        "the `[[arrays]]` entry of `controller`",
    ),
    Key::new(
        "failure_group",
        Kind::Text,
        Derived("none"),
        "`volume.failure_group`",
    ),
];

/// `[rebuild]`.
pub const REBUILD_KEYS: &[Key] = &[
    Key::new(
        "rate_mbps",
        Kind::Number,
        D("50.0"),
        "rebuild rate per failed disk, shared by the RAID group or virtual disks on it",
    )
    .float(MBPS_RANGE.0, MBPS_RANGE.1)
    .unit("MB/s"),
    Key::new(
        "priority",
        Kind::Choice(&["low", "high"]),
        D("\"low\""),
        "`low`: one rebuild operation at a time, behind foreground work; `high`: four",
    ),
    Key::new(
        "start_delay",
        Kind::Time,
        D("0"),
        "delay between the failure and the start of the rebuild",
    )
    .int(0, MAX_SIM_TIME_NS),
];

/// The top of a workload file.
pub const WORKLOAD_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Derived("the file name"),
        "name used in results",
    ),
    Key::new(
        "streams",
        LIST,
        D("[]"),
        "concurrent I/O streams (see [[streams]])",
    ),
    Key::new(
        "database",
        TABLE,
        Derived("none"),
        "a simulated database (docs/db.md)",
    ),
];

/// `[[streams]]`: a target plus an I/O profile (a built-in as the base, any key overriding it;
/// the profile's keys are declared with it, in [`PROFILE_KEYS`]).
pub const STREAM_KEYS: &[Key] = &{
    let mut keys = [TARGET_KEY; 1 + PROFILE_KEYS.len()];
    let mut i = 0;
    while i < PROFILE_KEYS.len() {
        keys[i + 1] = PROFILE_KEYS[i];
        i += 1;
    }
    keys
};

/// The target of a stream.
const TARGET_KEY: Key = Key::new(
    "target",
    NAMES,
    D("\"all\""),
    "a volume, or LUN and group names concatenated, or `all`",
);

/// The sections of an array file, in the order docs/config.md lists them.
pub const ARRAY_SECTIONS: &[Section] = &[
    Section {
        path: "(top level)",
        about: "An array file.",
        keys: ARRAY_KEYS,
    },
    Section {
        path: "[host]",
        about: "Host side of the array: front-end links.",
        keys: HOST_KEYS,
    },
    Section {
        path: "[[host.paths]]",
        about: "One explicit path (HBA port, switch, controller port).",
        keys: PATH_KEYS,
    },
    Section {
        path: "[[host_ports]]",
        about: "A host port of the array: a bandwidth shared by the paths that reach it.",
        keys: HOST_PORT_KEYS,
    },
    Section {
        path: "[controllers]",
        about: "Controllers (every controller gets the same settings; with `[[arrays]]`, each array's in `[arrays.controllers]`).",
        keys: CONTROLLER_KEYS,
    },
    Section {
        path: "[[arrays]]",
        about: "One of several arrays in one configuration: its own controllers and caches; RAID groups, disk groups (with their virtual disks) and paths name it with `array`, LUNs and volumes span arrays.",
        keys: ARRAY_ENTRY_KEYS,
    },
    Section {
        path: "[[back_ends]]",
        about: "A back-end adapter and its loop or bus: a bandwidth shared by the disks on it.",
        keys: BACK_END_KEYS,
    },
    Section {
        path: "[[raid_groups]]",
        about: "One RAID group entry (`count` identical groups).",
        keys: RAID_GROUP_KEYS,
    },
    Section {
        path: "[[disk_groups]]",
        about: "A disk group of a virtualized array.",
        keys: DISK_GROUP_KEYS,
    },
    Section {
        path: "[[virtual_disks]]",
        about: "One virtual disk entry (`count` identical ones).",
        keys: VIRTUAL_DISK_KEYS,
    },
    Section {
        path: "[[luns]]",
        about: "A LUN carved from a RAID group or virtual disk: a slice of the group's address space. LUNs with an `offset` take their slice first; the others fill the free space from the outer edge in file order. A group striped over `k` data disks puts group address `o` at about `o / k` on each disk, so a LUN's I/O seeks within its slice of the platters and runs at the rate of the zones under it.",
        keys: LUN_KEYS,
    },
    Section {
        path: "[[volumes]]",
        about: "A host volume.",
        keys: VOLUME_KEYS,
    },
    Section {
        path: "[[failures]]",
        about: "A failure event: `at` and exactly one target key.",
        keys: FAILURE_KEYS,
    },
    Section {
        path: "[rebuild]",
        about: "Rebuild onto a spare after a disk failure.",
        keys: REBUILD_KEYS,
    },
];

/// The sections of a workload file (the `[database]` section: docs/db.md).
pub const WORKLOAD_SECTIONS: &[Section] = &[
    Section {
        path: "(top level)",
        about: "A workload file.",
        keys: WORKLOAD_KEYS,
    },
    Section {
        path: "[[streams]]",
        about: "One stream: a profile over a target.",
        keys: STREAM_KEYS,
    },
    Section {
        path: "[[streams.block_sizes]]",
        about: "One entry of a stream's block-size mix (or inline: `block_sizes = [{ size = \"8k\", weight = 1.0 }]`).",
        keys: BLOCK_SIZE_KEYS,
    },
];

#[cfg(test)]
mod bounds_tests;
#[cfg(test)]
mod tests;
