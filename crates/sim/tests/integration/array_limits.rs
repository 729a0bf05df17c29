//! Components inside the array with a capacity of their own: back-end loops shared by their
//! disks, controller processors, ALUA forwarding through the non-owning controller, the
//! per-disk command queue the controller keeps.

use crate::{opts, run_workload, system};
use storlab_core::result::Run;

/// Two RAID 0 groups of four 15K disks, one per controller, on wide host paths (one per
/// controller, chosen by ownership) with no cache: the disks and whatever `extra` declares
/// decide sequential throughput.
fn two_groups(extra: &str) -> String {
    format!(
        r#"name = "two-groups"
[host]
multipath = "preferred"
[[host.paths]]
name = "p0"
mbps = 4000
latency = "0"
controller = 0
[[host.paths]]
name = "p1"
mbps = 4000
latency = "0"
controller = 1
[controllers]
count = 2
overhead = "0"
write_policy = "write-through"
mirror_writes = false
write_cache = "0"
sequential_trigger = 0
[[raid_groups]]
name = "g"
count = 2
level = "raid0"
disks = 4
disk_model = "hdd-15k"
stripe_unit = "256k"
read_cache = false
write_cache = false
{extra}"#
    )
}

/// One sequential 1 MiB read stream on each group (four outstanding each).
fn two_streams(s: &str) -> Run {
    let w = "[[streams]]\nprofile = \"seqread-1m\"\ntarget = \"g-0\"\niodepth = 4\n\
             [[streams]]\nprofile = \"seqread-1m\"\ntarget = \"g-1\"\niodepth = 4\n";
    run_workload(&system(s), w, opts(10, 1, 1))
}

const LOOP_MBPS: f64 = 200.0;

#[test]
fn two_streams_on_one_loop_share_its_bandwidth_and_on_two_loops_get_twice() {
    let free = two_streams(&two_groups("")).metrics.mbps;
    let shared = two_streams(&two_groups(
        "[[back_ends]]\nname = \"loop0\"\nmbps = 200\ndisks = [\"g-0\", \"g-1\"]\n",
    ));
    let apart = two_streams(&two_groups(
        "[[back_ends]]\nname = \"loop0\"\nmbps = 200\ndisks = [\"g-0\"]\n\
         [[back_ends]]\nname = \"loop1\"\nmbps = 200\ndisks = [\"g-1\"]\n",
    ));
    // The disks alone could carry far more than one loop: the loop is the ceiling.
    assert!(free > 3.0 * LOOP_MBPS, "without loops {free} MB/s");
    let (one, two) = (shared.metrics.mbps, apart.metrics.mbps);
    assert!(
        (one - LOOP_MBPS).abs() < 0.05 * LOOP_MBPS,
        "two streams on one 200 MB/s loop: {one} MB/s"
    );
    assert!(
        (two - 2.0 * LOOP_MBPS).abs() < 0.05 * 2.0 * LOOP_MBPS,
        "two streams on two 200 MB/s loops: {two} MB/s"
    );
    // The loop reports itself as the bottleneck.
    let lp = &shared.components[0];
    assert_eq!(lp.name, "back-end loop0");
    assert!(lp.util_pct > 97.0, "{lp:?}");
    assert!((lp.mbps - one).abs() < 0.02 * one, "{lp:?} vs host {one}");
}

#[test]
fn arrays_without_internals_report_no_components() {
    let run = two_streams(&two_groups(""));
    assert!(run.components.is_empty(), "{:?}", run.components);
}

/// One RAID 5 group owned by controller 0 with its read cache on, reached over `paths`
/// (`[[host.paths]]` entries) with `multipath`; `controllers` adds keys to `[controllers]`.
fn cached(paths: &str, multipath: &str, controllers: &str) -> String {
    format!(
        r#"name = "cached"
[host]
multipath = "{multipath}"
{paths}
[controllers]
count = 2
overhead = "0"
sequential_trigger = 0
{controllers}
[[raid_groups]]
name = "g"
level = "raid5"
disks = 5
disk_model = "hdd-15k"
controller = 0
"#
    )
}

/// Wide paths with no latency: `p0` to controller `first`, `p1` to the other.
fn paths(first: u32) -> String {
    format!(
        "[[host.paths]]\nname = \"p0\"\nmbps = 100000\nlatency = \"0\"\ncontroller = {first}\n\
         [[host.paths]]\nname = \"p1\"\nmbps = 100000\nlatency = \"0\"\ncontroller = {}\n",
        1 - first
    )
}

