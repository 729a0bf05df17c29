//! Layout of a measured drive: its zone table with skews, spares and slipped sectors (see
//! the parent module for the model).
//!
//! A zone's logical blocks fill its cylinders in order, each cylinder surface by surface,
//! after the zone's reserved front sectors. With `sparing = "sectors_per_track"` the last
//! `spares` sectors of every track hold no data; with `"sectors_per_cylinder"` the last
//! `spares` sectors of every cylinder; with `"sectors_per_range"` the last `spares` sectors
//! of every range of `spare_range_cylinders` cylinders (a partial range at the zone's end
//! keeps none); with `"tracks"` the zone's last `spares` tracks (they only shorten the
//! zone). A slipped sector holds no data: the blocks after it slide one
//! sector on; with `"tracks"` the slips are whole tracks, and the tracks after a slipped
//! one slide one track on. Track `t` of a zone starts `track_skew * switches + cylinder_skew * cylinders`
//! sectors round from the first, where `switches` counts the head switches and `cylinders`
//! the cylinder changes since the zone's first track, so a transfer that runs onto the next
//! track finds its first block arriving just after the switch.

use super::geometry::Zone;
use super::params::{HddParams, Sparing, SurfaceOrder};
use super::{Hdd, Position};
use crate::divisor::Divisor;

/// The sectors of a transfer that lie on one track: the head reaches the first `start_ns`
/// after the transfer's first sector and passes one every `ns_per_sector`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct MediaRun {
    pub start_ns: u64,
    pub sectors: u64,
    pub ns_per_sector: f64,
}

/// The zones of a measured drive, their slipped sectors, and the blocks they hold.
pub(super) fn measured_zones(p: &HddParams, rev_ns: u64) -> (Vec<Zone>, Vec<Vec<u64>>, u64) {
    let heads = u64::from(p.heads);
    let (mut zones, mut slips) = (Vec::new(), Vec::new());
    let mut lba = 0u64;
    for z in &p.zone_table {
        let spt = u64::from(z.sectors_per_track);
        let cylinders = z.last_cylinder - z.first_cylinder + 1;
        let spares = u64::from(z.spares);
        let (data_spt, spc) = match p.sparing {
            Sparing::SectorsPerTrack => {
                let d = spt.saturating_sub(spares).max(1);
                (d, d * heads)
            }
            Sparing::SectorsPerCylinder | Sparing::SectorsPerCylinderAtFront => {
                (spt, (spt * heads).saturating_sub(spares).max(1))
            }
            Sparing::None
            | Sparing::Tracks
            | Sparing::SectorsPerRange
            | Sparing::SectorsPerZone => (spt, spt * heads),
        };
        let mut zone = Zone::new(
            lba,
            z.first_cylinder,
            cylinders,
            z.sectors_per_track,
            heads,
            rev_ns,
        );
        zone.data_spt = Divisor::new(data_spt);
        zone.spc = Divisor::new(spc);
        zone.track_skew = z.track_skew_sectors;
        zone.cyl_skew = z.cylinder_skew_sectors;
        zone.first_offset = z.first_block_offset_sectors;
        zone.front = z.reserved_front_sectors;
        if p.sparing == Sparing::SectorsPerCylinderAtFront {
            zone.front_spares = (spt * heads - spc) as u32;
        }
        if p.sparing == Sparing::SectorsPerRange {
            let range = u32::from(p.spare_range_cylinders.max(1));
            zone.range_cyls = range;
            zone.range_blocks =
                Divisor::new((u64::from(range) * spc).saturating_sub(spares).max(1));
        }
        let blocks = z.blocks(p.heads, p.sparing, p.spare_range_cylinders);
        zones.push(zone);
        let mut s = z.slips.clone();
        s.sort_unstable();
        slips.push(s);
        lba += blocks;
    }
    (zones, slips, lba)
}

