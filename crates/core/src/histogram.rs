//! Latency histogram: owns [`LatencyHistogram`], a fixed-size, mergeable,
//! log-linear (HDR-like) histogram of `u64` values (nanoseconds) with under
//! 1% relative bucket error, and the millisecond summary [`LatencySummaryMs`].

use std::fmt;

/// log2 of the number of linear sub-buckets per power-of-two magnitude.
const SUB_BITS: u32 = 7;
/// Linear sub-buckets per magnitude (bucket width / value <= 1/128).
const SUB: usize = 1 << SUB_BITS;
/// Magnitudes above the exact linear region `0..2*SUB`: `2^8 ..= 2^63`.
const MAGNITUDES: usize = 64 - (SUB_BITS as usize + 1);
/// Total number of buckets (7424 for `SUB = 128`).
const BUCKETS: usize = 2 * SUB + MAGNITUDES * SUB;

/// Bucket index of `v`: values below `2*SUB` map to themselves; above that,
/// each power of two `[2^m, 2^(m+1))` is split into `SUB` equal buckets.
#[inline]
fn bucket_index(v: u64) -> usize {
    // `mag` is 0 in the linear region, else floor(log2 v) - SUB_BITS.
    let mag = (64 - SUB_BITS - 1) - (v | (2 * SUB as u64 - 1)).leading_zeros();
    ((mag as usize) << SUB_BITS) + (v >> mag) as usize
}

/// Inclusive `(lowest, highest)` value held by bucket `idx`.
fn bucket_bounds(idx: usize) -> (u64, u64) {
    let mag = (idx >> SUB_BITS).saturating_sub(1);
    let sub = (idx - (mag << SUB_BITS)) as u64;
    let lower = sub << mag;
    (lower, lower + ((1u64 << mag) - 1))
}

/// Midpoint (rounded down) of bucket `idx`, used as its representative value.
fn bucket_midpoint(idx: usize) -> u64 {
    let (lo, hi) = bucket_bounds(idx);
    lo + (hi - lo) / 2
}

/// Rounds `x` to `decimals` decimal places (half away from zero). Non-finite
/// inputs, and inputs too large to scale, are returned unchanged.
pub fn round_to(x: f64, decimals: u32) -> f64 {
    let factor = 10f64.powi(decimals.min(300) as i32);
    let scaled = x * factor;
    if !scaled.is_finite() {
        return x;
    }
    scaled.round() / factor
}

