//! Cycles: a series that swings up and down with a period (a write cache's destage cycle, a
//! database's checkpoints) is at steady state when it repeats itself without a trend from one
//! cycle to the next, and a window measures it fairly only when it covers a whole cycle.
//!
//! The period is the lag of the highest peak of the series' autocorrelation after its first
//! fall below zero, among lags at which the series holds at least two whole cycles. A cycle
//! counts when the autocorrelation there is clear ([`MIN_CORRELATION`]) and the series folded
//! on the period (the mean profile of one cycle) swings well beyond what its noise would
//! give; a flat noisy series or a ramp has no cycle.

/// Lowest autocorrelation at the period for a cycle to count.
pub const MIN_CORRELATION: f64 = 0.3;

/// The swing of the folded profile must exceed its noise this many times.
const MIN_SIGNAL_TO_NOISE: f64 = 4.0;

/// A cycle found in a series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cycle {
    /// The period, in samples (seconds).
    pub period_s: usize,
    /// Half the range of the cycle's mean profile, percent of the series' mean.
    pub swing_pct: f64,
    /// The autocorrelation at the period.
    pub correlation: f64,
}

/// The part of `ys` after its start-up transient: from the first sample within the range of
/// the series' second half (a cache filling, a ramp settling, lie outside it).
pub fn settled(ys: &[f64]) -> &[f64] {
    let half = &ys[ys.len() / 2..];
    let lo = half.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = half.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let start = ys
        .iter()
        .position(|y| (lo..=hi).contains(y))
        .unwrap_or(ys.len());
    &ys[start..]
}

/// The autocorrelation of `ys` at each lag `0..=max_lag` (each lag's products averaged over
/// the pairs it has, so that long lags are not shrunk towards 0).
fn autocorrelation(ys: &[f64], max_lag: usize) -> Vec<f64> {
    let n = ys.len();
    let m = ys.iter().sum::<f64>() / n as f64;
    let var = ys.iter().map(|y| (y - m) * (y - m)).sum::<f64>() / n as f64;
    (0..=max_lag.min(n.saturating_sub(1)))
        .map(|k| {
            if var <= 0.0 {
                return 0.0;
            }
            let s: f64 = (0..n - k).map(|i| (ys[i] - m) * (ys[i + k] - m)).sum();
            s / (n - k) as f64 / var
        })
        .collect()
}

/// The cycle of `ys` (already [`settled`]) with a period of at least `min_period_s`, if any.
pub fn find(ys: &[f64], min_period_s: usize) -> Option<Cycle> {
    let max_lag = ys.len() / 2;
    if max_lag < min_period_s.max(2) {
        return None;
    }
    let r = autocorrelation(ys, max_lag);
    let first_negative = r.iter().position(|&x| x < 0.0)?;
    let from = first_negative.max(min_period_s);
    let best = r[from..].iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if best < MIN_CORRELATION {
        return None;
    }
    let best_lag = (from..r.len()).find(|&k| r[k] == best)?;
    let period_s = fundamental(&r, best_lag, min_period_s);
    let swing_pct = significant_swing_pct(ys, period_s)?;
    Some(Cycle {
        period_s,
        swing_pct,
        correlation: r[period_s],
    })
}

/// The period whose multiple `lag` is: the highest peak near `lag / m` for the largest `m`
/// whose peak is nearly as high as the one at `lag` (a cycle's autocorrelation peaks at every
/// multiple of its period, the highest not always at the first).
fn fundamental(r: &[f64], lag: usize, min_period_s: usize) -> usize {
    for m in (2..=4).rev() {
        let (centre, spread) = (lag / m, lag / (4 * m));
        let lo = centre.saturating_sub(spread).max(min_period_s);
        let hi = (centre + spread).min(r.len() - 1);
        if lo > hi {
            continue;
        }
        let near = (lo..=hi).max_by(|&a, &b| r[a].total_cmp(&r[b]));
        if let Some(k) = near.filter(|&k| r[k] >= 0.9 * r[lag]) {
            return k;
        }
    }
    lag
}

