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

/// Replays isolated 8 KiB writes far apart on the group, 100 ms apart: each is alone at the
/// disks, so nothing but its own plan decides how long it takes. Write-back destages each at
/// once (the watermarks are below one 8 KiB page); write-through sends it to the disks while
/// the host waits.
fn isolated_writes(level: &str, disks: u32, write_back: bool) -> Run {
    let mut text = bare(level, disks, "hdd-10k", "64k");
    if write_back {
        text = text
            .replace(
                "write_policy = \"write-through\"",
                "destage_high_pct = 1.0\ndestage_low_pct = 0.5",
            )
            .replace("write_cache = \"0\"", "write_cache = \"1m\"")
            .replace("write_cache = false\n", "");
    }
    let s = system(&text);
    let trace: String = (0..40u64)
        .map(|i| format!("0,{},8192,w,{:.3}\n", i * 37_000_016, i as f64 * 0.1))
        .collect();
    let run = replay_spc(&s, trace, "writes.csv", opts(5, 0, 1));
    assert_eq!(run.metrics.ios, 40, "{level}");
    run
}

#[test]
fn rank_destage_delay_spans_a_read_modify_writes_two_phases() {
    // A RAID 5 update reads the old data and parity (two disks side by side), then writes
    // both: the destage takes a read and then a write, at least twice the mean of its four
    // disk operations, and as long as the same write takes written through.
    let a = &isolated_writes("raid5", 5, true).arrays[0];
    let through_ms = isolated_writes("raid5", 5, false).metrics.latency_ms.mean;
    assert!(
        a.rank_destage_delay_ms >= 2.0 * a.destage_delay_ms && a.destage_delay_ms > 0.0,
        "raid5: rank destage {:.3} ms, per disk operation {:.3} ms",
        a.rank_destage_delay_ms,
        a.destage_delay_ms
    );
    assert!(
        (through_ms - a.rank_destage_delay_ms).abs() <= 0.1 * through_ms,
        "raid5: written through {through_ms:.3} ms, rank destage {:.3} ms",
        a.rank_destage_delay_ms
    );
    // The data disk writes back the block it has just read: the head is on the track and the
    // block comes round again a revolution (6 ms at 10,000 rpm) after it was read.
    assert!(a.rank_destage_delay_ms > a.destage_delay_ms + 0.8 * 6.0);
    // A mirror writes both copies side by side: one phase, about one disk operation.
    let m = &isolated_writes("raid10", 4, true).arrays[0];
    assert!(
        m.rank_destage_delay_ms >= m.destage_delay_ms
            && m.rank_destage_delay_ms <= 1.5 * m.destage_delay_ms,
        "raid10: rank destage {:.3} ms, per disk operation {:.3} ms",
        m.rank_destage_delay_ms,
        m.destage_delay_ms
    );
    assert!(a.rank_destage_delay_ms > 1.5 * m.rank_destage_delay_ms);
}
