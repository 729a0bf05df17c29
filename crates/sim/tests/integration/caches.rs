//! Controller caches: read hits, prefetch, write-back vs write-through, NVS full, mirroring.

use super::*;

const SMALL_ARRAY: &str = r#"
name = "small"
[controllers]
count = 1
cache = "1g"
write_cache = "64m"
[[raid_groups]]
name = "g"
level = "raid5"
disks = 5
disk_model = "hdd-10k"
stripe_unit = "64k"
"#;

#[test]
fn a_hot_region_smaller_than_the_cache_is_served_from_cache() {
    let s = system(SMALL_ARRAY);
    let w = "[[streams]]\nprofile = \"randread-8k\"\nregion_size = \"64m\"\n";
    let run = run_workload(&s, w, opts(10, 20, 1));
    let a = &run.arrays[0];
    assert!(a.cache_read_hit_pct > 99.0, "hit {}%", a.cache_read_hit_pct);
    assert!(
        run.metrics.latency_ms.mean < 1.0,
        "{}",
        run.metrics.latency_ms.mean
    );
    let cold = run_profile(&s, "randread-8k", opts(10, 2, 1));
    assert!(cold.arrays[0].cache_read_hit_pct < 5.0);
    assert!(cold.metrics.latency_ms.mean > 10.0 * run.metrics.latency_ms.mean);
}

#[test]
fn sequential_readers_hit_prefetched_data() {
    let s = system(SMALL_ARRAY);
    let run = run_profile(&s, "seqread-8k", opts(10, 2, 1));
    assert!(
        run.arrays[0].cache_read_hit_pct > 90.0,
        "hit {}%",
        run.arrays[0].cache_read_hit_pct
    );
    let off =
        system(&SMALL_ARRAY.replace("[controllers]", "[controllers]\nsequential_trigger = 0"));
    let no_prefetch = run_profile(&off, "seqread-8k", opts(10, 2, 1));
    assert!(run.metrics.iops > 2.0 * no_prefetch.metrics.iops);
}

#[test]
fn write_back_hides_the_raid5_penalty_until_nvs_fills() {
    let s = system(SMALL_ARRAY);
    // A light synchronous log writer: acknowledged from cache.
    let wb = run_profile(&s, "redo", opts(10, 1, 1));
    let wt_sys = system(&SMALL_ARRAY.replace(
        "[controllers]",
        "[controllers]\nwrite_policy = \"write-through\"",
    ));
    let wt = run_profile(&wt_sys, "redo", opts(10, 1, 1));
    assert!(
        wb.metrics.latency_ms.mean < 0.5,
        "write-back {}",
        wb.metrics.latency_ms.mean
    );
    assert!(wt.metrics.latency_ms.mean > 5.0 * wb.metrics.latency_ms.mean);
    assert_eq!(wb.arrays[0].nvs_full_delay_pct, 0.0);
    // Heavy random writes overrun 64 MiB of NVS: writes wait, and the wait is counted.
    let heavy = run_profile(&s, "randwrite-8k", opts(10, 5, 1));
    assert!(
        heavy.arrays[0].nvs_full_delay_pct > 50.0,
        "{}",
        heavy.arrays[0].nvs_full_delay_pct
    );
    assert!(heavy.arrays[0].destage_iops > 0.0);
}

#[test]
fn mirroring_writes_to_the_peer_costs_latency() {
    let array =
        |controllers: &str| system(&SMALL_ARRAY.replace("[controllers]\ncount = 1", controllers));
    let redo_ms = |controllers: &str| {
        run_profile(&array(controllers), "redo", opts(5, 1, 1))
            .metrics
            .latency_ms
            .mean
    };
    let two = "[controllers]\ncount = 2\nmirror_latency = \"100us\"";
    let a = redo_ms(&format!("{two}\nmirror_writes = true"));
    let b = redo_ms(&format!("{two}\nmirror_writes = false"));
    // 100 us fixed plus 8 KiB at 800 MB/s.
    let extra = a - b;
    assert!((extra - 0.110).abs() < 0.005, "mirror adds {extra} ms");
    // One controller has no peer to copy to.
    let one = "[controllers]\ncount = 1\nmirror_latency = \"100us\"";
    let single = redo_ms(&format!("{one}\nmirror_writes = true"));
    let single_off = redo_ms(&format!("{one}\nmirror_writes = false"));
    assert_eq!(single, single_off, "mirroring without a peer");
    // The peer fails at 1 s: the survivor has nothing to copy to from then on.
    let s = array(&format!("{two}\nmirror_writes = true"));
    let w = profile_workload("redo", &s).unwrap();
    let fail = storlab_sim::parse_failure_arg("controller:1@1s", &s).unwrap();
    let after = storlab_sim::simulate_with(&s, &w, &[fail], None, opts(5, 1, 1)).unwrap();
    assert!(after.events.iter().any(|e| e.kind == "failover"));
    let after = after.metrics.latency_ms.mean;
    assert!(
        (after - b).abs() < 0.005,
        "{after} ms after the failover, {b} unmirrored"
    );
}

