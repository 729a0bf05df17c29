//! Load sweeps: the same workload at rising load — outstanding I/Os 1, 2, 4, ... N, or a list
//! of arrival rates — one run per point, and the knee: the most IOPS whose p99 latency stays
//! under a ceiling ("maximum IOPS with p99 under X ms").

use storlab_core::result::Run;

use crate::error::IoError;
use crate::options::{EngineKind, IoOptions};
use crate::run::run_io;
use crate::safety;

/// One load point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoadPoint {
    /// Outstanding I/Os (io_uring: one job at this depth; psync: this many threads).
    Outstanding(u32),
    /// Open-loop arrival rate.
    Rate(f64),
}

/// The runs of a sweep and where its knee is.
pub struct Sweep {
    /// Load points run, in order.
    pub points: Vec<LoadPoint>,
    /// One run per point.
    pub runs: Vec<Run>,
    /// Index of the knee: the most IOPS with p99 under the ceiling.
    pub knee: Option<usize>,
}

/// Outstanding I/Os 1, 2, 4, ... up to `max` (and `max` itself).
pub fn doubling(max: u32) -> Vec<LoadPoint> {
    let mut v = Vec::new();
    let mut k = 1;
    while k < max {
        v.push(LoadPoint::Outstanding(k));
        k *= 2;
    }
    v.push(LoadPoint::Outstanding(max.max(1)));
    v
}

/// Runs the first class of `opts` at each load point. Stops early once p99 exceeds twice the
/// ceiling (latency only rises with load). The target is prepared once and reused.
pub fn run_sweep(
    opts: &IoOptions,
    points: &[LoadPoint],
    max_p99_ms: Option<f64>,
) -> Result<Sweep, IoError> {
    let target = opts.classes[0].target.clone();
    let existed = target.exists();
    let mut sweep = Sweep {
        points: Vec::new(),
        runs: Vec::new(),
        knee: None,
    };
    let mut result = Ok(());
    for &point in points {
        let mut o = opts.clone();
        o.keep = true;
        let p = &mut o.classes[0].profile;
        match point {
            LoadPoint::Outstanding(k) => match opts.engine {
                EngineKind::IoUring => {
                    p.jobs = 1;
                    p.iodepth = k;
                }
                EngineKind::Psync => {
                    p.jobs = k;
                    p.iodepth = 1;
                }
            },
            LoadPoint::Rate(r) => p.rate_iops = Some(r),
        }
        let mut run = match run_io(&o) {
            Ok(r) => r,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        // The sweep's latency ceiling travels with each point, so a report can find the knee.
        if let (Some(c), Some(params)) = (max_p99_ms, run.workload.parameters.as_object_mut()) {
            params.insert("max_p99_ms".into(), c.into());
        }
        let stop = run.partial || beyond_ceiling(&run, max_p99_ms);
        sweep.points.push(point);
        sweep.runs.push(run);
        if stop {
            break;
        }
    }
    if !existed && !opts.keep {
        remove_created(&target);
    }
    result?;
    sweep.knee = max_p99_ms.and_then(|c| knee(&sweep.runs, c));
    Ok(sweep)
}

/// A sweep stops once a point's p99 exceeds twice the ceiling: latency only rises with load.
pub fn beyond_ceiling(run: &storlab_core::result::Run, max_p99_ms: Option<f64>) -> bool {
    max_p99_ms.is_some_and(|c| run.metrics.latency_ms.p99 > 2.0 * c)
}

/// The knee of a sweep's runs: the point with the most IOPS whose p99 stays at or under
/// `ceiling_ms`.
pub fn knee(runs: &[storlab_core::result::Run], ceiling_ms: f64) -> Option<usize> {
    (0..runs.len())
        .filter(|&i| runs[i].metrics.latency_ms.p99 <= ceiling_ms)
        .max_by(|&a, &b| runs[a].metrics.iops.total_cmp(&runs[b].metrics.iops))
}

/// Removes what the sweep's runs created at `target` (kept between points).
fn remove_created(target: &std::path::Path) {
    if target.is_dir() {
        if let Ok(entries) = std::fs::read_dir(target) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with("storlab-io.") && name.ends_with(".dat") {
                    let _ = safety::remove_ours(&e.path());
                }
            }
        }
    } else {
        let _ = safety::remove_ours(target);
    }
}
