//! Verdicts computed from the numbers.

use super::*;

/// A database run: rows/s, waits (event, %), commit ms, reads/s of the disk.
fn run(kind: &str, rows: f64, waits: &[(&str, f64)], commit_ms: f64, reads: f64) -> Run {
    let waits: Vec<_> = waits
        .iter()
        .map(|(e, p)| serde_json::json!({"event": e, "time_pct": p, "avg_ms": 0.1}))
        .collect();
    let lat =
        serde_json::json!({"mean": commit_ms, "p50": 0, "p95": 0, "p99": 0, "p999": 0, "max": 0});
    let mut v = serde_json::json!({
        "target": {"name": "t", "kind": kind},
        "workload": {"name": "dpaws/update-row", "kind": "db", "duration_s": 10, "warmup_s": 3},
        "metrics": {"iops": 0, "read_iops": 0, "write_iops": 0, "mbps": 0, "read_mbps": 0,
            "write_mbps": 0, "latency_ms": lat, "ios": 0, "rows_per_s": rows,
            "commit_ms": lat, "waits": waits},
    });
    if kind == "sim" {
        v["devices"] = serde_json::json!([{"name": "local.d0", "iops": reads, "read_iops": reads,
            "write_iops": 0, "mbps": 0, "util_pct": 0, "await_ms": 0}]);
    } else {
        let fig = serde_json::json!({"r_s": reads, "w_s": 0, "rmb_s": 0, "wmb_s": 0,
            "r_await_ms": 0, "w_await_ms": 0, "aqu_sz": 0, "util_pct": 0});
        v["db"] = serde_json::json!({"server_version": "15", "settings": {},
            "wal": {"records": 0, "full_page_images": 0, "bytes": 0, "mb_per_s": 0, "writes": 0,
                "syncs": 0, "write_ms": 0, "sync_ms": 0},
            "checkpoints": {"timed": 0, "requested": 0, "buffers_checkpoint": 0,
                "buffers_clean": 0, "buffers_backend": 0},
            "roles": [{"role": "data", "path": "/x", "devices": [{"device": "vda",
                "samples": 3, "min": fig, "avg": fig, "max": fig}]}]});
    }
    serde_json::from_value(v).expect("a valid run")
}

#[test]
fn close_runs_are_within() {
    let real = run("real", 1000.0, &[("IO:WALSync", 60.0)], 1.0, 0.0);
    let sim = run("sim", 1200.0, &[("IO:WALSync", 70.0)], 1.0, 0.0);
    assert_eq!(
        verdict(&real, &sim),
        "simulated update-row within 25% of real (1.20x)"
    );
}

#[test]
fn a_cpu_bound_real_run_with_cached_reads_is_explained() {
    let real = run("real", 1000.0, &[("CPU", 70.0)], 0.5, 2.0);
    let sim = run(
        "sim",
        3100.0,
        &[("IO:DataFileRead", 80.0), ("CPU", 5.0)],
        2.0,
        900.0,
    );
    let v = verdict(&real, &sim);
    assert!(v.starts_with("simulated update-row 3.1x real: the real run was CPU-bound (CPU 70% of session time) where the model spends 5% on CPU"), "{v}");
    assert!(
        v.contains("OS page cache (2 device reads/s) where the model reads the disk (900 reads/s)"),
        "{v}"
    );
    assert!(
        v.contains("commits took 2.000 ms simulated against 0.500 ms real"),
        "{v}"
    );
}

#[test]
fn a_slow_simulation_without_a_named_cause_shows_the_waits() {
    let real = run("real", 1000.0, &[("IO:WALSync", 40.0)], 1.0, 500.0);
    let sim = run("sim", 400.0, &[("IO:DataFileRead", 90.0)], 1.5, 600.0);
    assert_eq!(
        verdict(&real, &sim),
        "simulated update-row 2.5x below real: top waits: real IO:WALSync 40%, simulated IO:DataFileRead 90%"
    );
}

#[test]
fn waiting_for_the_client_counts_as_cpu_bound() {
    let real = run(
        "real",
        1000.0,
        &[("Client:ClientRead", 58.0), ("CPU", 28.0)],
        1.0,
        500.0,
    );
    let sim = run(
        "sim",
        400.0,
        &[("IO:DataFileRead", 90.0), ("CPU", 1.0)],
        1.0,
        600.0,
    );
    let v = verdict(&real, &sim);
    assert!(
        v.contains("CPU-bound (CPU 28% of session time and waiting for its client 58%"),
        "{v}"
    );
}

#[test]
fn a_model_bound_by_cpus_the_real_run_left_idle_is_explained() {
    let real_with = |server_cpu_s: f64, client_cpu_s: f64| {
        let mut r = run("real", 1000.0, &[("Client:ClientRead", 77.0)], 1.0, 0.0);
        r.db.as_mut().unwrap().server_cpu_s = Some(server_cpu_s);
        r.tool = Some(storlab_core::result::ToolCost {
            cpu_s: client_cpu_s,
            ..Default::default()
        });
        r
    };
    let sim = run(
        "sim",
        1340.0,
        &[("CPU:RunQueue", 87.0), ("CPU", 12.0)],
        1.0,
        0.0,
    );
    // 10 s window: 10.6 + 4.4 CPU seconds keep 1.5 of 2 CPUs busy.
    let reason = idle_cpu_reason(&real_with(10.6, 4.4), &sim, 2).expect("explained");
    assert!(
        reason.contains("kept only 1.50 of the 2 CPUs busy (server 1.06, driver 0.44)"),
        "{reason}"
    );
    // A real run that used its CPUs, or a model not bound by them, is not this case.
    assert_eq!(idle_cpu_reason(&real_with(14.0, 5.0), &sim, 2), None);
    let io_bound = run("sim", 1340.0, &[("IO:WALSync", 80.0)], 1.0, 0.0);
    assert_eq!(idle_cpu_reason(&real_with(10.6, 4.4), &io_bound, 2), None);
    // Without the server's CPU (a server storlab did not start) nothing is claimed.
    let unknown = run("real", 1000.0, &[("Client:ClientRead", 77.0)], 1.0, 0.0);
    assert_eq!(idle_cpu_reason(&unknown, &sim, 2), None);
}
