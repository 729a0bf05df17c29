//! Failures: degraded RAID cost, rebuild time, data loss reported, controller failover,
//! determinism with failures and traces, trace replay.

use super::*;
use storlab_sim::{parse_failure_arg, simulate_with, TraceMode, TraceSource};

fn disk_reads_per_host_read(run: &Run) -> f64 {
    device_sum(run, |d| d.read_iops) / run.metrics.read_iops
}

#[test]
fn degraded_raid5_reads_cost_the_expected_factor() {
    let s = system(&bare("raid5", 5, "hdd-10k", "64k"));
    let healthy = run_profile(&s, "randread-8k", opts(20, 2, 1));
    let degraded = run_failing(&s, "randread-8k", &["g.d0@0s"], opts(20, 2, 1));
    assert!((disk_reads_per_host_read(&healthy) - 1.0).abs() < 0.01);
    // 4/5 of reads hit a survivor (1 read); 1/5 hit the lost disk (4 reads): 1.6 per read.
    let factor = disk_reads_per_host_read(&degraded);
    assert!((factor - 1.6).abs() < 0.05, "degraded factor {factor}");
    assert_eq!(degraded.devices[0].iops, 0.0);
    assert!(degraded.events.iter().any(|e| e.kind == "no_spare"));
}

fn small_raid5(capacity_gb: f64, rate_mbps: f64) -> SystemSpec {
    system(&format!(
        "{}\n[rebuild]\nrate_mbps = {rate_mbps}\npriority = \"high\"\n[disk_models.small]\nbase = \"hdd-15k\"\ncapacity_gb = {capacity_gb}\n",
        bare("raid5", 5, "small", "64k").replace("disks = 5", "disks = 5\nspares = 1")
    ))
}

/// A light open-loop reader, so the rebuild runs at its configured rate.
const LIGHT: &str = "[[streams]]\nprofile = \"randread-8k\"\nrate_iops = 100\n";

fn run_light(s: &SystemSpec, fail: &str, o: RunOptions) -> Run {
    let w = storlab_sim::parse_workload(LIGHT, "w.toml", s).unwrap();
    simulate_with(s, &w, &[parse_failure_arg(fail, s).unwrap()], None, o).unwrap()
}

fn rebuild_seconds(capacity_gb: f64, rate_mbps: f64) -> f64 {
    let s = small_raid5(capacity_gb, rate_mbps);
    let run = run_light(&s, "g.d2@1s", opts(200, 0, 1));
    let r = &run.rebuilds[0];
    assert!(r.end_s.is_some(), "rebuild finished: {r:?}");
    assert_eq!(r.spare, "g.spare0");
    assert!(run.events.iter().any(|e| e.kind == "rebuild_done"));
    r.duration_s
}

#[test]
fn rebuild_completes_and_scales_with_disk_size_and_rate() {
    // 0.5 GB per disk at 10 MB/s: about 50 s (the usable size is rounded to stripe units).
    let base = rebuild_seconds(0.5, 10.0);
    assert!((base - 50.0).abs() / 50.0 < 0.05, "rebuild took {base} s");
    let bigger = rebuild_seconds(1.0, 10.0);
    let faster = rebuild_seconds(0.5, 20.0);
    assert!(
        (bigger / base - 2.0).abs() < 0.1,
        "2x disk: {bigger} vs {base}"
    );
    assert!(
        (base / faster - 2.0).abs() < 0.1,
        "2x rate: {faster} vs {base}"
    );
}

#[test]
fn foreground_latency_is_reported_before_during_and_after_a_rebuild() {
    let s = small_raid5(0.5, 20.0);
    let run = run_light(&s, "g.d2@10s", opts(60, 0, 1));
    let r = &run.rebuilds[0];
    assert!(r.end_s.is_some_and(|t| t < 50.0), "{r:?}");
    assert!(
        r.latency_ms_during.mean > 1.2 * r.latency_ms_before.mean,
        "{r:?}"
    );
    assert!(r.latency_ms_after.mean < r.latency_ms_during.mean, "{r:?}");
    // After the rebuild the spare is a member: one disk read per host read again.
    let after = run_light(&s, "g.d2@1s", opts(30, 40, 1));
    assert!((disk_reads_per_host_read(&after) - 1.0).abs() < 0.01);
    assert!(after
        .devices
        .iter()
        .any(|d| d.name == "g.spare0" && d.read_iops > 0.0));
}

