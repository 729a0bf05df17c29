//! The address stream of one job of an I/O profile: which block, how large, read or write.
//!
//! The simulator and the real I/O engine both draw I/Os from [`JobStream`], so a profile
//! means the same I/O sequence on a simulated array and on a real disk (same seed, same
//! addresses). Addresses are in 512-byte sectors within a target of `target_sectors`.
//!
//! - Random: block-aligned (aligned to the chosen block size, as fio's `blockalign = bs`),
//!   uniform over the profile's region.
//! - Sequential: each job walks its own slice of the region (the region split evenly over
//!   the jobs, fio's `offset_increment`), wrapping at the slice's end.

use crate::profile::{AccessPattern, IoProfile};
use crate::rng::{Purpose, Rng};

/// One I/O drawn from a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextIo {
    /// First sector.
    pub lba: u64,
    /// Length in sectors.
    pub sectors: u64,
    /// Write (else read).
    pub write: bool,
}

/// The I/O sequence of one job.
#[derive(Clone, Debug)]
pub struct JobStream {
    rng: Rng,
    pattern: AccessPattern,
    /// Block sizes in sectors with cumulative probabilities.
    sizes: Vec<(u64, f64)>,
    read_frac: f64,
    region_start: u64,
    region_sectors: u64,
    lo: u64,
    hi: u64,
    cursor: u64,
}

impl JobStream {
    /// Job `job` (of `profile.jobs`) of stream `stream` on a target of `target_sectors`,
    /// with its random numbers derived from `seed`. The profile must be valid and its region
    /// must fit the target (checked by the callers' validation).
    pub fn new(
        profile: &IoProfile,
        stream: u32,
        job: u32,
        target_sectors: u64,
        seed: u64,
    ) -> JobStream {
        let total: f64 = profile.block_sizes.iter().map(|b| b.weight).sum();
        let mut cum = 0.0;
        let sizes = profile
            .block_sizes
            .iter()
            .map(|b| {
                cum += b.weight / total;
                (b.size.0 / 512, cum)
            })
            .collect();
        let region_start = profile.region_offset.0 / 512;
        let region_sectors = profile
            .region_size
            .map_or(target_sectors.saturating_sub(region_start), |r| r.0 / 512);
        let max_block = (profile.max_block_bytes() / 512).max(1);
        let share = (region_sectors / profile.jobs.max(1) as u64) / max_block * max_block;
        let lo = region_start + job as u64 * share;
        let index = ((stream as u64) << 32) | job as u64;
        JobStream {
            rng: Rng::derive(seed, Purpose::Job, index),
            pattern: profile.pattern,
            sizes,
            read_frac: profile.read_pct / 100.0,
            region_start,
            region_sectors,
            lo,
            hi: lo + share,
            cursor: lo,
        }
    }

    /// The next I/O.
    #[inline]
    pub fn next_io(&mut self) -> NextIo {
        let sectors = if self.sizes.len() == 1 {
            self.sizes[0].0
        } else {
            let u = self.rng.unit_f64();
            let last = self.sizes[self.sizes.len() - 1].0;
            self.sizes
                .iter()
                .find(|(_, c)| u < *c)
                .map_or(last, |(n, _)| *n)
        };
        let write = self.read_frac < 1.0 && self.rng.unit_f64() >= self.read_frac;
        let lba = match self.pattern {
            AccessPattern::Random => {
                self.region_start + self.rng.below(self.region_sectors / sectors) * sectors
            }
            AccessPattern::Sequential => {
                if self.cursor + sectors > self.hi {
                    self.cursor = self.lo;
                }
                let at = self.cursor;
                self.cursor += sectors;
                at
            }
        };
        NextIo {
            lba,
            sectors,
            write,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::IoProfile;

    #[test]
    fn same_seed_same_sequence_and_every_io_in_range() {
        let p = IoProfile::builtin("oltp-60-40").unwrap();
        let cap = 1 << 30;
        let mut a = JobStream::new(&p, 0, 3, cap, 42);
        let mut b = JobStream::new(&p, 0, 3, cap, 42);
        let mut c = JobStream::new(&p, 0, 4, cap, 42);
        let mut differs = false;
        for _ in 0..10_000 {
            let (x, y, z) = (a.next_io(), b.next_io(), c.next_io());
            assert_eq!(x, y);
            differs |= x != z;
            assert!(x.lba + x.sectors <= cap);
            assert_eq!(x.lba % x.sectors, 0, "random I/O aligned to its block size");
        }
        assert!(differs, "jobs draw different sequences");
    }

    #[test]
    fn sequential_jobs_walk_their_own_slices() {
        let p = IoProfile::builtin("seqread-1m").unwrap();
        let cap = 8 * 2048 * 10; // 80 MiB: 10 MiB per job
        let mut s = JobStream::new(&p, 0, 2, cap, 1);
        let first = s.next_io();
        assert_eq!(first.lba, 2 * 10 * 2048);
        let second = s.next_io();
        assert_eq!(second.lba, first.lba + 2048);
        for _ in 0..8 {
            s.next_io();
        }
        assert_eq!(s.next_io().lba, first.lba, "wraps at the end of its slice");
    }
}
