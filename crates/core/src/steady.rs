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
//! The same test serves two purposes: `--warmup auto` keeps warming until the last window of
//! the warm-up passes it, and every result says whether its measured window passes it.

use serde::{Deserialize, Serialize};

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
    /// Samples the test looks at: the last `window_s` seconds.
    pub window_s: usize,
    /// Fewest samples a verdict needs.
    pub min_samples: usize,
    /// Largest throughput trend, percent of the window's mean per minute.
    pub throughput_pct_per_min: f64,
    /// Largest mean-latency trend, percent of the window's mean per minute.
    pub latency_pct_per_min: f64,
    /// Largest hit-ratio trend, percentage points per minute.
    pub hit_ratio_points_per_min: f64,
}

/// The bounds storlab uses: a 60 s window (long enough that a sawtooth, such as a write
/// cache filling and then destaging, does not pass for flat); throughput and latency within
/// 3%/min, the buffer-cache hit ratio within 0.5 points/min.
pub const CRITERIA: Criteria = Criteria {
    window_s: 60,
    min_samples: 5,
    throughput_pct_per_min: 3.0,
    latency_pct_per_min: 3.0,
    hit_ratio_points_per_min: 0.5,
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

/// The steady-state test over the last [`Criteria::window_s`] samples; `throughput_name`
/// names the throughput in the reason (`rows/s`, `IOPS`).
pub fn check(samples: &[Sample], throughput_name: &str, c: &Criteria) -> Verdict {
    let w = &samples[samples.len().saturating_sub(c.window_s)..];
    if w.len() < c.min_samples {
        return Verdict::Unsteady(format!(
            "only {} one-second samples: too few to tell whether {throughput_name} had settled \
             (at least {} needed)",
            w.len(),
            c.min_samples
        ));
    }
    let over = format!("over the last {} s", w.len());
    let tput: Vec<f64> = w.iter().map(|s| s.throughput).collect();
    let tput_mean = mean(&tput);
    if tput_mean <= 0.0 {
        return Verdict::Unsteady(format!("no {throughput_name} completed {over}"));
    }
    if let Some(t) = trend_beyond(&tput, 100.0 / tput_mean, c.throughput_pct_per_min) {
        return Verdict::Unsteady(format!(
            "{throughput_name} still {} {:.0}%/min {over} (bound {}%/min)",
            direction(t),
            t.abs(),
            c.throughput_pct_per_min
        ));
    }
    let lat: Vec<f64> = w
        .iter()
        .filter(|s| s.throughput > 0.0)
        .map(|s| s.latency_ms)
        .collect();
    let lat_mean = mean(&lat);
    if lat.len() >= c.min_samples && lat_mean > 0.0 {
        if let Some(t) = trend_beyond(&lat, 100.0 / lat_mean, c.latency_pct_per_min) {
            return Verdict::Unsteady(format!(
                "mean latency still {} {:.0}%/min {over} (bound {}%/min)",
                direction(t),
                t.abs(),
                c.latency_pct_per_min
            ));
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
    if !run.steady {
        return;
    }
    let samples: Vec<Sample> = run.series.iter().map(Sample::of_point).collect();
    let verdict = check(&samples, throughput_name(&run.series), &CRITERIA);
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

/// A warm-up: a fixed length, or automatic (until steady, at most `max`). Written `auto` or
/// as a time span (`10s`) on the command line and in plan files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warmup {
    /// This long.
    Fixed(TimeSpan),
    /// Until the steady-state test passes, at most this long.
    Auto {
        /// Longest warm-up.
        max: TimeSpan,
    },
}

impl Warmup {
    /// Parses `auto` or a time span (`10s`, `0`).
    pub fn parse(s: &str, max: TimeSpan) -> Result<Warmup, crate::UnitError> {
        if s.trim().eq_ignore_ascii_case("auto") {
            Ok(Warmup::Auto { max })
        } else if s.trim() == "0" {
            Ok(Warmup::Fixed(TimeSpan(0)))
        } else {
            s.parse().map(Warmup::Fixed)
        }
    }

    /// True for an automatic warm-up.
    pub fn is_auto(self) -> bool {
        matches!(self, Warmup::Auto { .. })
    }

    /// The longest the warm-up can take.
    pub fn max(self) -> TimeSpan {
        match self {
            Warmup::Fixed(t) => t,
            Warmup::Auto { max } => max,
        }
    }
}

impl std::fmt::Display for Warmup {
    /// `auto` or the span (`10s`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warmup::Fixed(t) => write!(f, "{t}"),
            Warmup::Auto { .. } => f.write_str("auto"),
        }
    }
}

impl Serialize for Warmup {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Warmup {
    /// `"auto"` (with the default limit), or whatever a [`TimeSpan`] reads.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Span(TimeSpan),
        }
        match Raw::deserialize(d)? {
            Raw::Text(s) => Warmup::parse(&s, DEFAULT_WARMUP_MAX)
                .map_err(|e| serde::de::Error::custom(format!("{e} (or \"auto\": until steady)"))),
            Raw::Span(t) => Ok(Warmup::Fixed(t)),
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

    #[test]
    fn warmup_parses_auto_and_spans() {
        let max = DEFAULT_WARMUP_MAX;
        assert_eq!(Warmup::parse("auto", max), Ok(Warmup::Auto { max }));
        assert_eq!(Warmup::parse("0", max), Ok(Warmup::Fixed(TimeSpan(0))));
        assert_eq!(
            Warmup::parse("10s", max),
            Ok(Warmup::Fixed(TimeSpan::from_secs(10)))
        );
        assert!(Warmup::parse("soon", max).is_err());
        #[derive(Deserialize)]
        struct Plan {
            warmup: Warmup,
        }
        let read = |t: &str| toml::from_str::<Plan>(t).map(|p| p.warmup);
        assert_eq!(read("warmup = \"auto\"").ok(), Some(Warmup::Auto { max }));
        assert_eq!(
            read("warmup = \"5s\"").ok(),
            Some(Warmup::Fixed(TimeSpan::from_secs(5)))
        );
        assert!(read("warmup = \"later\"").is_err());
        assert_eq!(Warmup::Auto { max }.to_string(), "auto");
    }
}
