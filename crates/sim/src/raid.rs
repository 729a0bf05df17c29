//! RAID address mapping and per-request disk-operation planning.
//!
//! All addresses are 512-byte sectors (`u64`). A *unit* (stripe unit, also
//! called chunk or strip) is `stripe_unit_sectors` consecutive sectors on one
//! member disk; a *stripe* is one row of units across all member disks, i.e.
//! the units at member address `s * unit .. (s + 1) * unit` for stripe `s`.
//! Each member's usable capacity is its size rounded down to a whole number of
//! units. Below, `n` is the number of members, `unit` the unit size, `u = lba
//! / unit` the logical unit number and `off = lba % unit` the offset in it.
//!
//! # Mappings
//!
//! - **JBOD**: concatenation. Member 0 holds logical `[0, usable)`, member 1
//!   the next `usable` sectors, and so on: `disk = lba / usable`,
//!   `disk_lba = lba % usable`.
//! - **RAID 0**: `disk = u % n`, `disk_lba = (u / n) * unit + off`.
//! - **RAID 1**: exactly 2 members holding identical copies at identical
//!   addresses (`disk_lba = lba`); disk 0 is the primary.
//! - **RAID 10** (RAID 1+0): `n / 2` mirror pairs, striped RAID-0 style over
//!   the pairs. Pair `p = u % (n / 2)` is disks `2p` (primary) and `2p + 1`,
//!   both at `disk_lba = (u / (n / 2)) * unit + off`.
//! - **RAID 5**: left-symmetric rotating parity (Linux md's default) with
//!   `k = n - 1` data units per stripe. Stripe `s = u / k`, data index
//!   `i = u % k`; parity disk `P = (n - 1) - (s % n)`; data unit `i` lives on
//!   disk `(P + 1 + i) % n` at `disk_lba = s * unit + off`.
//! - **RAID 6**: `k = n - 2`; `P` as for RAID 5, `Q = (P + 1) % n`, data unit
//!   `i` on disk `(P + 2 + i) % n` at `disk_lba = s * unit + off`.
//!
//! # Request planning
//!
//! [`Layout::plan_read`] and [`Layout::plan_write`] split a logical request
//! into disk operations. Pieces that are contiguous on the same disk are
//! merged into one operation (a RAID 0 read of two full stripes gives one
//! 2-unit extent per disk); this also applies across stripes for RAID 5/6
//! writes, after the per-stripe method has been chosen. Reads of mirrored
//! levels carry the other copy so the engine can pick the less busy disk;
//! writes of mirrored levels go to both copies. JBOD and RAID 0 writes are one
//! write per extent, without reads.
//!
//! RAID 5/6 writes choose a method per stripe touched. With `k` data units,
//! `w` touched data units, `m` parity units (1 or 2) and `[a, b)` the in-unit
//! offsets touched in the stripe (the *parity span*; when a two-unit write
//! leaves a gap between its ends, the span is their hull, `[0, unit)`):
//!
//! - **Full-stripe write**: every data unit fully covered: write `k` data and
//!   `m` parity units, no reads.
//! - **Read-modify-write** (RMW): read the old data of the touched ranges (`w`
//!   reads) and the old parity over `[a, b)` (`m` reads), then write the new
//!   data (`w`) and the parity over `[a, b)` (`m`): `2w + 2m` operations.
//! - **Reconstruct-write**: read the untouched data units over `[a, b)`
//!   (`k - w` reads), then write `w` data and `m` parity ranges: `k + m`
//!   operations. Only allowed when each touched unit covers the whole span.
//!
//! The method with fewer operations wins (ties go to RMW); the chosen methods
//! are counted in [`WritePlan`]. The write plan's reads (phase 1) must all
//! complete before its writes (phase 2) are issued.
//!
//! # Degraded mode
//!
//! With a [`FailedDisks`] set, [`Layout::plan_read_degraded`],
//! [`Layout::plan_write_degraded`] and [`Layout::plan_rebuild`] plan around
//! the failed members, reconstructing from mirrors or parity, and return
//! [`DataLoss`] for data no survivor can supply; [`Layout::survives`] says
//! whether every block is still readable.
//!
//! # Out-of-range requests
//!
//! Requests beyond [`Layout::capacity_sectors`] are a caller bug (the engine
//! validates ranges first): they trip a `debug_assert!`. In release builds the
//! planners silently clip the request to the capacity and [`Layout::locate`]
//! returns an unspecified location.

use crate::divisor::Divisor;
use std::fmt;

mod degraded;
#[cfg(test)]
mod degraded_props;
#[cfg(test)]
mod degraded_tests;
mod failed;
mod plan;
pub mod sets;
#[cfg(test)]
mod sets_tests;
#[cfg(test)]
mod test_util;
#[cfg(test)]
mod tests;

