//! Workload features: open loop, think time, block-size mixes, regions, several streams.

use super::*;

const ARRAY: &str = r#"
name = "two-luns"
[[raid_groups]]
name = "data"
level = "raid5"
disks = 5
disk_model = "hdd-10k"
[[raid_groups]]
name = "log"
level = "raid10"
disks = 4
disk_model = "hdd-10k"
spares = 1
"#;

#[test]
fn open_loop_achieves_the_requested_rate_and_counts_from_intended_start() {
    let s = system(ARRAY);
    let w =
        "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"data\"\nrate_iops = 400\njobs = 4\n";
    let run = run_workload(&s, w, opts(60, 5, 1));
    let iops = run.metrics.iops;
    assert!(
        (iops - 400.0).abs() / 400.0 < 0.03,
        "open loop {iops} IO/s for 400 requested"
    );
    // Overload: arrivals beyond what 5 disks serve; latency grows with the backlog instead
    // of being hidden by a closed loop.
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"data\"\nrate_iops = 5000\n";
    let over = run_workload(&s, w, opts(10, 0, 1));
    assert!(over.metrics.iops < 3000.0, "{}", over.metrics.iops);
    assert!(
        over.metrics.latency_ms.max > 1000.0,
        "backlog latency {}",
        over.metrics.latency_ms.max
    );
}

#[test]
fn an_overloaded_open_loop_keeps_a_bounded_backlog_and_says_so() {
    // A million I/O per second on 5 disks: arrivals beyond 65,536 in flight are dropped, not
    // queued, and the run says how much of the rate the array completed.
    let s = system(ARRAY);
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"data\"\nrate_iops = 1e6\n";
    let run = run_workload(&s, w, opts(1, 0, 1));
    let warning = (run.warnings.iter())
        .find(|w| w.starts_with("overloaded"))
        .unwrap_or_else(|| panic!("no overload warning in {:?}", run.warnings));
    let completed = format!("completes {:.0} of 1000000 IO/s", run.metrics.iops);
    assert!(warning.contains(&completed), "{warning}");
    assert!(warning.contains("65536"), "{warning}");
    let sim = run.sim.as_ref().unwrap();
    assert!(
        sim.host_ios < 100_000,
        "{} host I/Os completed",
        sim.host_ios
    );
    // The result says how many arrivals were dropped: about the rate the array did not take.
    let dropped = sim.dropped_ios as f64;
    assert!(
        dropped > 0.5 * (1e6 - run.metrics.iops) && dropped <= 1e6,
        "{dropped} dropped"
    );
    // Under the array's rate nothing is dropped and nothing is said.
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"data\"\nrate_iops = 400\n";
    let calm = run_workload(&s, w, opts(2, 0, 1));
    assert!(!calm.warnings.iter().any(|w| w.starts_with("overloaded")));
    assert_eq!(calm.sim.as_ref().unwrap().dropped_ios, 0);
}

#[test]
fn think_time_paces_a_closed_loop_job() {
    let s = system(ARRAY);
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"data\"\nregion_size = \"16m\"\nthink_time = \"10ms\"\njobs = 1\niodepth = 1\n";
    let run = run_workload(&s, w, opts(30, 10, 1));
    let lat = run.metrics.latency_ms.mean;
    let expect = 1000.0 / (10.0 + lat);
    assert!(
        (run.metrics.iops - expect).abs() / expect < 0.02,
        "{} vs {expect}",
        run.metrics.iops
    );
}

#[test]
fn block_size_mix_and_read_share_follow_the_profile() {
    let s = system(ARRAY);
    let run = run_profile(&s, "oltp-60-40", opts(30, 5, 1));
    let read_share = run.metrics.read_iops / run.metrics.iops;
    assert!((read_share - 0.60).abs() < 0.02, "read share {read_share}");
    let mean_kib = run.metrics.mbps * 1e6 / run.metrics.iops / 1024.0;
    assert!(
        (mean_kib - 5.5).abs() < 0.3,
        "mean block {mean_kib} KiB (75% 2k + 25% 16k = 5.5k)"
    );
}

