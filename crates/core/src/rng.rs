//! Seeded random streams.
//!
//! One u64 seed derives every stream: `Rng::derive(seed, purpose, index)` mixes the seed with a
//! fixed label so that adding a stream never shifts the numbers another stream sees. The
//! generator is xoshiro256** seeded through SplitMix64: small, fast and defined here, so the
//! numbers cannot change under a dependency upgrade.

/// SplitMix64 step: used for seeding and for hashing labels into seeds.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Purposes of random streams; part of the derivation so streams stay independent.
#[derive(Clone, Copy, Debug)]
pub enum Purpose {
    /// Workload job addresses, sizes, op choice.
    Job = 1,
    /// Spindle phase of each disk.
    Spindle = 2,
    /// Open-loop arrivals.
    Arrival = 3,
}

/// xoshiro256** generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator from a raw seed.
    pub fn from_seed(seed: u64) -> Rng {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    /// The stream for (`purpose`, `index`) under the run's `seed`.
    pub fn derive(seed: u64, purpose: Purpose, index: u64) -> Rng {
        let mut sm = seed ^ (purpose as u64).wrapping_mul(0xA076_1D64_78BD_642F);
        let a = splitmix64(&mut sm);
        let mut sm2 = a ^ index.wrapping_mul(0xE703_7ED1_A0B4_28DB);
        Rng::from_seed(splitmix64(&mut sm2))
    }

    /// Next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, n) without modulo bias worth mentioning (Lemire's multiply-shift).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Exponentially distributed with the given mean.
    #[inline]
    pub fn exp(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.unit_f64()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers_different_purpose_different_numbers() {
        let mut a = Rng::derive(7, Purpose::Job, 0);
        let mut b = Rng::derive(7, Purpose::Job, 0);
        let mut c = Rng::derive(7, Purpose::Job, 1);
        let mut d = Rng::derive(7, Purpose::Arrival, 0);
        let va: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        let vd: Vec<u64> = (0..8).map(|_| d.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
        assert_ne!(va, vd);
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::from_seed(42);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            let v = r.below(10);
            counts[v as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "bucket count {c}");
        }
    }

    #[test]
    fn exp_has_the_requested_mean() {
        let mut r = Rng::from_seed(3);
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.exp(5.0)).sum::<f64>() / n as f64;
        assert!((mean - 5.0).abs() < 0.05, "mean {mean}");
    }
}