/// Random 8 KiB reads of a `region` (in cache after the warm-up), `jobs` x `iodepth`.
fn hits(s: &str, region: &str, jobs: u32, iodepth: u32) -> Run {
    let w = format!(
        "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"g\"\nregion_size = \"{region}\"\n\
         jobs = {jobs}\niodepth = {iodepth}\n"
    );
    run_workload(&system(s), &w, opts(5, 2, 1))
}

#[test]
fn cache_hits_saturate_at_processors_over_the_cost_of_a_hit() {
    for processors in [1u32, 2, 4] {
        let keys = format!("processors = {processors}\nread_hit_cost = \"50us\"");
        let run = hits(&cached(&paths(0), "preferred", &keys), "8m", 16, 4);
        let ceiling = f64::from(processors) / 50e-6;
        let hit_pct = run.arrays[0].cache_read_hit_pct;
        assert!(hit_pct > 99.9, "hits {hit_pct}%");
        let iops = run.metrics.iops;
        assert!(
            (iops - ceiling).abs() < 0.02 * ceiling,
            "{processors} processors at 50 us a hit: {iops} IO/s, ceiling {ceiling}"
        );
        let cpu = (run.components.iter())
            .find(|c| c.name == "controller 0 processors")
            .expect("processors reported");
        assert!(cpu.util_pct > 98.0, "{cpu:?}");
    }
}

/// Mean latency of one outstanding cache-hit read, ms.
fn hit_latency_ms(first_path_to: u32, multipath: &str) -> f64 {
    // 20 us a hit keeps the number of I/Os of the run small; both sides pay it.
    let keys = "forward_cost = \"100us\"\nmirror_mbps = 800\nread_hit_cost = \"20us\"";
    // One at a time fills the cache slowly: a region small enough to be read whole in the
    // warm-up.
    let run = hits(&cached(&paths(first_path_to), multipath, keys), "1m", 1, 1);
    assert_eq!(run.arrays[0].cache_read_hit_pct, 100.0);
    run.metrics.latency_ms.mean
}

#[test]
fn io_through_the_non_owning_controller_pays_the_forwarding_time() {
    // Forwarding: 100 us plus 8 KiB over the 800 MB/s internal link.
    let forward_ms = (100e3 + 8192.0 / 800e6 * 1e9) / 1e6;
    let owner = hit_latency_ms(0, "single");
    let other = hit_latency_ms(1, "single");
    let extra = other - owner;
    assert!(
        (extra - forward_ms).abs() < 0.02 * forward_ms,
        "through the non-owner {other} ms, the owner {owner} ms: {extra} ms more, expected {forward_ms}"
    );
    // Round robin over both controllers' paths ignores ownership: half the I/Os pay.
    let rr = hit_latency_ms(0, "round-robin") - owner;
    assert!(
        (rr - forward_ms / 2.0).abs() < 0.05 * forward_ms,
        "round robin pays {rr} ms on average, expected {}",
        forward_ms / 2.0
    );
    // The preferred policy picks the owner's path whichever path is listed first.
    let preferred = hit_latency_ms(1, "preferred");
    assert!(
        (preferred - owner).abs() < 1e-3,
        "preferred {preferred} vs owner {owner}"
    );
}

/// Random 8 KiB reads over one whole `model` drive with `outstanding` at the host, the
/// controller keeping at most `depth` of them at the drive.
fn drive_iops(model: &str, depth: u32, outstanding: u32) -> f64 {
    let array = crate::bare("jbod", 1, model, "64k").replace(
        "sequential_trigger = 0",
        &format!("sequential_trigger = 0\ndisk_queue_depth = {depth}"),
    );
    let array =
        format!("{array}[disk_models.fifo-15k]\nbase = \"hdd-15k\"\nscheduler = \"fifo\"\n");
    let w = format!(
        "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"g\"\niodepth = {outstanding}\n"
    );
    run_workload(&system(&array), &w, opts(20, 2, 1))
        .metrics
        .iops
}

