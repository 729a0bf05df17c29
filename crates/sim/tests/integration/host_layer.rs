//! Host layer: stripe and spread, multipathing, host queues, ASM mirroring with preferred
//! read, log multiplexing, virtual disks.

use super::*;

fn group_sum(
    run: &Run,
    prefix: &str,
    f: impl Fn(&storlab_core::result::DeviceMetrics) -> f64,
) -> f64 {
    run.devices
        .iter()
        .filter(|d| d.name.starts_with(prefix))
        .map(f)
        .sum()
}

#[test]
fn stripe_and_spread_evens_a_random_load_over_the_arrays() {
    let s = system(ENTERPRISE_RAID5);
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"datavol\"\n";
    let run = run_workload(&s, w, opts(20, 2, 1));
    let per_array: Vec<f64> = run
        .arrays
        .iter()
        .filter(|a| a.name.starts_with("data-"))
        .map(|a| a.read_iops)
        .collect();
    assert_eq!(per_array.len(), 6);
    let max = per_array.iter().cloned().fold(0.0, f64::max);
    let min = per_array.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(max / min < 1.10, "per-array read IO/s {per_array:?}");
    let log = run
        .arrays
        .iter()
        .find(|a| a.name == "log")
        .expect("log array");
    assert_eq!(
        log.read_iops, 0.0,
        "the log array is not part of the data volume"
    );
}

#[test]
fn round_robin_splits_io_over_paths_and_survives_a_path_failure() {
    let s = system(ENTERPRISE_RAID5);
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"datavol\"\n";
    let run = run_workload(&s, w, opts(10, 1, 1));
    let (a, b) = (run.paths[0].iops, run.paths[1].iops);
    assert!((a - b).abs() / a < 0.02, "paths {a} vs {b}");
    let failed = s.clone();
    let fail = storlab_sim::parse_failure_arg("path:p0@3s", &failed).expect("failure spec");
    let w = storlab_sim::parse_workload(w, "w.toml", &failed).expect("workload");
    let run = storlab_sim::simulate_with(&failed, &w, &[fail], None, opts(10, 5, 1)).expect("run");
    assert!(run.paths[0].failed);
    assert_eq!(
        run.paths[0].iops, 0.0,
        "nothing on the failed path after the warm-up"
    );
    assert!(run.paths[1].iops > 0.9 * run.metrics.iops);
    assert_eq!(run.metrics.io_errors, 0);
}

#[test]
fn a_single_2gb_path_caps_sequential_reads_near_200_mb_s() {
    let s =
        system(&ENTERPRISE_RAID5.replace("multipath = \"round-robin\"", "multipath = \"single\""));
    let w = "[[streams]]\nprofile = \"seqread-1m\"\ntarget = \"datavol\"\n";
    let run = run_workload(&s, w, opts(10, 2, 1));
    let mbps = run.metrics.mbps;
    assert!(
        mbps <= 200.0 * 1.001 && mbps > 180.0,
        "single path carried {mbps} MB/s"
    );
    assert_eq!(run.paths[1].iops, 0.0);
    let both = run_workload(&system(ENTERPRISE_RAID5), w, opts(10, 2, 1));
    assert!(
        both.metrics.mbps > 1.8 * mbps,
        "two paths {} vs one {mbps}",
        both.metrics.mbps
    );
}

#[test]
fn preferred_paths_follow_the_owning_controller() {
    let s = system(EVAGROUP_VRAID5);
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"vd-0\"\n";
    let run = run_workload(&s, w, opts(5, 1, 1));
    // vd-0 belongs to controller 0: its paths are p0 and p2; it uses one of them.
    let used: Vec<&str> = run
        .paths
        .iter()
        .filter(|p| p.iops > 0.0)
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(used.len(), 1, "{used:?}");
    assert!(used[0] == "p0" || used[0] == "p2", "{used:?}");
}

#[test]
fn a_per_lun_queue_depth_limits_outstanding_io() {
    let deep = system(&bare("raid5", 5, "hdd-10k", "64k"));
    let shallow = system(
        &bare("raid5", 5, "hdd-10k", "64k").replace("[host]", "[host]\nqueue_depth_per_lun = 1"),
    );
    let a = run_profile(&deep, "randread-8k", opts(20, 2, 1))
        .metrics
        .iops;
    let b = run_profile(&shallow, "randread-8k", opts(20, 2, 1))
        .metrics
        .iops;
    let one_disk_qd1 = 1000.0 / (4.7 + 3.0 + 0.13 + 0.1);
    assert!(
        (b - one_disk_qd1).abs() / one_disk_qd1 < 0.1,
        "queue depth 1: {b} IO/s"
    );
    assert!(a > 3.0 * b, "unlimited {a} vs depth 1 {b}");
    // With one I/O at a time at the disk, the deadline scheduler's address order shortens
    // seeks where FIFO does not.
    let one = |sched: &str| {
        let s = system(&bare("jbod", 1, "hdd-10k", "64k").replace(
            "[host]",
            &format!("[host]\nqueue_depth_per_lun = 1\nscheduler = \"{sched}\""),
        ));
        let w = "[[streams]]\nprofile = \"randread-8k\"\njobs = 1\niodepth = 16\n";
        run_workload(&s, w, opts(20, 2, 1)).metrics.iops
    };
    let (fifo, deadline) = (one("none"), one("deadline"));
    assert!(
        deadline > 1.2 * fifo,
        "deadline sorting {deadline} vs fifo {fifo}"
    );
}

