//! Steady state: whether a run's per-second series has stopped moving.
//!
//! A run is at steady state over a window of one-second samples when no figure has a real
//! trend beyond its bound: throughput (rows/s for databases, I/Os per second otherwise) and
//! mean latency must not drift by more than a few percent per minute, and a database's
//! buffer-cache hit ratio by more than a fraction of a percentage point per minute (a
//! filling cache shows up there first). The trend of a figure is the least-squares slope of
//! its samples; it counts only when it is also clear of the noise (more than twice the
//! slope's standard error), so a flat but noisy series is steady and a ramp is not.
//!
//! A figure that swings in cycles (a write-back cache destaging, a database checkpointing)
//! is judged by its cycles instead ([`cycle`]): it is steady when the means of its whole
//! cycles have no trend beyond the bound, and a measured window judges it fairly only when
//! it covers at least one whole cycle; otherwise whether a minute of it looked flat would
//! depend on the phase the window happened to start at.
//!
//! The same test serves two purposes: `--warmup auto` keeps warming until the warm-up passes
//! it (the last window flat, or whole cycles without a trend), and every result says whether
//! its measured window passes it.

pub mod cycle;
mod warmup;

pub use warmup::Warmup;

use crate::result::{Run, SeriesPoint};
use crate::TimeSpan;

/// One one-second sample of the figures steady state looks at.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// Throughput: rows/s for databases, I/Os per second otherwise.
    pub throughput: f64,
    /// Mean latency of the second's I/Os, ms (0 when none completed).
    pub latency_ms: f64,
    /// Buffer-cache hit ratio of the second, percent (databases).
    pub hit_ratio_pct: Option<f64>,
}

impl Sample {
    /// The sample of one series point (its rows/s when it has them).
    pub fn of_point(p: &SeriesPoint) -> Sample {
        Sample {
            throughput: p.rows_per_s.unwrap_or(p.iops),
            latency_ms: p.latency_ms_mean,
            hit_ratio_pct: None,
        }
    }
}

/// Bounds of the steady-state test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Criteria {
    /// Samples the warm-up's test looks at: the last `window_s` seconds (a measured window
    /// is judged whole).
    pub window_s: usize,
    /// Fewest samples a verdict needs.
    pub min_samples: usize,
    /// Largest throughput trend, percent of the window's mean per minute.
    pub throughput_pct_per_min: f64,
    /// Largest mean-latency trend, percent of the window's mean per minute.
    pub latency_pct_per_min: f64,
    /// Largest hit-ratio trend, percentage points per minute.
    pub hit_ratio_points_per_min: f64,
    /// Shortest period of a cycle, seconds.
    pub cycle_min_s: usize,
    /// Smallest swing (half the range of a cycle's mean profile, percent of the mean) that
    /// makes a cycle matter; a smaller one is judged as noise around a line.
    pub cycle_swing_pct: f64,
}

/// The bounds storlab uses: a 60 s window (long enough that a short sawtooth, such as a write
/// cache filling and then destaging, does not pass for flat); throughput and latency within
/// 3%/min, the buffer-cache hit ratio within 0.5 points/min; cycles of 10 s or more that
/// swing by more than 2% are judged by whole cycles.
pub const CRITERIA: Criteria = Criteria {
    window_s: 60,
    min_samples: 5,
    throughput_pct_per_min: 3.0,
    latency_pct_per_min: 3.0,
    hit_ratio_points_per_min: 0.5,
    cycle_min_s: 10,
    cycle_swing_pct: 2.0,
};

/// Default longest automatic warm-up (`--warmup-max`).
pub const DEFAULT_WARMUP_MAX: TimeSpan = TimeSpan(600_000_000_000);

/// The verdict of the test.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// No figure has a trend beyond its bound.
    Steady,
    /// Why not, in plain words ("rows/s still rising 14%/min over the last 30 s").
    Unsteady(String),
}

impl Verdict {
    /// True when steady.
    pub fn is_steady(&self) -> bool {
        matches!(self, Verdict::Steady)
    }
}

/// Least-squares slope of `ys` against 0, 1, 2 ... and its standard error.
fn slope(ys: &[f64]) -> (f64, f64) {
    let n = ys.len() as f64;
    let x_mean = (n - 1.0) / 2.0;
    let y_mean = ys.iter().sum::<f64>() / n;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for (i, y) in ys.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxx += dx * dx;
        sxy += dx * (y - y_mean);
    }
    if sxx == 0.0 {
        return (0.0, 0.0);
    }
    let b = sxy / sxx;
    let sse: f64 = ys
        .iter()
        .enumerate()
        .map(|(i, y)| {
            let e = y - (y_mean + b * (i as f64 - x_mean));
            e * e
        })
        .sum();
    let dof = (n - 2.0).max(1.0);
    (b, (sse / dof / sxx).sqrt())
}