pub use failed::{DataLoss, DiskIndexTooLarge, FailedDisks, LostAt};

/// RAID level of an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RaidLevel {
    /// Concatenation of the members, no redundancy.
    Jbod,
    /// Striping, no redundancy.
    Raid0,
    /// Two-way mirror.
    Raid1,
    /// Striping over mirror pairs.
    Raid10,
    /// Striping with one rotating parity unit per stripe.
    Raid5,
    /// Striping with two rotating parity units (P and Q) per stripe.
    Raid6,
}

impl RaidLevel {
    /// All levels, in declaration order.
    pub const ALL: [RaidLevel; 6] = [
        RaidLevel::Jbod,
        RaidLevel::Raid0,
        RaidLevel::Raid1,
        RaidLevel::Raid10,
        RaidLevel::Raid5,
        RaidLevel::Raid6,
    ];

    /// Lower-case name: `"jbod"`, `"raid0"`, `"raid1"`, `"raid10"`, `"raid5"`
    /// or `"raid6"`.
    pub fn name(self) -> &'static str {
        match self {
            RaidLevel::Jbod => "jbod",
            RaidLevel::Raid0 => "raid0",
            RaidLevel::Raid1 => "raid1",
            RaidLevel::Raid10 => "raid10",
            RaidLevel::Raid5 => "raid5",
            RaidLevel::Raid6 => "raid6",
        }
    }

    /// Parses a level name, case-insensitively; a dash after `raid` is
    /// accepted (`"RAID-5"`). Returns `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        let lower = s.to_ascii_lowercase();
        let name = match lower.strip_prefix("raid-") {
            Some(rest) => format!("raid{rest}"),
            None => lower,
        };
        RaidLevel::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Number of parity units per stripe (0 for non-parity levels).
    fn parity_count(self) -> u64 {
        match self {
            RaidLevel::Raid5 => 1,
            RaidLevel::Raid6 => 2,
            _ => 0,
        }
    }
}

impl fmt::Display for RaidLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a [`Layout`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// No member disks.
    #[error("at least 1 disk needed; got 0")]
    NoDisks,
    /// RAID 1 with other than 2 members.
    #[error("raid1 needs exactly 2 disks; got {got} (use raid10 for more)")]
    Raid1Disks { got: u32 },
    /// RAID 10 with an odd number of members or fewer than 4.
    #[error("raid10 needs an even number of disks, at least 4; got {got}")]
    Raid10Disks { got: u32 },
    /// RAID 5 with fewer than 3 members.
    #[error("raid5 needs at least 3 disks; got {got}")]
    Raid5Disks { got: u32 },
    /// RAID 6 with fewer than 4 members.
    #[error("raid6 needs at least 4 disks; got {got}")]
    Raid6Disks { got: u32 },
    /// Stripe unit not a power of two in `[8, 2048]` sectors.
    #[error(
        "stripe unit must be a power of two number of sectors between 8 (4 KiB) \
         and 2048 (1 MiB); got {got}"
    )]
    BadStripeUnit { got: u64 },
    /// Members smaller than one stripe unit.
    #[error(
        "disk capacity ({disk_sectors} sectors) is smaller than one stripe unit \
         ({stripe_unit_sectors} sectors)"
    )]
    DiskTooSmall {
        disk_sectors: u64,
        stripe_unit_sectors: u64,
    },
    /// The array's logical capacity does not fit in a `u64` sector count.
    #[error(
        "array capacity overflows 64-bit sector addresses: {data_disks} data disks \
         of {usable_disk_sectors} sectors"
    )]
    CapacityOverflow {
        data_disks: u32,
        usable_disk_sectors: u64,
    },
}

/// A sector's place on a member disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    pub disk: u32,
    pub disk_lba: u64,
}

/// The copies of one logical sector: `copies[..n_copies]` are valid, primary
/// first. When `n_copies == 1`, `copies[1]` repeats `copies[0]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    pub copies: [Location; 2],
    pub n_copies: u8,
}

impl Located {
    fn single(loc: Location) -> Self {
        Located {
            copies: [loc, loc],
            n_copies: 1,
        }
    }

    /// The valid copies, primary first.
    pub fn as_slice(&self) -> &[Location] {
        &self.copies[..usize::from(self.n_copies)]
    }
}

/// One contiguous disk operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskIo {
    pub disk: u32,
    pub disk_lba: u64,
    pub sectors: u64,
}

/// One read extent; `mirror` is the same data on the other copy (mirrored
/// levels only), either of which may serve the read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadExtent {
    pub io: DiskIo,
    pub mirror: Option<DiskIo>,
}