#[test]
fn streams_on_different_luns_stay_on_their_luns() {
    let s = system(ARRAY);
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"data\"\n[[streams]]\nprofile = \"redo\"\ntarget = \"log\"\n";
    let run = run_workload(&s, w, opts(10, 2, 1));
    let data_writes: f64 = run
        .devices
        .iter()
        .filter(|d| d.name.starts_with("data."))
        .map(|d| d.write_iops)
        .sum();
    let log_reads: f64 = run
        .devices
        .iter()
        .filter(|d| d.name.starts_with("log."))
        .map(|d| d.read_iops)
        .sum();
    assert_eq!(data_writes, 0.0);
    assert_eq!(log_reads, 0.0);
    assert!(run.metrics.read_iops > 100.0 && run.metrics.write_iops > 100.0);
    assert!(run
        .devices
        .iter()
        .any(|d| d.name == "log.spare0" && d.iops == 0.0));
    assert_eq!(run.series.len(), 10);
    let total: f64 = run.series.iter().map(|p| p.iops).sum();
    assert_eq!(
        total as u64, run.metrics.ios,
        "the series adds up to the total"
    );
}

#[test]
fn a_region_confines_random_io_to_a_short_stroke() {
    let s = system(&bare("jbod", 1, "hdd-10k", "64k"));
    let full = run_profile(&s, "randread-8k", opts(20, 2, 1)).metrics.iops;
    let w = "[[streams]]\nprofile = \"randread-8k\"\nregion_size = \"10g\"\n";
    let short = run_workload(&s, w, opts(20, 2, 1)).metrics.iops;
    assert!(short > 1.3 * full, "short stroke {short} vs full {full}");
}

#[test]
fn each_stream_of_a_workload_is_reported_as_a_class() {
    let s = system(ARRAY);
    let w = "[[streams]]\nprofile = \"oltp-60-40\"\ntarget = \"data\"\njobs = 8\n\
             [[streams]]\nprofile = \"redo\"\ntarget = \"log\"\n";
    let run = run_workload(&s, w, opts(10, 2, 1));
    let names: Vec<(&str, &str)> = run
        .classes
        .iter()
        .map(|c| (c.name.as_str(), c.target.as_str()))
        .collect();
    assert_eq!(names, [("oltp-60-40", "data"), ("redo", "log")]);
    let (data, redo) = (&run.classes[0].metrics, &run.classes[1].metrics);
    let m = &run.metrics;
    let close = |a: f64, b: f64| (a - b).abs() <= 0.002 + 1e-9 * b;
    assert!(
        close(data.iops + redo.iops, m.iops),
        "{data:?} {redo:?} {m:?}"
    );
    assert!(close(data.read_iops + redo.read_iops, m.read_iops));
    assert!(close(data.write_iops + redo.write_iops, m.write_iops));
    assert!(close(data.mbps + redo.mbps, m.mbps));
    assert_eq!(data.ios + redo.ios, m.ios);
    // Redo is sequential writes acknowledged from the write cache; the data stream's reads
    // go to the disks: milliseconds apart.
    assert_eq!(redo.read_iops, 0.0);
    assert!(data.read_iops > 0.0 && data.write_iops > 0.0);
    assert!(
        redo.latency_ms.mean * 5.0 < data.latency_ms.mean,
        "redo {:?} data {:?}",
        redo.latency_ms,
        data.latency_ms
    );
    assert!(redo.latency_ms.max <= m.latency_ms.max && data.latency_ms.max <= m.latency_ms.max);
}

#[test]
fn streams_of_one_profile_are_told_apart_and_one_stream_has_no_classes() {
    let s = system(ARRAY);
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"data\"\n\
             [[streams]]\nprofile = \"randread-8k\"\ntarget = \"log\"\n";
    let run = run_workload(&s, w, opts(5, 1, 1));
    let names: Vec<&str> = run.classes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["randread-8k#0", "randread-8k#1"]);
    let one = run_workload(
        &s,
        "[[streams]]\nprofile = \"randread-8k\"\n",
        opts(5, 1, 1),
    );
    assert!(one.classes.is_empty());
    assert!(run_profile(&s, "oltp-60-40", opts(5, 1, 1))
        .classes
        .is_empty());
}

#[test]
fn a_stream_beside_a_database_is_a_class_after_its_data_and_log() {
    let s = system(ENTERPRISE_RAID5);
    let w = "[database]\ntest = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\nsessions = 8\ndata = \"datavol\"\n\
             log = \"logvol\"\n[[streams]]\nprofile = \"seqread-8k\"\ntarget = \"datavol\"\n";
    let run = run_workload(&s, w, opts(3, 1, 1));
    let names: Vec<&str> = run.classes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["data", "log", "seqread-8k"]);
    let ios: u64 = run.classes.iter().map(|c| c.metrics.ios).sum();
    assert_eq!(ios, run.metrics.ios, "the classes add up to the host total");
    assert_eq!(run.classes[2].metrics.write_iops, 0.0);
}
