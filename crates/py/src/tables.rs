//! The result tables: one row per run (its headline metrics) and one row per interval of
//! every run's series. Their column names and types are part of the package's interface
//! (crates/py/tests/test_arrow.py holds them).

use storlab_core::histogram::LatencySummaryMs;
use storlab_core::result::{Run, WorkloadKind};

use crate::arrow::{Column, Data};

fn f64s(runs: &[Run], f: impl Fn(&Run) -> f64) -> Data {
    Data::F64(runs.iter().map(|r| Some(f(r))).collect())
}

fn opt_f64s(runs: &[Run], f: impl Fn(&Run) -> Option<f64>) -> Data {
    Data::F64(runs.iter().map(f).collect())
}

fn latency(runs: &[Run], f: impl Fn(&LatencySummaryMs) -> f64) -> Data {
    f64s(runs, |r| f(&r.metrics.latency_ms))
}

/// One row per run.
pub fn runs(runs: &[Run]) -> Vec<Column> {
    let col = |name, data| Column { name, data };
    let kind = |r: &Run| match r.workload.kind {
        WorkloadKind::Io => "io".to_string(),
        WorkloadKind::Db => "db".to_string(),
    };
    vec![
        col("run", Data::U32((0..runs.len() as u32).collect())),
        col(
            "target",
            Data::Utf8(runs.iter().map(|r| r.target.name.clone()).collect()),
        ),
        col(
            "workload",
            Data::Utf8(runs.iter().map(|r| r.workload.name.clone()).collect()),
        ),
        col("kind", Data::Utf8(runs.iter().map(kind).collect())),
        col(
            "seed",
            Data::U64(
                runs.iter()
                    .map(|r| r.sim.as_ref().map(|s| s.seed))
                    .collect(),
            ),
        ),
        col("duration_s", f64s(runs, |r| r.workload.duration_s)),
        col("warmup_s", f64s(runs, |r| r.workload.warmup_s)),
        col("iops", f64s(runs, |r| r.metrics.iops)),
        col("read_iops", f64s(runs, |r| r.metrics.read_iops)),
        col("write_iops", f64s(runs, |r| r.metrics.write_iops)),
        col("mbps", f64s(runs, |r| r.metrics.mbps)),
        col("read_mbps", f64s(runs, |r| r.metrics.read_mbps)),
        col("write_mbps", f64s(runs, |r| r.metrics.write_mbps)),
        col("latency_ms_mean", latency(runs, |l| l.mean)),
        col("latency_ms_p50", latency(runs, |l| l.p50)),
        col("latency_ms_p95", latency(runs, |l| l.p95)),
        col("latency_ms_p99", latency(runs, |l| l.p99)),
        col("latency_ms_p999", latency(runs, |l| l.p999)),
        col("latency_ms_max", latency(runs, |l| l.max)),
        col(
            "ios",
            Data::U64(runs.iter().map(|r| Some(r.metrics.ios)).collect()),
        ),
        col(
            "io_errors",
            Data::U64(runs.iter().map(|r| Some(r.metrics.io_errors)).collect()),
        ),
        col("rows_per_s", opt_f64s(runs, |r| r.metrics.rows_per_s)),
        col("tx_per_min", opt_f64s(runs, |r| r.metrics.tx_per_min)),
        col("wal_mb_per_s", opt_f64s(runs, |r| r.metrics.wal_mb_per_s)),
        col(
            "commit_ms_p99",
            opt_f64s(runs, |r| r.metrics.commit_ms.as_ref().map(|l| l.p99)),
        ),
        col(
            "tx_latency_ms_p99",
            opt_f64s(runs, |r| r.metrics.tx_latency_ms.as_ref().map(|l| l.p99)),
        ),
        col(
            "steady",
            Data::Bool(runs.iter().map(|r| r.steady).collect()),
        ),
        col(
            "partial",
            Data::Bool(runs.iter().map(|r| r.partial).collect()),
        ),
    ]
}

/// One row per interval of each run's series (`run` is the run's row in [`runs`]).
pub fn series(runs: &[Run]) -> Vec<Column> {
    let n: usize = runs.iter().map(|r| r.series.len()).sum();
    let mut run = Vec::with_capacity(n);
    let (mut t, mut iops, mut riops, mut wiops) = (vec![], vec![], vec![], vec![]);
    let (mut mbps, mut lat, mut rows) = (vec![], vec![], vec![]);
    for (i, r) in runs.iter().enumerate() {
        for p in &r.series {
            run.push(i as u32);
            t.push(Some(p.t_s));
            iops.push(Some(p.iops));
            riops.push(Some(p.read_iops));
            wiops.push(Some(p.write_iops));
            mbps.push(Some(p.mbps));
            lat.push(Some(p.latency_ms_mean));
            rows.push(p.rows_per_s);
        }
    }
    let col = |name, data| Column { name, data };
    vec![
        col("run", Data::U32(run)),
        col("t_s", Data::F64(t)),
        col("iops", Data::F64(iops)),
        col("read_iops", Data::F64(riops)),
        col("write_iops", Data::F64(wiops)),
        col("mbps", Data::F64(mbps)),
        col("latency_ms_mean", Data::F64(lat)),
        col("rows_per_s", Data::F64(rows)),
    ]
}
