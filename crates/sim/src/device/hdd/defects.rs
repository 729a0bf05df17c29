//! Defective sectors whose blocks are kept in spares elsewhere (a zone's `remaps`): which
//! block each defect would hold and where its spare lies (see the parent module for the
//! model).
//!
//! A defect and its spare are physical sector numbers counted from the zone's first sector
//! (cylinder in the zone times the sectors of a cylinder, plus the track in block order
//! times the sectors of a track, plus the sector). The block the defective sector would hold
//! is the one whose place, counted so, is the defect: the place of a block grows with the
//! block, so a binary search over the zone's blocks finds it. A defect that is a slipped
//! sector or a spare holds no block and moves nothing. With track sparing the pairs are
//! tracks, and [`Hdd::locate_measured`] moves the whole track.

use super::params::{HddParams, Sparing};
use super::{Hdd, Position};

/// Blocks of each zone kept in spares elsewhere, sorted, with their spares' positions; and
/// the tracks of each zone moved whole (`[track, spare]`). Each is empty when no zone has
/// any, so that a drive without remapped defects looks nothing up.
pub(super) type Remapped = (Vec<Vec<(u64, Position)>>, Vec<Vec<[u64; 2]>>);

impl Hdd {
    /// Where the blocks of `p`'s remapped defects lie (the drive's own layout, before any
    /// block is moved).
    pub(super) fn place_remapped(&self, p: &HddParams) -> Remapped {
        if p.zone_table.iter().all(|z| z.remaps.is_empty()) {
            return (Vec::new(), Vec::new());
        }
        if p.sparing == Sparing::Tracks {
            let tracks = p.zone_table.iter().map(|z| z.remaps.clone()).collect();
            return (Vec::new(), tracks);
        }
        let blocks = p
            .zone_table
            .iter()
            .enumerate()
            .map(|(zi, spec)| {
                let mut moved: Vec<(u64, Position)> = spec
                    .remaps
                    .iter()
                    .filter_map(|&[defect, spare]| {
                        let lba = self.block_at(zi, defect)?;
                        Some((lba, self.spare_position(zi, lba, spare)))
                    })
                    .collect();
                moved.sort_by_key(|m| m.0);
                moved.dedup_by_key(|m| m.0);
                moved
            })
            .collect();
        (blocks, Vec::new())
    }

    /// The zone's physical sector number of a position in zone `zone`.
    fn sector_number(&self, zone: usize, pos: &Position) -> u64 {
        let z = &self.zones.list[zone];
        let spt = z.spt.get();
        (u64::from(pos.cyl - z.first_cyl) * self.heads + u64::from(pos.head)) * spt
            + u64::from(pos.sector)
    }

    /// The block of zone `zone` that lies at physical sector `number`, if one does.
    fn block_at(&self, zone: usize, number: u64) -> Option<u64> {
        let z = &self.zones.list[zone];
        let end = self
            .zones
            .list
            .get(zone + 1)
            .map_or(self.capacity_sectors, |n| n.first_lba)
            .min(self.capacity_sectors);
        let (mut lo, mut hi) = (z.first_lba, end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.sector_number(zone, &self.locate_in_place(zone, mid)) < number {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo < end && self.sector_number(zone, &self.locate_in_place(zone, lo)) == number)
            .then_some(lo)
    }

    /// Position of spare sector `spare` of zone `zone`, for block `lba`: with spares per
    /// range of cylinders, the spare's number modulo a range's sectors in the block's range.
    fn spare_position(&self, zone: usize, lba: u64, spare: u64) -> Position {
        let z = &self.zones.list[zone];
        let spt = z.spt.get();
        let spc = spt * self.heads;
        let (cyl_in_zone, in_cyl) = if z.range_cyls > 0 {
            let range_cyls = u64::from(z.range_cyls);
            let home = u64::from(self.locate_in_place(zone, lba).cyl - z.first_cyl);
            let at = spare % (range_cyls * spc);
            (home - home % range_cyls + at / spc, at % spc)
        } else {
            (spare / spc, spare % spc)
        };
        Position {
            cyl: (u64::from(z.first_cyl) + cyl_in_zone).min(u64::from(self.max_cyl)) as u32,
            head: (in_cyl / spt) as u32,
            sector: (in_cyl % spt) as u32,
            spt: z.spt,
        }
    }
}
