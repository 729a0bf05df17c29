//! Per-request read and write planning (see the parent module's doc).

use super::{DiskIo, Layout, Located, RaidLevel, ReadExtent, WritePlan};

impl Layout {
    /// Plans a read of `[lba, lba + sectors)`: appends one [`ReadExtent`]
    /// per contiguous extent on one disk (pieces contiguous on the same disk
    /// are merged). Mirrored levels fill in `mirror`, the other copy of the
    /// same data. Existing contents of `out` are kept and never merged into.
    #[inline]
    pub fn plan_read(&self, lba: u64, sectors: u64, out: &mut Vec<ReadExtent>) {
        if let Some(v) = &self.sets {
            // Nothing failed: no data loss to report.
            let _ = v.plan_read(lba, sectors, None, out);
            return;
        }
        // A read inside one stripe unit (a small random read) is one extent.
        if self.level != RaidLevel::Jbod {
            let end = self.request_end(lba, sectors);
            if lba < end && end - lba <= self.unit - (lba & (self.unit - 1)) {
                out.push(read_extent(self.locate(lba), end - lba));
                return;
            }
        }
        let from = out.len();
        for (_, loc, len) in self.pieces(lba, sectors) {
            push_read(out, from, read_extent(loc, len));
        }
    }

    /// Plans a write of `[lba, lba + sectors)` into `plan` (cleared first):
    /// phase-1 reads, phase-2 writes and, for RAID 5/6, the per-stripe
    /// method counters.
    pub fn plan_write(&self, lba: u64, sectors: u64, plan: &mut WritePlan) {
        if let Some(v) = &self.sets {
            // Nothing failed: no data loss to report.
            let _ = v.plan_write(lba, sectors, None, plan);
            return;
        }
        plan.clear();
        match self.level {
            RaidLevel::Raid5 | RaidLevel::Raid6 => {
                let end = self.request_end(lba, sectors);
                if lba < end {
                    self.plan_parity_write(lba, end, plan);
                }
            }
            _ => {
                for (_, loc, len) in self.pieces(lba, sectors) {
                    for c in loc.as_slice() {
                        let io = DiskIo {
                            disk: c.disk,
                            disk_lba: c.disk_lba,
                            sectors: len,
                        };
                        push_merged(&mut plan.writes, io);
                    }
                }
            }
        }
    }

