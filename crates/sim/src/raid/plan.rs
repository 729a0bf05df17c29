//! Per-request read and write planning (see the parent module's doc).

use super::{DiskIo, Layout, Located, RaidLevel, ReadExtent, WritePlan};

impl Layout {
    /// Plans a read of `[lba, lba + sectors)`: appends one [`ReadExtent`]
    /// per contiguous extent on one disk (pieces contiguous on the same disk
    /// are merged). Mirrored levels fill in `mirror`, the other copy of the
    /// same data. Existing contents of `out` are kept and never merged into.
    pub fn plan_read(&self, lba: u64, sectors: u64, out: &mut Vec<ReadExtent>) {
        let from = out.len();
        self.for_each_piece(lba, sectors, |loc, len| {
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
            push_read(out, from, ReadExtent { io, mirror });
        });
    }

    /// Plans a write of `[lba, lba + sectors)` into `plan` (cleared first):
    /// phase-1 reads, phase-2 writes and, for RAID 5/6, the per-stripe
    /// method counters.
    pub fn plan_write(&self, lba: u64, sectors: u64, plan: &mut WritePlan) {
        plan.clear();
        match self.level {
            RaidLevel::Raid5 | RaidLevel::Raid6 => {
                let end = self.request_end(lba, sectors);
                if lba < end {
                    self.plan_parity_write(lba, end, plan);
                }
            }
            _ => self.for_each_piece(lba, sectors, |loc, len| {
                for c in loc.as_slice() {
                    let io = DiskIo {
                        disk: c.disk,
                        disk_lba: c.disk_lba,
                        sectors: len,
                    };
                    push_merged(&mut plan.writes, io);
                }
            }),
        }
    }

    /// Calls `f(location of first sector, length)` for each piece of the
    /// request that stays inside one unit (JBOD: inside one member), in
    /// logical order.
    fn for_each_piece(&self, lba: u64, sectors: u64, mut f: impl FnMut(Located, u64)) {
        let end = self.request_end(lba, sectors);
        let mut pos = lba;
        while pos < end {
            let room = match self.level {
                RaidLevel::Jbod => self.usable - pos % self.usable,
                _ => self.unit - pos % self.unit,
            };
            let len = room.min(end - pos);
            f(self.locate(pos), len);
            pos += len;
        }
    }

    /// RAID 5/6 write of the non-empty, in-range `[lba, end)`.
    fn plan_parity_write(&self, lba: u64, end: u64, plan: &mut WritePlan) {
        let unit = self.unit;
        let k = u64::from(self.data_disks());
        let m = self.level.parity_count();
        let stripe_len = k * unit;
        for s in lba / stripe_len..=(end - 1) / stripe_len {
            let start = s * stripe_len;
            // Stripe-relative logical range touched: [lo, hi), non-empty.
            let lo = lba.max(start) - start;
            let hi = end.min(start + stripe_len) - start;
            let st = Stripe {
                layout: self,
                s,
                first: lo / unit,
                last: (hi - 1) / unit,
                first_lo: lo % unit,
                last_hi: hi - (hi - 1) / unit * unit,
            };
            if lo == 0 && hi == stripe_len {
                for i in 0..k {
                    push_merged(&mut plan.writes, st.data_io(i, 0, unit));
                }
                st.parity(0, unit, &mut plan.writes);
                plan.full_stripe = plan.full_stripe.saturating_add(1);
                continue;
            }
            let w = st.last - st.first + 1;
            // Parity span [a, b): union of the touched in-unit ranges.
            let (a, b) = if w == 1 {
                (st.first_lo, st.last_hi)
            } else {
                (0, unit)
            };
            // Reconstruct-write needs every touched unit to cover [a, b).
            let rcw_allowed = w == 1 || (st.first_lo == 0 && st.last_hi == unit);
            if rcw_allowed && k + m < 2 * w + 2 * m {
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
struct Stripe<'a> {
    layout: &'a Layout,
    s: u64,
    first: u64,
    last: u64,
    first_lo: u64,
    last_hi: u64,
}

impl Stripe<'_> {
    /// In-unit range `[lo, hi)` written in touched data unit `i`.
    fn touched(&self, i: u64) -> (u64, u64) {
        let lo = if i == self.first { self.first_lo } else { 0 };
        let hi = if i == self.last {
            self.last_hi
        } else {
            self.layout.unit
        };
        (lo, hi)
    }

    /// In-unit range `[lo, hi)` of data unit `i`.
    fn data_io(&self, i: u64, lo: u64, hi: u64) -> DiskIo {
        self.io(self.layout.data_disk(self.s, i), lo, hi)
    }

    /// Pushes the in-unit range `[lo, hi)` of each parity unit (P, then Q).
    fn parity(&self, lo: u64, hi: u64, v: &mut Vec<DiskIo>) {
        let p = self.layout.parity_disk(self.s);
        for j in 0..self.layout.level.parity_count() {
            push_merged(v, self.io((p + j) % self.layout.n(), lo, hi));
        }
    }

    fn io(&self, disk: u64, lo: u64, hi: u64) -> DiskIo {
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
fn push_merged(v: &mut Vec<DiskIo>, io: DiskIo) {
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
fn push_read(out: &mut Vec<ReadExtent>, from: usize, ext: ReadExtent) {
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