impl Hdd {
    /// [`Hdd::locate_in`] on a measured layout: where the block lies, or the spare it is
    /// kept in. Kept out of line: inlined, its remaps and slips made `locate_in` too large
    /// to inline into the enqueue of a parametric drive (the built-in models), which cost
    /// their random reads about 1% more instructions.
    #[inline(never)]
    pub(super) fn locate_measured(&self, zone: usize, lba: u64) -> Position {
        if let Some(moved) = self.zones.remapped.get(zone) {
            if let Ok(i) = moved.binary_search_by_key(&lba, |m| m.0) {
                return moved[i].1;
            }
        }
        self.locate_in_place(zone, lba)
    }

    /// Where a block of a measured layout lies when its sector is sound.
    pub(super) fn locate_in_place(&self, zone: usize, lba: u64) -> Position {
        let z = &self.zones.list[zone];
        if z.range_cyls > 0 {
            return self.locate_in_range(zone, lba);
        }
        let mut phys = lba - z.first_lba + z.front;
        let slips = self.zones.slips.get(zone).map_or(&[][..], |v| &v[..]);
        if self.zones.slipped_tracks {
            let moved = self
                .zones
                .remapped_tracks
                .get(zone)
                .map_or(&[][..], |v| &v[..]);
            return self.locate_past_slipped_tracks(z, phys, slips, moved);
        }
        for &s in slips {
            if s <= phys {
                phys += 1;
            } else {
                break;
            }
        }
        let (cyl_in_zone, r) = z.spc.div_rem(phys);
        let (head, sector) = z.data_spt.div_rem(r + u64::from(z.front_spares));
        // Per-cylinder spares sit at the end of the last surface (or at the front of the
        // first): a block past it (a slip pushed it there) stays on the last track.
        let head = head.min(self.heads - 1);
        Position {
            cyl: (z.first_cyl + cyl_in_zone as u32).min(self.max_cyl),
            head: head as u32,
            sector: sector as u32,
            spt: z.spt,
        }
    }

    /// [`Hdd::locate_measured`] with track sparing: the slips are whole tracks (counted
    /// from the zone's first track) that hold no data, so the track holding physical block
    /// `phys` (counted from the zone's first sector) moves one track on for each slipped
    /// track at or before it; the block keeps its sector, also on a track `moved` to a
    /// spare track (`[track, spare]`).
    fn locate_past_slipped_tracks(
        &self,
        z: &Zone,
        phys: u64,
        slips: &[u64],
        moved: &[[u64; 2]],
    ) -> Position {
        let (mut track, sector) = z.spt.div_rem(phys);
        for &s in slips {
            if s <= track {
                track += 1;
            } else {
                break;
            }
        }
        if let Some([_, spare]) = moved.iter().find(|m| m[0] == track) {
            track = *spare;
        }
        let (cyl_in_zone, head) = (track / self.heads, track % self.heads);
        Position {
            cyl: (u64::from(z.first_cyl) + cyl_in_zone).min(u64::from(self.max_cyl)) as u32,
            head: head as u32,
            sector: sector as u32,
            spt: z.spt,
        }
    }

    /// [`Hdd::locate_measured`] with spares at the end of each range of cylinders: a block's
    /// range is its place among the ranges' data blocks, and a slipped sector moves only
    /// the blocks of its own range.
    fn locate_in_range(&self, zone: usize, lba: u64) -> Position {
        let z = &self.zones.list[zone];
        let (range, mut at) = z.range_blocks.div_rem(lba - z.first_lba + z.front);
        let range_start = range * u64::from(z.range_cyls) * z.spc.get();
        for &s in self.zones.slips.get(zone).map_or(&[][..], |v| &v[..]) {
            if s < range_start {
                continue;
            }
            if s - range_start <= at {
                at += 1;
            } else {
                break;
            }
        }
        let (cyl_in_range, r) = z.spc.div_rem(at);
        let (head, sector) = z.data_spt.div_rem(r);
        let cyl = range * u64::from(z.range_cyls) + cyl_in_range;
        Position {
            cyl: (u64::from(z.first_cyl) + cyl).min(u64::from(self.max_cyl)) as u32,
            head: head.min(self.heads - 1) as u32,
            sector: sector as u32,
            spt: z.spt,
        }
    }

