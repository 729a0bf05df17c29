//! `--warmup auto`: the warm-up lasts until the run is at steady state.
//!
//! The run starts measuring at time 0 as if it had no warm-up. At the end of every simulated
//! second from the first full window on, the per-second series so far (throughput, mean
//! latency and, for a database, the buffer-cache hit ratio) is put to the steady-state test
//! of [`storlab_core::steady`]. The first second it passes ends the warm-up: the statistics
//! restart there, as at the end of a fixed warm-up, and the measured window follows. When
//! the limit comes first, the run is measured anyway and marked not steady, with the reason.
//! Every decision is taken on simulated figures at whole simulated seconds, so the same seed
//! still gives the same bytes.
//!
//! A database's series often swings in cycles longer than the measured window (its
//! checkpoints: rows/s dips while the checkpoint writes, then recovers), and a window shorter
//! than a cycle sees a trend that is only part of a swing. So, with an automatic warm-up and
//! an asked window of at least the test's own window, a database run whose measured window is
//! not steady goes on measuring, one asked window at a time, until the whole window is (a
//! cycle-covering window is judged from cycle to cycle) or it is [`MAX_STRETCH`] times the
//! window asked; the result says how long it measured and why.

use storlab_core::result::Run;
use storlab_core::steady::{self, Sample, Verdict, CRITERIA};

use super::Model;
use crate::config::ConfigError;
use crate::engine::SimTime;
use crate::metrics::INTERVAL_NS;

/// Longest measured window of an automatic run, in windows asked for.
pub(super) const MAX_STRETCH: u64 = 5;

/// How an automatic warm-up ended.
pub(super) struct WarmupEnd {
    /// The steady-state test's last verdict (unsteady when the limit was reached).
    pub verdict: Verdict,
    /// The warm-up's per-second samples (the measured window's verdict looks for cycles
    /// longer than itself in them).
    pub samples: Vec<Sample>,
    /// The run was stopped during the warm-up.
    pub stopped: bool,
}

impl Model {
    /// Measures from `start_ns` (0, or the end of the database's tests before its own): the
    /// warm-up's figures are the test's input.
    pub(super) fn begin_auto_warmup(&mut self, start_ns: u64) {
        self.stack.core.opts.warmup_ns = start_ns;
        self.stack.host.restart_host_stats(start_ns);
        if let Some(db) = self.db.as_deref_mut() {
            db.reset_stats(start_ns);
        }
    }

    /// Runs second by second from `start_ns` until the series is steady or `max_ns` has
    /// passed, then starts the measured window there.
    pub(super) fn warm_until_steady(
        &mut self,
        start_ns: u64,
        max_ns: u64,
    ) -> Result<WarmupEnd, ConfigError> {
        let mut hit_counts = Vec::new();
        let mut array_counts = Vec::new();
        let mut verdict = Verdict::Unsteady("the warm-up limit is 0 s".into());
        let mut samples = Vec::new();
        let end = start_ns.saturating_add(max_ns);
        let mut t = start_ns;
        while t < end {
            let next = (t + INTERVAL_NS).min(end);
            if self.run_until(SimTime(next))? {
                return Ok(WarmupEnd {
                    verdict,
                    samples,
                    stopped: true,
                });
            }
            self.stack.core.now = SimTime(next);
            t = next;
            hit_counts.extend(self.db.as_deref().map(|db| db.cache_counts()));
            array_counts.push(self.array_read_counts());
            let seconds = ((t - start_ns) / INTERVAL_NS) as usize;
            // From one full window on, and at the limit whatever the series holds.
            let whole = (t - start_ns).is_multiple_of(INTERVAL_NS) && seconds >= CRITERIA.window_s;
            if !whole && t < end {
                continue;
            }
            let name;
            (samples, name) = self.warmup_samples(seconds, &hit_counts, &array_counts);
            verdict = steady::check(&samples, name, &CRITERIA);
            if verdict.is_steady() {
                break;
            }
        }
        self.stack.core.opts.warmup_ns = t;
        self.stack.reset_stats();
        if let Some(db) = self.db.as_deref_mut() {
            db.reset_stats(t);
        }
        Ok(WarmupEnd {
            verdict,
            samples,
            stopped: false,
        })
    }

