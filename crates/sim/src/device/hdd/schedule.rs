//! Command scheduling of the drive's queue: FIFO, SSTF, elevator and shortest positioning
//! time first (the part of the model that runs on every command start).

use super::{Hdd, Pending, Positioning, Scheduler};

impl Hdd {
    /// The first queued of the commands that arrived earliest.
    fn oldest(&self) -> Option<usize> {
        (0..self.pending.len()).min_by_key(|&i| (self.pending[i].arrived_ns, i))
    }

    pub(super) fn pick(&mut self, now_ns: u64) -> usize {
        let oldest = self.oldest().unwrap_or(0);
        if self.scheduler == Scheduler::Fifo
            || now_ns.saturating_sub(self.pending[oldest].arrived_ns) > self.max_age_ns
        {
            return oldest;
        }
        let cur = self.cur_cyl;
        match self.scheduler {
            Scheduler::Fifo => oldest,
            Scheduler::Sstf => self.min_index(|p| (p.cyl.abs_diff(cur) as u64, p.arrived_ns)),
            Scheduler::Sptf => {
                self.pick_sptf(now_ns, self.wrap_rev(now_ns + self.phase_ns))
                    .0
            }
            Scheduler::Elevator => {
                let ahead = |p: &Pending, up: bool| {
                    if up {
                        p.cyl >= cur
                    } else {
                        p.cyl <= cur
                    }
                };
                if !self.pending.iter().any(|p| ahead(p, self.sweep_up)) {
                    self.sweep_up = !self.sweep_up;
                }
                let up = self.sweep_up;
                self.min_index(|p| {
                    let dist = if ahead(p, up) {
                        p.cyl.abs_diff(cur) as u64
                    } else {
                        u64::MAX
                    };
                    (dist, p.arrived_ns)
                })
            }
        }
    }

    /// The oldest command if it is older than the age limit (the first queued of the oldest,
    /// as the other schedulers take it). Scans the queue only when the arrival floor says a
    /// command may be that old, and then raises the floor to the oldest arrival.
    pub(super) fn starving(&mut self, now_ns: u64) -> Option<usize> {
        if now_ns.saturating_sub(self.arrival_floor_ns) <= self.max_age_ns {
            return None;
        }
        let oldest = self.oldest()?;
        self.arrival_floor_ns = self.pending[oldest].arrived_ns;
        (now_ns.saturating_sub(self.arrival_floor_ns) > self.max_age_ns).then_some(oldest)
    }

    /// Shortest positioning time first, ties to the earliest arrival (the caller has served
    /// a starving command first: [`Hdd::starving`]). The hot loop of a busy array: each
    /// candidate costs one seek lookup, no division, and no branch on whether it is a read
    /// or a write; the read-ahead window is computed only when a read might fall in it.
    /// Returns the pick's index and its [`Positioning`], which `access` then uses instead
    /// of timing the command again.
    pub(super) fn pick_sptf(&self, now_ns: u64, now_angle: u64) -> (usize, Positioning) {
        if self.table_layout {
            self.pick_sptf_in::<true>(now_ns, now_angle)
        } else {
            self.pick_sptf_in::<false>(now_ns, now_angle)
        }
    }

    /// [`Hdd::pick_sptf`] with the layout's kind known at compile time ([`Hdd::move_in`]).
    #[inline(always)]
    fn pick_sptf_in<const TABLE: bool>(&self, now_ns: u64, now_angle: u64) -> (usize, Positioning) {
        // Commands queued before `now_ns` while the previous one ran skip the overhead
        // (tagged queueing overlaps it); with no such overlap every command pays it.
        let no_overhead_before = if self.last_done_ns == now_ns {
            now_ns
        } else {
            0
        };
        // A read may be buffered only inside [from, from + readahead_sectors]: the window
        // never reaches further, and its current end (a division) is computed only then.
        let (ra_lo, ra_hi) = self.readahead.as_ref().map_or((u64::MAX, 0), |ra| {
            (ra.from, ra.from + self.readahead_sectors)
        });
        let mut ra_avail = None;
        // (positioning time, arrival) as one 128-bit key: one branch-free comparison.
        let (mut best, mut best_key, mut best_seek, mut best_buffered) = (0, u128::MAX, 0, false);
        for (i, p) in self.pending.iter().enumerate() {
            // Every candidate's positioning time is computed, buffered or not, so the loop
            // has no branch that depends on the queue's mix of reads and writes (the window
            // test is `&`, not `&&`: one branch, almost never taken).
            let in_window = !p.write & (p.lba >= ra_lo) & (p.lba <= ra_hi);
            let buffered = in_window
                && p.lba
                    <= *ra_avail.get_or_insert_with(|| {
                        self.ra_available_end(self.readahead.as_ref().expect("window"), now_ns)
                    });
            let (seek, positioning) =
                self.positioning_ns::<TABLE>(p, now_angle, no_overhead_before);
            let t = if buffered { 0 } else { positioning };
            let key = (u128::from(t) << 64) | u128::from(p.arrived_ns);
            if key < best_key {
                best_key = key;
                best = i;
                best_seek = seek;
                best_buffered = buffered;
            }
        }
        let positioning = Positioning {
            seek_ns: best_seek,
            total_ns: (best_key >> 64) as u64,
            buffered: best_buffered,
        };
        (best, positioning)
    }

    /// Overhead, seek and rotational wait of queued command `p` from the head's position,
    /// as `access` times it, as (seek, the three together); no overhead for a command
    /// that arrived before `no_overhead_before`.
    #[inline(always)]
    fn positioning_ns<const TABLE: bool>(
        &self,
        p: &Pending,
        now_angle: u64,
        no_overhead_before: u64,
    ) -> (u64, u64) {
        let overhead = if p.arrived_ns < no_overhead_before {
            0
        } else {
            self.overhead_ns
        };
        let seek = self.seek_between_in::<TABLE>(p.cyl, u32::from(p.head), p.write);
        let lead = overhead + seek;
        (
            seek,
            lead + self.rotate_wait_ns(now_angle, lead, u64::from(p.angle_ns)),
        )
    }

    fn min_index(&self, key: impl Fn(&Pending) -> (u64, u64)) -> usize {
        let mut best = 0;
        let mut best_key = (u64::MAX, u64::MAX);
        for (i, p) in self.pending.iter().enumerate() {
            let k = key(p);
            if k < best_key {
                best_key = k;
                best = i;
            }
        }
        best
    }
}
