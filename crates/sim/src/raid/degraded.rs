//! Degraded-mode planning: reads, writes and rebuilds with failed members.
//!
//! # Which requests fail
//!
//! A logical block is *lost* when every copy of it is on a failed member
//! and it cannot be recomputed: JBOD/RAID 0 when its disk failed, RAID 1/10
//! when both disks of its pair failed, RAID 5/6 when its disk failed and
//! more than 1 (RAID 5) or 2 (RAID 6) members failed. A degraded read fails
//! exactly when it requests a lost block; blocks on surviving members stay
//! readable even in a failed array, so intact data can be salvaged.
//!
//! A degraded write fails when it touches a lost block, and for RAID 5/6
//! whenever the array is past its tolerance: every stripe spans every
//! member, so then every stripe has lost data and the array is treated as
//! failed (as Linux md does).
//!
//! # Reconstruction
//!
//! A RAID 5/6 sector on a failed member is recomputed from the sectors at
//! the same member address (the same stripe row) on `k` surviving members:
//! the stripe's surviving data units in order, then P, then Q, until `k`
//! are chosen (RAID 5: all `n - 1` survivors).

use super::failed::{DataLoss, FailedDisks, LostAt};
use super::plan::{push_merged, push_read, Stripe};
use super::{disk_id, DiskIo, Layout, RaidLevel, ReadExtent, WritePlan};

impl Layout {
    /// Degraded read of `[lba, lba + sectors)`, appending to `out` like
    /// [`Layout::plan_read`] (which it equals when no member failed).
    ///
    /// Mirrored levels read a surviving copy; `mirror` is the other copy
    /// when it survives too, else `None`. RAID 5/6 extents on a failed
    /// member are replaced by reads of the same member range on the `k`
    /// reconstruction sources (see the module doc); all reads are merged
    /// into one extent per contiguous range per disk, so a sector is never
    /// read twice, and the extents are in order of first use.
    ///
    /// Fails, leaving `out` as it was, when a requested block is lost (see
    /// the module doc); the error names the first one.
    pub fn plan_read_degraded(
        &self,
        lba: u64,
        sectors: u64,
        failed: &FailedDisks,
        out: &mut Vec<ReadExtent>,
    ) -> Result<(), DataLoss> {
        let f = failed.members(self.disks);
        let from = out.len();
        let parity = matches!(self.level, RaidLevel::Raid5 | RaidLevel::Raid6);
        // RAID 5/6 reads gather in `ios` (reconstruction reads can overlap
        // or precede earlier ones); the other levels go straight to `out`.
        let mut ios = Vec::new();
        for (pos, loc, len) in self.pieces(lba, sectors) {
            let io = |disk: u32| DiskIo {
                disk,
                disk_lba: loc.copies[0].disk_lba,
                sectors: len,
            };
            let mut alive = loc.as_slice().iter().filter(|c| !f.contains(c.disk));
            match alive.next() {
                Some(c) if !parity => {
                    let mirror = alive.next().map(|m| DiskIo {
                        disk: m.disk,
                        disk_lba: m.disk_lba,
                        sectors: len,
                    });
                    let io = DiskIo {
                        disk: c.disk,
                        disk_lba: c.disk_lba,
                        sectors: len,
                    };
                    push_read(out, from, ReadExtent { io, mirror });
                }
                Some(c) => push_union(&mut ios, io(c.disk)),
                None if parity && !self.parity_lost(f) => {
                    let s = loc.copies[0].disk_lba / self.unit;
                    for d in self.sources(s, f) {
                        push_union(&mut ios, io(disk_id(d)));
                    }
                }
                None => {
                    out.truncate(from);
                    return Err(self.loss(LostAt::Logical { lba: pos }, f));
                }
            }
        }
        out.extend(ios.into_iter().map(|io| ReadExtent { io, mirror: None }));
        Ok(())
    }