#[test]
fn per_lun_cache_switches_take_effect() {
    let s = system(&SMALL_ARRAY.replace(
        "stripe_unit = \"64k\"",
        "stripe_unit = \"64k\"\nwrite_cache = false\nread_cache = false",
    ));
    let w = "[[streams]]\nprofile = \"randread-8k\"\nregion_size = \"64m\"\n";
    let run = run_workload(&s, w, opts(5, 5, 1));
    assert_eq!(run.arrays[0].cache_read_hit_pct, 0.0);
    let redo = run_profile(&s, "redo", opts(5, 1, 1));
    assert!(
        redo.metrics.latency_ms.mean > 2.0,
        "write-through per LUN: {}",
        redo.metrics.latency_ms.mean
    );
}

/// Two SSDs striped behind one controller with a small write cache (it fills in the
/// warm-up), with `controllers` lines added.
fn ssd_pair(model: &str, controllers: &str) -> SystemSpec {
    system(&format!(
        "name = \"ssd-pair\"\n[controllers]\ncount = 1\ncache = \"1g\"\nwrite_cache = \"64m\"\n\
         {controllers}\n[[raid_groups]]\nname = \"g\"\nlevel = \"raid0\"\ndisks = 2\n\
         disk_model = \"{model}\"\nstripe_unit = \"64k\"\n"
    ))
}

#[test]
fn write_back_in_front_of_ssds_destages_as_fast_as_the_ssds_write() {
    for model in ["ssd-emlc", "ssd-nvme"] {
        let iops = |controllers: &str| {
            let s = ssd_pair(model, controllers);
            run_profile(&s, "randwrite-8k", opts(5, 3, 1)).metrics.iops
        };
        let back = iops("");
        let through = iops("write_policy = \"write-through\"");
        // Write-back acknowledges from the cache and destages as many writes per SSD as it
        // has flash dies: at least as fast as the host writing to the disks itself.
        assert!(
            back >= through,
            "{model}: write-back {back} write-through {through}"
        );
        // A destage queue set in the file still wins: four per disk starve the SSDs.
        let four = iops("destage_queue_per_disk = 4");
        assert!(
            four * 1.5 < back,
            "{model}: four per disk {four}, derived {back}"
        );
    }
}

/// One 10K disk behind a read cache, no prefetch, negligible controller and link costs; a
/// flat 50 MB/s media rate so a longer stage costs a known transfer time; `staging` lines
/// added to `[controllers]`.
fn staging_array(staging: &str) -> SystemSpec {
    system(&format!(
        r#"name = "staging"
[host]
links = 1
link_mbps = 100000
link_latency = "0"
[controllers]
count = 1
overhead = "0"
mirror_writes = false
sequential_trigger = 0
{staging}
[disk_models.flat]
base = "hdd-10k"
media_rate_outer_mbps = 50.0
media_rate_inner_mbps = 50.0
[[raid_groups]]
name = "g"
level = "jbod"
disks = 1
disk_model = "flat"
stripe_unit = "64k"
"#
    ))
}

/// Replays 8 KiB reads at the given sectors, 100 ms apart (each alone at the disk).
fn replay_reads(s: &SystemSpec, sectors: &[u64]) -> Run {
    let text: String = (sectors.iter().enumerate())
        .map(|(i, lba)| format!("0,{lba},8192,r,{:.3}\n", i as f64 * 0.1))
        .collect();
    let o = opts(sectors.len() as u64 / 10 + 1, 0, 1);
    replay_spc(s, text, "reads.csv", o)
}

const TRACK_32K: &str = "track = \"32KiB\"";

