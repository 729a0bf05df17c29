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
    /// The array's read-cache hit ratio of the second, percent (simulated arrays; a large
    /// cache fills for minutes under random reads, its hits rising all the while).
    pub array_hit_ratio_pct: Option<f64>,
}

impl Sample {
    /// The sample of one series point (its rows/s when it has them).
    pub fn of_point(p: &SeriesPoint) -> Sample {
        Sample {
            throughput: p.rows_per_s.unwrap_or(p.iops),
            latency_ms: p.latency_ms_mean,
            hit_ratio_pct: None,
            array_hit_ratio_pct: None,
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
    /// How far clear of the noise a trend must be to count.
    pub noise: Noise,
    /// A second with nothing completed, in a window whose mean throughput is at least this
    /// (per second), is a stall and the window is not steady (None: stalls are judged as
    /// part of the trend only). At 10/s a Poisson stream leaves a second empty about once
    /// in 20,000 seconds.
    pub stall_min_throughput: Option<f64>,
}

/// How far beyond its standard error a window's slope must be to count as a trend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Noise {
    /// Twice the standard error, whatever the window's length (simulated runs).
    TwoStandardErrors,
    /// The two-sided 95% quantile of Student's t for the window's samples: 3.18 standard
    /// errors for 5 samples, 2.31 for 10, 2.10 for 20, 2.0 from 60 on. Real runs: their
    /// short windows carry the machine's noise, and twice the standard error of 5 samples
    /// calls a trend in about one flat window in seven.
    StudentT95,
}

impl Noise {
    /// Standard errors a slope over `n` samples must exceed.
    fn factor(self, n: usize) -> f64 {
        match self {
            Noise::TwoStandardErrors => 2.0,
            Noise::StudentT95 => t95(n.saturating_sub(2)),
        }
    }
}

/// The two-sided 95% quantile of Student's t with `dof` degrees of freedom (at least 2.0:
/// from 60 on, where it comes within 0.1% of 2.0, the bound stays the usual two standard
/// errors).
fn t95(dof: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match dof {
        0 => TABLE[0],
        1..=30 => TABLE[dof - 1],
        // Each range at the value of its start: 2.040 at 31, 2.020 at 41, 2.008 at 51.
        31..=40 => 2.040,
        41..=50 => 2.020,
        51..=59 => 2.008,
        _ => 2.0,
    }
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
    noise: Noise::TwoStandardErrors,
    stall_min_throughput: None,
};

/// The bounds of real runs (`storlab io`, `storlab db`): [`CRITERIA`], with a trend counted
/// only when Student's t for the window's samples puts it clear of the noise, and a second
/// with nothing completed a stall (in a short window, a stall over its last seconds after a
/// catch-up burst has no trend clear of the noise).
pub const REAL_CRITERIA: Criteria = Criteria {
    noise: Noise::StudentT95,
    stall_min_throughput: Some(10.0),
    ..CRITERIA
};

/// Default longest automatic warm-up (`--warmup-max`).
pub const DEFAULT_WARMUP_MAX: TimeSpan = TimeSpan(600_000_000_000);
/// Longest warm-up of a real run (`storlab io`, `storlab db`), fixed or automatic: a day.
pub const MAX_REAL_WARMUP_NS: u64 = 86_400 * 1_000_000_000;

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
fn trend_beyond(ys: &[f64], scale: f64, bound: f64, noise: Noise) -> Option<f64> {
    let (b, se) = slope(ys);
    let per_min = b * 60.0 * scale;
    let noise_per_min = noise.factor(ys.len()) * se * 60.0 * scale.abs();
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
    /// A trend along the window, per minute, and the change from the mean of the window's
    /// first third to the mean of its last, percent.
    Trend(f64, f64),
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
        .then(|| trend_beyond(w, 100.0 / m, bound, c.noise))
        .flatten()
        .map(|t| Finding::Trend(t, start_to_end_pct(w)))
}

/// The change of `w` from its start to its end, percent: from the mean of its first third
/// to the mean of its last third (a slope times the window would overshoot a step or a
/// curve, down to below -100%).
fn start_to_end_pct(w: &[f64]) -> f64 {
    let part = (w.len() / 3).max(1);
    let (start, end) = (mean(&w[..part]), mean(&w[w.len() - part..]));
    match start > 0.0 {
        true => 100.0 * (end - start) / start,
        false => 0.0,
    }
}

/// The reason for a finding about the figure `name` (`rows/s`, `mean latency`).
fn reason(f: Finding, name: &str, over: &str, window_s: usize, bound: f64) -> String {
    let short = over.contains("measured") && window_s < CRITERIA.window_s;
    match f {
        // A short measured window: the slope over a minute is an extrapolation; say what
        // the window itself saw, and that it is too short to tell a trend from fluctuations.
        Finding::Trend(t, change_pct) if short => format!(
            "{name} still {} {:.0}%/min {over} (bound {bound}%/min): {change_pct:+.0}% from \
             its start to its end; a window shorter than {} s cannot tell a trend from \
             passing fluctuations",
            direction(t),
            t.abs(),
            CRITERIA.window_s
        ),
        Finding::Trend(t, _) => format!(
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
    let idle = w.iter().filter(|s| s.throughput == 0.0).count();
    let stalled = c
        .stall_min_throughput
        .is_some_and(|min| idle > 0 && mean(&tput[tput.len() - window..]) >= min);
    if stalled {
        return Verdict::Unsteady(format!(
            "{name} stalled: nothing completed in {idle} s {over}"
        ));
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
    type HitRatio = fn(&Sample) -> Option<f64>;
    let caches: [(&str, HitRatio); 2] = [
        ("buffer-cache", |s| s.hit_ratio_pct),
        ("array read-cache", |s| s.array_hit_ratio_pct),
    ];
    for (cache, ratio) in caches {
        let hits: Vec<f64> = w.iter().filter_map(ratio).collect();
        if hits.len() < c.min_samples {
            continue;
        }
        if let Some(t) = trend_beyond(&hits, 1.0, c.hit_ratio_points_per_min, c.noise) {
            return Verdict::Unsteady(format!(
                "{cache} hit ratio still {} {:.1} points/min {over} (bound {} points/min)",
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
    mark_with(run, before, &CRITERIA);
}

fn mark_with(run: &mut Run, before: &[Sample], c: &Criteria) {
    if !run.steady {
        return;
    }
    let samples: Vec<Sample> = run.series.iter().map(Sample::of_point).collect();
    let verdict = check_measured(before, &samples, throughput_name(&run.series), c);
    set(run, verdict);
}

/// [`mark_after`] for a real run: judged by [`REAL_CRITERIA`].
pub fn mark_real(run: &mut Run, before: &[Sample]) {
    mark_with(run, before, &REAL_CRITERIA);
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
mod tests;
