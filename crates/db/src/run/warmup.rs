//! `--warmup auto` on a real database: the clients run, and every second their completed
//! operations, rows and latency, with the server's buffer-cache hit ratio
//! (pg_stat_database), go to the steady-state test of [`storlab_core::steady`]. The first
//! second it passes (from one full window on) starts the measured window; at the limit the
//! window starts anyway and the run is marked not steady, with the reason.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use storlab_core::result::Run;
use storlab_core::steady::{self, Sample, Verdict, REAL_CRITERIA};
use tokio_postgres::Client;

use crate::driver::Window;
use crate::options::DbOptions;

/// The server's buffer hits and reads of this database so far.
async fn cache_counts(admin: &Client) -> Option<(i64, i64)> {
    let row = admin
        .query_one(
            "SELECT blks_hit, blks_read FROM pg_stat_database WHERE datname = current_database()",
            &[],
        )
        .await
        .ok()?;
    Some((row.get(0), row.get(1)))
}

/// Warms up until steady or the limit (`opts.warmup_ns`), then moves the measured window to
/// start there. None when a stop was requested; else the test's verdict and the warm-up's
/// one-second samples.
pub(super) async fn until_steady(
    admin: &Client,
    w: &Window,
    start: Instant,
    opts: &DbOptions,
) -> Option<Option<(Verdict, Vec<Sample>)>> {
    let limit = start + Duration::from_nanos(opts.warmup_ns);
    let mut samples: Vec<Sample> = Vec::new();
    let mut before = ([0u64; 3], cache_counts(admin).await);
    let mut verdict = Verdict::Unsteady("the warm-up limit came before one second".into());
    let mut next = start + Duration::from_secs(1);
    while next <= limit {
        if !super::stop::wait_until(next).await {
            return None;
        }
        let now: [u64; 3] = std::array::from_fn(|i| w.warm[i].load(Ordering::Relaxed));
        let cache = cache_counts(admin).await;
        let [ops, rows, ns] = std::array::from_fn(|i| now[i] - before.0[i]);
        let hit_ratio_pct = match (cache, before.1) {
            (Some((h1, r1)), Some((h0, r0))) if (h1 - h0) + (r1 - r0) > 0 => {
                Some(100.0 * (h1 - h0) as f64 / ((h1 - h0) + (r1 - r0)) as f64)
            }
            _ => None,
        };
        samples.push(Sample {
            throughput: rows as f64,
            latency_ms: if ops == 0 {
                0.0
            } else {
                ns as f64 / ops as f64 / 1e6
            },
            hit_ratio_pct,
            array_hit_ratio_pct: None,
        });
        before = (now, cache);
        if samples.len() >= REAL_CRITERIA.window_s || next + Duration::from_secs(1) > limit {
            verdict = steady::check(&samples, "rows/s", &REAL_CRITERIA);
            if verdict.is_steady() {
                break;
            }
        }
        next += Duration::from_secs(1);
    }
    let from = next.min(limit);
    w.set_bounds(from, from + Duration::from_nanos(opts.duration_ns));
    Some(Some((verdict, samples)))
}

/// The steady-state verdict of a test: its measured window judged with the samples of the
/// automatic warm-up before it (`warmed`, when there was one: cycles longer than the window
/// are found in them), then the warm-up recorded ([`record`]) after `warmup`.
pub(super) fn judge(run: &mut Run, warmed: Option<(Verdict, Vec<Sample>)>, warmup: Duration) {
    let before = warmed.as_ref().map_or(&[][..], |w| &w.1[..]);
    steady::mark_real(run, before);
    if let Some((verdict, _)) = warmed {
        record(run, warmup, verdict);
    }
}

/// The automatic warm-up in the result: its length, and the reason when it ran out.
fn record(run: &mut Run, warmup: Duration, verdict: Verdict) {
    run.workload.warmup_auto = true;
    run.workload.warmup_s = (warmup.as_secs_f64() * 1e3).round() / 1e3;
    if let Verdict::Unsteady(reason) = verdict {
        let limit_s = run.workload.warmup_s;
        steady::set(
            run,
            Verdict::Unsteady(format!(
                "no steady state within the {limit_s} s warm-up limit: {reason}"
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use storlab_core::result::test_run::real_run;
    use storlab_core::result::{SeriesPoint, WorkloadKind};

    use super::*;

    /// A test's measured window: `secs` seconds at 900 rows/s, 3 ms.
    fn measured(secs: usize) -> Run {
        real_run("local", "dpaws/update-row", WorkloadKind::Db, secs, |_| {
            SeriesPoint {
                rows_per_s: Some(900.0),
                latency_ms_mean: 3.0,
                ..Default::default()
            }
        })
    }

    /// A server checkpointing every 60 s (rows/s down by half while it writes), warmed for
    /// 300 s: the measured 30 s between two checkpoints looked steady on their own; with the
    /// warm-up's samples the verdict sees the cycle the window cannot hold.
    #[test]
    fn the_measured_window_is_judged_with_the_warmups_samples() {
        let warmup: Vec<Sample> = (0..300)
            .map(|s| Sample {
                throughput: if s % 60 < 30 { 900.0 } else { 450.0 },
                latency_ms: 3.0,
                hit_ratio_pct: Some(99.0),
                array_hit_ratio_pct: None,
            })
            .collect();
        let mut alone = measured(30);
        judge(&mut alone, None, Duration::ZERO);
        assert!(alone.steady, "{:?}", alone.steady_reason);
        let mut run = measured(30);
        let warmed = Some((Verdict::Steady, warmup));
        judge(&mut run, warmed, Duration::from_secs(300));
        assert!(!run.steady);
        assert_eq!(run.workload.warmup_s, 300.0);
        let reason = run.steady_reason.unwrap_or_default();
        assert!(
            reason.contains("in cycles of about 60 s, longer than the 30 s measured"),
            "{reason}"
        );
    }
}