/// A trend of `ys` per minute, scaled by `scale` (100/mean for percent, 1 for points), when it
/// is beyond `bound` and clear of the noise.
fn trend_beyond(ys: &[f64], scale: f64, bound: f64) -> Option<f64> {
    let (b, se) = slope(ys);
    let per_min = b * 60.0 * scale;
    let noise_per_min = 2.0 * se * 60.0 * scale.abs();
    (per_min.abs() > bound && per_min.abs() > noise_per_min).then_some(per_min)
}

fn mean(ys: &[f64]) -> f64 {
    ys.iter().sum::<f64>() / ys.len().max(1) as f64
}

fn direction(per_min: f64) -> &'static str {
    if per_min > 0.0 {
        "rising"
    } else {
        "falling"
    }
}

/// What is wrong with one figure's series.
enum Finding {
    /// A trend along the window, per minute.
    Trend(f64),
    /// A trend from one cycle to the next, per minute.
    CycleTrend(f64, cycle::Cycle),
    /// The measured window is shorter than the figure's cycle.
    ShortOfCycle(cycle::Cycle),
}

/// One figure: `all` its whole series, of which the last `window` samples are judged;
/// `measured` when that window is a result's measured window (which must cover a cycle).
fn figure(all: &[f64], window: usize, measured: bool, bound: f64, c: &Criteria) -> Option<Finding> {
    let tail = cycle::settled(all);
    // Cycles are looked for in two windows' worth of settled samples at least: in less, the
    // end of a start-up transient can pass for a cycle or two.
    let found = (tail.len() >= 2 * c.window_s)
        .then(|| cycle::find(tail, c.cycle_min_s))
        .flatten()
        .filter(|cy| cy.swing_pct >= c.cycle_swing_pct);
    if let Some(cy) = found {
        if measured && window < cy.period_s {
            return Some(Finding::ShortOfCycle(cy));
        }
        return cycle::trend_across(tail, cy.period_s, bound).map(|t| Finding::CycleTrend(t, cy));
    }
    let w = &all[all.len().saturating_sub(window)..];
    let m = mean(w);
    (m > 0.0)
        .then(|| trend_beyond(w, 100.0 / m, bound))
        .flatten()
        .map(Finding::Trend)
}

/// The reason for a finding about the figure `name` (`rows/s`, `mean latency`).
fn reason(f: Finding, name: &str, over: &str, window_s: usize, bound: f64) -> String {
    let short = over.contains("measured") && window_s < CRITERIA.window_s;
    match f {
        // A short measured window: the slope over a minute is an extrapolation; say what
        // the window itself saw, and that it is too short to tell a trend from fluctuations.
        Finding::Trend(t) if short => format!(
            "{name} still {} {:.0}%/min {over} (bound {bound}%/min): {:+.0}% from its start to \
             its end; a window shorter than {} s cannot tell a trend from passing \
             fluctuations (raise --duration)",
            direction(t),
            t.abs(),
            t * window_s as f64 / 60.0,
            CRITERIA.window_s
        ),
        Finding::Trend(t) => format!(
            "{name} still {} {:.0}%/min {over} (bound {bound}%/min)",
            direction(t),
            t.abs()
        ),
        Finding::CycleTrend(t, cy) => format!(
            "{name} still {} {:.0}%/min from one cycle of about {} s to the next (bound \
             {bound}%/min)",
            direction(t),
            t.abs(),
            cy.period_s
        ),
        Finding::ShortOfCycle(cy) => format!(
            "{name} swings +-{:.1}% in cycles of about {} s, longer than the {window_s} s \
             measured: measure at least {} s (--duration) so that the window holds a whole \
             cycle",
            cy.swing_pct, cy.period_s, cy.period_s
        ),
    }
}

/// The steady-state test of a warm-up: over the last [`Criteria::window_s`] samples, or over
/// whole cycles when the series swings in cycles; `throughput_name` names the throughput in
/// the reason (`rows/s`, `IOPS`).
pub fn check(samples: &[Sample], throughput_name: &str, c: &Criteria) -> Verdict {
    judge(samples, None, throughput_name, c)
}