/// The swing of the series folded on `period` (its last whole cycles averaged phase by
/// phase, then smoothed over a tenth of the period), in percent of the mean; None when it is
/// not clear of the profile's noise.
fn significant_swing_pct(ys: &[f64], period: usize) -> Option<f64> {
    let cycles = ys.len() / period;
    let tail = &ys[ys.len() - cycles * period..];
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    if mean <= 0.0 {
        return None;
    }
    let profile: Vec<f64> = (0..period)
        .map(|j| (0..cycles).map(|c| tail[c * period + j]).sum::<f64>() / cycles as f64)
        .collect();
    let residual = tail
        .iter()
        .enumerate()
        .map(|(i, y)| (y - profile[i % period]).powi(2))
        .sum::<f64>()
        / (tail.len() - period).max(1) as f64;
    let width = (period / 10).max(1);
    let smooth: Vec<f64> = (0..period)
        .map(|j| (0..width).map(|d| profile[(j + d) % period]).sum::<f64>() / width as f64)
        .collect();
    let lo = smooth.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = smooth.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let half_range = (hi - lo) / 2.0;
    let noise = (residual / (cycles * width) as f64).sqrt();
    (half_range > MIN_SIGNAL_TO_NOISE * noise).then_some(100.0 * half_range / mean)
}

/// The trend from cycle to cycle: the least-squares slope of the series' moving average over
/// one period (which a cycle does not move, whatever the phase it starts at), per minute in
/// percent of the mean, when it is beyond `bound_pct` and clear of the noise.
pub fn trend_across(ys: &[f64], period: usize, bound_pct: f64) -> Option<f64> {
    let n = ys.len();
    if n < 2 * period || period == 0 {
        return None;
    }
    let mean = ys.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 {
        return None;
    }
    // The moving average, one value per whole period the series holds.
    let positions = n - period + 1;
    let mut moving = Vec::with_capacity(positions);
    let mut sum: f64 = ys[..period].iter().sum();
    moving.push(sum / period as f64);
    for j in 1..positions {
        sum += ys[j + period - 1] - ys[j - 1];
        moving.push(sum / period as f64);
    }
    let x_mean = (positions as f64 - 1.0) / 2.0;
    let sxx: f64 = (0..positions).map(|j| (j as f64 - x_mean).powi(2)).sum();
    let coef: Vec<f64> = (0..positions).map(|j| (j as f64 - x_mean) / sxx).collect();
    let per_s: f64 = coef.iter().zip(&moving).map(|(c, m)| c * m).sum();
    // The slope is a weighted sum of the samples; its noise follows from the weights and the
    // samples' spread around the cycle's mean profile (the cycle itself is not noise).
    let mut prefix = vec![0.0];
    for c in &coef {
        prefix.push(prefix.last().copied().unwrap_or(0.0) + c);
    }
    let weights_sq: f64 = (0..n)
        .map(|i| {
            let (lo, hi) = (i.saturating_sub(period - 1), i.min(positions - 1));
            ((prefix[hi + 1] - prefix[lo]) / period as f64).powi(2)
        })
        .sum();
    let se = (profile_spread(ys, period) * weights_sq).sqrt();
    let scale = 60.0 * 100.0 / mean;
    let per_min = per_s * scale;
    (per_min.abs() > bound_pct && per_min.abs() > 2.0 * se * scale).then_some(per_min)
}

/// The variance of the samples around the mean profile of their cycle (the series folded on
/// `period`, from its start).
fn profile_spread(ys: &[f64], period: usize) -> f64 {
    let mut sums = vec![(0.0, 0usize); period];
    for (i, y) in ys.iter().enumerate() {
        let s = &mut sums[i % period];
        s.0 += y;
        s.1 += 1;
    }
    let sq: f64 = ys
        .iter()
        .enumerate()
        .map(|(i, y)| {
            let (sum, count) = sums[i % period];
            (y - sum / count as f64).powi(2)
        })
        .sum();
    sq / ys.len().saturating_sub(period).max(1) as f64
}