#[test]
fn data_loss_is_reported_not_hidden() {
    let r5 = system(&bare("raid5", 5, "hdd-10k", "64k"));
    let run = run_failing(&r5, "randread-8k", &["g.d0@1s", "g.d1@2s"], opts(5, 0, 1));
    assert!(
        run.events
            .iter()
            .any(|e| e.kind == "data_loss" && e.target == "g"),
        "{:?}",
        run.events
    );
    assert!(run.metrics.io_errors > 0);
    let r10 = system(&bare("raid10", 4, "hdd-10k", "64k"));
    let one = run_failing(&r10, "randread-8k", &["g.d0@1s", "g.d2@2s"], opts(5, 0, 1));
    assert!(
        !one.events.iter().any(|e| e.kind == "data_loss"),
        "different pairs survive"
    );
    assert_eq!(one.metrics.io_errors, 0);
    let both = run_failing(&r10, "randread-8k", &["g.d0@1s", "g.d1@2s"], opts(5, 0, 1));
    assert!(both.events.iter().any(|e| e.kind == "data_loss"));
}

#[test]
fn controller_failure_moves_luns_to_the_peer() {
    let s = system(MIDRANGE_RAID5);
    let run = run_failing(&s, "oltp-60-40", &["controller:0@5s"], opts(10, 5, 1));
    assert!(run.events.iter().any(|e| e.kind == "failover"));
    assert!(
        !run.events.iter().any(|e| e.kind == "data_loss"),
        "mirrored writes survive"
    );
    assert_eq!(run.metrics.io_errors, 0);
    assert!(run.metrics.iops > 1000.0);
    let unmirrored =
        system(&MIDRANGE_RAID5.replace("mirror_writes = true", "mirror_writes = false"));
    let run = run_failing(
        &unmirrored,
        "randwrite-8k",
        &["controller:0@20s"],
        opts(5, 20, 1),
    );
    assert!(
        run.events.iter().any(|e| e.kind == "data_loss"),
        "{:?}",
        run.events
    );
}

/// Both controllers' write caches are full of random writes when one fails (a minute of them
/// fills them past the high watermark, destage paced from the low one): the survivor
/// holds both sets of dirty pages, more than its own cache, so new writes wait until
/// destaging brings it back under (they were accepted without limit when the free room
/// wrapped below zero).
#[test]
fn a_survivor_over_its_write_cache_takes_no_writes_until_it_drains() {
    let s = system(MIDRANGE_RAID5);
    let steady = run_failing(&s, "randwrite-8k", &[], opts(10, 60, 1));
    let after = run_failing(&s, "randwrite-8k", &["controller:0@60s"], opts(10, 60, 1));
    assert!(after.events.iter().any(|e| e.kind == "failover"));
    assert!(
        after.metrics.write_iops < 0.5 * steady.metrics.write_iops,
        "writes after the failover {} against {} before",
        after.metrics.write_iops,
        steady.metrics.write_iops
    );
    let delayed: Vec<f64> = after.arrays.iter().map(|a| a.nvs_full_delay_pct).collect();
    assert!(delayed.iter().any(|&p| p > 50.0), "{delayed:?}");
}

/// The same failover with `failover_write_policy = "write-through"`: the survivor sends new
/// writes (and those that were waiting for cache room) to the disks while it destages
/// everything it holds, so writes keep flowing, slower than from cache, instead of stalling.
#[test]
fn a_write_through_survivor_keeps_writes_flowing() {
    let back = system(MIDRANGE_RAID5);
    let through = system(&MIDRANGE_RAID5.replace(
        "mirror_writes = true",
        "mirror_writes = true\nfailover_write_policy = \"write-through\"",
    ));
    let stalled = run_failing(
        &back,
        "randwrite-8k",
        &["controller:0@20s"],
        opts(10, 20, 1),
    );
    let flowing = run_failing(
        &through,
        "randwrite-8k",
        &["controller:0@20s"],
        opts(10, 20, 1),
    );
    assert!(
        flowing.metrics.write_iops > 100.0
            && flowing.metrics.write_iops > 100.0 * stalled.metrics.write_iops,
        "write-through {} against write-back {} IO/s after the failover",
        flowing.metrics.write_iops,
        stalled.metrics.write_iops
    );
    let delayed: Vec<f64> = flowing
        .arrays
        .iter()
        .map(|a| a.nvs_full_delay_pct)
        .collect();
    assert!(delayed.iter().all(|&p| p == 0.0), "{delayed:?}");
    assert_eq!(flowing.metrics.io_errors, 0);
}