    /// Degraded write of `[lba, lba + sectors)` into `plan` (cleared first;
    /// left empty on error). Equals [`Layout::plan_write`] when no member
    /// failed; otherwise never reads or writes a failed member.
    ///
    /// JBOD/RAID 0/1/10 write the surviving copies. RAID 5/6 write the
    /// surviving touched data and, over the healthy plan's parity span, the
    /// surviving parity units; per stripe the parity is computed by:
    ///
    /// - no reads when no parity unit survives (the stripe is then not
    ///   counted in any method counter) or the stripe is fully written
    ///   (counted as full-stripe);
    /// - the healthy choice between read-modify-write and reconstruct-write
    ///   when every touched data unit survives, with `m` the number of
    ///   surviving parity units, RMW reading only those, and
    ///   reconstruct-write only when every untouched data unit survives;
    /// - reconstruct-write when a touched data unit failed: read what the
    ///   write leaves of the span on each surviving data unit. When that
    ///   cannot give the whole new row (a failed data unit is untouched or
    ///   written over less than the span), read the span on the `k`
    ///   reconstruction sources instead. Both count as reconstruct-write.
    ///
    /// Fails when the write touches a lost block, or for RAID 5/6 when the
    /// array is past its tolerance (see the module doc).
    pub fn plan_write_degraded(
        &self,
        lba: u64,
        sectors: u64,
        failed: &FailedDisks,
        plan: &mut WritePlan,
    ) -> Result<(), DataLoss> {
        plan.clear();
        let f = failed.members(self.disks);
        if f.is_empty() {
            self.plan_write(lba, sectors, plan);
            return Ok(());
        }
        if matches!(self.level, RaidLevel::Raid5 | RaidLevel::Raid6) {
            let end = self.request_end(lba, sectors);
            if lba < end && self.parity_lost(f) {
                return Err(self.loss(LostAt::Logical { lba }, f));
            }
            if lba < end {
                for st in self.stripes(lba, end) {
                    self.degraded_stripe_write(&st, f, plan);
                }
            }
            return Ok(());
        }
        for (pos, loc, len) in self.pieces(lba, sectors) {
            let mut alive = loc.as_slice().iter().filter(|c| !f.contains(c.disk));
            let Some(first) = alive.next() else {
                plan.clear();
                return Err(self.loss(LostAt::Logical { lba: pos }, f));
            };
            for c in std::iter::once(first).chain(alive) {
                let io = DiskIo {
                    disk: c.disk,
                    disk_lba: c.disk_lba,
                    sectors: len,
                };
                push_merged(&mut plan.writes, io);
            }
        }
        Ok(())
    }

    /// Plans rebuilding member `disk`'s range `[disk_lba, disk_lba +
    /// sectors)` into `plan` (cleared first; left empty on error): phase-1
    /// reads of the surviving members, then one write of the whole range to
    /// `disk` (the engine redirects it to the spare).
    ///
    /// `disk` counts as failed whether or not `failed` contains it. RAID
    /// 1/10 read the range from the mirror partner; RAID 5 from every other
    /// member; RAID 6 from the `k` lowest-numbered surviving members (any
    /// `k` members determine a row). A member address holds the same stripe
    /// row on every member, so the range need not be aligned to stripe
    /// units; it must lie within [`Layout::usable_disk_sectors`] and `disk`
    /// must be a member (`debug_assert!`; release builds clip the range).
    ///
    /// Fails on JBOD and RAID 0, when the partner failed too (RAID 1/10),
    /// or when more than 1 (RAID 5) or 2 (RAID 6) members count as failed.
    /// An empty range plans nothing and succeeds.
    pub fn plan_rebuild(
        &self,
        disk: u32,
        disk_lba: u64,
        sectors: u64,
        failed: &FailedDisks,
        plan: &mut WritePlan,
    ) -> Result<(), DataLoss> {
        plan.clear();
        debug_assert!(disk < self.disks, "disk {disk} is not a member");
        debug_assert!(
            disk_lba
                .checked_add(sectors)
                .is_some_and(|e| e <= self.usable),
            "rebuild range [{disk_lba}, +{sectors}) beyond member size {}",
            self.usable
        );
        let end = disk_lba.saturating_add(sectors).min(self.usable);
        if disk_lba >= end {
            return Ok(());
        }
        let mut f = failed.members(self.disks);
        // A member the set cannot hold is still counted (and excluded by
        // index below).
        let unmarkable = f.mark(disk).is_err();
        let count = u64::from(f.count()) + u64::from(unmarkable);
        let io = |d: u64| DiskIo {
            disk: disk_id(d),
            disk_lba,
            sectors: end - disk_lba,
        };
        let lost = match self.level {
            RaidLevel::Jbod | RaidLevel::Raid0 => true,
            RaidLevel::Raid1 | RaidLevel::Raid10 => f.contains(disk ^ 1),
            RaidLevel::Raid5 | RaidLevel::Raid6 => count > self.level.parity_count(),
        };
        if lost {
            return Err(self.loss(LostAt::Member { disk, disk_lba }, f));
        }
        let own = u64::from(disk);
        match self.level {
            RaidLevel::Raid1 | RaidLevel::Raid10 => plan.reads.push(io(own ^ 1)),
            _ => {
                let k = usize::try_from(self.data_disks()).unwrap_or(usize::MAX);
                let alive = (0..self.n()).filter(|&d| d != own && !f.has(d));
                plan.reads.extend(alive.take(k).map(io));
            }
        }
        plan.writes.push(io(own));
        Ok(())
    }