/// Disk operations of one logical write: all `reads` (phase 1) complete
/// before the `writes` (phase 2) are issued. The counters say how many
/// stripes used each RAID 5/6 write method; they stay 0 for other levels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WritePlan {
    pub reads: Vec<DiskIo>,
    pub writes: Vec<DiskIo>,
    pub full_stripe: u32,
    pub read_modify_write: u32,
    pub reconstruct_write: u32,
}

impl WritePlan {
    /// Empties the plan, keeping the vectors' allocations.
    pub fn clear(&mut self) {
        self.reads.clear();
        self.writes.clear();
        self.full_stripe = 0;
        self.read_modify_write = 0;
        self.reconstruct_write = 0;
    }

    /// Number of disk operations (reads + writes).
    pub fn disk_ops(&self) -> usize {
        self.reads.len() + self.writes.len()
    }
}

/// Geometry of one array: level, members, stripe unit and capacity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    level: RaidLevel,
    disks: u32,
    unit: u64,
    /// `unit == 1 << unit_shift` (the unit is a power of two).
    unit_shift: u32,
    /// The member count and the data units per stripe (RAID 10: mirror pairs) as divisors:
    /// mapping an address divides by them on every I/O. Unit and stripe indexes stay below
    /// 2^41 (a group holds at most `MAX_GROUP_BYTES`, 2^50) and the divisors at most 1,024
    /// (`MAX_GROUP_DISKS`): far inside [`Divisor::div_rem_bounded`]'s bound.
    n_div: Divisor,
    k_div: Divisor,
    usable: u64,
    capacity: u64,
    /// A virtual disk over redundancy sets: the planners go through it.
    sets: Option<sets::SharedSets>,
}

impl Layout {
    /// A virtual disk over the redundancy sets of its disk group: `disks` are the group's,
    /// the capacity and stripe are the set layout's.
    pub fn over_sets(v: sets::SetLayout) -> Layout {
        let unit = v.stripe_unit_sectors();
        let k = u64::from(v.data_units());
        Layout {
            level: v.level(),
            disks: v.group_disks(),
            unit,
            unit_shift: unit.trailing_zeros(),
            n_div: Divisor::new(u64::from(v.group_disks())),
            k_div: Divisor::new(k),
            usable: v.data_sectors_per_disk(),
            capacity: v.capacity_sectors(),
            sets: Some(std::sync::Arc::new(v)),
        }
    }

    /// The redundancy-set layout of a virtual disk laid out over sets.
    pub fn sets(&self) -> Option<&sets::SetLayout> {
        self.sets.as_deref()
    }

    /// Validates and builds a layout. `disks` counts member disks (spares
    /// are not members); `disk_sectors` is the capacity of the smallest
    /// member, rounded down to a whole number of stripe units (for JBOD too).
    pub fn new(
        level: RaidLevel,
        disks: u32,
        stripe_unit_sectors: u64,
        disk_sectors: u64,
    ) -> Result<Layout, LayoutError> {
        let got = disks;
        if disks == 0 {
            return Err(LayoutError::NoDisks);
        }
        match level {
            RaidLevel::Raid1 if disks != 2 => return Err(LayoutError::Raid1Disks { got }),
            RaidLevel::Raid10 if disks < 4 || disks % 2 == 1 => {
                return Err(LayoutError::Raid10Disks { got })
            }
            RaidLevel::Raid5 if disks < 3 => return Err(LayoutError::Raid5Disks { got }),
            RaidLevel::Raid6 if disks < 4 => return Err(LayoutError::Raid6Disks { got }),
            _ => {}
        }
        let unit = stripe_unit_sectors;
        if !(8..=2048).contains(&unit) || !unit.is_power_of_two() {
            return Err(LayoutError::BadStripeUnit { got: unit });
        }
        if disk_sectors < unit {
            return Err(LayoutError::DiskTooSmall {
                disk_sectors,
                stripe_unit_sectors: unit,
            });
        }
        let usable = disk_sectors / unit * unit;
        let data_disks = data_disks(level, disks);
        let capacity =
            usable
                .checked_mul(u64::from(data_disks))
                .ok_or(LayoutError::CapacityOverflow {
                    data_disks,
                    usable_disk_sectors: usable,
                })?;
        Ok(Layout {
            level,
            disks,
            unit,
            unit_shift: unit.trailing_zeros(),
            n_div: Divisor::new(u64::from(disks)),
            k_div: Divisor::new(u64::from(data_disks)),
            usable,
            capacity,
            sets: None,
        })
    }

    pub fn level(&self) -> RaidLevel {
        self.level
    }

    /// Number of member disks.
    pub fn disks(&self) -> u32 {
        self.disks
    }

    pub fn stripe_unit_sectors(&self) -> u64 {
        self.unit
    }

    /// Members' worth of data capacity: JBOD/RAID 0 `n`, RAID 1 1, RAID 10
    /// `n/2`, RAID 5 `n-1`, RAID 6 `n-2`.
    pub fn data_disks(&self) -> u32 {
        if let Some(v) = &self.sets {
            return v.data_units();
        }
        data_disks(self.level, self.disks)
    }

