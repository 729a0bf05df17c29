//! Which user counts a users sweep measures.
//!
//! Given `--users`, those, `batch` at a time. Otherwise a geometric series 1, 2, 4 ...
//! (`batch` counts at a time) until a count misses the target and the series has passed the
//! knee (the one the points so far give, `far_enough`, or a flat throughput curve), or the
//! largest allowed count is measured; then rounds of bisection: `batch` counts spread
//! evenly between the largest count that met the target and the smallest that did not,
//! until they are within [`PRECISION`] of each other. At most [`MAX_POINTS`] are measured.
//! The search stops at once when a run comes back partial (interrupted).
//!
//! The throughput curve is flat when twice the users gained less than [`FLAT_GAIN`] while
//! the response time grew: past the knee of a closed network, each user added mostly waits.
//! Doubling on from there measures ever larger points that tell little (case 2's
//! update-row without think time: 1,024 to 2,048 users gained 7.5%, at 24,900 tx/s, and
//! the series went on to 4,096 and 8,192 users). So a flat curve that still meets the target
//! jumps to the count where the response time law puts the target instead: with the
//! throughput X flat, N users see a mean of N / X - Z, so the statistic reaches the target
//! at N + X * mean * (target / statistic - 1) users, from the largest point's N, X, mean
//! and statistic; `batch` counts around that one, [`PRECISION`] apart, usually bracket the
//! answer at once.

use storlab_core::result::Run;

use super::analysis::tx_per_s;
use crate::error::CliError;

