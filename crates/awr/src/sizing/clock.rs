//! A block's miss ratio in the simulated database's buffer cache: a clock sweep with usage
//! counts (an access adds one, up to [`MAX_USAGE`]; each pass of the hand takes one away; the
//! hand takes the first frame it finds at zero, and the block loaded into it starts at one).
//! With the hand passing each frame every `R` seconds, a block visited `λ` times a second at
//! random sees a Poisson number of visits, mean `a = λR`, between passes. From its count `s`
//! after a pass, the next pass finds `min(s + visits, MAX_USAGE)`: zero evicts it, else the
//! count goes one down. Loaded, a block stays for `P(a)` passes on average (a Markov chain
//! over the counts), taking `a P(a)` hits, so it misses `m = 1 / (1 + a P(a))` of its visits.
//! The cached share of a segment's blocks is `1 - m`, as in any cache where each miss starts
//! a residence.

use storlab_core::character::SIM_BUFFER_MAX_USAGE as MAX_USAGE;

/// The chain over a resident block's count after a pass (0 .. cap - 1) at `a` visits
/// between passes: `p[s][s']`, the probability that the next pass leaves `s'`; what is
/// missing from a row is the probability that it evicts the block.
fn transitions(a: f64) -> Vec<Vec<f64>> {
    let n = usize::from(MAX_USAGE);
    // Poisson probabilities of 0 .. n visits between passes.
    let mut pk = vec![(-a).exp(); n + 1];
    for k in 1..=n {
        pk[k] = pk[k - 1] * a / k as f64;
    }
    let mut p = vec![vec![0.0; n]; n];
    for (s, row) in p.iter_mut().enumerate() {
        let mut below_cap = 0.0;
        for (k, q) in pk.iter().enumerate().take(n - s) {
            below_cap += q;
            if s + k > 0 {
                row[s + k - 1] += q;
            }
        }
        row[n - 1] += 1.0 - below_cap;
    }
    p
}

/// Row `from` of `(I - P)^-1` for the chain at `a`: the passes a block entering at count
/// `from` spends at each count before its eviction.
fn passes_at_each_count(a: f64, from: usize) -> Vec<f64> {
    let p = transitions(a);
    let n = p.len();
    // Gauss-Jordan on [I - P | I]; I - P is diagonally dominant (every count leads to the
    // eviction with positive probability), so no pivoting is needed.
    let mut m: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let mut row: Vec<f64> = (0..2 * n)
                .map(|j| if j == i || j == n + i { 1.0 } else { 0.0 })
                .collect();
            for (j, x) in p[i].iter().enumerate() {
                row[j] -= x;
            }
            row
        })
        .collect();
    for i in 0..n {
        let pivot = m[i][i];
        for x in m[i].iter_mut() {
            *x /= pivot;
        }
        let row_i = m[i].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != i {
                let f = row[i];
                for (x, y) in row.iter_mut().zip(&row_i) {
                    *x -= f * y;
                }
            }
        }
    }
    m[from][n..].to_vec()
}

/// Passes a block loaded into the cache stays for, on average, at `a` visits between passes
/// (it starts at count one).
fn passes_resident(a: f64) -> f64 {
    passes_at_each_count(a, 1).iter().sum()
}

/// The passes of the hand from a change of a cached block to its write, when the write is due
/// `lag_passes` after the change (the incremental checkpoint's) unless the block reaches the
/// hand at zero first, to be written as it is evicted (the cold end). The change is a visit
/// at a random moment of the block's stay: its count then is the stay's (the passes spent at
/// each count), plus one; the first pass comes half a period later on average, and from then
/// on the chain runs until the lag or the eviction.
pub(crate) fn passes_to_write(a: f64, lag_passes: f64) -> f64 {
    let stay = passes_at_each_count(a, 1);
    let total: f64 = stay.iter().sum();
    if lag_passes <= 0.5 || total <= 0.0 {
        return lag_passes.max(0.0);
    }
    let p = transitions(a);
    let n = p.len();
    // The count the first pass leaves: min(s + 1 + visits, cap) - 1, never an eviction.
    let mut dist = vec![0.0; n];
    for (s, w) in stay.iter().enumerate() {
        let shifted = (s + 1).min(n - 1);
        for (next, q) in p[shifted].iter().enumerate() {
            dist[next] += w / total * q;
        }
        // A row of `p` misses the eviction from count zero only; from count one or more
        // there is none, so the row sums to one.
    }
    let mut passes = 0.5;
    let mut left = lag_passes - 0.5;
    let mut resident: f64 = dist.iter().sum();
    let mut ratio = 1.0;
    for _ in 0..MAX_PASSES_FOLLOWED {
        if left <= 0.0 || resident < 1e-12 {
            return passes;
        }
        passes += resident * left.min(1.0);
        left -= 1.0;
        let mut next = vec![0.0; n];
        for (s, w) in dist.iter().enumerate() {
            for (t, q) in p[s].iter().enumerate() {
                next[t] += w * q;
            }
        }
        dist = next;
        let now: f64 = dist.iter().sum();
        ratio = if resident > 0.0 { now / resident } else { 0.0 };
        resident = now;
    }
    // Past that many passes the chain has settled: the resident share falls by `ratio` a
    // pass, a geometric tail.
    if left > 0.0 && ratio < 1.0 {
        passes += resident * (1.0 - ratio.powf(left)) / (1.0 - ratio);
    } else if left > 0.0 {
        passes += resident * left;
    }
    passes
}

/// Passes [`passes_to_write`] follows one by one before it sums the rest as a geometric tail.
const MAX_PASSES_FOLLOWED: usize = 10_000;

/// The share of its visits a block misses at `a` visits between passes of the hand.
pub(crate) fn miss_ratio(a: f64) -> f64 {
    1.0 / (1.0 + a * passes_resident(a))
}

/// The visits between passes that make a block miss a share `m` of its visits (the inverse
/// of [`miss_ratio`], which falls as `a` grows), by bisection on a log scale.
pub(crate) fn visits_per_pass(m: f64) -> f64 {
    // Above 500 visits a pass no visit-free pass is representable (e^-500 is near the
    // smallest double) and every block stays: the miss ratio is 0 to the estimate.
    let (mut lo, mut hi) = (1e-9f64, 500f64);
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if miss_ratio(mid) > m {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo * hi).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rarely visited, a block stays two passes (the first takes its count from one to zero,
    /// the second finds no visit and evicts it): it misses about 1 / (1 + 2a). Often visited,
    /// it hardly misses; and the inverse gives back the visits.
    #[test]
    fn miss_ratio_falls_with_visits_and_inverts() {
        let a = 1e-4;
        assert!(
            (passes_resident(a) - 2.0).abs() < 1e-3,
            "{}",
            passes_resident(a)
        );
        assert!((miss_ratio(a) - 1.0 / (1.0 + 2.0 * a)).abs() < 1e-6);
        assert!(miss_ratio(10.0) < 1e-3);
        let mut last = 1.0;
        for a in [0.1, 0.5, 1.0, 2.0, 4.0] {
            let m = miss_ratio(a);
            assert!(m < last, "{a}: {m}");
            last = m;
            assert!((visits_per_pass(m) / a - 1.0).abs() < 1e-6);
        }
    }
}