    /// With an automatic warm-up whose samples were `before`, measures on past the window
    /// asked, one asked window at a time, while the whole measured window is not steady, up
    /// to [`MAX_STRETCH`] windows (only for a database run that is not a job, with a window
    /// of at least the steady test's), leaving the window measured in `duration_ns`. Returns
    /// whether the run was stopped.
    pub(super) fn stretch_until_steady(&mut self, before: &[Sample]) -> Result<bool, ConfigError> {
        let asked = self.stack.core.opts.duration_ns;
        let database = self.db.as_deref().is_some_and(|db| !db.runs_job());
        if !database || asked < CRITERIA.window_s as u64 * INTERVAL_NS {
            return Ok(false);
        }
        let start = self.stack.core.opts.warmup_ns;
        let mut len = asked;
        while len < MAX_STRETCH * asked {
            let (samples, name) = self.warmup_samples((len / INTERVAL_NS) as usize, &[], &[]);
            if steady::check_measured(before, &samples, name, &CRITERIA).is_steady() {
                break;
            }
            len += asked;
            self.stack.core.opts.duration_ns = len;
            if self.run_until(SimTime(start + len))? {
                return Ok(true);
            }
            self.stack.core.now = SimTime(start + len);
        }
        Ok(false)
    }

    /// The array read caches' cumulative (hits, host reads), over every group.
    fn array_read_counts(&self) -> (u64, u64) {
        (0..self.stack.core.spec.groups.len() as u32)
            .map(|g| self.stack.ctrls.cache_stats(g))
            .fold((0, 0), |(h, r), c| (h + c.read_hits, r + c.host_reads))
    }

    /// The samples of the first `seconds` seconds and the name of their throughput;
    /// `hit_counts` holds the buffer cache's cumulative (hits, accesses) at the end of each
    /// second, `array_counts` the array read caches' (hits, host reads).
    fn warmup_samples(
        &self,
        seconds: usize,
        hit_counts: &[(u64, u64)],
        array_counts: &[(u64, u64)],
    ) -> (Vec<Sample>, &'static str) {
        let db = self.db.as_deref();
        let host = match db.filter(|_| self.stack.host.all_db_io()) {
            Some(db) => db.host_stats(),
            None => self.stack.host.stats().clone(),
        };
        let mut series = host.series(seconds);
        if let Some(db) = db {
            db.series(&mut series);
        }
        let mut samples: Vec<Sample> = series.iter().map(Sample::of_point).collect();
        let ratios = |counts: &[(u64, u64)]| {
            let mut before = (0, 0);
            counts
                .iter()
                .map(|&(hits, accesses)| {
                    let (h, a) = (
                        hits.saturating_sub(before.0),
                        accesses.saturating_sub(before.1),
                    );
                    before = (hits, accesses);
                    (a > 0).then(|| 100.0 * h as f64 / a as f64)
                })
                .collect::<Vec<_>>()
        };
        if hit_counts.len() == samples.len() {
            for (s, r) in samples.iter_mut().zip(ratios(hit_counts)) {
                s.hit_ratio_pct = r;
            }
        }
        if array_counts.len() == samples.len() {
            for (s, r) in samples.iter_mut().zip(ratios(array_counts)) {
                s.array_hit_ratio_pct = r;
            }
        }
        (samples, steady::throughput_name(&series))
    }
}

/// The finished run with its steady-state verdict: an automatic warm-up that reached its
/// limit says so; otherwise the measured window's own series decides (with the warm-up's
/// samples to find cycles longer than the window in).
pub(super) fn finish(
    mut run: Run,
    warmup: Option<(Verdict, Vec<Sample>)>,
    stretched_from_ns: Option<u64>,
) -> Run {
    run.workload.warmup_auto = warmup.is_some();
    if let Some(asked) = stretched_from_ns {
        run.warnings.push(format!(
            "measured {:.0} s where {:.0} s was asked: over {:.0} s the series was not steady \
             (with --warmup auto a database run measures on, one window at a time, until it \
             is, at most {MAX_STRETCH} windows; a fixed --warmup measures exactly --duration)",
            run.workload.duration_s,
            asked as f64 / 1e9,
            asked as f64 / 1e9
        ));
    }
    let (verdict, before) = warmup.map_or((None, Vec::new()), |(v, s)| (Some(v), s));
    if let Some(Verdict::Unsteady(reason)) = verdict {
        let limit_s = run.workload.warmup_s;
        steady::set(
            &mut run,
            Verdict::Unsteady(format!(
                "no steady state within the {limit_s} s warm-up limit: {reason}"
            )),
        );
    }
    steady::mark_after(&mut run, &before);
    run
}