/// Log-linear histogram of `u64` values (nanoseconds).
///
/// Memory is fixed (one allocation in [`LatencyHistogram::new`]); recording
/// never allocates. Min, max, count and sum are tracked exactly; percentiles
/// are accurate to within 1% relative error.
#[derive(Clone, PartialEq)]
pub struct LatencyHistogram {
    counts: Vec<u64>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl LatencyHistogram {
    /// Creates an empty histogram covering the full `u64` range.
    pub fn new() -> Self {
        Self {
            counts: vec![0; BUCKETS],
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Records one sample.
    #[inline]
    pub fn record(&mut self, value: u64) {
        self.counts[bucket_index(value)] += 1;
        self.count += 1;
        self.sum += u128::from(value);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    /// Records `n` samples of `value` (counts saturate rather than wrap).
    pub fn record_n(&mut self, value: u64, n: u64) {
        if n == 0 {
            return;
        }
        let slot = &mut self.counts[bucket_index(value)];
        *slot = slot.saturating_add(n);
        self.count = self.count.saturating_add(n);
        self.sum = self.sum.saturating_add(u128::from(value) * u128::from(n));
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    /// Number of recorded samples.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// True when nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Smallest recorded value (exact); 0 when empty.
    pub fn min(&self) -> u64 {
        if self.is_empty() {
            0
        } else {
            self.min
        }
    }

    /// Largest recorded value (exact); 0 when empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Exact sum of all recorded values.
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Mean of recorded values (from the exact sum); 0.0 when empty.
    pub fn mean(&self) -> f64 {
        if self.is_empty() {
            return 0.0;
        }
        let n = u128::from(self.count);
        (self.sum / n) as f64 + (self.sum % n) as f64 / n as f64
    }

    /// Value at percentile `p` (0..=100): the representative value of the
    /// first bucket at which at least `p`% of samples are at or below it,
    /// reported as the bucket midpoint clamped to `[min, max]`.
    ///
    /// `p <= 0` (or NaN) returns `min`, `p >= 100` returns `max`, and an
    /// empty histogram returns 0.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.is_empty() {
            return 0;
        }
        if p.is_nan() || p <= 0.0 {
            return self.min;
        }
        if p >= 100.0 {
            return self.max;
        }
        // Rank of the target sample (1-based); snap values within float
        // noise of an integer so e.g. 99.9% of 1000 is rank 999, not 1000.
        let x = p * self.count as f64 / 100.0;
        let r = x.round();
        let rank = if (x - r).abs() <= 1e-9 * x.max(1.0) {
            r
        } else {
            x.ceil()
        };
        let rank = (rank as u64).clamp(1, self.count);
        let lo = bucket_index(self.min);
        let hi = bucket_index(self.max);
        let mut seen = 0u64;
        for (i, &c) in self.counts[lo..=hi].iter().enumerate() {
            seen = seen.saturating_add(c);
            if seen >= rank {
                return bucket_midpoint(lo + i).clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// Adds all samples of `other` into `self`.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a = a.saturating_add(*b);
        }
        self.count = self.count.saturating_add(other.count);
        self.sum = self.sum.saturating_add(other.sum);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The non-empty buckets as `(lowest, highest, count)`, lowest first. With the exact
    /// sum, min and max, [`LatencyHistogram::from_buckets`] rebuilds the same histogram (how
    /// histograms of several processes or hosts are merged exactly).
    pub fn buckets(&self) -> Vec<(u64, u64, u64)> {
        let it = self.counts.iter().enumerate().filter(|(_, c)| **c > 0);
        it.map(|(i, &c)| {
            let (lo, hi) = bucket_bounds(i);
            (lo, hi, c)
        })
        .collect()
    }

    /// The histogram of `(value, count)` buckets (any value inside a bucket names it, e.g.
    /// the lowest from [`LatencyHistogram::buckets`]) with the exact `sum`, `min` and `max`.
    pub fn from_buckets(buckets: &[(u64, u64)], sum: u128, min: u64, max: u64) -> Self {
        let mut h = Self::new();
        for &(value, n) in buckets {
            let slot = &mut h.counts[bucket_index(value)];
            *slot = slot.saturating_add(n);
            h.count = h.count.saturating_add(n);
        }
        if h.count > 0 {
            h.sum = sum;
            h.min = min;
            h.max = max;
        }
        h
    }

    /// Removes all samples, keeping the allocation.
    pub fn reset(&mut self) {
        self.counts.fill(0);
        self.count = 0;
        self.sum = 0;
        self.min = u64::MAX;
        self.max = 0;
    }

    /// Mean and tail percentiles converted from ns to ms, rounded to 4
    /// decimal places. All zero when empty.
    pub fn summary_ms(&self) -> LatencySummaryMs {
        let ms = |ns: f64| round_to(ns / 1e6, 4);
        LatencySummaryMs {
            mean: ms(self.mean()),
            p50: ms(self.percentile(50.0) as f64),
            p95: ms(self.percentile(95.0) as f64),
            p99: ms(self.percentile(99.0) as f64),
            p999: ms(self.percentile(99.9) as f64),
            max: ms(self.max() as f64),
        }
    }
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

/// Compact debug output: totals plus only the non-empty buckets, keyed by
/// their lowest value (the full bucket array has 7424 entries).
impl fmt::Debug for LatencyHistogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct NonEmpty<'a>(&'a [u64]);
        impl fmt::Debug for NonEmpty<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let it = self.0.iter().enumerate().filter(|(_, c)| **c > 0);
                f.debug_map()
                    .entries(it.map(|(i, c)| (bucket_bounds(i).0, c)))
                    .finish()
            }
        }
        f.debug_struct("LatencyHistogram")
            .field("count", &self.count)
            .field("min", &self.min())
            .field("max", &self.max)
            .field("sum", &self.sum)
            .field("buckets", &NonEmpty(&self.counts))
            .finish()
    }
}

/// Latency summary in milliseconds, rounded to 4 decimal places.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LatencySummaryMs {
    /// Mean latency.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Maximum (exact before rounding).
    pub max: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Deterministic 64-bit LCG (Knuth MMIX constants).
    struct Lcg(u64);
    impl Lcg {
        /// Uniform in (0, 1].
        fn unit(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 11) + 1) as f64 / (1u64 << 53) as f64
        }
    }

    fn hist_of(samples: &[u64]) -> LatencyHistogram {
        let mut h = LatencyHistogram::new();
        samples.iter().for_each(|&v| h.record(v));
        h
    }

    /// Checks p50/p95/p99/p99.9, min, max and mean against sorted samples.
    fn check_against_exact(mut samples: Vec<u64>) {
        let h = hist_of(&samples);
        samples.sort_unstable();
        let n = samples.len() as u64;
        assert_eq!(h.count(), n);
        assert_eq!(h.min(), samples[0]);
        assert_eq!(h.max(), *samples.last().unwrap());
        let sum: u128 = samples.iter().map(|&v| u128::from(v)).sum();
        assert_eq!(h.sum(), sum);
        let exact_mean = (sum / u128::from(n)) as f64 + (sum % u128::from(n)) as f64 / n as f64;
        assert_eq!(h.mean(), exact_mean);
        for (p, permille) in [(50.0, 500), (95.0, 950), (99.0, 990), (99.9, 999)] {
            let rank = (permille * n).div_ceil(1000).max(1);
            let exact = samples[(rank - 1) as usize] as f64;
            let got = h.percentile(p) as f64;
            let err = (got - exact).abs() / exact.max(1.0);
            assert!(err < 0.01, "p{p}: got {got}, exact {exact}, err {err}");
        }
    }

    #[test]
    fn uniform_percentiles() {
        check_against_exact((1..=1_000_000).collect());
    }

    #[test]
    fn exponential_percentiles() {
        let mut rng = Lcg(42);
        let s = (0..200_000).map(|_| (-rng.unit().ln() * 1e6) as u64);
        check_against_exact(s.collect());
    }

    #[test]
    fn bimodal_percentiles() {
        let mut rng = Lcg(7);
        let s = (0..100_000).map(|i| {
            let base = if i % 10 < 7 { 100_000.0 } else { 10_000_000.0 };
            (base * (0.9 + 0.2 * rng.unit())) as u64
        });
        check_against_exact(s.collect());
    }

    #[test]
    fn small_values_are_exact() {
        let h = hist_of(&[3, 1, 2, 255, 100]);
        assert_eq!(h.percentile(20.0), 1);
        assert_eq!(h.percentile(40.0), 2);
        assert_eq!(h.percentile(50.0), 3);
        assert_eq!(h.percentile(80.0), 100);
        assert_eq!(h.percentile(0.0), 1);
        assert_eq!(h.percentile(100.0), 255);
    }

    #[test]
    fn merge_equals_concatenation() {
        let mut rng = Lcg(1);
        let a: Vec<u64> = (0..5000).map(|_| (rng.unit() * 1e7) as u64).collect();
        let b: Vec<u64> = (0..3000).map(|_| (rng.unit() * 1e3) as u64).collect();
        let mut merged = hist_of(&a);
        merged.merge(&hist_of(&b));
        let all: Vec<u64> = a.iter().chain(&b).copied().collect();
        assert_eq!(merged, hist_of(&all));
        let mut with_empty = hist_of(&a);
        with_empty.merge(&LatencyHistogram::new());
        assert_eq!(with_empty, hist_of(&a));
    }

    #[test]
    fn empty_behaviour() {
        let h = LatencyHistogram::default();
        assert!(h.is_empty());
        assert_eq!((h.count(), h.min(), h.max(), h.sum()), (0, 0, 0, 0));
        assert_eq!(h.mean(), 0.0);
        for p in [0.0, 50.0, 100.0] {
            assert_eq!(h.percentile(p), 0);
        }
        assert_eq!(h.summary_ms(), LatencySummaryMs::default());
    }

    #[test]
    fn extremes_recordable() {
        let mut h = LatencyHistogram::new();
        h.record(u64::MAX);
        h.record(0);
        h.record_n(u64::MAX, 2);
        assert_eq!((h.count(), h.min(), h.max()), (4, 0, u64::MAX));
        assert_eq!(h.sum(), 3 * u128::from(u64::MAX));
        assert_eq!(h.percentile(100.0), u64::MAX);
        assert_eq!(h.percentile(0.0), 0);
        assert_eq!(h.percentile(25.0), 0);
        assert!(h.percentile(50.0) as f64 >= u64::MAX as f64 * 0.99);
        assert_eq!(h.percentile(f64::NAN), 0);
        assert_eq!(h.percentile(1e9), u64::MAX);
    }

    #[test]
    fn record_n_reset_and_debug() {
        let mut a = LatencyHistogram::new();
        a.record_n(1234, 3);
        a.record_n(99, 0);
        assert_eq!(a, hist_of(&[1234, 1234, 1234]));
        assert!(format!("{a:?}").contains("count: 3"));
        a.reset();
        assert_eq!(a, LatencyHistogram::new());
    }

    #[test]
    fn buckets_tile_the_u64_range() {
        assert_eq!(BUCKETS, 7424);
        assert_eq!(bucket_bounds(0).0, 0);
        assert_eq!(bucket_bounds(BUCKETS - 1).1, u64::MAX);
        for i in 0..BUCKETS {
            let (lo, hi) = bucket_bounds(i);
            assert_eq!((bucket_index(lo), bucket_index(hi)), (i, i));
            if i + 1 < BUCKETS {
                assert_eq!(hi + 1, bucket_bounds(i + 1).0);
            }
        }
    }

    #[test]
    fn summary_and_rounding() {
        let mut h = LatencyHistogram::new();
        h.record_n(1_234_567, 10);
        let s = h.summary_ms();
        assert_eq!(s.mean, 1.2346);
        assert_eq!(s.max, 1.2346);
        assert_eq!(s.p50, s.p999);
        assert_eq!(round_to(2.5e-5, 4), 0.0);
        assert_eq!(round_to(-1.23456, 2), -1.23);
        assert!(round_to(f64::NAN, 2).is_nan());
        assert_eq!(round_to(1e308, 10), 1e308);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<LatencySummaryMs>(&json).unwrap(), s);
    }

    proptest! {
        #[test]
        fn single_value_percentiles_are_exact(v in any::<u64>(), p in 0.0f64..=100.0) {
            let mut h = LatencyHistogram::new();
            h.record(v);
            prop_assert_eq!(h.percentile(p), v);
            prop_assert_eq!(h.percentile(100.0), v);
            prop_assert_eq!((h.min(), h.max()), (v, v));
        }

        #[test]
        fn midpoint_within_one_percent(raw in any::<u64>(), shift in 0u32..64) {
            let v = (raw >> shift).max(1);
            let i = bucket_index(v);
            prop_assert!(i < BUCKETS);
            let (lo, hi) = bucket_bounds(i);
            prop_assert!(lo <= v && v <= hi);
            let mid = bucket_midpoint(i) as f64;
            prop_assert!((mid - v as f64).abs() / (v as f64) < 0.01);
        }
    }

    #[test]
    fn buckets_rebuild_the_same_histogram() {
        let mut h = LatencyHistogram::new();
        for v in [3u64, 300, 301, 40_000, 5_000_000, 5_000_100] {
            h.record(v);
        }
        let parts: Vec<(u64, u64)> = h.buckets().iter().map(|b| (b.0, b.2)).collect();
        let back = LatencyHistogram::from_buckets(&parts, h.sum(), h.min(), h.max());
        assert_eq!(back, h);
        assert!(h.buckets().iter().all(|&(lo, hi, _)| lo <= hi));
        assert_eq!(
            LatencyHistogram::from_buckets(&[], 0, 0, 0),
            LatencyHistogram::new()
        );
    }
}
