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
        let sector = u64::from(pos.sector);
        if sector == 0 || self.landed_past_ns(zone, sector, rotate_ns).is_none() {
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
