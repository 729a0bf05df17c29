//! `[controllers]` and `[[back_ends]]`: the controllers with their caches, processors and
//! ownership, and the back-end loops between the controllers and the disks.

use storlab_core::keys::{Default::Derived, Default::Required, Default::Value as D, Key, Kind};

use super::super::limits::{MAX_CACHE_BYTES, MAX_IO_LATENCY_NS, MBPS_RANGE};
use super::super::resolve::MAX_DESTAGE_QUEUE;
use super::{MAX_CONTROLLERS, MAX_PREFETCH_BYTES, MAX_SEQUENTIAL_TRIGGER, WRITE_POLICY};

/// Most processors of a controller.
pub const MAX_PROCESSORS: u64 = 64;
/// Most commands a controller keeps at one drive.
pub const MAX_DISK_QUEUE_DEPTH: u64 = 1024;

/// `[controllers]`'s `read_segment`; besides its bounds, a power of two.
pub const READ_SEGMENT: Key = Key::new(
    "read_segment",
    Kind::Size,
    D("\"8KiB\""),
    "read cache segment: the unit cached, and all a miss stages under `staging = \"block\"`; a power of two",
)
.int(512, 1 << 20);

/// `[controllers]`.
pub const CONTROLLER_KEYS: &[Key] = &[
    Key::new(
        "count",
        Kind::Count,
        D("2"),
        "controllers; groups are assigned round-robin unless they name one",
    )
    .int(1, MAX_CONTROLLERS),
    Key::new(
        "cache",
        Kind::Size,
        D("\"4GiB\""),
        "cache memory per controller",
    )
    .int(0, MAX_CACHE_BYTES),
    Key::new(
        "write_cache",
        Kind::Size,
        D("\"1GiB\""),
        "battery-backed write cache (NVS) per controller, part of `cache`",
    )
    .int(0, MAX_CACHE_BYTES),
    Key::new(
        "write_policy",
        WRITE_POLICY,
        D("\"write-back\""),
        "acknowledge writes from NVS, or after the disks",
    ),
    Key::new(
        "mirror_writes",
        Kind::Bool,
        D("true"),
        "copy every write to the peer controller's cache before acknowledging it",
    ),
    Key::new(
        "failover_write_policy",
        WRITE_POLICY,
        D("\"write-back\""),
        "write policy of a controller once it has taken over a failed peer's LUNs",
    ),
    Key::new(
        "mirror_mbps",
        Kind::Number,
        D("800.0"),
        "bandwidth of the inter-controller mirror link",
    )
    .float(MBPS_RANGE.0, MBPS_RANGE.1)
    .unit("MB/s"),
    Key::new(
        "mirror_latency",
        Kind::Time,
        D("\"20us\""),
        "fixed cost of one mirror copy",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "overhead",
        Kind::Time,
        D("\"10us\""),
        "controller processing time per host I/O (one at a time per controller)",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "processors",
        Kind::Count,
        D("1"),
        "processors per controller: host I/Os processed at once (each takes its cost below)",
    )
    .int(1, MAX_PROCESSORS)
    .unit("processors"),
    Key::new(
        "read_hit_cost",
        Kind::Time,
        Derived("`overhead`"),
        "processor time of a host read served from cache",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "read_miss_cost",
        Kind::Time,
        Derived("`overhead`"),
        "processor time of a host read that goes to the disks; when the array declares its internals (any cost, processor count, back end, host port, forwarding or disk queue depth) the disk read starts after it, else the two run side by side",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "write_cost",
        Kind::Time,
        Derived("`overhead`"),
        "processor time of a host write",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "parity_cost",
        Kind::Time,
        D("0"),
        "processor time of one RAID 5/6 stripe update (parity computation), charged when the update is issued",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "forward_cost",
        Kind::Time,
        Derived("none: any controller serves any LUN at no cost"),
        "ALUA: fixed cost of forwarding an I/O that arrives at the controller not owning its LUN to the owner, plus its bytes over the mirror link",
    )
    .int(0, MAX_IO_LATENCY_NS),
    Key::new(
        "disk_queue_depth",
        Kind::Count,
        Derived("the drive's own queue depth"),
        "commands the controller keeps at each drive (at most the drive's own queue depth); more wait in the controller",
    )
    .int(1, MAX_DISK_QUEUE_DEPTH)
    .unit("commands"),
    Key::new(
        "destage_high_pct",
        Kind::Number,
        D("80.0"),
        "start destaging when dirty data exceeds this share of the write cache",
    )
    .float(0.0, 100.0)
    .unit("%"),
    Key::new(
        "destage_low_pct",
        Kind::Number,
        D("60.0"),
        "stop destaging when dirty data falls to this share; below `destage_high_pct`",
    )
    .float(0.0, 100.0)
    .unit("%"),
    Key::new(
        "paced_destage",
        Kind::Bool,
        D("true"),
        "destage from `destage_low_pct` up, with the destage operations in flight growing linearly with the dirty level to `destage_queue_per_disk` at `destage_high_pct` (the linear threshold scheduling of storage controllers' write caches: Gill and Modha, WOW, FAST 2005); false: start at `destage_high_pct` at full depth and stop at `destage_low_pct`, which destages in bursts that take the disks from the reads",
    ),
    Key::new(
        "destage_queue_per_disk",
        Kind::Count,
        Derived(
            "from the member disks: 4 per HDD; per SSD one per flash die, at most its queue depth",
        ),
        "destage operations kept outstanding per member disk",
    )
    .int(1, MAX_DESTAGE_QUEUE as u64)
    .unit("operations"),
    Key::new(
        "destage_order",
        DESTAGE_ORDER,
        D("\"address\""),
        "which dirty data a destage takes first: the next in address order from where the previous one ended (`address`, CSCAN), or the data dirty longest (`age`, least recently written), with the dirty pages after it in its stripe (Gill and Modha, WOW, FAST 2005, name both as storage controllers' policies)",
    ),
    Key::new(
        "full_stripe_hold",
        Kind::Time,
        D("0"),
        "RAID 5/6 write gathering: how long after a sequential writer's last write the partial stripe at its head stays in the write cache, so that it leaves as one full-stripe write (parity from the new data, no reads) rather than a read-modify-write; 0 destages it like any dirty data",
    )
    .int(0, MAX_FULL_STRIPE_HOLD_NS),
    READ_SEGMENT,
    Key::new(
        "prefetch",
        Kind::Size,
        D("\"1MiB\""),
        "how far ahead of a sequential reader the controller prefetches, a multiple of 512 bytes",
    )
    .int(0, MAX_PREFETCH_BYTES),
    Key::new(
        "sequential_trigger",
        Kind::Count,
        D("2"),
        "consecutive sequential reads that start prefetching",
    )
    .int(0, MAX_SEQUENTIAL_TRIGGER)
    .unit("reads"),
    Key::new(
        "cache_slot",
        Kind::Size,
        Derived("`read_segment`: each segment is allocated on its own"),
        "the read cache's unit of allocation: a miss takes a whole slot however little it stages, and the least recently used slot leaves whole; a power of two from `read_segment` to 64 of them (Symmetrix: one slot per track, 32 KiB up to DMX-2, 64 KiB on DMX-3/4; Hitachi USP / HP XP: 16 KiB segments, 16.5 KB with check bytes; DS8000: 4 KiB pages, IBM SG24-6786 2.2)",
    )
    .int(512, MAX_CACHE_SLOT_BYTES),
    Key::new(
        "staging",
        STAGING,
        D("\"block\""),
        "what a read miss stages: the segments asked for (`block`), from them to the end of their `track` (`record-to-end-of-track`, IBM track-mode caches), or their whole `track`; the staged segments stop before one already cached or being fetched, the host waits for the whole stage",
    ),
    Key::new(
        "track",
        Kind::Size,
        Derived("none: required when `staging` is not `block`"),
        "the cache's track that `staging` counts in, a whole number of `read_segment`s (IBM ESS: 32 KiB, eight 4 KiB pages; DS8000: 64 KiB, 128 blocks)",
    )
    .int(512, MAX_TRACK_BYTES),
];