#[test]
fn random_read_iops_grow_with_the_drive_queue_only_as_far_as_reordering_gives() {
    // hdd-15k: 0.1 ms overhead, 3.5 ms average seek, 4 ms revolution, 8 KiB at ~100 MB/s.
    let (overhead_ms, seek_ms, rev_ms, transfer_ms) = (0.1, 3.5, 4.0, 8192.0 / 100e3);
    let depths = [1u32, 2, 4, 8, 16, 32];
    let iops: Vec<f64> = depths
        .iter()
        .map(|&q| drive_iops("hdd-15k", q, 32))
        .collect();
    // One at a time: no reordering, the datasheet's mean access time.
    let qd1 = 1e3 / (overhead_ms + seek_ms + rev_ms / 2.0 + transfer_ms);
    assert!(
        (iops[0] - qd1).abs() < 0.1 * qd1,
        "qd1 {} vs {qd1}",
        iops[0]
    );
    for (i, &q) in depths.iter().enumerate() {
        // Even with free seeks, the best of q commands waits for its sector: at least the
        // least of q uniform rotational delays, rev / (q + 1) on average.
        let bound = 1e3 / (transfer_ms + rev_ms / f64::from(q + 1));
        assert!(
            iops[i] < bound,
            "qd {q}: {} above the bound {bound}",
            iops[i]
        );
        // Each doubling of the queue shortens the best positioning time by a shrinking
        // amount: a gain, never a doubling of the throughput.
        if i > 0 {
            let gain = iops[i] / iops[i - 1];
            assert!(gain > 1.1 && gain < 1.4, "qd {q}: x{gain} ({iops:?})");
        }
    }
    // The drive reorders at most its own 32 commands: a deeper controller queue and more
    // outstanding at the host give nothing more.
    let deeper = drive_iops("hdd-15k", 64, 64);
    assert!(
        (deeper - iops[5]).abs() < 0.03 * iops[5],
        "qd 64: {deeper} vs 32: {}",
        iops[5]
    );
    // A drive that does not reorder gains nothing from a deeper queue.
    let (fifo1, fifo32) = (
        drive_iops("fifo-15k", 1, 32),
        drive_iops("fifo-15k", 32, 32),
    );
    assert!(
        (fifo32 - fifo1).abs() < 0.05 * fifo1,
        "FIFO drive: qd1 {fifo1}, qd32 {fifo32}"
    );
}

#[test]
fn preferred_paths_spread_each_owners_luns_over_its_paths() {
    // Four virtual disks on two controllers, two paths to each: every path carries one.
    let s = system(crate::EVAGROUP_VRAID5);
    let w: String = (0..4)
        .map(|i| format!("[[streams]]\nprofile = \"randread-8k\"\ntarget = \"vd-{i}\"\n"))
        .collect();
    let run = run_workload(&s, &w, opts(5, 1, 1));
    let idle: Vec<&str> = (run.paths.iter())
        .filter(|p| p.iops == 0.0)
        .map(|p| p.name.as_str())
        .collect();
    assert!(idle.is_empty(), "paths left idle: {idle:?}");
}

/// One stream per RAID group of the example with its limits declared.
fn per_group(
    pattern: &str,
    read_pct: u32,
    size: &str,
    region: &str,
    jobs: u32,
    depth: u32,
) -> String {
    (0..4)
        .map(|g| {
            format!(
                "[[streams]]\ntarget = \"r5-{g}\"\npattern = \"{pattern}\"\nread_pct = {read_pct}\n\
                 block_sizes = [{{ size = \"{size}\", weight = 1.0 }}]\n{region}jobs = {jobs}\n\
                 iodepth = {depth}\n"
            )
        })
        .collect()
}

#[test]
fn the_example_arrays_loops_and_processors_reach_their_hand_made_ceilings() {
    let s = system(crate::MIDRANGE_RAID5_LIMITS);
    // docs/bottlenecks.md: two 400 MB/s loops carry full-stripe writes of 4 data + 1 parity
    // chunks, so the host writes at most 2 x 400 x 4 / 5 = 640 MB/s.
    let w = per_group("sequential", 0, "1m", "", 1, 8);
    let run = run_workload(&s, &w, opts(20, 20, 1));
    let mbps = run.metrics.mbps;
    assert!(
        (mbps - 640.0).abs() < 0.05 * 640.0,
        "sequential writes {mbps} MB/s"
    );
    // Two controllers of one processor at 25 us a cache hit: 80,000 hits/s.
    let w = per_group("random", 100, "512", "region_size = \"8m\"\n", 16, 8);
    let iops = run_workload(&s, &w, opts(10, 5, 1)).metrics.iops;
    assert!(
        (iops - 80_000.0).abs() < 0.05 * 80_000.0,
        "cache hits {iops} IO/s"
    );
}
