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
