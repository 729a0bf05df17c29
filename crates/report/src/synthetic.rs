//! Synthetic runs and studies for tests, examples and documentation: a small builder for
//! [`Run`] (which has no `Default`) and a demonstration study of RAID 5 vs RAID 10 vs a real
//! disk. The numbers are invented; nothing here measures anything.

use storlab_core::result::{
    ArrayMetrics, DeviceIostat, DeviceMetrics, IostatFigures, Metrics, RoleIostat, Run,
    SeriesPoint, StripeWrites, Target, TargetKind, WaitEvent, Workload, WorkloadKind,
};
use storlab_core::LatencySummaryMs;

use crate::model::{Cell, Configuration, Meta, Study};

/// A latency summary with a typical tail around `mean` ms.
pub fn latency(mean: f64) -> LatencySummaryMs {
    LatencySummaryMs {
        mean,
        p50: mean * 0.8,
        p95: mean * 2.2,
        p99: mean * 3.5,
        p999: mean * 6.0,
        max: mean * 12.0,
    }
}

/// A run of `workload` on `target` with the given IOPS, block size and mean latency, and
/// nothing else; workloads named `suite/test` are database runs.
pub fn run(
    target: &str,
    kind: TargetKind,
    workload: &str,
    iops: f64,
    block_kib: f64,
    lat_ms: f64,
) -> Run {
    let db = workload.contains('/');
    Run::new(
        Target {
            name: target.into(),
            kind,
            config: None,
            description: None,
        },
        Workload {
            name: workload.into(),
            kind: if db {
                WorkloadKind::Db
            } else {
                WorkloadKind::Io
            },
            duration_s: 60.0,
            warmup_s: 5.0,
            warmup_auto: false,
            parameters: serde_json::Value::Null,
        },
        Metrics {
            iops,
            mbps: iops * block_kib * 1024.0 / 1e6,
            latency_ms: latency(lat_ms),
            ios: (iops * 60.0) as u64,
            ..Metrics::default()
        },
    )
}

/// A database run: rows/s, and transactions per minute of one row each.
pub fn db_run(target: &str, kind: TargetKind, workload: &str, rows_per_s: f64, lat_ms: f64) -> Run {
    let mut r = run(target, kind, workload, rows_per_s * 2.5, 8.0, lat_ms);
    r.metrics.rows_per_s = Some(rows_per_s);
    r.metrics.tx_per_min = Some(rows_per_s * 60.0);
    r.metrics.wal_mb_per_s = Some(rows_per_s * 0.0004);
    r
}

/// A successful cell.
pub fn cell(configuration: &str, repeat: u32, run: Run) -> Cell {
    Cell {
        configuration: configuration.into(),
        workload: run.workload.name.clone(),
        repeat,
        command: format!(
            "storlab run --config {configuration} --workload {}",
            run.workload.name
        ),
        run: Some(run),
        error: None,
    }
}

/// A failed cell.
pub fn failed_cell(configuration: &str, workload: &str, repeat: u32, error: &str) -> Cell {
    Cell {
        configuration: configuration.into(),
        workload: workload.into(),
        repeat,
        run: None,
        error: Some(error.into()),
        command: format!("storlab run --config {configuration} --workload {workload}"),
    }
}

/// A configuration with only a name and kind.
pub fn config(name: &str, kind: TargetKind) -> Configuration {
    Configuration {
        name: name.into(),
        kind,
        description: None,
        disks: None,
        usable_gb: None,
        price_per_disk: None,
        price_per_gb: None,
    }
}

/// Study metadata for tests.
pub fn meta() -> Meta {
    Meta {
        command: "storlab compare plan.toml --out report".into(),
        storlab_version: storlab_core::VERSION.into(),
        git_commit: "0000000".into(),
        machine: "2 CPUs, 24 GiB, Linux 6.1".into(),
        seed: 42,
    }
}

/// Deterministic jitter in [-1, 1) from a counter (a 64-bit mix, no ambient randomness).
fn jitter(i: u64) -> f64 {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    (x % 2000) as f64 / 1000.0 - 1.0
}

fn series(mean: f64, db: bool, seed: u64) -> Vec<SeriesPoint> {
    (-5..30)
        .map(|t| {
            let ramp = if t < 0 {
                0.55 + 0.08 * (t + 5) as f64
            } else {
                1.0
            };
            let v = mean * ramp * (1.0 + 0.06 * jitter((seed * 100).wrapping_add_signed(t)));
            SeriesPoint {
                t_s: t as f64,
                iops: if db { v * 2.5 } else { v },
                mbps: v * 0.008,
                latency_ms_mean: 8.0 / ramp,
                rows_per_s: db.then_some(v),
                ..SeriesPoint::default()
            }
        })
        .collect()
}

fn devices(groups: &[(&str, usize)], util: f64, iops: f64, seed: u64) -> Vec<DeviceMetrics> {
    let mut out = Vec::new();
    for (g, n) in groups {
        for d in 0..*n {
            let j = jitter(seed + out.len() as u64);
            let u = (util * (1.0 + 0.08 * j)).clamp(0.0, 100.0);
            out.push(DeviceMetrics {
                name: format!("{g}.d{d}"),
                model: Some("hdd-15k-146g".into()),
                iops: iops * (1.0 + 0.08 * j),
                read_iops: iops * 0.6,
                write_iops: iops * 0.4,
                mbps: iops * 0.012,
                util_pct: u,
                await_ms: 4.0 + u / 10.0,
                service_ms: Some(4.2),
                queue_len: Some(u / 25.0),
            });
        }
    }
    out
}

fn array(name: &str, level: &str, destage: f64, parity: bool) -> ArrayMetrics {
    ArrayMetrics {
        name: name.into(),
        level: level.into(),
        read_iops: 900.0,
        destage_iops: destage,
        read_delay_ms: 6.5,
        destage_delay_ms: 11.0,
        rank_destage_delay_ms: if parity { 24.0 } else { 12.0 },
        cache_read_hit_pct: 12.0,
        nvs_full_delay_pct: if parity { 3.5 } else { 0.4 },
        stripe_writes: parity.then_some(StripeWrites {
            full_stripe: 4.0,
            read_modify_write: destage / 4.0,
            reconstruct_write: 2.0,
        }),
    }
}

fn waits(read_ms: f64) -> Vec<WaitEvent> {
    let w = |e: &str, p: f64, a: f64| WaitEvent {
        event: e.into(),
        time_pct: p,
        avg_ms: Some(a),
        avg_from: None,
    };
    vec![
        w("IO:DataFileRead", 52.0, read_ms),
        w("IO:WALSync", 18.0, 2.1),
        w("CPU", 12.0, 0.0),
        w("LWLock:WALWrite", 7.0, 1.2),
        w("IO:DataFileWrite", 5.0, 4.0),
        w("Lock:transactionid", 4.0, 9.0),
        w("Client:ClientRead", 2.0, 0.3),
    ]
}

mod demo;
pub use demo::demo_study;