    /// Time to move the heads from one track to another (each a cylinder and a track of it
    /// in block order): nothing on the same track, a head switch on the same cylinder, else
    /// the seek; on a measured layout the longer of the seek and a head switch when the
    /// surface changes (the arm moves while the drive switches heads, as in DiskSim's
    /// mechanics), so which surface a cylinder's first block is on matters where a head
    /// switch takes longer than a short seek.
    #[inline(always)]
    pub(super) fn move_ns(&self, from_cyl: u32, from_head: u32, to_cyl: u32, to_head: u32) -> u64 {
        if self.table_layout {
            self.move_in::<true>(from_cyl, from_head, to_cyl, to_head)
        } else {
            self.move_in::<false>(from_cyl, from_head, to_cyl, to_head)
        }
    }

    /// [`Hdd::move_ns`] with the layout's kind known at compile time (`TABLE`: a measured
    /// layout), so the SPTF pick's loop over a parametric drive's queue carries no test of
    /// the surfaces.
    #[inline(always)]
    pub(super) fn move_in<const TABLE: bool>(
        &self,
        from_cyl: u32,
        from_head: u32,
        to_cyl: u32,
        to_head: u32,
    ) -> u64 {
        let dist = to_cyl.abs_diff(from_cyl);
        let switch = (dist == 0) & (to_head != from_head);
        let seek = self.seek.time_ns(dist);
        let moved = if switch { self.head_switch_ns } else { seek };
        if TABLE
            && dist > 0
            && seek < self.head_switch_ns
            && self.surface_of(from_cyl, from_head) != self.surface_of(to_cyl, to_head)
        {
            return self.head_switch_ns;
        }
        moved
    }

    /// The surface holding track `head` (in block order) of cylinder `cyl`.
    fn surface_of(&self, cyl: u32, head: u32) -> u32 {
        let order = self.zones.surface_order;
        if order == SurfaceOrder::Ascending {
            return head;
        }
        let list = &self.zones.list;
        let zone = list
            .partition_point(|z| z.first_cyl <= cyl)
            .saturating_sub(1);
        order.surface(cyl, list[zone].first_cyl.min(cyl), head, self.heads as u32)
    }

    /// Data sectors of the track holding `pos` in zone `zone`: the zone's data sectors per
    /// track, fewer on the track that ends a cylinder or a sparing range holding its spares
    /// (slipped sectors are not counted).
    pub(super) fn track_data_sectors(&self, zone: usize, pos: &Position) -> u64 {
        let z = &self.zones.list[zone];
        let spt = z.data_spt.get();
        if z.front_spares > 0 {
            // The spares come before the first track's data: every track's data runs to its
            // end.
            return spt;
        }
        let (head, cyl_in_zone) = (u64::from(pos.head), u64::from(pos.cyl - z.first_cyl));
        let (track_in_unit, unit_data) = if z.range_cyls > 0 {
            let range_cyls = u64::from(z.range_cyls);
            let cyl_in_range = cyl_in_zone % range_cyls;
            let range_end = cyl_in_zone - cyl_in_range + range_cyls;
            if range_end > u64::from(z.cylinders) {
                // A partial range at the zone's end keeps no spares.
                return spt;
            }
            (cyl_in_range * self.heads + head, z.range_blocks.get())
        } else {
            (head, z.spc.get())
        };
        unit_data.saturating_sub(track_in_unit * spt).min(spt)
    }