    /// Reconstruction sources of RAID 5/6 stripe `s`: its surviving data
    /// units in order, then P, then Q, at most `k` of them.
    fn sources(&self, s: u64, f: FailedDisks) -> impl Iterator<Item = u64> + '_ {
        let k = u64::from(self.data_disks());
        let p = self.parity_disk(s);
        let parity = (0..self.level.parity_count()).map(move |j| (p + j) % self.n());
        (0..k)
            .map(move |i| self.data_disk(s, i))
            .chain(parity)
            .filter(move |&d| !f.has(d))
            .take(usize::try_from(k).unwrap_or(usize::MAX))
    }

    /// Appends one stripe's degraded RAID 5/6 write (see
    /// [`Layout::plan_write_degraded`]); at most `m` members failed.
    fn degraded_stripe_write(&self, st: &Stripe<'_>, f: FailedDisks, plan: &mut WritePlan) {
        let k = u64::from(self.data_disks());
        let unit = self.unit;
        let p = self.parity_disk(st.s);
        let alive_parity: Vec<u64> = (0..self.level.parity_count())
            .map(|j| (p + j) % self.n())
            .filter(|&d| !f.has(d))
            .collect();
        let m = alive_parity.len() as u64;
        let data_ok = |i: u64| !f.has(self.data_disk(st.s, i));
        let touched = st.first..=st.last;
        let (a, b) = if st.is_full() { (0, unit) } else { st.span() };
        if m == 0 {
            // Nothing to compute: only the data is written.
        } else if st.is_full() {
            plan.full_stripe = plan.full_stripe.saturating_add(1);
        } else if touched.clone().all(data_ok) {
            let w = st.touched_units();
            let untouched_ok = (0..st.first).chain(st.last + 1..k).all(data_ok);
            if st.rcw_allowed() && untouched_ok && k + m < 2 * w + 2 * m {
                for i in (0..st.first).chain(st.last + 1..k) {
                    push_merged(&mut plan.reads, st.data_io(i, a, b));
                }
                plan.reconstruct_write = plan.reconstruct_write.saturating_add(1);
            } else {
                for i in touched.clone() {
                    let (lo, hi) = st.touched(i);
                    push_merged(&mut plan.reads, st.data_io(i, lo, hi));
                }
                for &d in &alive_parity {
                    push_merged(&mut plan.reads, st.io(d, a, b));
                }
                plan.read_modify_write = plan.read_modify_write.saturating_add(1);
            }
        } else {
            // In-unit range written in unit `i` (empty if untouched).
            let written = |i: u64| {
                if touched.contains(&i) {
                    st.touched(i)
                } else {
                    (b, b)
                }
            };
            if (0..k).all(|i| data_ok(i) || written(i) == (a, b)) {
                for i in (0..k).filter(|&i| data_ok(i)) {
                    let (lo, hi) = written(i);
                    for (x, y) in [(a, lo), (hi, b)] {
                        if x < y {
                            push_merged(&mut plan.reads, st.data_io(i, x, y));
                        }
                    }
                }
            } else {
                for d in self.sources(st.s, f) {
                    push_merged(&mut plan.reads, st.io(d, a, b));
                }
            }
            plan.reconstruct_write = plan.reconstruct_write.saturating_add(1);
        }
        for i in touched.filter(|&i| data_ok(i)) {
            let (lo, hi) = st.touched(i);
            push_merged(&mut plan.writes, st.data_io(i, lo, hi));
        }
        for &d in &alive_parity {
            push_merged(&mut plan.writes, st.io(d, a, b));
        }
    }
}

/// Adds `io` to `v`, uniting it with the operations on the same disk that
/// it overlaps or touches (the union replaces the first of them). Keeps the
/// operations of a disk disjoint and non-adjacent; equals `push_merged`
/// when each operation on a disk starts at or after the previous one's end.
fn push_union(v: &mut Vec<DiskIo>, io: DiskIo) {
    let (mut lo, mut hi) = (io.disk_lba, io.disk_lba + io.sectors);
    let mut slot = None;
    let mut i = 0;
    while i < v.len() {
        let e = v[i];
        if e.disk == io.disk && e.disk_lba <= hi && lo <= e.disk_lba + e.sectors {
            lo = lo.min(e.disk_lba);
            hi = hi.max(e.disk_lba + e.sectors);
            if slot.is_none() {
                slot = Some(i);
                i += 1;
            } else {
                v.remove(i);
            }
        } else {
            i += 1;
        }
    }
    let united = DiskIo {
        disk: io.disk,
        disk_lba: lo,
        sectors: hi - lo,
    };
    match slot {
        Some(i) => v[i] = united,
        None => v.push(united),
    }
}
