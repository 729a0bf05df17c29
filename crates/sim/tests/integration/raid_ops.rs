//! Disk operations per host write, measured through the whole stack in write-through mode,
//! match each RAID level's arithmetic.

use super::*;

/// (disk reads per host write, disk writes per host write, run).
fn per_write(level: &str, disks: u32, profile: &str) -> (f64, f64, Run) {
    let s = system(&bare(level, disks, "hdd-10k", "64k"));
    let run = run_profile(&s, profile, opts(20, 2, 3));
    let w = run.metrics.write_iops;
    assert!(w > 0.0, "{level}: no writes completed");
    let reads = device_sum(&run, |d| d.read_iops) / w;
    let writes = device_sum(&run, |d| d.write_iops) / w;
    (reads, writes, run)
}

fn close(x: f64, want: f64) -> bool {
    (x - want).abs() <= 0.02 * want.max(1.0)
}

#[test]
fn small_random_writes_cost_what_each_level_says() {
    let cases = [
        ("jbod", 2, 0.0, 1.0),
        ("raid0", 4, 0.0, 1.0),
        ("raid1", 2, 0.0, 2.0),
        ("raid10", 4, 0.0, 2.0),
        ("raid5", 5, 2.0, 2.0),
        ("raid6", 6, 3.0, 3.0),
    ];
    for (level, disks, r, w) in cases {
        let (reads, writes, _) = per_write(level, disks, "randwrite-8k");
        assert!(
            close(reads, r) && close(writes, w),
            "{level}: {reads:.3} reads + {writes:.3} writes per host write; want {r} + {w}"
        );
    }
}

#[test]
fn raid5_small_writes_are_read_modify_writes() {
    let (_, _, run) = per_write("raid5", 5, "randwrite-8k");
    let sw = run.arrays[0]
        .stripe_writes
        .clone()
        .expect("parity group reports stripe writes");
    assert!(sw.read_modify_write > 0.0);
    assert_eq!(sw.full_stripe, 0.0);
    assert_eq!(sw.reconstruct_write, 0.0);
}

#[test]
fn raid5_full_stripe_writes_need_no_reads() {
    // 4+1 with a 64 KiB unit: a full stripe is 256 KiB; 1 MiB aligned writes cover 4 stripes.
    let (reads, writes, run) = per_write("raid5", 5, "seqwrite-1m");
    assert_eq!(reads, 0.0, "full-stripe writes read nothing");
    let sw = run.arrays[0].stripe_writes.clone().expect("stripe writes");
    assert!(sw.full_stripe > 0.0 && sw.read_modify_write == 0.0 && sw.reconstruct_write == 0.0);
    // Bytes: data plus one parity unit per 4 data units = 1.25 x the host bytes.
    let disk_mb = device_sum(&run, |d| d.mbps);
    let ratio = disk_mb / run.metrics.write_mbps;
    assert!(
        (ratio - 1.25).abs() < 0.02,
        "disk bytes / host bytes = {ratio}"
    );
    assert!(writes > 0.0);
}

#[test]
fn mirrored_reads_balance_over_both_copies() {
    let s = system(&bare("raid10", 4, "hdd-10k", "64k"));
    let run = run_profile(&s, "randread-8k", opts(20, 2, 5));
    let reads: Vec<f64> = run.devices.iter().map(|d| d.read_iops).collect();
    let max = reads.iter().cloned().fold(0.0, f64::max);
    let min = reads.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(min > 0.85 * max, "per-disk reads {reads:?}");
    let primary = system(&bare("raid10", 4, "hdd-10k", "64k").replace(
        "write_cache = false",
        "write_cache = false\nmirror_read = \"primary\"",
    ));
    let run = run_profile(&primary, "randread-8k", opts(20, 2, 5));
    let reads: Vec<f64> = run.devices.iter().map(|d| d.read_iops).collect();
    assert!(
        reads[1] == 0.0 && reads[3] == 0.0 && reads[0] > 0.0,
        "{reads:?}"
    );
    // Balancing both copies beats reading only the primaries.
    let balanced = run_profile(&s, "randread-8k", opts(20, 2, 5)).metrics.iops;
    assert!(balanced > 1.3 * run.metrics.iops);
}
