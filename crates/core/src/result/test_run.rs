//! A small builder of real runs for tests that judge or print a run's per-second series
//! (other crates' tests use it). Not behind a feature: a feature only tests enable would
//! give the crate two builds, one for `cargo test --workspace` and one for the binaries.

use super::{Metrics, Run, SeriesPoint, Target, TargetKind, Workload, WorkloadKind};

/// A real run of `workload` (of `kind`) on `target`, measured for `secs` seconds with no
/// warm-up, whose series holds one point a second: `point(t_s)`, its `t_s` set.
pub fn real_run(
    target: &str,
    workload: &str,
    kind: WorkloadKind,
    secs: usize,
    point: impl Fn(usize) -> SeriesPoint,
) -> Run {
    let target = Target {
        name: target.into(),
        kind: TargetKind::Real,
        config: None,
        description: None,
    };
    let workload = Workload {
        name: workload.into(),
        kind,
        duration_s: secs as f64,
        warmup_s: 0.0,
        warmup_auto: false,
        parameters: serde_json::Value::Null,
    };
    let mut run = Run::new(target, workload, Metrics::default());
    run.series = (0..secs)
        .map(|i| SeriesPoint {
            t_s: i as f64,
            ..point(i)
        })
        .collect();
    run
}
