//! `--warmup auto` on real I/O: every second of the warm-up, its completions and their mean
//! latency go to the steady-state test of [`storlab_core::steady`]. The first second it
//! passes (from one full window on) ends the warm-up and opens the measured window there; at
//! the limit the window opens anyway and the run is marked not steady, with the reason.

use std::time::Duration;

use storlab_core::result::Run;
use storlab_core::steady::{self, Sample, Verdict, REAL_CRITERIA};

/// How an automatic warm-up ended.
pub(crate) struct Warmed {
    /// Its length.
    pub length: Duration,
    /// The steady-state test's last verdict.
    pub verdict: Verdict,
    /// Its one-second samples: the measured window's verdict looks in them for cycles
    /// longer than the window.
    pub samples: Vec<Sample>,
}

/// The state of an automatic warm-up, fed one sample a second by the run's monitor.
pub(crate) struct AutoWarmup {
    max: Duration,
    samples: Vec<Sample>,
    /// Completions, their summed latency and the time at the previous sample.
    before: (u64, u64, Duration),
    /// The test's last verdict (unsteady until it passes).
    pub verdict: Verdict,
}

impl AutoWarmup {
    /// A warm-up of at most `max`.
    pub(crate) fn new(max: Duration) -> AutoWarmup {
        AutoWarmup {
            max,
            samples: Vec::new(),
            before: (0, 0, Duration::ZERO),
            verdict: Verdict::Unsteady(format!(
                "the {} s warm-up limit came before one second",
                max.as_secs_f64()
            )),
        }
    }

    /// When the next sample is due: a second after the last one, or at the limit.
    pub(crate) fn next_sample(&self) -> Duration {
        (self.before.2 + Duration::from_secs(1)).min(self.max)
    }

    /// Records the sample ending `at` after the start, from the warm-up's cumulative
    /// completions and summed latency; true when the warm-up ends there (steady, or the
    /// limit).
    pub(crate) fn sample(&mut self, at: Duration, done: u64, latency_ns: u64) -> bool {
        let (done0, latency0, at0) = self.before;
        let secs = at.saturating_sub(at0).as_secs_f64().max(1e-9);
        let ios = done.saturating_sub(done0);
        self.samples.push(Sample {
            throughput: ios as f64 / secs,
            latency_ms: if ios == 0 {
                0.0
            } else {
                latency_ns.saturating_sub(latency0) as f64 / ios as f64 / 1e6
            },
            hit_ratio_pct: None,
            array_hit_ratio_pct: None,
        });
        self.before = (done, latency_ns, at);
        let at_limit = at >= self.max;
        if self.samples.len() >= REAL_CRITERIA.window_s || at_limit {
            self.verdict = steady::check(&self.samples, "IOPS", &REAL_CRITERIA);
        }
        self.verdict.is_steady() || at_limit
    }

    /// The warm-up, ended after `length`.
    pub(crate) fn ended(self, length: Duration) -> Warmed {
        Warmed {
            length,
            verdict: self.verdict,
            samples: self.samples,
        }
    }
}

/// The steady-state verdict of a run: its measured window judged with the samples of the
/// automatic warm-up before it (`warmed`, when there was one: cycles longer than the window
/// are found in them), then the warm-up itself recorded ([`record`]).
pub(crate) fn judge(run: &mut Run, warmed: Option<Warmed>, limit: Duration, interrupted: bool) {
    let before = warmed.as_ref().map_or(&[][..], |w| &w.samples[..]);
    steady::mark_real(run, before);
    if let Some(w) = warmed {
        record(run, w.length, limit, w.verdict, interrupted);
    }
}

