//! Virtual disks over redundancy sets, as virtualized arrays (EVA-like) lay them out.
//!
//! A disk group of `N` disks is split into *redundancy sets* of 6 to 11 disks ([`split_sets`]:
//! about `target` disks each, the sizes differing by at most one). A virtual disk's address
//! space is cut into *segments* (e.g. 2 MiB of data) dealt out to the sets in proportion to
//! their disks: every cycle of `N` segments gives each set as many as it has disks, interleaved
//! (the set furthest behind its share takes the next one), so the data spreads over every set
//! and every disk holds the same amount; inside a set its segments follow one another.
//!
//! Inside a set of `n` disks, the segment's data is written as *stripes* of `w` units: VRAID 5
//! stripes are 4 data units and 1 parity unit (`w = 5`, left-symmetric parity rotation as in
//! [`Layout`]), VRAID 1 stripes are a unit and its mirror (`w = 2`), VRAID 0 stripes one unit.
//! The stripes are laid end to end over the set's disks: unit `v` of the set's stripe `s` is
//! at position `p = w * s + v`, on the set's disk `p % n`, at row `p / n` (disk address
//! `row * unit`). The `w` units of a stripe are consecutive positions, so on `w` distinct
//! disks, and every `n` stripes use each disk exactly `w` times: the data spreads evenly.
//!
//! # Distributed sparing
//!
//! Instead of spare disks, every disk keeps *reserved capacity* at its end ([`reserve_sectors`]):
//! `sparing = "single"` reserves `1/n` of each disk of the smallest set (room for one failed
//! disk's data on the `n - 1` survivors of any set), `"double"` `2/n`. A failed disk's unit of
//! stripe `s` is rebuilt from the stripe's other members (the other 4 units of a VRAID 5 stripe,
//! the mirror of a VRAID 1 one) into the reserved capacity of one working disk of the same set
//! that holds no unit of that stripe (hence at least `w + 1` disks per set): the first with
//! room in its reserve, in turn from the set's disk `(w * s + w + s % (n - w)) % n` (which
//! spreads a failed disk's units over the survivors). The reserve of each disk is allocated
//! from its start, unit after unit, in the order the rebuilds write them, and shared by every
//! virtual disk of the group ([`SetLayout::plan_rebuild`] takes the group's allocation); each
//! virtual disk's [`SetHealth`] remembers where its rebuilt units went. A failed or rebuilt
//! disk is never a target. When a disk holding rebuilt units fails, those units are read from
//! their stripes' other members until they are rebuilt again into the reserve of another
//! working disk ([`SetLayout::plan_relocate`]), whether or not the disk's own data finds room.

use std::collections::BTreeMap;
use std::sync::Arc;

mod rebuild;

pub use rebuild::RebuildStop;

use super::plan::{push_merged, push_read};
use super::{DataLoss, DiskIo, FailedDisks, Layout, RaidLevel, ReadExtent, WritePlan};

/// Smallest and largest redundancy set.
pub const SET_DISKS_RANGE: (u32, u32) = (6, 11);

/// Reserved capacity of a disk group with redundancy sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sparing {
    /// No reserve: a failed disk stays failed (degraded) until replaced.
    None,
    /// Room to rebuild one failed disk of each set.
    Single,
    /// Room to rebuild two failed disks of each set.
    Double,
}

impl Sparing {
    /// `none`, `single` or `double`.
    pub fn parse(s: &str) -> Option<Sparing> {
        match s {
            "none" => Some(Sparing::None),
            "single" => Some(Sparing::Single),
            "double" => Some(Sparing::Double),
            _ => None,
        }
    }

    /// Failed disks per set the reserve can take.
    pub fn disks(self) -> u64 {
        match self {
            Sparing::None => 0,
            Sparing::Single => 1,
            Sparing::Double => 2,
        }
    }
}

/// Splits `disks` into redundancy sets of about `target` disks (6 to 11 each when `disks` is at
/// least 6): `(first disk, disks)` of each, the larger sets first.
pub fn split_sets(disks: u32, target: u32) -> Vec<(u32, u32)> {
    let (lo, hi) = SET_DISKS_RANGE;
    let mut k = (disks / target.max(1)).max(1);
    while disks.div_ceil(k) > hi {
        k += 1;
    }
    while k > 1 && disks / k < lo {
        k -= 1;
    }
    let (base, extra) = (disks / k, disks % k);
    let mut first = 0;
    (0..k)
        .map(|i| {
            let n = base + u32::from(i < extra);
            let set = (first, n);
            first += n;
            set
        })
        .collect()
}