/// The bisection stops when the bracket is at most this share of its lower end (or 1 user).
pub const PRECISION: f64 = 0.05;
/// Most points a found series measures.
pub const MAX_POINTS: usize = 24;
/// Throughput gained by twice the users, at most, on a flat curve (past the knee).
pub const FLAT_GAIN: f64 = 0.1;

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
    judge: &Judge,
    measure: &mut Measure,
) -> Result<Points, CliError> {
    let passes = judge.passes;
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
    let mut counts = doubling(1, batch, cap);
    while !counts.is_empty() && done.len() < MAX_POINTS {
        if step(&counts, &mut done)? {
            return Ok(sorted(done));
        }
        let last = counts.iter().copied().max().unwrap_or(cap);
        let flat = flat(&done);
        counts = doubling(u64::from(last) * 2, batch, cap);
        if done.iter().any(|(_, r)| !passes(r)) {
            if flat || (judge.far_enough)(&done) {
                break;
            }
        } else if flat {
            // Straight to where the target lies, instead of doubling towards it.
            counts = match target_users(&done, judge) {
                Some(n) => around(n, batch, last, cap),
                None => Vec::new(),
            };
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

/// How the search judges its points.
pub struct Judge<'a> {
    /// Whether a run meets the target.
    pub passes: &'a dyn Fn(&Run) -> bool,
    /// The target over a run's statistic held to it (above 1: the run met it).
    pub headroom: &'a dyn Fn(&Run) -> Option<f64>,
    /// Whether the points have passed the knee they give.
    pub far_enough: &'a dyn Fn(&Points) -> bool,
}

/// Whether the throughput curve is flat at the largest count measured: the largest count
/// at most half of it had at least 1 / (1 + [`FLAT_GAIN`]) of its throughput, and a shorter
/// mean response time.
pub fn flat(done: &Points) -> bool {
    let Some((top, run)) = done.iter().max_by_key(|p| p.0) else {
        return false;
    };
    let Some((_, below)) = (done.iter())
        .filter(|p| u64::from(p.0) * 2 <= u64::from(*top))
        .max_by_key(|p| p.0)
    else {
        return false;
    };
    let mean = |r: &Run| r.metrics.tx_latency_ms.map(|t| t.mean);
    let (x, x_below) = (tx_per_s(run), tx_per_s(below));
    x_below > 0.0 && x < (1.0 + FLAT_GAIN) * x_below && mean(run) > mean(below)
}

/// The count at which the response time law puts the target, from the largest count
/// measured on a flat curve (see the module's documentation), at least one more; None when
/// its figures do not give one.
fn target_users(done: &Points, judge: &Judge) -> Option<u32> {
    let (n, run) = done.iter().max_by_key(|p| p.0)?;
    let mean_s = run.metrics.tx_latency_ms?.mean / 1e3;
    let more = tx_per_s(run) * mean_s * ((judge.headroom)(run)? - 1.0);
    // At the target already: the next count must miss it.
    more.is_finite()
        .then(|| (f64::from(*n) + more.max(1.0)).min(f64::from(u32::MAX)) as u32)
}

/// `batch` counts of the geometric series from `first`: `first`, twice that ... (those up
/// to `cap`).
fn doubling(first: u64, batch: usize, cap: u32) -> Vec<u32> {
    (0..batch)
        .map(|i| first << i)
        .take_while(|&n| n <= u64::from(cap))
        .map(|n| n as u32)
        .collect()
}

/// `batch` counts around `n`, [`PRECISION`] apart from it on either side (`n` itself for
/// one), those above `last` and up to `cap`.
fn around(n: u32, batch: usize, last: u32, cap: u32) -> Vec<u32> {
    let mut counts: Vec<u32> = (0..batch)
        .map(|i| {
            let offset = PRECISION * (2.0 * i as f64 - (batch as f64 - 1.0));
            (f64::from(n) * (1.0 + offset)).round().min(f64::from(cap)) as u32
        })
        .filter(|&c| c > last)
        .collect();
    counts.dedup();
    counts
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
        let headroom = |r: &Run| r.metrics.tx_latency_ms.map(|t| limit_ms / t.mean);
        let mut measure = |c: &[u32]| Ok(c.iter().map(|&n| run(n)).collect());
        let judge = Judge {
            passes: &passes,
            headroom: &headroom,
            far_enough: &|_| true,
        };
        let done = search(given, 1000, batch, &judge, &mut measure).expect("search");
        done.iter().map(|p| p.0).collect()
    }

    /// A closed network of one station of 1 ms per transaction and 1 ms elsewhere, no think
    /// time: `users` see min(users / 2 ms, 1000) transactions a second and the response time
    /// law's mean, users / throughput (2 ms up to the knee at 2 users, `users` ms past it).
    fn network(users: u32) -> Run {
        let x = (f64::from(users) / 0.002).min(1000.0);
        let mut r = run(users);
        r.metrics.tx_per_min = Some(x * 60.0);
        if let Some(t) = r.metrics.tx_latency_ms.as_mut() {
            t.mean = f64::from(users) / x * 1e3;
        }
        r
    }

    /// The counts the automatic search measures on [`network`] with a target for the mean
    /// of `limit_ms`, `batch` at a time, never told it is past the knee.
    fn network_counts(batch: usize, limit_ms: f64) -> Vec<u32> {
        let passes = |r: &Run| r.metrics.tx_latency_ms.is_some_and(|t| t.mean <= limit_ms);
        let headroom = |r: &Run| r.metrics.tx_latency_ms.map(|t| limit_ms / t.mean);
        let mut measure = |c: &[u32]| Ok(c.iter().map(|&n| network(n)).collect());
        let judge = Judge {
            passes: &passes,
            headroom: &headroom,
            far_enough: &|_| false,
        };
        let done = search(&[], 100_000, batch, &judge, &mut measure).expect("search");
        done.iter().map(|p| p.0).collect()
    }

    #[test]
    fn a_flat_throughput_ends_the_doubling() {
        // 4 and 8 users get the same 1000 tx/s: 8 (8 ms) misses a 6 ms target, and the
        // search bisects from there although the knee test never says it is far enough.
        assert_eq!(network_counts(2, 6.0), [1, 2, 4, 5, 6, 7, 8]);
        // A target 8 users still meet: from 8, straight to around the 500 users where the
        // mean reaches 500 ms (475 and 525), then a bisection; doubling would have gone on
        // to 512 and 1024 and bisected the 512 users between them.
        let found = network_counts(2, 500.0);
        assert_eq!(found, [1, 2, 4, 8, 475, 491, 508, 525]);
        // One at a time: the count the response time law gives, exactly the answer, and
        // one more to see it missed.
        assert_eq!(network_counts(1, 500.0), [1, 2, 4, 500, 501]);
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
        let judge = Judge {
            passes: &passes,
            headroom: &|r: &Run| r.metrics.tx_latency_ms.map(|t| 3.0 / t.mean),
            far_enough: &past_16,
        };
        let done = search(&[], 1000, 2, &judge, &mut measure).expect("search");
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