/// The steady-state test of a measured window: `measured` judged whole, with `before` (the
/// settled end of an automatic warm-up, when there was one) to find cycles longer than the
/// window in. A figure that swings in cycles is steady only when the window covers a cycle.
pub fn check_measured(
    before: &[Sample],
    measured: &[Sample],
    throughput_name: &str,
    c: &Criteria,
) -> Verdict {
    let all: Vec<Sample> = before.iter().chain(measured).copied().collect();
    judge(&all, Some(measured.len()), throughput_name, c)
}

/// The test over `samples`: the last `measured` of them as a measured window, or (None) the
/// last [`Criteria::window_s`] as a warm-up's window.
fn judge(samples: &[Sample], measured: Option<usize>, name: &str, c: &Criteria) -> Verdict {
    let window = measured.unwrap_or(c.window_s).min(samples.len());
    let w = &samples[samples.len() - window..];
    if w.len() < c.min_samples {
        return Verdict::Unsteady(format!(
            "only {} one-second samples: too few to tell whether {name} had settled (at least \
             {} needed)",
            w.len(),
            c.min_samples
        ));
    }
    let over = match measured {
        Some(_) => format!("measured {} s", w.len()),
        None => format!("last {} s", w.len()),
    };
    let over = format!("over the {over}");
    let tput: Vec<f64> = samples.iter().map(|s| s.throughput).collect();
    if mean(&tput[tput.len() - window..]) <= 0.0 {
        return Verdict::Unsteady(format!("no {name} completed {over}"));
    }
    let is_measured = measured.is_some();
    let bound = c.throughput_pct_per_min;
    if let Some(f) = figure(&tput, window, is_measured, bound, c) {
        return Verdict::Unsteady(reason(f, name, &over, window, bound));
    }
    // Latency of the seconds that completed something, in order.
    let busy = |s: &&Sample| s.throughput > 0.0;
    let lat: Vec<f64> = samples.iter().filter(busy).map(|s| s.latency_ms).collect();
    let lat_window = w.iter().filter(busy).count();
    if lat_window >= c.min_samples && mean(&lat[lat.len() - lat_window..]) > 0.0 {
        let bound = c.latency_pct_per_min;
        if let Some(f) = figure(&lat, lat_window, is_measured, bound, c) {
            return Verdict::Unsteady(reason(f, "mean latency", &over, window, bound));
        }
    }
    let hits: Vec<f64> = w.iter().filter_map(|s| s.hit_ratio_pct).collect();
    if hits.len() >= c.min_samples {
        if let Some(t) = trend_beyond(&hits, 1.0, c.hit_ratio_points_per_min) {
            return Verdict::Unsteady(format!(
                "buffer-cache hit ratio still {} {:.1} points/min {over} (bound {} points/min)",
                direction(t),
                t.abs(),
                c.hit_ratio_points_per_min
            ));
        }
    }
    Verdict::Steady
}

/// The name of a series' throughput: rows/s when it has rows, IOPS otherwise.
pub fn throughput_name(series: &[SeriesPoint]) -> &'static str {
    if series.iter().any(|p| p.rows_per_s.is_some()) {
        "rows/s"
    } else {
        "IOPS"
    }
}

/// Sets `run.steady` and `run.steady_reason` from its measured series, unless the run is
/// already marked unsteady (an automatic warm-up that ran out keeps its reason).
pub fn mark(run: &mut Run) {
    mark_after(run, &[]);
}

/// [`mark`], with `before` the samples of the automatic warm-up that preceded the measured
/// window (cycles longer than the window are found in them).
pub fn mark_after(run: &mut Run, before: &[Sample]) {
    if !run.steady {
        return;
    }
    let samples: Vec<Sample> = run.series.iter().map(Sample::of_point).collect();
    let verdict = check_measured(before, &samples, throughput_name(&run.series), &CRITERIA);
    set(run, verdict);
}

