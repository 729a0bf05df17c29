//! A disk group laid out as redundancy sets: a failed disk is rebuilt into the reserved
//! capacity of its own set's other disks, and costs reads of its stripes' other members.

use super::*;

const EVAGROUP_RSS: &str = include_str!("../../../../examples/arrays/evagroup-rss-vraid5.toml");

#[test]
fn a_failed_disk_is_rebuilt_onto_its_set_s_survivors_only() {
    let s = system(EVAGROUP_RSS);
    // dg.d3 is in the first set, dg.d0 to dg.d8 (84 disks: 4 sets of 9, 6 of 8).
    let run = run_failing(&s, "randread-8k", &["dg.d3@1s"], opts(4, 2, 1));
    assert!(!run.rebuilds.is_empty());
    for d in &run.devices {
        let i: u32 = d
            .name
            .trim_start_matches("dg.d")
            .parse()
            .expect("a disk of dg");
        if i == 3 {
            assert_eq!(d.iops, 0.0, "{}", d.name);
        } else if i < 9 {
            assert!(d.write_iops > 0.0, "{}: no rebuild writes", d.name);
        } else {
            assert_eq!(
                d.write_iops, 0.0,
                "{}: a rebuild write outside the set",
                d.name
            );
            assert!(d.read_iops > 0.0, "{}", d.name);
        }
    }
    // The survivors of the set read more than the other sets' disks: the failed disk's
    // reads and the rebuild's come from them.
    let mean = |r: std::ops::Range<usize>| {
        let n = r.len() as f64;
        r.map(|i| run.devices[i].read_iops).sum::<f64>() / n
    };
    let (set, others) = ((mean(0..3) + mean(4..9)) / 2.0, mean(9..84));
    assert!(set > 1.5 * others, "set {set} vs others {others}");
}

#[test]
fn each_redundancy_set_reports_as_a_component() {
    let s = system(EVAGROUP_RSS);
    let run = run_profile(&s, "randread-8k", opts(3, 1, 1));
    let sets: Vec<_> = (run.components.iter())
        .filter(|c| c.kind == "redundancy_set")
        .collect();
    assert_eq!(sets.len(), 10);
    assert_eq!(sets[0].name, "redundancy set dg.d0-d8");
    assert_eq!(sets[9].name, "redundancy set dg.d76-d83");
    // The sets carry every disk read between them, each its share by its disks.
    let disks: f64 = run.devices.iter().map(|d| d.iops).sum();
    let total: f64 = sets.iter().map(|c| c.ops_per_s).sum();
    assert!(
        (total - disks).abs() < 1e-6 * disks.max(1.0),
        "{total} vs {disks}"
    );
    for c in &sets {
        assert!(c.util_pct > 0.0 && c.util_pct <= 100.0, "{c:?}");
        assert!(c.service_ms > 0.0, "{c:?}");
    }
}

#[test]
fn the_virtual_disks_on_a_failed_disk_share_its_rebuild_rate() {
    // Four virtual disks live on dg.d3: each rebuilds its own part of the disk, but the
    // disk's rebuild runs at `rebuild.rate_mbps` (10 MB/s) between them, not four times it.
    let s = system(&format!("{EVAGROUP_RSS}\n[rebuild]\nrate_mbps = 10\n"));
    let run = run_failing(&s, "randread-8k", &["dg.d3@1s"], opts(5, 0, 1));
    assert_eq!(run.rebuilds.len(), 4, "{:?}", run.rebuilds);
    let mb: f64 = run.rebuilds.iter().map(|r| r.rebuilt_mb).sum();
    // 4 s of rebuild at 10 MB/s, plus a chunk (1 MiB) a rebuild may have in flight.
    assert!(mb <= 4.0 * 10.0 + 4.0 * 1.05, "rebuilt {mb} MB in 4 s");
    assert!(mb >= 0.9 * 4.0 * 10.0, "rebuilt {mb} MB in 4 s");
}

/// 16 disks of 1 GB in two redundancy sets of 8 (dg.d0-d7, dg.d8-d15), double sparing, one
/// VRAID 5 virtual disk with no read cache, rebuilt at 200 MB/s.
const SMALL_SETS: &str = r#"name = "small-sets"
[controllers]
count = 1
[disk_models.hdd-1g]
base = "hdd-10k"
capacity_gb = 1
[[disk_groups]]
name = "dg"
disks = 16
disk_model = "hdd-1g"
sparing = "double"
set_disks = 8
[[virtual_disks]]
name = "vd"
disk_group = "dg"
level = "vraid5"
size = "1g"
read_cache = false
[rebuild]
rate_mbps = 200
priority = "high"
"#;

#[test]
fn units_rebuilt_onto_a_disk_that_fails_later_are_rebuilt_again() {
    let s = system(SMALL_SETS);
    // dg.d0 fails and is rebuilt into the reserves of dg.d1-d7 (about 3 s); then dg.d1,
    // holding some of dg.d0's units, fails: its own units and dg.d0's are rebuilt again.
    // The measured window starts after both rebuilds.
    let w = "[[streams]]\nprofile = \"randread-8k\"\njobs = 1\niodepth = 4\n";
    let w = parse_workload(w, "w.toml", &s).unwrap_or_else(|e| panic!("{e}"));
    let f: Vec<_> = (["dg.d0@1s", "dg.d1@8s"].iter())
        .map(|f| storlab_sim::parse_failure_arg(f, &s).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let run = storlab_sim::simulate_with(&s, &w, &f, None, opts(5, 20, 1))
        .unwrap_or_else(|e| panic!("{e}"));
    let kinds: Vec<_> = run.events.iter().map(|e| e.kind.as_str()).collect();
    assert!(!kinds.contains(&"data_loss"), "{:?}", run.events);
    assert_eq!(run.rebuilds.len(), 2, "{:?}", run.rebuilds);
    for r in &run.rebuilds {
        assert!(r.end_s.is_some_and(|t| t < 20.0), "{r:?}");
    }
    // dg.d1's rebuild covers its own data (as much as dg.d0's) and the units of dg.d0 it
    // held (a few MB: dg.d0's data is spread over the reserves of 7 disks).
    let (first, second) = (&run.rebuilds[0], &run.rebuilds[1]);
    assert!(
        second.rebuilt_mb > first.rebuilt_mb * 1.03,
        "dg.d1 rebuilt {} MB, dg.d0 {} MB",
        second.rebuilt_mb,
        first.rebuilt_mb
    );
    // Nothing is read from the failed disks, and every host read costs one disk read: no
    // unit is reconstructed from its stripe any more.
    for d in &run.devices[..2] {
        assert_eq!(d.iops, 0.0, "{} serves I/O after failing", d.name);
    }
    let disk_reads: f64 = device_sum(&run, |d| d.read_iops);
    let per_read = disk_reads / run.metrics.read_iops;
    assert!(per_read < 1.001, "{per_read} disk reads per host read");
}
