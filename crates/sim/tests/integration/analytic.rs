//! A single disk through the whole stack against the analytic service time; the
//! utilisation law; reordering at depth.

use super::*;

fn one_disk_reads(model: &str, iodepth: u32) -> Run {
    let s = system(&bare("jbod", 1, model, "64k"));
    let w = format!("[[streams]]\nprofile = \"randread-8k\"\njobs = 1\niodepth = {iodepth}\n");
    run_workload(&s, &w, opts(120, 5, 1))
}

#[test]
fn single_hdd_random_reads_at_depth_one_match_the_analytic_figure() {
    // 1 / (mean seek + half a revolution + transfer + overhead), data-sheet parameters of
    // hdd-10k: 4.7 ms, 3.0 ms, 8 KiB at the mean media rate (61 MB/s), 0.1 ms.
    let run = one_disk_reads("hdd-10k", 1);
    let transfer_ms = 8192.0 / 61_000.0;
    let analytic = 1000.0 / (4.7 + 3.0 + transfer_ms + 0.1);
    let iops = run.metrics.iops;
    assert!(
        (iops - analytic).abs() / analytic < 0.05,
        "{iops} IOPS vs analytic {analytic}"
    );
    // And for the 15K model: 3.5 ms seek, 2 ms half revolution, 99 MB/s mean media rate.
    let run = one_disk_reads("hdd-15k", 1);
    let analytic = 1000.0 / (3.5 + 2.0 + 8192.0 / 99_000.0 + 0.1);
    let iops = run.metrics.iops;
    assert!(
        (iops - analytic).abs() / analytic < 0.05,
        "{iops} IOPS vs analytic {analytic}"
    );
}

#[test]
fn utilisation_law_holds_per_device() {
    for depth in [1, 4, 16] {
        let run = one_disk_reads("hdd-10k", depth);
        let d = &run.devices[0];
        let law = d.iops * d.service_ms.unwrap_or(0.0) / 1000.0 * 100.0;
        assert!(
            (d.util_pct - law).abs() / law < 0.02,
            "depth {depth}: util {} vs IOPS x service {law}",
            d.util_pct
        );
        // Little's law: queue length = throughput x time at the device.
        let little = d.iops * d.await_ms / 1000.0;
        let q = d.queue_len.unwrap_or(0.0);
        assert!((q - little).abs() / little < 0.02, "queue {q} vs {little}");
    }
}

#[test]
fn reordering_raises_random_read_iops_at_depth_32() {
    let qd1 = one_disk_reads("hdd-10k", 1).metrics.iops;
    let qd32 = one_disk_reads("hdd-10k", 32).metrics.iops;
    assert!(qd32 > 1.8 * qd1, "depth 32 {qd32} vs depth 1 {qd1}");
    let fifo = system(&bare("jbod", 1, "fifo10k", "64k").replace(
        "[[raid_groups]]",
        "[disk_models.fifo10k]\nbase = \"hdd-10k\"\nscheduler = \"fifo\"\n[[raid_groups]]",
    ));
    let w = "[[streams]]\nprofile = \"randread-8k\"\njobs = 1\niodepth = 32\n";
    let fifo32 = run_workload(&fifo, w, opts(60, 5, 1)).metrics.iops;
    assert!(
        (fifo32 - qd1).abs() / qd1 < 0.1,
        "FIFO at depth 32 ({fifo32}) should not beat depth 1 ({qd1}) by much"
    );
}

#[test]
fn ssd_arrays_do_far_more_random_reads_than_hdd_arrays() {
    let hdd = system(&bare("raid5", 5, "hdd-15k", "64k"));
    let ssd = system(&bare("raid5", 5, "ssd-slc", "64k"));
    let h = run_profile(&hdd, "randread-8k", opts(10, 1, 1));
    let s = run_profile(&ssd, "randread-8k", opts(10, 1, 1));
    assert!(
        s.metrics.iops > 20.0 * h.metrics.iops,
        "ssd {} hdd {}",
        s.metrics.iops,
        h.metrics.iops
    );
    assert!(
        s.metrics.latency_ms.mean < 2.0,
        "ssd latency {}",
        s.metrics.latency_ms.mean
    );
}
