//! Load sweeps inside a study: the runs of one configuration and workload that carry two or
//! more different load points (see [`crate::workload::load_point`]), and their knee.
//!
//! The knee follows `storlab io --sweep --max-p99-ms C`: the point with the most IOPS whose
//! p99 stays at or under C, when the runs' parameters carry `max_p99_ms`. Without a ceiling
//! it is the point of greatest "power" (IOPS / mean latency), where added load stops buying
//! throughput and starts buying queueing.

use storlab_core::result::Run;

use crate::model::{Spread, Study};
use crate::workload::{load_point, Load};

/// One load point of a sweep: its repeats.
#[derive(Debug)]
pub struct SweepPoint<'a> {
    /// The load.
    pub load: Load,
    /// Runs at this load (repeats).
    pub runs: Vec<&'a Run>,
}

impl SweepPoint<'_> {
    /// Mean of `f` over the repeats.
    pub fn mean(&self, f: impl Fn(&Run) -> f64) -> f64 {
        Spread::of(self.runs.iter().map(|r| f(r))).map_or(0.0, |s| s.mean)
    }
}

/// The sweep of one configuration and workload.
#[derive(Debug)]
pub struct Sweep<'a> {
    /// Points in rising load.
    pub points: Vec<SweepPoint<'a>>,
    /// Index of the knee in `points`.
    pub knee: Option<usize>,
}

/// The sweep among `runs`, when they carry at least two different load points.
pub fn find<'a>(runs: &[&'a Run]) -> Option<Sweep<'a>> {
    let mut points: Vec<SweepPoint<'a>> = Vec::new();
    for &run in runs {
        let load = load_point(run)?;
        match points.iter_mut().find(|p| p.load == load) {
            Some(p) => p.runs.push(run),
            None => points.push(SweepPoint {
                load,
                runs: vec![run],
            }),
        }
    }
    if points.len() < 2 {
        return None;
    }
    points.sort_by(|a, b| a.load.value().total_cmp(&b.load.value()));
    let knee = knee(&points);
    Some(Sweep { points, knee })
}

fn knee(points: &[SweepPoint]) -> Option<usize> {
    let ceiling = points
        .iter()
        .flat_map(|p| &p.runs)
        .find_map(|r| r.workload.parameters.get("max_p99_ms")?.as_f64());
    let iops = |i: &usize| points[*i].mean(|r| r.metrics.iops);
    let idx = 0..points.len();
    match ceiling {
        Some(c) => idx
            .filter(|&i| points[i].mean(|r| r.metrics.latency_ms.p99) <= c)
            .max_by(|a, b| iops(a).total_cmp(&iops(b))),
        None => idx
            .filter(|&i| points[i].mean(|r| r.metrics.latency_ms.mean) > 0.0)
            .max_by(|a, b| {
                let power = |i: &usize| iops(i) / points[*i].mean(|r| r.metrics.latency_ms.mean);
                power(a).total_cmp(&power(b))
            }),
    }
}

/// The runs that stand for `configuration` x `workload` in summaries: the knee point of a
/// sweep (its highest load when no knee), otherwise every repeat.
pub fn summary_runs<'a>(study: &'a Study, configuration: &str, workload: &str) -> Vec<&'a Run> {
    let runs = study.runs(configuration, workload);
    match find(&runs) {
        Some(s) => {
            let i = s.knee.unwrap_or(s.points.len() - 1);
            s.points.into_iter().nth(i).map_or(Vec::new(), |p| p.runs)
        }
        None => runs,
    }
}