/// Reserved sectors at the end of each disk of `disk_sectors` for `sparing`, when the smallest
/// set has `smallest_set` disks; rounded up to 1 MiB.
pub fn reserve_sectors(disk_sectors: u64, smallest_set: u32, sparing: Sparing) -> u64 {
    let r = (disk_sectors * sparing.disks()).div_ceil(u64::from(smallest_set.max(1)));
    r.div_ceil(2048) * 2048
}

/// Failed and rebuilt disks of each redundancy set, by index inside the set. A rebuilt disk's
/// data lives in the reserved capacity of the set's other disks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetHealth {
    pub failed: Vec<FailedDisks>,
    pub rebuilt: Vec<FailedDisks>,
    /// Where each rebuilt unit of a set went: its position in the set's stripes
    /// (`w * stripe + member`) -> group disk and disk address.
    pub spares: Vec<BTreeMap<u64, (u32, u64)>>,
}

impl SetHealth {
    /// Every disk of `sets` sets healthy.
    pub fn new(sets: usize) -> SetHealth {
        SetHealth {
            failed: vec![FailedDisks::none(); sets],
            rebuilt: vec![FailedDisks::none(); sets],
            spares: vec![BTreeMap::new(); sets],
        }
    }

    /// Positions (as in `spares`) of set `set`'s rebuilt units placed on group disk `disk`,
    /// in the order of their addresses there.
    pub fn spares_on(&self, set: usize, disk: u32) -> Vec<u64> {
        let mut on: Vec<(u64, u64)> = (self.spares[set].iter())
            .filter(|(_, &(d, _))| d == disk)
            .map(|(&p, &(_, at))| (at, p))
            .collect();
        on.sort_unstable();
        on.into_iter().map(|(_, p)| p).collect()
    }

    /// No disk failed or rebuilt.
    pub fn is_clear(&self) -> bool {
        let none = |v: &[FailedDisks]| v.iter().all(FailedDisks::is_empty);
        none(&self.failed) && none(&self.rebuilt)
    }
}

/// One redundancy set: its first disk in the group and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RSet {
    first: u32,
    n: u64,
}

/// A virtual disk's geometry over the redundancy sets of its disk group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetLayout {
    /// The stripe over `w` virtual members (RAID 5 of 5, RAID 1 of 2, RAID 0 of 1).
    inner: Layout,
    width: u64,
    unit: u64,
    segment: u64,
    sets: Vec<RSet>,
    /// Each segment of a cycle of `N` (the group's disks): its set and its index among that
    /// set's segments of the cycle.
    cycle: Vec<(u32, u32)>,
    /// Stripes of each set holding this virtual disk's data.
    stripes_per_set: u64,
    /// Rows of this virtual disk on each disk.
    data_rows: u64,
    /// The reserve, relative to the virtual disk's start on each disk.
    reserve_at: u64,
    reserve: u64,
    capacity: u64,
    group_disks: u32,
}

/// Parameters of [`SetLayout::new`].
pub struct SetParams {
    /// Raid5 (VRAID 5), Raid1 (VRAID 1) or Raid0 (VRAID 0).
    pub level: RaidLevel,
    pub unit_sectors: u64,
    pub segment_sectors: u64,
    /// `(first disk, disks)` of each set, from [`split_sets`].
    pub sets: Vec<(u32, u32)>,
    pub size_sectors: u64,
    /// Where the reserve starts relative to the virtual disk's start, and its length.
    pub reserve_at: u64,
    pub reserve_sectors: u64,
}

impl SetLayout {
    /// Builds the layout; the error says which parameter is wrong.
    pub fn new(p: SetParams) -> Result<SetLayout, String> {
        let (width, k) = match p.level {
            RaidLevel::Raid5 => (5, 4),
            RaidLevel::Raid1 => (2, 1),
            RaidLevel::Raid0 => (1, 1),
            other => return Err(format!("no redundancy-set layout for {other}")),
        };
        let unit = p.unit_sectors;
        let stripe_data = k * unit;
        if p.segment_sectors == 0 || !p.segment_sectors.is_multiple_of(stripe_data) {
            return Err(format!(
                "segment_size must be a multiple of {k} x stripe_unit ({} bytes); got {} bytes",
                stripe_data * 512,
                p.segment_sectors * 512
            ));
        }
        let sets: Vec<RSet> = (p.sets.iter())
            .map(|&(first, n)| RSet {
                first,
                n: u64::from(n),
            })
            .collect();
        let n_min = sets.iter().map(|s| s.n).min().unwrap_or(0);
        if n_min < width + 1 {
            return Err(format!(
                "redundancy sets need at least {} disks; the smallest has {n_min}",
                width + 1
            ));
        }
        let total: u64 = sets.iter().map(|s| s.n).sum();
        let cycles = p.size_sectors.div_ceil(p.segment_sectors * total).max(1);
        let per_cycle = p.segment_sectors / stripe_data;
        // A set of `n` disks takes `n` segments a cycle: the same rows on every disk.
        let stripes_per_set = cycles * per_cycle * sets.iter().map(|s| s.n).max().unwrap_or(0);
        let data_rows = cycles * per_cycle * width;
        let inner = Layout::new(p.level, width as u32, unit, stripes_per_set * unit)
            .map_err(|e| e.to_string())?;
        Ok(SetLayout {
            inner,
            width,
            unit,
            segment: p.segment_sectors,
            capacity: cycles * total * p.segment_sectors,
            group_disks: total as u32,
            cycle: deal(&sets),
            sets,
            stripes_per_set,
            data_rows,
            reserve_at: p.reserve_at,
            reserve: p.reserve_sectors,
        })
    }

