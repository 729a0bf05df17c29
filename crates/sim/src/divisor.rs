//! Division by a run-time constant without a division instruction, a multiply by a
//! run-time fraction without one (`Ratio`), and scaling an integer by an `f64` rate without
//! the unsigned conversions (`scale`).
//!
//! A disk's revolution and a volume's member count are fixed when the model is built but
//! divide addresses and times on every I/O; a 64-bit division costs tens of cycles, a
//! multiply by a precomputed reciprocal a few.

/// A divisor with its reciprocal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divisor {
    d: u64,
    /// `floor((2^64 - 1) / d)`.
    inv: u64,
}

impl Divisor {
    /// `d` must not be zero.
    pub fn new(d: u64) -> Divisor {
        assert!(d > 0, "division by zero");
        Divisor {
            d,
            inv: u64::MAX / d,
        }
    }

    /// The divisor.
    #[inline]
    pub fn get(self) -> u64 {
        self.d
    }

    /// `(x / d, x % d)`. The estimate `x * inv / 2^64` is the true quotient or one less: it
    /// never exceeds `x / d`, and falls short of it by `x (2^64 - d inv) / (d 2^64)`, below
    /// `x / 2^64 < 1` because `2^64 - d inv <= d`. One conditional step corrects it.
    #[inline]
    pub fn div_rem(self, x: u64) -> (u64, u64) {
        let q = ((u128::from(x) * u128::from(self.inv)) >> 64) as u64;
        let r = x - q * self.d;
        if r >= self.d {
            (q + 1, r - self.d)
        } else {
            (q, r)
        }
    }

    /// `(x / d, x % d)` for `x` at most `u64::MAX / d` (a unit or block index of a RAID
    /// group or volume, whose capacity the configuration bounds far below that), with no
    /// correction step. `inv + 1` is `ceil(2^64 / d)` for every `d`, so `(inv + 1) d = 2^64 +
    /// e` with `0 <= e < d`, and `x (inv + 1) / 2^64 = x / d + x e / (d 2^64)`. With `x = q d
    /// + r`, `r <= d - 1`, that is `q + r / d` plus less than `1 / d` (as `x e < x d < 2^64`):
    /// at least `q` and below `q + 1`, so its integer part is `q` exactly.
    #[inline]
    pub fn div_rem_bounded(self, x: u64) -> (u64, u64) {
        debug_assert!(
            x <= u64::MAX / self.d,
            "{x} beyond the bound of / {}",
            self.d
        );
        let q = ((u128::from(x) * u128::from(self.inv) + u128::from(x)) >> 64) as u64;
        (q, x - q * self.d)
    }

    /// `x % d`.
    #[inline]
    pub fn remainder(self, x: u64) -> u64 {
        self.div_rem(x).1
    }
}

/// `floor(s * num / den)` for `s` from 0 to `den`, by one multiply of `s` by a fixed-point
/// ratio: a sector's start on a track, `sector * revolution / sectors_per_track`, without
/// a division.
///
/// The ratio is held as `whole + frac / 2^64` with `frac` rounded up: it exceeds
/// `num / den` by `e / 2^64`, `0 <= e < 1`. Then `s (whole + frac / 2^64)` is `s num / den +
/// s e / 2^64`: never below the true value, and above it by less than `s / 2^64 <= 1 / den`
/// (as `s <= den < 2^32`), too little to carry `s num / den`, whose fraction is at most
/// `1 - 1 / den`, past the next integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratio {
    whole: u64,
    frac: u64,
}

impl Ratio {
    /// `den` must be 1 to `u32::MAX`.
    pub fn new(num: u64, den: u64) -> Ratio {
        assert!(
            (1..=u64::from(u32::MAX)).contains(&den),
            "ratio {num}/{den}: the denominator must be 1 to 2^32 - 1"
        );
        let whole = num / den;
        let rem = u128::from(num % den);
        let frac = ((rem << 64).div_ceil(u128::from(den))) as u64;
        Ratio { whole, frac }
    }

    /// `floor(s * num / den)`, for `s <= den`.
    #[inline]
    pub fn of(self, s: u64) -> u64 {
        s * self.whole + ((u128::from(s) * u128::from(self.frac)) >> 64) as u64
    }
}

