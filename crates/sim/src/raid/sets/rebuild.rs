//! Rebuilding a failed disk of a redundancy set into the reserved capacity of the set's
//! working disks: the reserve allocated unit by unit, shared by the group's virtual disks.

use std::borrow::Borrow;

use super::{RSet, SetHealth, SetLayout};
use crate::raid::plan::push_merged;
use crate::raid::{DataLoss, DiskIo, FailedDisks, LostAt, WritePlan};

/// Why a rebuild cannot go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RebuildStop {
    /// A stripe lost too many members: its data cannot be read.
    Lost(DataLoss),
    /// No working disk of the set without a unit of the stripe has reserved capacity left.
    NoReserve,
}

impl SetLayout {
    /// Allocates room for the unit at position `p` (of stripe `s`) of set `set` in the reserve
    /// of a working disk of the set holding no unit of the stripe, the first with room from
    /// the stripe's preferred one; `used` holds the sectors allocated in each group disk's
    /// reserve. None: no disk has room.
    fn allocate_spare(
        &self,
        (set, s, p): (usize, u64, u64),
        health: &mut SetHealth,
        used: &mut [u64],
    ) -> Option<(u32, u64)> {
        if let Some(&at) = health.spares[set].get(&p) {
            return Some(at);
        }
        let at = self.find_spare((set, s), health, used)?;
        health.spares[set].insert(p, at);
        Some(at)
    }

    /// Takes a unit of room in the reserve of a working disk of set `set` holding no unit of
    /// stripe `s`, the first with room from the stripe's preferred disk.
    fn find_spare(
        &self,
        (set, s): (usize, u64),
        health: &SetHealth,
        used: &mut [u64],
    ) -> Option<(u32, u64)> {
        let RSet { first, n } = self.sets[set];
        let w = self.width;
        let preferred = (w * s + w + s % (n - w)) % n;
        // The stripe's own units, and the places its other rebuilt units went: a disk
        // holding two units of one stripe would lose both when it fails.
        let in_stripe = |d: u64| {
            (0..w).any(|k| {
                (w * s + k) % n == d
                    || (health.spares[set].get(&(w * s + k)))
                        .is_some_and(|&(to, _)| u64::from(to - first) == d)
            })
        };
        let down = |d: u64| {
            health.failed[set].contains(d as u32) || health.rebuilt[set].contains(d as u32)
        };
        let d = (0..n).map(|k| (preferred + k) % n).find(|&d| {
            let taken = used
                .get((first + d as u32) as usize)
                .copied()
                .unwrap_or(u64::MAX);
            !in_stripe(d) && !down(d) && taken.saturating_add(self.unit) <= self.reserve
        })?;
        let slot = &mut used[(first + d as u32) as usize];
        let at = (first + d as u32, self.reserve_at + *slot);
        *slot += self.unit;
        Some(at)
    }

    /// Where the unit of stripe `s` at row `row` went when no allocation says (never, once
    /// [`SetLayout::plan_rebuild`] placed it): the reserve of the stripe's preferred disk.
    pub(super) fn spare_place(&self, set: usize, s: u64, row: u64) -> (u32, u64) {
        let RSet { first, n } = self.sets[set];
        let spare_disk = (self.width * s + self.width + s % (n - self.width)) % n;
        let slots = (self.reserve / self.unit).max(1);
        let slot = (row * slots / self.data_rows.max(1)).min(slots - 1);
        (
            first + spare_disk as u32,
            self.reserve_at + slot * self.unit,
        )
    }

    /// Plans rebuilding group disk `disk`'s range `[disk_lba, disk_lba + sectors)` (of this
    /// virtual disk's space) into `plan`: reads of each unit's stripe partners, writes into
    /// the reserve of other working disks of the same set, allocated from `reserve_used` (the
    /// sectors taken in each group disk's reserve, shared by the group's virtual disks).
    pub fn plan_rebuild(
        &self,
        (disk, disk_lba, sectors): (u32, u64, u64),
        health: &mut SetHealth,
        reserve_used: &mut [u64],
        plan: &mut WritePlan,
    ) -> Result<(), RebuildStop> {
        plan.clear();
        let lost = |f| {
            RebuildStop::Lost(DataLoss {
                level: self.level(),
                at: LostAt::Member { disk, disk_lba },
                failed: f,
            })
        };
        let Some((set, x)) = self.set_of(disk) else {
            return Err(lost(FailedDisks::none()));
        };
        let n = self.sets[set].n;
        let end = disk_lba
            .saturating_add(sectors)
            .min(self.data_sectors_per_disk());
        let units = (disk_lba / self.unit..end.div_ceil(self.unit))
            .map(|row| row * n + u64::from(x))
            .filter(|p| p / self.width < self.stripes_per_set);
        let spare = |h: &mut SetHealth, s, p| self.allocate_spare((set, s, p), h, reserve_used);
        self.plan_units((set, units), health, spare, plan)
    }

    /// Plans rebuilding again the rebuilt units at `positions` of set `set` (from
    /// [`SetHealth::spares_on`]: their copies were on a disk that failed since) into `plan`:
    /// reads of each unit's stripe partners and a write into the reserve of another working
    /// disk of the set. The new places go to `moved` as `(position, (disk, address))`; reads
    /// keep reconstructing the units until the caller records them in the health's `spares`.
    pub fn plan_relocate(
        &self,
        (set, positions): (usize, &[u64]),
        mut health: &SetHealth,
        reserve_used: &mut [u64],
        plan: &mut WritePlan,
        moved: &mut Vec<(u64, (u32, u64))>,
    ) -> Result<(), RebuildStop> {
        plan.clear();
        let spare = |h: &mut &SetHealth, s, p| {
            let at = self.find_spare((set, s), h, reserve_used)?;
            moved.push((p, at));
            Some(at)
        };
        self.plan_units((set, positions.iter().copied()), &mut health, spare, plan)
    }

    /// Plans rebuilding the units at `units` (positions in set `set`) into `plan`, unit by
    /// unit: reads of the unit's stripe partners (placed by `health` as it stands before the
    /// unit's room is taken), then a write of the unit into the room `spare` takes for it
    /// (given the stripe and the position; None: no working disk has room, and the plan is
    /// emptied).
    fn plan_units<H: Borrow<SetHealth>>(
        &self,
        (set, units): (usize, impl Iterator<Item = u64>),
        health: &mut H,
        mut spare: impl FnMut(&mut H, u64, u64) -> Option<(u32, u64)>,
        plan: &mut WritePlan,
    ) -> Result<(), RebuildStop> {
        let mut local = WritePlan::default();
        for p in units {
            let (s, v) = (p / self.width, p % self.width);
            let f = self.failed_members(set, s, (*health).borrow());
            (self.inner)
                .plan_rebuild(v as u32, s * self.unit, self.unit, &f, &mut local)
                .map_err(RebuildStop::Lost)?;
            for &io in &local.reads {
                self.remap(set, io, Some((*health).borrow()), &mut plan.reads);
            }
            let Some((to, at)) = spare(health, s, p) else {
                plan.clear();
                return Err(RebuildStop::NoReserve);
            };
            let write = DiskIo {
                disk: to,
                disk_lba: at,
                sectors: self.unit,
            };
            push_merged(&mut plan.writes, write);
        }
        Ok(())
    }
}
