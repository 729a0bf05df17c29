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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::run;
    use storlab_core::result::TargetKind;

    /// A real-run shaped point (`classes[0].profile`) at `depth` outstanding.
    fn point(depth: u32, iops: f64, p99: f64, ceiling: Option<f64>) -> Run {
        let mut r = run(
            "disk",
            TargetKind::Real,
            "randread-8k",
            iops,
            8.0,
            p99 / 3.5,
        );
        r.workload.parameters = serde_json::json!({
            "classes": [{"profile": {"jobs": 1, "iodepth": depth, "rate_iops": null}}],
            "max_p99_ms": ceiling,
        });
        r
    }

    #[test]
    fn knee_is_the_most_iops_under_the_ceiling() {
        let runs = [
            point(1, 100.0, 1.0, Some(5.0)),
            point(4, 350.0, 4.0, Some(5.0)),
            point(2, 190.0, 2.0, Some(5.0)),
            point(8, 420.0, 9.0, Some(5.0)),
        ];
        let refs: Vec<&Run> = runs.iter().collect();
        let s = find(&refs).expect("a sweep");
        let loads: Vec<f64> = s.points.iter().map(|p| p.load.value()).collect();
        assert_eq!(loads, vec![1.0, 2.0, 4.0, 8.0]);
        assert_eq!(s.knee, Some(2));
    }

    #[test]
    fn without_a_ceiling_the_knee_is_the_greatest_power() {
        let runs = [
            point(1, 100.0, 3.5, None),
            point(2, 190.0, 3.5, None),
            point(4, 300.0, 7.0, None),
            point(8, 320.0, 35.0, None),
        ];
        let refs: Vec<&Run> = runs.iter().collect();
        // power = IOPS / mean ms: 100, 190, 150, 32
        assert_eq!(find(&refs).and_then(|s| s.knee), Some(1));
    }

    #[test]
    fn repeats_at_one_load_are_not_a_sweep() {
        let runs = [point(8, 100.0, 1.0, None), point(8, 110.0, 1.0, None)];
        let refs: Vec<&Run> = runs.iter().collect();
        assert!(find(&refs).is_none());
        let plain = run("a", TargetKind::Sim, "randread-8k", 1.0, 8.0, 1.0);
        assert!(find(&[&plain, &plain]).is_none(), "no load point, no sweep");
    }

    #[test]
    fn open_loop_points_are_rates() {
        let mut r = point(1, 100.0, 1.0, None);
        r.workload.parameters["classes"][0]["profile"]["rate_iops"] = serde_json::json!(500.0);
        assert_eq!(load_point(&r), Some(Load::Rate(500.0)));
        assert_eq!(Load::Rate(500.0).label(), "500 IO/s offered");
    }
}