    /// Angular position of a sector, as time into the revolution, on either layout (forced
    /// inline: the queueing of every command runs it).
    #[inline(always)]
    pub(super) fn angle_of(&self, zone: usize, pos: &Position) -> u64 {
        if self.table_layout {
            self.angle_measured_ns(zone, pos)
        } else {
            self.angle_ns(pos, self.zones.list[zone].sector_start)
        }
    }

    /// Angular position of the start of block `lba`'s sector, as time into the revolution
    /// (checks of an imported layout; not on any hot path).
    pub fn block_angle_ns(&self, lba: u64) -> u64 {
        let zone = self.zones.index_of(lba);
        self.angle_of(zone, &self.locate_in(zone, lba))
    }

    /// Angular position of a sector of a measured zone, as time into the revolution.
    pub(super) fn angle_measured_ns(&self, zone: usize, pos: &Position) -> u64 {
        let z = &self.zones.list[zone];
        let cyl = f64::from(pos.cyl - z.first_cyl);
        let switches = f64::from(pos.head) + (self.heads as f64 - 1.0) * cyl;
        let skew = z.first_offset + z.track_skew * switches + z.cyl_skew * cyl;
        let spt = z.spt.get() as f64;
        let at = (f64::from(pos.sector) + skew).rem_euclid(spt);
        (at * z.ns_per_sector) as u64 % self.rev_ns
    }

    /// Media time to transfer `sectors` from `lba` on a measured layout: the sectors
    /// themselves plus, at each track boundary, the wait until the next track's first
    /// block comes round (a full revolution more when the switch takes longer).
    pub(super) fn transfer_measured_ns(&self, lba: u64, sectors: u64) -> u64 {
        self.media_runs(lba, sectors, |_| {})
    }

    /// [`Hdd::transfer_measured_ns`], handing `run` each track's share of the transfer in
    /// order: when the head reaches its first sector and how fast it passes its sectors.
    pub(super) fn media_runs(&self, lba: u64, sectors: u64, mut run: impl FnMut(MediaRun)) -> u64 {
        let (mut lba, mut left, mut total) = (lba, sectors, 0u64);
        let last = self.capacity_sectors.saturating_sub(1);
        loop {
            let zi = self.zones.index_of(lba.min(last));
            let z = self.zones.list[zi];
            let pos = self.locate_in(zi, lba.min(last));
            let on_track = self
                .track_data_sectors(zi, &pos)
                .saturating_sub(u64::from(pos.sector))
                .max(1);
            let n = match self.zones.remapped.get(zi) {
                Some(moved) => up_to_moved(moved, lba, left.min(on_track)),
                None => left.min(on_track),
            };
            run(MediaRun {
                start_ns: total,
                sectors: n,
                ns_per_sector: z.ns_per_sector,
            });
            total += (n as f64 * z.ns_per_sector) as u64;
            left -= n;
            if left == 0 || lba + n > last {
                return total;
            }
            let end_angle =
                (self.angle_of(zi, &pos) + (n as f64 * z.ns_per_sector) as u64) % self.rev_ns;
            lba += n;
            let zn = self.zones.index_of(lba);
            let next = self.locate_in(zn, lba);
            let switch_ns = self.move_ns(pos.cyl, pos.head, next.cyl, next.head);
            let next_angle = self.angle_of(zn, &next);
            let mut gap = (next_angle + self.rev_ns - end_angle) % self.rev_ns;
            while gap < switch_ns {
                gap += self.rev_ns;
            }
            total += gap;
        }
    }
}

/// The blocks of a run of `n` from `lba` that stay in place: one when `lba` itself is kept
/// in a spare (`moved`, sorted), else those before the first block that is.
fn up_to_moved(moved: &[(u64, Position)], lba: u64, n: u64) -> u64 {
    match moved.get(moved.partition_point(|m| m.0 < lba)) {
        Some(&(at, _)) if at == lba => 1,
        Some(&(at, _)) if at < lba + n => at - lba,
        _ => n,
    }
}
