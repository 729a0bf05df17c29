//! Failed-member sets, the data-loss error and the survival rule (see the
//! parent module's doc, "Degraded mode").

use std::fmt;

use super::{Layout, RaidLevel};

/// Set of failed member disks of one array, by member index.
///
/// Stored as a 64-bit mask, so only members `0..64`
/// ([`FailedDisks::CAPACITY`]) can be marked; [`FailedDisks::mark`] rejects
/// higher indices. Indices at or above a layout's [`Layout::disks`] are
/// ignored by the planners.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FailedDisks(u64);

/// [`FailedDisks::mark`] was given a member index the set cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot mark disk {disk} failed: only members 0..64 can be tracked")]
pub struct DiskIndexTooLarge {
    pub disk: u32,
}

impl FailedDisks {
    /// Highest member index that can be marked, plus one.
    pub const CAPACITY: u32 = 64;

    /// No failed member.
    pub fn none() -> Self {
        FailedDisks(0)
    }

    /// Marks member `disk` failed (no-op if it already is). Fails, changing
    /// nothing, when `disk >= 64`.
    pub fn mark(&mut self, disk: u32) -> Result<(), DiskIndexTooLarge> {
        if disk >= Self::CAPACITY {
            return Err(DiskIndexTooLarge { disk });
        }
        self.0 |= 1 << disk;
        Ok(())
    }

    /// Marks member `disk` healthy again (no-op if it is not marked).
    pub fn clear(&mut self, disk: u32) {
        if disk < Self::CAPACITY {
            self.0 &= !(1 << disk);
        }
    }

    pub fn contains(&self, disk: u32) -> bool {
        disk < Self::CAPACITY && self.0 & (1 << disk) != 0
    }

    /// Number of failed members.
    pub fn count(&self) -> u32 {
        self.0.count_ones()
    }

    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// Failed member indices, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let disk = bits.trailing_zeros();
                bits &= bits - 1;
                disk
            })
        })
    }

    /// The same set restricted to members `0..disks`.
    pub(super) fn members(self, disks: u32) -> Self {
        match 1u64.checked_shl(disks) {
            Some(bit) => FailedDisks(self.0 & (bit - 1)),
            None => self,
        }
    }

    /// [`FailedDisks::contains`] for a disk index computed as a `u64`.
    pub(super) fn has(&self, disk: u64) -> bool {
        disk < u64::from(Self::CAPACITY) && self.0 & (1 << disk) != 0
    }
}

/// Lists the members, e.g. `[1, 3]`.
impl fmt::Display for FailedDisks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// What a [`DataLoss`] could not recover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LostAt {
    /// A logical sector (reads and writes).
    Logical { lba: u64 },
    /// A sector of a member disk (rebuilds; may hold parity).
    Member { disk: u32, disk_lba: u64 },
}

impl fmt::Display for LostAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LostAt::Logical { lba } => write!(f, "serve logical sector {lba}"),
            LostAt::Member { disk, disk_lba } => {
                write!(f, "rebuild sector {disk_lba} of disk {disk}")
            }
        }
    }
}

/// A request needs data that the failed members took with them. `at` is
/// the first such sector; `failed` the members counted as failed (for a
/// rebuild, including the member being rebuilt).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("data loss: {level} cannot {at} with disks {failed} failed")]
pub struct DataLoss {
    pub level: RaidLevel,
    pub at: LostAt,
    pub failed: FailedDisks,
}

impl Layout {
    /// True while every logical block can still be read: JBOD/RAID 0 with
    /// no failed member, RAID 1/10 with no mirror pair (disks `2p`, `2p+1`)
    /// entirely failed, RAID 5 with at most one and RAID 6 with at most two
    /// failed members.
    pub fn survives(&self, failed: &FailedDisks) -> bool {
        let f = failed.members(self.disks);
        match self.level {
            RaidLevel::Jbod | RaidLevel::Raid0 => f.is_empty(),
            RaidLevel::Raid1 | RaidLevel::Raid10 => f.0 & (f.0 >> 1) & EVEN_BITS == 0,
            RaidLevel::Raid5 | RaidLevel::Raid6 => {
                u64::from(f.count()) <= self.level.parity_count()
            }
        }
    }

    /// Whether the RAID 5/6 stripes (each spans every member) are past their
    /// tolerance.
    pub(super) fn parity_lost(&self, f: FailedDisks) -> bool {
        u64::from(f.count()) > self.level.parity_count()
    }

    pub(super) fn loss(&self, at: LostAt, failed: FailedDisks) -> DataLoss {
        DataLoss {
            level: self.level,
            at,
            failed,
        }
    }
}

/// Bits 0, 2, 4, …: the first disk of each mirror pair.
const EVEN_BITS: u64 = 0x5555_5555_5555_5555;