#[test]
fn a_read_miss_stages_by_track_and_later_reads_of_the_track_hit() {
    // A 32 KiB track is 64 sectors; the reads are its second block, its fourth, its first.
    let base = 64 * 100_000;
    let reads = [base + 16, base + 48, base];
    let hits = |staging: &str| {
        let run = replay_reads(&staging_array(staging), &reads);
        assert_eq!(run.sim.as_ref().unwrap().host_ios, 3);
        run.arrays[0].cache_read_hit_pct
    };
    // Block staging caches what was read: every read misses.
    assert_eq!(hits(""), 0.0);
    // From the requested block to the end of the track: the fourth block hits, the first
    // (before the requested one) does not.
    let to_end = hits(&format!(
        "staging = \"record-to-end-of-track\"\n{TRACK_32K}"
    ));
    assert!((to_end - 100.0 / 3.0).abs() < 0.01, "{to_end}");
    // The whole track: both later reads hit.
    let whole = hits(&format!("staging = \"track\"\n{TRACK_32K}"));
    assert!((whole - 200.0 / 3.0).abs() < 0.01, "{whole}");
}

#[test]
fn staging_to_the_end_of_the_track_costs_the_transfer_of_the_rest_of_it() {
    // Fifty reads of the first block of tracks far apart: each misses; staging to the end
    // of the 32 KiB track reads 24 KiB more, 0.49 ms at 50 MB/s.
    let reads: Vec<u64> = (0..50).map(|i| 64 * (1_000 + 37_919 * i)).collect();
    let block = replay_reads(&staging_array(""), &reads);
    let staged = replay_reads(
        &staging_array(&format!(
            "staging = \"record-to-end-of-track\"\n{TRACK_32K}"
        )),
        &reads,
    );
    assert_eq!(block.arrays[0].cache_read_hit_pct, 0.0);
    assert_eq!(staged.arrays[0].cache_read_hit_pct, 0.0);
    let extra_ms = staged.metrics.latency_ms.mean - block.metrics.latency_ms.mean;
    let transfer_ms = 24_576.0 / 50e6 * 1e3;
    assert!(
        (extra_ms - transfer_ms).abs() < 0.1 * transfer_ms,
        "extra {extra_ms} ms against {transfer_ms} ms"
    );
}

#[test]
fn track_staging_needs_a_track_of_whole_segments() {
    let text = |lines: &str| {
        format!("name = \"a\"\n[controllers]\n{lines}\n[[raid_groups]]\nname = \"g\"\nlevel = \"raid5\"\ndisks = 4\ndisk_model = \"hdd-10k\"\n")
    };
    let err = parse_array(&text("staging = \"track\""), "a.toml").unwrap_err();
    assert!(
        err.to_string().contains("controllers.track") && err.to_string().contains("needs"),
        "{err}"
    );
    let err = parse_array(&text("staging = \"track\"\ntrack = \"12KiB\""), "a.toml").unwrap_err();
    assert!(
        err.to_string().contains("whole number of read segments"),
        "{err}"
    );
    // Block staging (the default) leaves the track unused.
    assert!(parse_array(&text("track = \"12KiB\""), "a.toml").is_ok());
}

#[test]
fn paced_destage_keeps_pace_with_a_steady_write_load() {
    // 300 random 8 KiB writes a second, well below what five disks destage, beside 200 random
    // reads a second. Paced by the dirty level, destage settles where it matches the writes,
    // so the reads meet the same disk load every second. Started at the high watermark at
    // full depth and stopped at the low one, it runs in bursts: seconds of 40-58 ms reads
    // alternate with seconds of 4 ms ones.
    let w = "[[streams]]\nprofile = \"randwrite-8k\"\nrate_iops = 300\n\
             [[streams]]\nprofile = \"randread-8k\"\nrate_iops = 200\n";
    // Each second's mean latency over the run's mean: the lowest and the highest.
    let spread = |paced: bool| {
        let s = system(&SMALL_ARRAY.replace(
            "[controllers]",
            &format!("[controllers]\npaced_destage = {paced}"),
        ));
        let run = run_workload(&s, w, opts(40, 40, 1));
        assert!(run.arrays[0].destage_iops > 0.0);
        let per_s: Vec<f64> = run.series.iter().map(|p| p.latency_ms_mean).collect();
        let mean = per_s.iter().sum::<f64>() / per_s.len() as f64;
        let lo = per_s.iter().cloned().fold(f64::INFINITY, f64::min) / mean;
        let hi = per_s.iter().cloned().fold(0.0, f64::max) / mean;
        (lo, hi, per_s)
    };
    let (lo, hi, per_s) = spread(true);
    assert!(
        lo >= 0.6 && hi <= 1.6,
        "paced: {lo:.2} to {hi:.2} of the mean: {per_s:.1?}"
    );
    let (lo, hi, per_s) = spread(false);
    assert!(
        lo < 0.3 && hi > 2.0,
        "watermarks: {lo:.2} to {hi:.2} of the mean: {per_s:.1?}"
    );
}