/// The automatic warm-up in the result: its length, and the reason when it ran out (or was
/// interrupted).
pub(crate) fn record(
    run: &mut Run,
    warmup: Duration,
    limit: Duration,
    verdict: Verdict,
    interrupted: bool,
) {
    run.workload.warmup_auto = true;
    let warmup_s = (warmup.as_secs_f64() * 1e3).round() / 1e3;
    let limit_s = limit.as_secs_f64();
    run.workload.warmup_s = warmup_s;
    if interrupted && !verdict.is_steady() {
        steady::set(
            run,
            Verdict::Unsteady(format!(
                "interrupted after {warmup_s} s of automatic warm-up, before it was steady"
            )),
        );
    } else if let Verdict::Unsteady(reason) = verdict {
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

    /// Feeds `iops(second)` at a constant 2 ms latency until the warm-up ends; the second it
    /// ended at and its verdict.
    fn warm(max_s: u64, iops: impl Fn(u64) -> u64) -> (u64, Verdict) {
        let mut w = AutoWarmup::new(Duration::from_secs(max_s));
        let (mut done, mut lat) = (0, 0);
        for s in 1..=max_s {
            assert_eq!(w.next_sample(), Duration::from_secs(s));
            done += iops(s);
            lat += iops(s) * 2_000_000;
            if w.sample(Duration::from_secs(s), done, lat) {
                return (s, w.verdict);
            }
        }
        panic!("the warm-up did not end at its limit")
    }

    #[test]
    fn a_steady_start_ends_at_the_first_full_window() {
        let (at, v) = warm(600, |_| 1000);
        assert_eq!(at, REAL_CRITERIA.window_s as u64);
        assert!(v.is_steady());
    }

    #[test]
    fn a_ramp_warms_until_its_last_window_is_flat() {
        // Rising 2% a second for 40 s, then flat: the first window clear of the ramp's
        // trend ends the warm-up: after one window, and at the latest when the window is all flat.
        let (at, v) = warm(600, |s| 1000 + 20 * s.min(40));
        assert!(v.is_steady());
        assert!(
            at > REAL_CRITERIA.window_s as u64 && at <= 100,
            "ended at {at} s"
        );
    }

    #[test]
    fn the_limit_ends_a_warmup_that_never_settles() {
        let (at, v) = warm(90, |s| 1000 + 20 * s);
        assert_eq!(at, 90);
        let Verdict::Unsteady(reason) = v else {
            panic!("a ramp judged steady")
        };
        assert!(reason.starts_with("IOPS still rising"), "{reason}");
        // A limit shorter than a window is judged on what it holds.
        let (at, v) = warm(3, |_| 1000);
        assert_eq!(at, 3);
        assert!(!v.is_steady());
    }

    /// A measured window of `secs` seconds at 1500 IO/s, 2 ms.
    fn measured(secs: usize) -> Run {
        real_run("f.dat", "randwrite-8k", WorkloadKind::Io, secs, |_| {
            SeriesPoint {
                iops: 1500.0,
                latency_ms_mean: 2.0,
                ..Default::default()
            }
        })
    }

    /// A device that swings in 40 s cycles (a write-back cache filling and destaging),
    /// warmed for 200 s: the measured 20 s, flat on one half-cycle, looked steady on their
    /// own; with the warm-up's samples the verdict sees the cycle the window cannot hold.
    #[test]
    fn the_measured_window_is_judged_with_the_warmups_samples() {
        let iops = |s: u64| if s % 40 < 20 { 1500 } else { 500 };
        let mut w = AutoWarmup::new(Duration::from_secs(200));
        let (mut done, mut lat) = (0, 0);
        for s in 1..=200 {
            done += iops(s);
            lat += iops(s) * 2_000_000;
            // Fed to its end, as a warm-up that ran to its limit would be.
            w.sample(Duration::from_secs(s), done, lat);
        }
        w.verdict = Verdict::Steady;
        let limit = Duration::from_secs(200);
        let mut alone = measured(20);
        judge(&mut alone, None, limit, false);
        assert!(alone.steady, "{:?}", alone.steady_reason);
        let mut run = measured(20);
        judge(&mut run, Some(w.ended(limit)), limit, false);
        assert!(!run.steady);
        assert!(run.workload.warmup_auto);
        let reason = run.steady_reason.unwrap_or_default();
        assert!(
            reason.contains("in cycles of about 40 s, longer than the 20 s measured"),
            "{reason}"
        );
    }

    #[test]
    fn a_limit_between_seconds_is_the_last_sample() {
        let mut w = AutoWarmup::new(Duration::from_millis(2500));
        assert!(!w.sample(Duration::from_secs(1), 100, 100_000_000));
        assert!(!w.sample(Duration::from_secs(2), 200, 200_000_000));
        assert_eq!(w.next_sample(), Duration::from_millis(2500));
        assert!(w.sample(Duration::from_millis(2500), 250, 250_000_000));
    }
}