/// Both controllers fail, one after the other, under random writes: the second failure
/// leaves the LUNs without a controller. The run still ends with every request completed
/// once (the model asserts it), reports the data as unavailable and counts the errors;
/// destaging stops with the last controller.
#[test]
fn losing_the_last_controller_makes_the_data_unavailable() {
    let s = system(MIDRANGE_RAID5);
    let run = run_failing(
        &s,
        "randwrite-8k",
        &["controller:1@4s", "controller:0@6s"],
        opts(6, 2, 1),
    );
    let kinds: Vec<&str> = run.events.iter().map(|e| e.kind.as_str()).collect();
    assert!(kinds.contains(&"failover"), "{kinds:?}");
    assert!(kinds.contains(&"data_unavailable"), "{kinds:?}");
    assert!(run.metrics.io_errors > 0);
    // Reads too: from the second failure on, nothing completes, not even what the disks were
    // serving (32 reads did in the next second before requests on a dead controller failed).
    let reads = run_failing(
        &s,
        "oltp-60-40",
        &["controller:1@4s", "controller:0@6s"],
        opts(6, 2, 1),
    );
    // The series counts from the end of the 2 s warm-up: the second failure is at 4 s in it.
    let after: Vec<(f64, f64)> = reads
        .series
        .iter()
        .filter(|p| p.t_s >= 4.0)
        .map(|p| (p.t_s, p.iops))
        .collect();
    // (At most the few replies already on their way over the paths at the failure land.)
    assert!(
        after.len() == 2 && after[0].1 <= 5.0 && after[1].1 == 0.0,
        "{after:?}"
    );
    assert!(reads.series.iter().any(|p| p.t_s < 4.0 && p.iops > 0.0));
}

fn spc_trace(mode: TraceMode) -> TraceSource {
    let text = include_str!("../fixtures/traces/spc.csv");
    let reader = storlab_sim::trace::TraceReader::new(
        text.as_bytes(),
        storlab_sim::trace::TraceFormat::Spc,
        "spc.csv",
    );
    TraceSource {
        feed: Box::new(reader),
        file: "spc.csv".into(),
        mode,
        map: Vec::new(),
    }
}

fn replay(mode: TraceMode, seed: u64) -> Run {
    let s = system(MIDRANGE_RAID5);
    let w = storlab_sim::WorkloadSpec {
        name: "trace".into(),
        streams: Vec::new(),
        database: None,
    };
    simulate_with(&s, &w, &[], Some(spc_trace(mode)), opts(100, 0, seed)).unwrap()
}

#[test]
fn traces_replay_every_record_open_and_closed_loop() {
    let records = include_str!("../fixtures/traces/spc.csv")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .count() as u64;
    let open = replay(TraceMode::OpenLoop { speed: 1.0 }, 1);
    assert_eq!(open.sim.as_ref().unwrap().host_ios, records);
    let closed = replay(TraceMode::ClosedLoop { outstanding: 4 }, 1);
    assert_eq!(closed.sim.as_ref().unwrap().host_ios, records);
    assert!(open.metrics.write_iops > 0.0 && open.metrics.read_iops > 0.0);
}