/// Records `verdict` in `run`.
pub fn set(run: &mut Run, verdict: Verdict) {
    match verdict {
        Verdict::Steady => {
            run.steady = true;
            run.steady_reason = None;
        }
        Verdict::Unsteady(reason) => {
            run.steady = false;
            run.steady_reason = Some(reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic noise of about +-`amp` (a fixed pseudo-random sequence).
    fn noise(i: usize, amp: f64) -> f64 {
        let x = (i as u64)
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 33) as f64 / (1u64 << 31) as f64 - 0.5) * 2.0 * amp
    }

    fn samples(f: impl Fn(usize) -> (f64, f64, Option<f64>), n: usize) -> Vec<Sample> {
        (0..n)
            .map(|i| {
                let (throughput, latency_ms, hit_ratio_pct) = f(i);
                Sample {
                    throughput,
                    latency_ms,
                    hit_ratio_pct,
                }
            })
            .collect()
    }

    #[test]
    fn a_ramping_series_is_not_steady_and_says_why() {
        // Rows/s climbing 1% of its start per second, as while a buffer cache fills.
        let s = samples(|i| (1000.0 + 10.0 * i as f64, 5.0, None), 90);
        let v = check(&s, "rows/s", &CRITERIA);
        let Verdict::Unsteady(reason) = v else {
            panic!("a ramp judged steady")
        };
        assert!(reason.starts_with("rows/s still rising"), "{reason}");
        assert!(reason.contains("over the last 60 s"), "{reason}");
    }

    #[test]
    fn a_flat_noisy_series_is_steady() {
        // +-10% noise around a flat mean, in throughput and latency.
        let s = samples(
            |i| (1000.0 + noise(i, 100.0), 4.0 + noise(i + 7, 0.4), None),
            120,
        );
        assert_eq!(check(&s, "IOPS", &CRITERIA), Verdict::Steady);
    }

    #[test]
    fn falling_latency_and_a_filling_cache_are_not_steady() {
        let lat = samples(
            |i| (1000.0 + noise(i, 20.0), 10.0 - 0.05 * i as f64, None),
            30,
        );
        let Verdict::Unsteady(reason) = check(&lat, "rows/s", &CRITERIA) else {
            panic!("falling latency judged steady")
        };
        assert!(reason.starts_with("mean latency still falling"), "{reason}");
        // Throughput flat, the hit ratio still climbing 0.05 points a second (3 a minute).
        let hits = samples(|i| (1000.0, 5.0, Some(90.0 + 0.05 * i as f64)), 30);
        let Verdict::Unsteady(reason) = check(&hits, "rows/s", &CRITERIA) else {
            panic!("a filling cache judged steady")
        };
        assert!(
            reason.starts_with("buffer-cache hit ratio still rising 3.0"),
            "{reason}"
        );
        let settled = samples(|i| (1000.0, 5.0, Some(97.0 + noise(i, 0.2))), 30);
        assert_eq!(check(&settled, "rows/s", &CRITERIA), Verdict::Steady);
    }

    #[test]
    fn only_the_last_window_counts() {
        // A ramp that ended 70 s ago.
        let s = samples(|i| (1000.0 + 20.0 * i.min(20) as f64, 5.0, None), 90);
        assert_eq!(check(&s, "IOPS", &CRITERIA), Verdict::Steady);
        assert!(!check(&s[..25], "IOPS", &CRITERIA).is_steady());
    }

    #[test]
    fn too_few_samples_or_no_throughput_are_not_steady() {
        let s = samples(|_| (1000.0, 5.0, None), 3);
        let Verdict::Unsteady(reason) = check(&s, "IOPS", &CRITERIA) else {
            panic!("3 samples judged steady")
        };
        assert!(reason.contains("only 3 one-second samples"), "{reason}");
        let idle = samples(|_| (0.0, 0.0, None), 10);
        assert!(!check(&idle, "IOPS", &CRITERIA).is_steady());
    }

    /// A noise of about +-`amp` without structure (splitmix64 of the index; [`noise`] repeats
    /// itself with short periods, which is a cycle).
    fn white(i: usize, amp: f64) -> f64 {
        let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2.0 * amp
    }

    /// A destage sawtooth: `period_s` long, swinging +-`swing` around 2600 IOPS (rising for
    /// four fifths of the cycle, falling back in the last fifth), with +-2% noise.
    fn sawtooth(i: usize, period_s: usize, swing: f64) -> f64 {
        let phase = (i % period_s) as f64 / period_s as f64;
        let shape = if phase < 0.8 {
            phase / 0.8
        } else {
            (1.0 - phase) / 0.2
        };
        2600.0 * (1.0 + swing * (2.0 * shape - 1.0)) + white(i, 52.0)
    }

    #[test]
    fn a_sawtooth_is_steady_over_whole_cycles_whatever_its_phase() {
        // An 85 s cycle of +-3.5%: a minute of it is never flat, whatever its phase.
        let tput = |i| sawtooth(i, 85, 0.035);
        let s = samples(|i| (tput(i), 5.0, None), 400);
        assert!(
            !check(&s[..60], "IOPS", &CRITERIA).is_steady(),
            "a minute of the rising edge judged steady"
        );
        // With two cycles to see it, the warm-up's test knows the cycle, at every phase.
        for end in 170..400 {
            assert_eq!(
                check(&s[..end], "IOPS", &CRITERIA),
                Verdict::Steady,
                "at {end} s"
            );
        }
        // A measured window of one whole cycle or more is steady, at every phase...
        for start in (170..300).step_by(7) {
            let (before, window) = s[..start + 90].split_at(start);
            let v = check_measured(before, window, "IOPS", &CRITERIA);
            assert_eq!(v, Verdict::Steady, "90 s measured from {start} s");
        }
        // ...and a shorter one is not, at every phase either, and says what to do.
        for start in (170..300).step_by(7) {
            let (before, window) = s[..start + 40].split_at(start);
            let Verdict::Unsteady(reason) = check_measured(before, window, "IOPS", &CRITERIA)
            else {
                panic!("40 s of an 85 s cycle judged steady (from {start} s)")
            };
            assert!(reason.starts_with("IOPS swings +-3."), "{reason}");
            assert!(reason.contains("cycles of about 8"), "{reason}");
            assert!(reason.contains("longer than the 40 s measured"), "{reason}");
        }
    }

    #[test]
    fn a_sawtooth_on_a_ramp_is_not_steady() {
        // The same cycle on a cache still filling: rows/s +6%/min from cycle to cycle.
        let s = samples(
            |i| (sawtooth(i, 85, 0.035) * (1.0 + 0.001 * i as f64), 5.0, None),
            400,
        );
        let Verdict::Unsteady(reason) = check(&s, "rows/s", &CRITERIA) else {
            panic!("a rising sawtooth judged steady")
        };
        assert!(reason.starts_with("rows/s still rising"), "{reason}");
        let (before, window) = s.split_at(200);
        assert!(!check_measured(before, window, "rows/s", &CRITERIA).is_steady());
    }

    #[test]
    fn a_measured_window_is_judged_whole() {
        // Rising 2%/min for 200 s: every minute of it is within the bound's noise allowance
        // at most, the whole window is not.
        let s = samples(
            |i| (1000.0 + 0.6 * i as f64 + white(i, 5.0), 5.0, None),
            200,
        );
        let Verdict::Unsteady(reason) = check_measured(&[], &s, "IOPS", &CRITERIA) else {
            panic!("a ramp judged steady")
        };
        assert!(reason.contains("over the measured 200 s"), "{reason}");
        assert!(!reason.contains("shorter than"), "{reason}");
        // Five seconds of a busy machine: the reason says what the window saw, and that it
        // is too short to tell.
        let five: Vec<Sample> = [1000.0, 1100.0, 1250.0, 1300.0, 1450.0]
            .iter()
            .map(|&throughput| Sample {
                throughput,
                latency_ms: 5.0,
                hit_ratio_pct: None,
            })
            .collect();
        let Verdict::Unsteady(reason) = check_measured(&[], &five, "IOPS", &CRITERIA) else {
            panic!("a steep 5 s judged steady")
        };
        assert!(reason.starts_with("IOPS still rising"), "{reason}");
        assert!(
            reason.contains("from its start to its end; a window shorter than 60 s"),
            "{reason}"
        );
        let flat = samples(|i| (1000.0 + white(i, 100.0), 5.0, None), 200);
        assert_eq!(
            check_measured(&[], &flat, "IOPS", &CRITERIA),
            Verdict::Steady
        );
    }

    #[test]
    fn noise_and_ramps_have_no_cycle() {
        for n in [60, 120, 300, 600] {
            let flat: Vec<f64> = (0..n).map(|i| 1000.0 + white(i, 150.0)).collect();
            assert_eq!(cycle::find(&flat, 10), None, "{n} s of noise");
            let ramp: Vec<f64> = (0..n).map(|i| 1000.0 + i as f64 + white(i, 20.0)).collect();
            assert_eq!(
                cycle::find(cycle::settled(&ramp), 10),
                None,
                "{n} s of ramp"
            );
        }
        let saw: Vec<f64> = (0..300).map(|i| sawtooth(i, 85, 0.035)).collect();
        let cy = cycle::find(&saw, 10).expect("the sawtooth's cycle");
        assert!((80..=90).contains(&cy.period_s), "{cy:?}");
        assert!((2.5..4.0).contains(&cy.swing_pct), "{cy:?}");
    }
}