    /// The pieces of the request that stay inside one unit (JBOD: inside
    /// one member), in logical order: `(first lba, its location, length)`.
    pub(super) fn pieces(
        &self,
        lba: u64,
        sectors: u64,
    ) -> impl Iterator<Item = (u64, Located, u64)> + '_ {
        let end = self.request_end(lba, sectors);
        let mut pos = lba;
        std::iter::from_fn(move || {
            if pos >= end {
                return None;
            }
            let room = match self.level {
                RaidLevel::Jbod => self.usable - pos % self.usable,
                _ => self.unit - (pos & (self.unit - 1)),
            };
            let len = room.min(end - pos);
            let piece = (pos, self.locate(pos), len);
            pos += len;
            Some(piece)
        })
    }

    /// The stripes touched by the non-empty, in-range RAID 5/6 request
    /// `[lba, end)`, in order.
    pub(super) fn stripes(&self, lba: u64, end: u64) -> impl Iterator<Item = Stripe<'_>> + '_ {
        let (unit, shift) = (self.unit, self.unit_shift);
        let stripe_len = u64::from(self.data_disks()) * unit;
        // lba / (k unit) = (lba / unit) / k
        let first = self.k_div.div_rem(lba >> shift).0;
        let last = self.k_div.div_rem((end - 1) >> shift).0;
        (first..=last).map(move |s| {
            let start = s * stripe_len;
            // Stripe-relative logical range touched: [lo, hi), non-empty.
            let lo = lba.max(start) - start;
            let hi = end.min(start + stripe_len) - start;
            Stripe {
                layout: self,
                s,
                first: lo >> shift,
                last: (hi - 1) >> shift,
                first_lo: lo & (unit - 1),
                last_hi: hi - (((hi - 1) >> shift) << shift),
            }
        })
    }

    /// RAID 5/6 write of the non-empty, in-range `[lba, end)`.
    fn plan_parity_write(&self, lba: u64, end: u64, plan: &mut WritePlan) {
        if lba >> self.unit_shift == (end - 1) >> self.unit_shift {
            self.plan_unit_write(lba, end, plan);
        } else {
            self.plan_stripes_write(lba, end, plan);
        }
    }

    /// A RAID 5/6 write inside one stripe unit, the common small write (a destage of a few
    /// pages): the plan the stripe walk below makes for it, without the walk. It is never a
    /// full stripe (at least two data units); it reconstructs when that reads fewer units
    /// (`k + m < 2 + 2m`), else reads the old data and parity. Each disk appears once, so
    /// nothing merges. A property test compares the two.
    fn plan_unit_write(&self, lba: u64, end: u64, plan: &mut WritePlan) {
        let u = lba >> self.unit_shift;
        let (s, i) = self.k_div.div_rem(u);
        let (lo, hi) = (lba - (u << self.unit_shift), end - (u << self.unit_shift));
        let (k, m) = (u64::from(self.data_disks()), self.level.parity_count());
        let p = self.parity_disk(s);
        let io = |disk: u64| DiskIo {
            disk: super::disk_id(disk),
            disk_lba: s * self.unit + lo,
            sectors: hi - lo,
        };
        let data = |j: u64| io(self.n_div.remainder(p + m + j));
        if k + m < 2 + 2 * m {
            plan.reads.extend((0..k).filter(|&j| j != i).map(data));
            plan.reconstruct_write = plan.reconstruct_write.saturating_add(1);
        } else {
            plan.reads.push(data(i));
            plan.reads
                .extend((0..m).map(|j| io(self.n_div.remainder(p + j))));
            plan.read_modify_write = plan.read_modify_write.saturating_add(1);
        }
        plan.writes.push(data(i));
        plan.writes
            .extend((0..m).map(|j| io(self.n_div.remainder(p + j))));
    }

    /// RAID 5/6 write of `[lba, end)` stripe by stripe: full-stripe, reconstruct or
    /// read-modify-write each.
    pub(super) fn plan_stripes_write(&self, lba: u64, end: u64, plan: &mut WritePlan) {
        let unit = self.unit;
        let k = u64::from(self.data_disks());
        let m = self.level.parity_count();
        for st in self.stripes(lba, end) {
            if st.is_full() {
                for i in 0..k {
                    push_merged(&mut plan.writes, st.data_io(i, 0, unit));
                }
                st.parity(0, unit, &mut plan.writes);
                plan.full_stripe = plan.full_stripe.saturating_add(1);
                continue;
            }
            let w = st.touched_units();
            let (a, b) = st.span();
            if st.rcw_allowed() && k + m < 2 * w + 2 * m {
                for i in (0..st.first).chain(st.last + 1..k) {
                    push_merged(&mut plan.reads, st.data_io(i, a, b));
                }
                plan.reconstruct_write = plan.reconstruct_write.saturating_add(1);
            } else {
                for i in st.first..=st.last {
                    let (ulo, uhi) = st.touched(i);
                    push_merged(&mut plan.reads, st.data_io(i, ulo, uhi));
                }
                st.parity(a, b, &mut plan.reads);
                plan.read_modify_write = plan.read_modify_write.saturating_add(1);
            }
            for i in st.first..=st.last {
                let (ulo, uhi) = st.touched(i);
                push_merged(&mut plan.writes, st.data_io(i, ulo, uhi));
            }
            st.parity(a, b, &mut plan.writes);
        }
    }
}

/// The part of one RAID 5/6 stripe touched by a write: data units
/// `first..=last`, from offset `first_lo` in the first to `last_hi` in the
/// last.
pub(super) struct Stripe<'a> {
    pub(super) layout: &'a Layout,
    pub(super) s: u64,
    pub(super) first: u64,
    pub(super) last: u64,
    pub(super) first_lo: u64,
    pub(super) last_hi: u64,
}