#[test]
fn failures_and_traces_stay_deterministic() {
    let s = system(MIDRANGE_RAID10);
    let a = run_failing(
        &s,
        "oltp-60-40",
        &["r10-1.d0@2s", "path:p1@3s"],
        opts(5, 1, 9),
    );
    let b = run_failing(
        &s,
        "oltp-60-40",
        &["r10-1.d0@2s", "path:p1@3s"],
        opts(5, 1, 9),
    );
    let strip = |r: &Run| {
        let mut r = r.clone();
        r.sim.as_mut().unwrap().wall_s = 0.0;
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(strip(&a), strip(&b));
    let x = replay(TraceMode::OpenLoop { speed: 2.0 }, 3);
    let y = replay(TraceMode::OpenLoop { speed: 2.0 }, 3);
    assert_eq!(strip(&x), strip(&y));
}

fn run_light_failing(s: &SystemSpec, fails: &[&str], o: RunOptions) -> Run {
    let w = storlab_sim::parse_workload(LIGHT, "w.toml", s).unwrap();
    let f: Vec<_> = (fails.iter())
        .map(|f| parse_failure_arg(f, s).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    simulate_with(s, &w, &f, None, o).unwrap()
}

fn device<'a>(run: &'a Run, name: &str) -> &'a storlab_core::result::DeviceMetrics {
    (run.devices.iter().find(|d| d.name == name)).unwrap_or_else(|| panic!("no device {name}"))
}

#[test]
fn a_spare_that_took_over_and_fails_is_rebuilt_onto_the_next_spare() {
    // 0.5 GB disks rebuilt at 50 MB/s: about 10 s each. g.d2 fails at 1 s and is rebuilt onto
    // a spare (the pool's last, g.spare1); g.spare1 fails at 20 s and is rebuilt onto
    // g.spare0; measured from 40 s.
    let two_spares = |spares: u32| {
        let text = bare("raid5", 5, "small", "64k")
            .replace("disks = 5", &format!("disks = 5\nspares = {spares}"));
        system(&format!(
            "{text}\n[rebuild]\nrate_mbps = 50\npriority = \"high\"\n\
             [disk_models.small]\nbase = \"hdd-15k\"\ncapacity_gb = 0.5\n"
        ))
    };
    let s = two_spares(2);
    let run = run_light_failing(&s, &["g.d2@1s", "g.spare1@20s"], opts(10, 40, 1));
    let spares: Vec<_> = run.rebuilds.iter().map(|r| r.spare.as_str()).collect();
    assert_eq!(spares, ["g.spare1", "g.spare0"], "{:?}", run.events);
    assert!(run
        .rebuilds
        .iter()
        .all(|r| r.end_s.is_some_and(|t| t < 40.0)));
    assert_eq!(device(&run, "g.d2").iops, 0.0);
    assert_eq!(device(&run, "g.spare1").iops, 0.0);
    assert!(device(&run, "g.spare0").read_iops > 0.0);
    let per_read = disk_reads_per_host_read(&run);
    assert!(
        (per_read - 1.0).abs() < 0.01,
        "{per_read} disk reads per host read"
    );

    // With no spare left the group runs degraded: a fifth of the reads cost four.
    let s = two_spares(1);
    let run = run_light_failing(&s, &["g.d2@1s", "g.spare0@20s"], opts(20, 40, 1));
    assert!(
        run.events.iter().any(|e| e.kind == "no_spare"),
        "{:?}",
        run.events
    );
    assert_eq!(device(&run, "g.spare0").iops, 0.0);
    let per_read = disk_reads_per_host_read(&run);
    assert!(
        (per_read - 1.6).abs() < 0.1,
        "{per_read} disk reads per host read"
    );

    // A spare that fails under its rebuild: the rebuild starts again onto the next one.
    let s = two_spares(2);
    let run = run_light_failing(&s, &["g.d2@1s", "g.spare1@5s"], opts(10, 40, 1));
    let spares: Vec<_> = run.rebuilds.iter().map(|r| r.spare.as_str()).collect();
    assert_eq!(spares, ["g.spare1", "g.spare0"], "{:?}", run.events);
    assert!(run.rebuilds[0].end_s.is_none(), "{:?}", run.rebuilds[0]);
    assert!(run.rebuilds[1].end_s.is_some(), "{:?}", run.rebuilds[1]);
    assert_eq!(device(&run, "g.spare1").iops, 0.0);
    let per_read = disk_reads_per_host_read(&run);
    assert!(
        (per_read - 1.0).abs() < 0.01,
        "{per_read} disk reads per host read"
    );
    // A spare still in its pool leaves it.
    let run = run_light_failing(&s, &["g.spare1@1s", "g.d2@2s"], opts(5, 20, 1));
    assert!(run.events.iter().any(|e| e.kind == "spare_failed"));
    assert_eq!(run.rebuilds[0].spare, "g.spare0");
}