    /// The level of each stripe.
    pub fn level(&self) -> RaidLevel {
        self.inner.level()
    }

    /// Data units per stripe.
    pub fn data_units(&self) -> u32 {
        self.inner.data_disks()
    }

    pub fn capacity_sectors(&self) -> u64 {
        self.capacity
    }

    /// Sectors of this virtual disk's data on each disk.
    pub fn data_sectors_per_disk(&self) -> u64 {
        self.data_rows * self.unit
    }

    pub fn stripe_unit_sectors(&self) -> u64 {
        self.unit
    }

    pub fn group_disks(&self) -> u32 {
        self.group_disks
    }

    pub fn set_count(&self) -> usize {
        self.sets.len()
    }

    /// `(first disk, disks)` of each set.
    pub fn sets(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.sets.iter().map(|s| (s.first, s.n as u32))
    }

    /// The set of group disk `disk` and its index inside the set.
    pub fn set_of(&self, disk: u32) -> Option<(usize, u32)> {
        (self.sets.iter().enumerate())
            .find(|(_, s)| disk >= s.first && u64::from(disk - s.first) < s.n)
            .map(|(i, s)| (i, disk - s.first))
    }

    /// Whether every block can still be read: no set has more failed (not yet rebuilt) disks
    /// than its stripes tolerate.
    pub fn survives(&self, health: &SetHealth) -> bool {
        let tolerated = u32::from(self.width > 1);
        health.failed.iter().all(|f| f.count() <= tolerated)
    }

    /// Group disk and disk address of unit `v` of set `set`'s stripe `s` (at its start), with
    /// a rebuilt disk's units in the reserve of another disk of the set.
    fn place(&self, set: usize, s: u64, v: u64, health: Option<&SetHealth>) -> (u32, u64) {
        let RSet { first, n } = self.sets[set];
        let p = self.width * s + v;
        let (row, d) = (p / n, p % n);
        if let Some(h) = health.filter(|h| h.rebuilt[set].contains(d as u32)) {
            return (h.spares[set].get(&p).copied())
                .unwrap_or_else(|| self.spare_place(set, s, row));
        }
        (first + d as u32, row * self.unit)
    }

    /// The stripe members of set `set`'s stripe `s` on failed disks.
    fn failed_members(&self, set: usize, s: u64, health: &SetHealth) -> FailedDisks {
        let mut f = FailedDisks::none();
        for v in 0..self.width {
            let (disk, _) = self.place(set, s, v, Some(health));
            let d = disk - self.sets[set].first;
            // A unit placed on a rebuilt disk is a copy in the reserve of a disk that failed
            // after taking it, not yet rebuilt again: lost like a failed disk's own.
            if health.failed[set].contains(d) || health.rebuilt[set].contains(d) {
                // `v < 5`: always markable.
                let _ = f.mark(v as u32);
            }
        }
        f
    }

    /// Moves a stripe-local operation (member `v`, rows of stripes) onto the group's disks,
    /// unit by unit.
    fn remap(&self, set: usize, io: DiskIo, health: Option<&SetHealth>, out: &mut Vec<DiskIo>) {
        let (mut lba, end) = (io.disk_lba, io.disk_lba + io.sectors);
        while lba < end {
            let (s, off) = (lba / self.unit, lba % self.unit);
            let len = (self.unit - off).min(end - lba);
            let (disk, base) = self.place(set, s, u64::from(io.disk), health);
            let piece = DiskIo {
                disk,
                disk_lba: base + off,
                sectors: len,
            };
            push_merged(out, piece);
            lba += len;
        }
    }