/// Longest `full_stripe_hold`: 60 s (a writer idle longer than that has stopped).
const MAX_FULL_STRIPE_HOLD_NS: u64 = 60_000_000_000;

/// Largest cache slot: 1 MiB (64 segments of 16 KiB; arrays' slots are 4 to 128 KiB).
const MAX_CACHE_SLOT_BYTES: u64 = 1 << 20;

/// Choices of `destage_order`.
const DESTAGE_ORDER: Kind = Kind::Choice(&["address", "age"]);

/// Choices of `staging`.
const STAGING: Kind = Kind::Choice(&["block", "record-to-end-of-track", "track"]);
/// Largest cache track: 4 MiB (a physical track of any drive is below 4 MiB).
const MAX_TRACK_BYTES: u64 = 4 << 20;

/// `[[back_ends]]`.
pub const BACK_END_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Required,
        "name used in results (`loop0`)",
    ),
    Key::new(
        "mbps",
        Kind::Number,
        Required,
        "bandwidth of the loop or bus, shared by every transfer to or from its disks (2 Gb FC-AL ~ 200, 4 Gb ~ 400, SAS 3 Gb x4 wide port ~ 1200)",
    )
    .float(MBPS_RANGE.0, MBPS_RANGE.1)
    .unit("MB/s"),
    Key::new(
        "disks",
        Kind::Names,
        Required,
        "disks on it: RAID group or disk group names (all their disks and spares), `group.dN`, `group.spareN`, `group.dA-dB`",
    ),
];

/// `[[host_ports]]`.
pub const HOST_PORT_KEYS: &[Key] = &[
    Key::new(
        "name",
        Kind::Text,
        Required,
        "name used in results (`fa1`)",
    ),
    Key::new(
        "mbps",
        Kind::Number,
        Required,
        "bandwidth of the port, shared by every transfer on the paths that reach it (2 Gb FC ~ 200, 4 Gb ~ 400, 8 Gb ~ 800)",
    )
    .float(MBPS_RANGE.0, MBPS_RANGE.1)
    .unit("MB/s"),
    Key::new(
        "paths",
        Kind::Names,
        Required,
        "names of the paths (`[[host.paths]]`, or `p0`, `p1`, ... for `links`) that reach it; a path reaches one port at most",
    ),
];