impl Stripe<'_> {
    /// Whether every data unit is entirely written.
    pub(super) fn is_full(&self) -> bool {
        let k = u64::from(self.layout.data_disks());
        let unit = self.layout.unit;
        self.first == 0 && self.first_lo == 0 && self.last == k - 1 && self.last_hi == unit
    }

    /// Number of touched data units (`w`).
    pub(super) fn touched_units(&self) -> u64 {
        self.last - self.first + 1
    }

    /// Parity span `[a, b)`: the touched in-unit range of a one-unit write,
    /// else the hull of the touched ranges, `[0, unit)`.
    pub(super) fn span(&self) -> (u64, u64) {
        if self.first == self.last {
            (self.first_lo, self.last_hi)
        } else {
            (0, self.layout.unit)
        }
    }

    /// Whether every touched unit covers the whole span (reconstruct-write
    /// needs it).
    pub(super) fn rcw_allowed(&self) -> bool {
        self.first == self.last || (self.first_lo == 0 && self.last_hi == self.layout.unit)
    }

    /// In-unit range `[lo, hi)` written in touched data unit `i`.
    pub(super) fn touched(&self, i: u64) -> (u64, u64) {
        let lo = if i == self.first { self.first_lo } else { 0 };
        let hi = if i == self.last {
            self.last_hi
        } else {
            self.layout.unit
        };
        (lo, hi)
    }

    /// In-unit range `[lo, hi)` of data unit `i`.
    pub(super) fn data_io(&self, i: u64, lo: u64, hi: u64) -> DiskIo {
        self.io(self.layout.data_disk(self.s, i), lo, hi)
    }

    /// Pushes the in-unit range `[lo, hi)` of each parity unit (P, then Q).
    pub(super) fn parity(&self, lo: u64, hi: u64, v: &mut Vec<DiskIo>) {
        let p = self.layout.parity_disk(self.s);
        for j in 0..self.layout.level.parity_count() {
            push_merged(v, self.io(self.layout.n_div.remainder(p + j), lo, hi));
        }
    }

    pub(super) fn io(&self, disk: u64, lo: u64, hi: u64) -> DiskIo {
        DiskIo {
            disk: super::disk_id(disk),
            disk_lba: self.s * self.layout.unit + lo,
            sectors: hi - lo,
        }
    }
}

/// Appends `io`, or extends the latest operation on the same disk when `io`
/// starts where it ends. Every mapping keeps a disk's addresses increasing
/// with the logical address, so the latest operation on a disk is the only
/// candidate for merging.
pub(super) fn push_merged(v: &mut Vec<DiskIo>, io: DiskIo) {
    if let Some(prev) = v.iter_mut().rev().find(|p| p.disk == io.disk) {
        if prev.disk_lba + prev.sectors == io.disk_lba {
            prev.sectors += io.sectors;
            return;
        }
    }
    v.push(io);
}

/// [`push_merged`] for read extents appended after `out[..from]`; the mirror
/// copy is extended along with the primary.
/// The read of `len` sectors at `loc`, from its first copy (the other, if any, as mirror).
#[inline]
fn read_extent(loc: Located, len: u64) -> ReadExtent {
    let [a, b] = loc.copies;
    let io = DiskIo {
        disk: a.disk,
        disk_lba: a.disk_lba,
        sectors: len,
    };
    let mirror = (loc.n_copies == 2).then_some(DiskIo {
        disk: b.disk,
        disk_lba: b.disk_lba,
        sectors: len,
    });
    ReadExtent { io, mirror }
}

pub(super) fn push_read(out: &mut Vec<ReadExtent>, from: usize, ext: ReadExtent) {
    // `from` is `out.len()` at the start of `plan_read`, so in bounds.
    if let Some(prev) = out[from..]
        .iter_mut()
        .rev()
        .find(|p| p.io.disk == ext.io.disk)
    {
        let mirror_follows = match (prev.mirror, ext.mirror) {
            (None, None) => true,
            (Some(pm), Some(em)) => pm.disk == em.disk && pm.disk_lba + pm.sectors == em.disk_lba,
            _ => false,
        };
        if prev.io.disk_lba + prev.io.sectors == ext.io.disk_lba && mirror_follows {
            prev.io.sectors += ext.io.sectors;
            if let Some(pm) = prev.mirror.as_mut() {
                pm.sectors += ext.io.sectors;
            }
            return;
        }
    }
    out.push(ext);
}