    /// The pieces of `[lba, lba + sectors)` inside one segment: `(set, set-local lba, len)`.
    fn segment_pieces(
        &self,
        lba: u64,
        sectors: u64,
    ) -> impl Iterator<Item = (usize, u64, u64)> + '_ {
        let end = lba.saturating_add(sectors).min(self.capacity);
        let (seg, total) = (self.segment, self.cycle.len() as u64);
        let mut at = lba;
        std::iter::from_fn(move || {
            (at < end).then(|| {
                let (g, off) = (at / seg, at % seg);
                let len = (seg - off).min(end - at);
                at += len;
                let (set, k) = self.cycle[(g % total) as usize];
                let n = self.sets[set as usize].n;
                let j = (g / total) * n + u64::from(k);
                (set as usize, j * seg + off, len)
            })
        })
    }

    /// Plans a read; with failed disks the units on them are rebuilt from their stripe's other
    /// members. Appends to `out`; fails when a stripe lost too many members.
    pub fn plan_read(
        &self,
        lba: u64,
        sectors: u64,
        health: Option<&SetHealth>,
        out: &mut Vec<ReadExtent>,
    ) -> Result<(), DataLoss> {
        let from = out.len();
        let mut local = Vec::new();
        let mut ios = Vec::new();
        for (set, l, len) in self.segment_pieces(lba, sectors) {
            for (sl, slen) in self.stripe_pieces(l, len) {
                local.clear();
                let f = match health {
                    Some(h) => self.failed_members(set, sl / self.stripe_data(), h),
                    None => FailedDisks::none(),
                };
                if let Err(e) = self.inner.plan_read_degraded(sl, slen, &f, &mut local) {
                    out.truncate(from);
                    return Err(e);
                }
                for e in &local {
                    ios.clear();
                    self.remap(set, e.io, health, &mut ios);
                    let mut mirror = Vec::new();
                    if let Some(m) = e.mirror {
                        self.remap(set, m, health, &mut mirror);
                    }
                    for (i, &io) in ios.iter().enumerate() {
                        let mirror = mirror.get(i).copied().filter(|m| m.sectors == io.sectors);
                        push_read(out, from, ReadExtent { io, mirror });
                    }
                }
            }
        }
        Ok(())
    }

    /// Plans a write into `plan` (cleared first): per stripe, the stripe's own method.
    pub fn plan_write(
        &self,
        lba: u64,
        sectors: u64,
        health: Option<&SetHealth>,
        plan: &mut WritePlan,
    ) -> Result<(), DataLoss> {
        plan.clear();
        let mut local = WritePlan::default();
        for (set, l, len) in self.segment_pieces(lba, sectors) {
            for (sl, slen) in self.stripe_pieces(l, len) {
                let f = match health {
                    Some(h) => self.failed_members(set, sl / self.stripe_data(), h),
                    None => FailedDisks::none(),
                };
                if let Err(e) = self.inner.plan_write_degraded(sl, slen, &f, &mut local) {
                    plan.clear();
                    return Err(e);
                }
                plan.full_stripe += local.full_stripe;
                plan.read_modify_write += local.read_modify_write;
                plan.reconstruct_write += local.reconstruct_write;
                for &io in &local.reads {
                    self.remap(set, io, health, &mut plan.reads);
                }
                for &io in &local.writes {
                    self.remap(set, io, health, &mut plan.writes);
                }
            }
        }
        Ok(())
    }

    /// Data sectors of one stripe.
    fn stripe_data(&self) -> u64 {
        u64::from(self.data_units()) * self.unit
    }

    /// `[l, l + len)` cut at stripe boundaries.
    fn stripe_pieces(&self, l: u64, len: u64) -> impl Iterator<Item = (u64, u64)> {
        let (sd, end) = (self.stripe_data(), l + len);
        let mut at = l;
        std::iter::from_fn(move || {
            (at < end).then(|| {
                let n = (sd - at % sd).min(end - at);
                at += n;
                (at - n, n)
            })
        })
    }
}

/// One cycle of segments: each set gets as many as it has disks; the next segment goes to the
/// set furthest behind its share (the lowest-numbered among equals).
fn deal(sets: &[RSet]) -> Vec<(u32, u32)> {
    let total: u64 = sets.iter().map(|s| s.n).sum();
    let mut given = vec![0u64; sets.len()];
    (0..total)
        .map(|r| {
            // Set i is owed n_i * (r + 1) / total segments by now; compare in whole numbers.
            let behind = |i: usize| i128::from(sets[i].n * (r + 1)) - i128::from(given[i] * total);
            let i = (0..sets.len())
                .filter(|&i| given[i] < sets[i].n)
                .max_by(|&a, &b| behind(a).cmp(&behind(b)).then(b.cmp(&a)))
                .unwrap_or(0);
            given[i] += 1;
            (i as u32, (given[i] - 1) as u32)
        })
        .collect()
}

/// A shared [`SetLayout`], as [`Layout`] holds it.
pub type SharedSets = Arc<SetLayout>;