    /// Usable sectors per member (a whole number of stripe units).
    pub fn usable_disk_sectors(&self) -> u64 {
        self.usable
    }

    /// Logical capacity of the array in sectors.
    pub fn capacity_sectors(&self) -> u64 {
        self.capacity
    }

    /// Data sectors in one stripe (`data_disks * unit`; JBOD: `unit`).
    pub fn full_stripe_sectors(&self) -> u64 {
        match self.level {
            RaidLevel::Jbod => self.unit,
            _ => u64::from(self.data_disks()) * self.unit,
        }
    }

    /// Where logical sector `lba` lives; mirrored levels give both copies,
    /// primary first. `lba` must be below the capacity (`debug_assert!`).
    #[inline(always)]
    pub fn locate(&self, lba: u64) -> Located {
        debug_assert!(
            lba < self.capacity,
            "lba {lba} beyond capacity {}",
            self.capacity
        );
        let unit = self.unit;
        let (u, off) = (lba >> self.unit_shift, lba & (unit - 1));
        let at = |disk: u64, disk_lba: u64| Location {
            disk: disk_id(disk),
            disk_lba,
        };
        match self.level {
            RaidLevel::Jbod => Located::single(at(lba / self.usable, lba % self.usable)),
            RaidLevel::Raid0 => {
                let (row, disk) = self.n_div.div_rem_bounded(u);
                Located::single(at(disk, row * unit + off))
            }
            RaidLevel::Raid1 => Located {
                copies: [at(0, lba), at(1, lba)],
                n_copies: 2,
            },
            RaidLevel::Raid10 => {
                let (row, p) = self.k_div.div_rem_bounded(u);
                let disk_lba = row * unit + off;
                Located {
                    copies: [at(2 * p, disk_lba), at(2 * p + 1, disk_lba)],
                    n_copies: 2,
                }
            }
            RaidLevel::Raid5 | RaidLevel::Raid6 => {
                let (s, i) = self.k_div.div_rem_bounded(u);
                Located::single(at(self.data_disk(s, i), s * unit + off))
            }
        }
    }

    /// Parity disks of stripe `stripe`: `(P, None)` for RAID 5, `(P, Some(Q))`
    /// for RAID 6, `None` for levels without parity.
    pub fn parity_disks(&self, stripe: u64) -> Option<(u32, Option<u32>)> {
        let p = self.parity_disk(stripe);
        match self.level {
            RaidLevel::Raid5 => Some((disk_id(p), None)),
            RaidLevel::Raid6 => Some((disk_id(p), Some(disk_id(self.n_div.remainder(p + 1))))),
            _ => None,
        }
    }

    fn n(&self) -> u64 {
        u64::from(self.disks)
    }

    /// P disk of stripe `s` (meaningful for RAID 5/6 only).
    fn parity_disk(&self, s: u64) -> u64 {
        (self.n() - 1) - self.n_div.div_rem_bounded(s).1
    }

    /// Disk of data unit `i` (0-based, below the data disks) of stripe `s`, RAID 5/6: the
    /// units follow the parity round the members. The parity disk, the parity count and `i`
    /// add up to at most twice the members less two, so one conditional subtraction takes
    /// the remainder.
    #[inline(always)]
    fn data_disk(&self, s: u64, i: u64) -> u64 {
        debug_assert!(i < u64::from(data_disks(self.level, self.disks)));
        let d = self.parity_disk(s) + self.level.parity_count() + i;
        if d >= self.n() {
            d - self.n()
        } else {
            d
        }
    }

    /// Clips `[lba, lba + sectors)` to the capacity, asserting in debug
    /// builds that nothing had to be clipped. Returns the end.
    fn request_end(&self, lba: u64, sectors: u64) -> u64 {
        debug_assert!(
            lba.checked_add(sectors).is_some_and(|e| e <= self.capacity),
            "request [{lba}, +{sectors}) beyond capacity {}",
            self.capacity
        );
        lba.saturating_add(sectors).min(self.capacity)
    }
}

fn data_disks(level: RaidLevel, disks: u32) -> u32 {
    match level {
        RaidLevel::Jbod | RaidLevel::Raid0 => disks,
        RaidLevel::Raid1 => 1,
        RaidLevel::Raid10 => disks / 2,
        RaidLevel::Raid5 => disks - 1,
        RaidLevel::Raid6 => disks - 2,
    }
}

/// Narrows a disk index computed as `x % n` (so below `n <= u32::MAX`).
/// Only an out-of-range JBOD `locate` (already a caller bug) can truncate.
fn disk_id(disk: u64) -> u32 {
    disk as u32
}