/// `(n as f64 * rate) as u64` for a time or size `n` and a rate that is not negative, whose
/// product is below 2^63: the same value, converted through `i64`. Without AVX-512 an unsigned 64-bit
/// integer takes several instructions to convert to or from `f64`, a signed one takes one;
/// both round the same below 2^63, where every count and time of a run lies.
#[inline]
pub fn scale(n: u64, rate: f64) -> u64 {
    debug_assert!(n < 1 << 63 && rate >= 0.0);
    ((n as i64) as f64 * rate) as i64 as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_equals_the_unsigned_conversion() {
        let mut rng = crate::rng::Rng::from_seed(11);
        for _ in 0..100_000 {
            // Up to 2^40 (a terabyte, or 18 minutes in ns): products stay below 2^63.
            let n = rng.below(1 << 40) >> rng.below(40);
            let rate = [0.0, 1.0, 0.1, 5.12, 1e-3, 3.7e4][rng.below(6) as usize]
                * (1.0 + rng.below(1000) as f64 / 1000.0);
            assert_eq!(scale(n, rate), (n as f64 * rate) as u64, "{n} x {rate}");
        }
        assert_eq!(
            scale((1 << 62) + 12345, 1.0),
            ((1u64 << 62) + 12345) as f64 as u64
        );
    }
    use crate::rng::Rng;

    #[test]
    fn matches_the_division_instruction() {
        let mut rng = Rng::from_seed(11);
        let mut divisors = vec![1, 2, 3, 6, 7, 4_000_000, 6_000_000, 8_333_333, u64::MAX];
        divisors.extend(
            (0..200)
                .map(|_| rng.next_u64() >> (rng.next_u64() % 64))
                .filter(|&d| d > 0),
        );
        for d in divisors {
            let div = Divisor::new(d);
            let mut xs = vec![
                0,
                1,
                d - 1,
                d,
                d.saturating_add(1),
                d.saturating_mul(2),
                u64::MAX,
            ];
            xs.extend((1..64).map(|k| (1u64 << k) - 1));
            xs.extend((0..2_000).map(|_| rng.next_u64() >> (rng.next_u64() % 64)));
            for x in xs {
                assert_eq!(div.div_rem(x), (x / d, x % d), "{x} / {d}");
            }
        }
    }

    #[test]
    fn bounded_division_is_exact_up_to_its_bound() {
        let mut rng = Rng::from_seed(13);
        let mut divisors = vec![1, 2, 3, 5, 7, 255, 256, 1023, 1024, 6_000_000];
        divisors.extend([
            u64::from(u32::MAX),
            1 << 32,
            (1 << 63) - 1,
            1 << 63,
            u64::MAX,
        ]);
        divisors.extend(
            (0..300)
                .map(|_| rng.next_u64() >> (rng.next_u64() % 64))
                .filter(|&d| d > 0),
        );
        for d in divisors {
            let div = Divisor::new(d);
            let bound = u64::MAX / d;
            // The bound and just below it, the multiples of d around it, small values.
            let mut xs = vec![0, 1, bound, bound - bound.min(1), bound / d * d];
            xs.extend([d - 1, d, d.saturating_add(1)].map(|x| x.min(bound)));
            xs.extend((1..64).map(|k| ((1u64 << k) - 1).min(bound)));
            xs.extend((0..2_000).map(|_| rng.below(bound.saturating_add(1).max(1))));
            xs.extend((0..200).map(|_| bound - rng.below(bound.min(1 << 20) + 1)));
            for x in xs {
                assert_eq!(div.div_rem_bounded(x), (x / d, x % d), "{x} / {d}");
            }
        }
    }

    #[test]
    fn ratio_matches_the_division() {
        let mut rng = Rng::from_seed(12);
        let mut cases = vec![
            (1, 1),
            (0, 7),
            (8_333_333, 1),
            (8_333_333, 863),
            (u64::from(u32::MAX), u64::from(u32::MAX)),
        ];
        cases.push((60_000_000, 4_294_967_295));
        cases.push((4_294_967_295, 3));
        cases.push((u64::MAX, 4_294_967_295));
        cases.extend((0..300).map(|_| {
            let den = 1 + (rng.below((1 << 32) - 1) >> rng.below(32));
            (rng.below(1 << 32), den)
        }));
        for (num, den) in cases {
            let r = Ratio::new(num, den);
            let mut ss = vec![0, 1, den / 2, den - 1, den];
            ss.extend((0..300).map(|_| rng.below(den + 1)));
            for s in ss {
                let want = (u128::from(s) * u128::from(num) / u128::from(den)) as u64;
                assert_eq!(r.of(s), want, "{s} x {num} / {den}");
            }
        }
    }
}
