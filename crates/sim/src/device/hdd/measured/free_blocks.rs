//! Blocks a read miss reads before its own (see the parent module; DiskSim's `Read any
//! free blocks = 1`).
//!
//! A read miss whose head lands on the track of its first block after that block's sector
//! has come by, and before the track's last sector, waits for it to come round again, as
//! any read does; meanwhile the head passes the track's end and then the track's blocks
//! before the read's, and reads those into the read's segment: a later read of them hits.
//! The read's own blocks come off the media when they would anyway, so its time does not
//! change. A head that lands before the read's sector, or on the track's last sector,
//! passes nothing it can keep (the drive reads a block into the segment only while it
//! holds nothing, or right before what it holds). The blocks stay only on a drive that
//! keeps a read's data in its segment.

use super::super::{Hdd, Position};

impl Hdd {
    /// The first block a read miss of `lba` (on the track `pos` of zone `zone`) leaves in
    /// its segment when its head waits `rotate_ns` for it after landing: the track's first
    /// block when the head passes the blocks before it, else `lba`.
    pub(super) fn free_blocks_from(
        &self,
        zone: usize,
        pos: &Position,
        lba: u64,
        rotate_ns: u64,
    ) -> u64 {
        let z = &self.zones.list[zone];
        let sector = u64::from(pos.sector);
        if rotate_ns == 0 || sector == 0 {
            return lba;
        }
        // How far past the start of the read's sector the head landed, and how far that
        // sector is from the start of the track's last one.
        let past_ns = self.rev_ns.saturating_sub(rotate_ns) as f64;
        let to_last_ns = z.spt.get().saturating_sub(1 + sector) as f64 * z.ns_per_sector;
        if past_ns >= to_last_ns {
            return lba;
        }
        // The track's first block: `sector` back, fewer when sectors before it on the
        // track are slipped.
        let mut first = lba.saturating_sub(sector);
        while first < lba {
            let zi = self.zones.index_of(first);
            if zi == zone {
                let p = self.locate_in(zi, first);
                if (p.cyl, p.head) == (pos.cyl, pos.head) {
                    break;
                }
            }
            first += 1;
        }
        first
    }
}
