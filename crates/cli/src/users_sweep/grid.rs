//! Which user counts a users sweep measures.
//!
//! Given `--users`, those, `batch` at a time. Otherwise a geometric series 1, 2, 4 ...
//! (`batch` counts at a time) until a count misses the target and the series has passed the
//! knee the points so far give (`far_enough`), or the largest allowed count is measured;
//! then rounds of bisection: `batch` counts spread evenly between the largest
//! count that met the target and the smallest that did not, until they are within
//! [`PRECISION`] of each other (or [`MAX_POINTS`] are measured). The search stops at once
//! when a run comes back partial (interrupted).

use storlab_core::result::Run;

use crate::error::CliError;

/// The bisection stops when the bracket is at most this share of its lower end (or 1 user).
pub const PRECISION: f64 = 0.05;
/// Most points a found series measures.
pub const MAX_POINTS: usize = 24;

/// Measured points: (users, run).
pub type Points = Vec<(u32, Run)>;

/// Runs the points of some user counts, one run per count in their order (fewer when
/// interrupted).
pub type Measure<'a> = dyn FnMut(&[u32]) -> Result<Vec<Run>, CliError> + 'a;

/// Runs the counts the sweep asks for through `measure` (one run per count, in order) and
/// returns every point measured, by rising count.
pub fn search(
    given: &[u32],
    cap: u32,
    batch: usize,
    passes: &dyn Fn(&Run) -> bool,
    far_enough: &dyn Fn(&Points) -> bool,
    measure: &mut Measure,
) -> Result<Points, CliError> {
    let batch = batch.max(1);
    let mut done: Points = Vec::new();
    let mut step = |counts: &[u32], done: &mut Points| -> Result<bool, CliError> {
        let runs = measure(counts)?;
        let partial = runs.iter().any(|r| r.partial) || runs.len() < counts.len();
        done.extend(counts.iter().copied().zip(runs));
        Ok(partial)
    };
    if !given.is_empty() {
        for chunk in given.chunks(batch) {
            if step(chunk, &mut done)? {
                break;
            }
        }
        return Ok(sorted(done));
    }
    let mut next: u64 = 1;
    loop {
        let counts: Vec<u32> = (0..batch)
            .map(|i| next << i)
            .take_while(|&n| n <= u64::from(cap))
            .map(|n| n as u32)
            .collect();
        let Some(&last) = counts.last() else { break };
        next = u64::from(last) * 2;
        if step(&counts, &mut done)? {
            return Ok(sorted(done));
        }
        if done.iter().any(|(_, r)| !passes(r)) && far_enough(&done) {
            break;
        }
    }
    while done.len() < MAX_POINTS {
        let Some(counts) = bisect(&done, passes, batch) else {
            break;
        };
        if step(&counts, &mut done)? {
            break;
        }
    }
    Ok(sorted(done))
}

fn sorted(mut done: Points) -> Points {
    done.sort_by_key(|p| p.0);
    done
}

/// The next counts between the largest count that met the target (all smaller ones meeting
/// it too) and the smallest that did not; None when they are close enough.
pub fn bisect(done: &Points, passes: &dyn Fn(&Run) -> bool, batch: usize) -> Option<Vec<u32>> {
    let mut points: Vec<(u32, bool)> = done.iter().map(|(n, r)| (*n, passes(r))).collect();
    points.sort_by_key(|p| p.0);
    let lo = points.iter().take_while(|p| p.1).last()?.0;
    let hi = points.iter().find(|p| p.0 > lo && !p.1)?.0;
    let close = ((f64::from(lo) * PRECISION).floor() as u32).max(1);
    if hi - lo <= close {
        return None;
    }
    let gap = u64::from(hi - lo);
    let mut counts: Vec<u32> = (1..=batch as u64)
        .map(|i| lo + (gap * i / (batch as u64 + 1)) as u32)
        .filter(|&n| n > lo && n < hi && points.iter().all(|p| p.0 != n))
        .collect();
    counts.dedup();
    (!counts.is_empty()).then_some(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use storlab_core::result::{Metrics, Target, TargetKind, Workload, WorkloadKind};
    use storlab_core::LatencySummaryMs;

    /// A run whose response time is `users` ms.
    fn run(users: u32) -> Run {
        let target = Target {
            name: "t".into(),
            kind: TargetKind::Sim,
            config: None,
            description: None,
        };
        let workload = Workload {
            name: "w".into(),
            kind: WorkloadKind::Db,
            duration_s: 1.0,
            warmup_s: 0.0,
            warmup_auto: false,
            parameters: serde_json::Value::Null,
        };
        let metrics = Metrics {
            tx_latency_ms: Some(LatencySummaryMs {
                mean: f64::from(users),
                ..Default::default()
            }),
            ..Default::default()
        };
        Run::new(target, workload, metrics)
    }

    fn counts(given: &[u32], batch: usize, limit_ms: f64) -> Vec<u32> {
        let passes = |r: &Run| r.metrics.tx_latency_ms.is_some_and(|t| t.mean <= limit_ms);
        let mut measure = |c: &[u32]| Ok(c.iter().map(|&n| run(n)).collect());
        let done = search(given, 1000, batch, &passes, &|_| true, &mut measure).expect("search");
        done.iter().map(|p| p.0).collect()
    }

    #[test]
    fn a_geometric_series_then_a_bisection_brackets_the_answer() {
        // Two at a time: 1 2, 4 8, 16 32 (16 misses), then 10 13, then 11 12.
        assert_eq!(counts(&[], 2, 12.0), [1, 2, 4, 8, 10, 11, 12, 13, 16, 32]);
        // One at a time: a plain bisection.
        assert_eq!(counts(&[], 1, 12.0), [1, 2, 4, 8, 12, 13, 14, 16]);
        // Large counts stop at 5% of the answer.
        let found = counts(&[], 2, 300.0);
        let lo = found
            .iter()
            .copied()
            .filter(|&n| n <= 300)
            .max()
            .expect("a pass");
        let hi = found.iter().copied().find(|&n| n > 300).expect("a miss");
        assert!(hi - lo <= 15, "bracket {lo}..{hi} of {found:?}");
    }

    #[test]
    fn the_series_goes_on_past_an_early_miss_to_the_knee() {
        let passes = |r: &Run| r.metrics.tx_latency_ms.is_some_and(|t| t.mean <= 3.0);
        let mut measure = |c: &[u32]| Ok(c.iter().map(|&n| run(n)).collect());
        let past_16 = |done: &Points| done.iter().any(|p| p.0 >= 16);
        let done = search(&[], 1000, 2, &passes, &past_16, &mut measure).expect("search");
        let counts: Vec<u32> = done.iter().map(|p| p.0).collect();
        assert_eq!(counts, [1, 2, 3, 4, 8, 16, 32]);
    }

    #[test]
    fn given_counts_are_measured_as_given() {
        assert_eq!(counts(&[3, 5, 7], 2, 4.0), [3, 5, 7]);
        // Even the first count failing ends the series there, with no bisection.
        assert_eq!(counts(&[], 2, 0.5), [1, 2]);
    }
}