#[test]
fn asm_reads_come_from_the_preferred_group_and_writes_land_on_both() {
    let s = system(ASM_PRFG);
    let w = "[[streams]]\nprofile = \"oltp-60-40\"\ntarget = \"data\"\n";
    let run = run_workload(&s, w, opts(20, 5, 1));
    let hdd_reads = group_sum(&run, "hdd-", |d| d.read_iops);
    let ssd_reads = group_sum(&run, "ssd-", |d| d.read_iops);
    // RAID 5 destage reads old data and parity: count only reads that served hosts.
    let hdd_host_reads: f64 = run
        .arrays
        .iter()
        .filter(|a| a.name.starts_with("hdd"))
        .map(|a| a.read_iops)
        .sum();
    assert_eq!(hdd_host_reads, 0.0, "no host read may go to the HDD group");
    assert!(ssd_reads > 0.0 && hdd_reads >= 0.0);
    assert!(group_sum(&run, "ssd-", |d| d.write_iops) > 0.0);
    assert!(group_sum(&run, "hdd-", |d| d.write_iops) > 0.0);
    let without = run_workload(&system(ASM_NOPRFG), w, opts(20, 5, 1));
    let hdd_host_reads: f64 = without
        .arrays
        .iter()
        .filter(|a| a.name.starts_with("hdd"))
        .map(|a| a.read_iops)
        .sum();
    let ssd_host_reads: f64 = without
        .arrays
        .iter()
        .filter(|a| a.name.starts_with("ssd"))
        .map(|a| a.read_iops)
        .sum();
    assert!(
        (hdd_host_reads / ssd_host_reads - 1.0).abs() < 0.15,
        "without preferred read: hdd {hdd_host_reads} ssd {ssd_host_reads}"
    );
    assert!(
        run.metrics.read_latency_ms.unwrap().mean
            < 0.5 * without.metrics.read_latency_ms.unwrap().mean
    );
}

#[test]
fn losing_the_preferred_group_moves_reads_to_the_other_and_loses_nothing() {
    let s = system(ASM_PRFG);
    let w = storlab_sim::parse_workload(
        "[[streams]]\nprofile = \"oltp-60-40\"\ntarget = \"data\"\n",
        "w.toml",
        &s,
    )
    .unwrap();
    let fail = storlab_sim::parse_failure_arg("failure_group:data.ssd@2s", &s).unwrap();
    let run = storlab_sim::simulate_with(&s, &w, &[fail], None, opts(10, 5, 1)).unwrap();
    let hdd_host_reads: f64 = run
        .arrays
        .iter()
        .filter(|a| a.name.starts_with("hdd"))
        .map(|a| a.read_iops)
        .sum();
    assert!(hdd_host_reads > 0.0);
    let ssd_host_reads: f64 = run
        .arrays
        .iter()
        .filter(|a| a.name.starts_with("ssd"))
        .map(|a| a.read_iops)
        .sum();
    assert_eq!(ssd_host_reads, 0.0, "no read goes to the failed group");
    assert_eq!(run.metrics.io_errors, 0, "every request completes");
    assert!(run.metrics.ios > 1000);
}

#[test]
fn multiplexed_log_writes_both_members_and_waits_for_the_slower() {
    // Write-through, so every log write reaches the disks before it completes.
    let text = include_str!("../../../../examples/arrays/redo-raid5-vs-jbod.toml").replace(
        "write_cache = \"1g\"",
        "write_cache = \"1g\"\nwrite_policy = \"write-through\"",
    );
    let s = system(&text);
    let mux = run_workload(
        &s,
        "[[streams]]\nprofile = \"redo\"\ntarget = \"redo-mux\"\n",
        opts(10, 2, 1),
    );
    let a = group_sum(&mux, "jbod-0.", |d| d.write_iops);
    let b = group_sum(&mux, "jbod-1.", |d| d.write_iops);
    assert!(a > 0.0 && (a - b).abs() / a < 0.01, "members {a} {b}");
    let ratio = group_sum(&mux, "jbod-", |d| d.mbps) / mux.metrics.write_mbps;
    assert!(
        (ratio - 2.0).abs() < 0.02,
        "each write lands twice: {ratio}"
    );
    // With a slow member (7,200 rpm) beside a fast one (15,000 rpm), a log write waits for
    // the slow one.
    let mixed = text.replace("count = 2\nlevel = \"jbod\"", "level = \"jbod\"").replace(
        "[[volumes]]\nname = \"redo-raid5\"",
        "[[raid_groups]]\nname = \"slow\"\nlevel = \"jbod\"\ndisks = 1\ndisk_model = \"hdd-7k2\"\n\n[[volumes]]\nname = \"redo-raid5\"",
    ).replace("luns = [\"jbod-0\", \"jbod-1\"]", "luns = [\"jbod\", \"slow\"]");
    let s = system(&mixed);
    let redo = |target: &str| {
        let w = format!("[[streams]]\nprofile = \"redo\"\ntarget = \"{target}\"\n");
        run_workload(&s, &w, opts(10, 2, 1)).metrics.latency_ms.mean
    };
    let (fast, slow, both) = (redo("jbod"), redo("slow"), redo("redo-mux"));
    assert!(slow > 1.5 * fast, "slow {slow} fast {fast}");
    assert!(
        both >= slow * 0.99 && both < slow * 1.2,
        "multiplexed {both} vs slow member {slow}"
    );
}

#[test]
fn virtual_disks_spread_over_the_whole_disk_group() {
    let s = system(EVAGROUP_VRAID5);
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"vd-0\"\n";
    let run = run_workload(&s, w, opts(10, 2, 1));
    let busy = run
        .devices
        .iter()
        .filter(|d| d.name.starts_with("dg.d") && d.iops > 0.0)
        .count();
    assert_eq!(busy, 84, "one virtual disk uses all 84 disks");
}
