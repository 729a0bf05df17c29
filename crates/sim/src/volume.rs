//! Host-side volumes over LUNs: concatenation, striping, log multiplexing and
//! ASM-like mirrored disk groups.
//!
//! A [`Volume`] is built from a [`VolumeKind`] and the sizes of its *members*
//! (LUNs), all in 512-byte sectors (`u64`). [`Volume::map`] splits a logical
//! request into `(member, member_lba, sectors)` pieces; the simulator maps each
//! piece onto its LUN itself. Below, `n` is the number of members and `size_i`
//! the size of member `i`.
//!
//! # Mappings
//!
//! - **Concat**: members back to back. Member `i` holds logical
//!   `[start_i, start_i + size_i)` with `start_i = size_0 + .. + size_(i-1)`,
//!   at `member_lba = lba - start_i`. Capacity = sum of the sizes.
//! - **Stripe** (host LVM striping; the "stripe" half of SAME, stripe and
//!   mirror everything, spreading every volume over all LUNs):
//!   stripe size `s`, stripe index `u = lba / s`; `member = u % n`,
//!   `member_lba = (u / n) * s + lba % s`. Every member contributes the
//!   smallest member size rounded down to a multiple of `s`; capacity is `n`
//!   times that.
//! - **Multiplex** (redo-log multiplexing, host mirroring): every member holds
//!   the whole volume at `member_lba = lba`; capacity = smallest member size.
//!   Copy `c` is member `c`. Writes go to every copy; a read needs only one,
//!   and the caller picks which (e.g. the least busy).
//! - **Asm** (Oracle-ASM-like disk group): `F` failure groups of `S` disks,
//!   `D = F * S` disks ordered by (group, position in group): disk `d` is
//!   member `failure_groups[d / S][d % S]`. With allocation unit `au` and `k`
//!   copies, AU `a = lba / au` lies in row `r = a / D` at position
//!   `d = a % D`; its primary is on group `f = d / S`, index `i = d % S`.
//!   Mirror copy `c` (`1..k`) is on group `(f + c) % F`, index `(i + r) % S`.
//!   Within a row that is a bijection for each `c`, so every disk holds exactly
//!   one primary and one copy `c` per row, and as `F >= k` the copies of an AU
//!   are in `k` different failure groups. Shifting the index by the row spreads
//!   a disk's partners over the whole partner group, so a rebuild reads from
//!   many disks. On every disk row `r` takes AU slots `[k*r, k*r + k)`, slot
//!   `k*r + c` holding copy `c`: `member_lba = (k*r + c) * au + lba % au`.
//!   Rows = `min(size) / (au * k)`; capacity = `rows * D * au`. `k` is 2
//!   (normal redundancy) or 3 (high); 1 (external redundancy) is accepted too.
//!
//! # Pieces
//!
//! [`Volume::map`] cuts a request into *logical pieces* that cross no stripe,
//! AU or member boundary (a Multiplex request is one logical piece) and appends
//! one [`VolPiece`] per copy of each, primary first. All copies of one logical
//! piece share an `extent` number; extents count from 0 in logical order
//! within one call. Adjacent pieces that happen to be contiguous on one member
//! (e.g. a Stripe request spanning a full row of stripes and more) are *not*
//! merged: the caller may coalesce them if it cares.
//!
//! Requests beyond [`Volume::capacity_sectors`] are a caller bug: they trip a
//! `debug_assert!`; release builds clip them to the capacity.

mod asm;
mod error;
#[cfg(test)]
mod tests;

use crate::divisor::Divisor;
pub use error::VolumeError;

/// How a volume lays data out over its members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VolumeKind {
    /// Members back to back.
    Concat,
    /// Round-robin stripes of `stripe_sectors` over all members (host LVM
    /// striping, SAME).
    Stripe { stripe_sectors: u64 },
    /// Every member holds the whole volume (database log multiplexing / host
    /// mirroring): writes go to all members, reads to one.
    Multiplex,
    /// ASM-like disk group: allocation units of `au_sectors`, `copies` (2 =
    /// normal, 3 = high redundancy; 1 = external), members grouped in failure
    /// groups (indices into members; every member in exactly one group; groups
    /// of equal size, at least `copies` groups).
    Asm {
        au_sectors: u64,
        copies: u8,
        failure_groups: Vec<Vec<u32>>,
    },
}

/// One piece of a mapped request: `sectors` sectors at `member_lba` on
/// `member`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VolPiece {
    pub member: u32,
    pub member_lba: u64,
    pub sectors: u64,
    /// 0 = primary copy; 1.. = mirror copies of the same data (Multiplex:
    /// member index order, so member 0's copy is 0).
    pub copy: u8,
    /// Pieces with the same `extent` hold the same data (copies of one logical
    /// piece); extents are numbered 0.. in logical order within one map() call.
    pub extent: u32,
}

/// Precomputed geometry.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Layout {
    /// `starts[i]` is member `i`'s first logical sector; `starts[n]` the capacity.
    Concat {
        starts: Vec<u64>,
        /// Every member's size, when they are all the same size (LUNs of one kind, the
        /// usual case): a member is then found by one division instead of a search.
        equal: Option<Divisor>,
    },
    /// A stripe of `1 << shift` sectors (a power of two) over `n` members.
    Stripe {
        shift: u32,
        n: Divisor,
    },
    Multiplex {
        n: u8,
    },
    Asm {
        au: u64,
        copies: u8,
        groups: u64,
        per_group: u64,
        /// Member id of disk `d` (ordered by group, then position).
        disks: Vec<u32>,
        /// Failure group of each member.
        group_of: Vec<u32>,
    },
}

/// A host-side volume: a [`VolumeKind`] over sized members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Volume {
    kind: VolumeKind,
    capacity: u64,
    layout: Layout,
}

impl Volume {
    /// Validates the geometry and builds the volume.
    pub fn new(kind: VolumeKind, member_sectors: &[u64]) -> Result<Volume, VolumeError> {
        let got = member_sectors.len();
        let (what, min, max) = match kind {
            VolumeKind::Concat => ("a concatenated volume", 1, u32::MAX as usize),
            VolumeKind::Stripe { .. } => ("a striped volume", 2, u32::MAX as usize),
            VolumeKind::Multiplex => ("a multiplexed volume", 2, u8::MAX as usize),
            VolumeKind::Asm { .. } => ("an ASM disk group", 1, u32::MAX as usize),
        };
        if got < min {
            return Err(VolumeError::TooFewMembers { what, min, got });
        }
        if got > max {
            return Err(VolumeError::TooManyMembers { what, max, got });
        }
        if let Some(m) = member_sectors.iter().position(|&s| s == 0) {
            return Err(VolumeError::EmptyMember { member: m as u32 });
        }
        // At least one member, so the minimum exists.
        let smallest = member_sectors.iter().copied().min().unwrap_or(0);
        let (capacity, layout) = match &kind {
            VolumeKind::Concat => {
                let mut starts = Vec::with_capacity(got + 1);
                let mut total = 0u64;
                starts.push(0);
                for &s in member_sectors {
                    total = total.checked_add(s).ok_or(VolumeError::CapacityOverflow)?;
                    starts.push(total);
                }
                let equal = member_sectors
                    .iter()
                    .all(|&s| s == smallest)
                    .then(|| Divisor::new(smallest));
                (total, Layout::Concat { starts, equal })
            }
            &VolumeKind::Stripe { stripe_sectors: s } => {
                if !s.is_power_of_two() || !(8..=131_072).contains(&s) {
                    return Err(VolumeError::BadStripeSize { got: s });
                }
                if let Some(m) = member_sectors.iter().position(|&x| x < s) {
                    return Err(VolumeError::MemberSmallerThanStripe {
                        member: m as u32,
                        sectors: member_sectors[m],
                    });
                }
                let n = got as u64;
                let cap = (smallest / s * s)
                    .checked_mul(n)
                    .ok_or(VolumeError::CapacityOverflow)?;
                let shift = s.trailing_zeros();
                (
                    cap,
                    Layout::Stripe {
                        shift,
                        n: Divisor::new(n),
                    },
                )
            }
            VolumeKind::Multiplex => (smallest, Layout::Multiplex { n: got as u8 }),
            VolumeKind::Asm {
                au_sectors,
                copies,
                failure_groups,
            } => asm::layout(*au_sectors, *copies, failure_groups, member_sectors)?,
        };
        Ok(Volume {
            kind,
            capacity,
            layout,
        })
    }

    /// The layout this volume was built with.
    pub fn kind(&self) -> &VolumeKind {
        &self.kind
    }

    /// Number of members.
    pub fn members(&self) -> usize {
        match &self.layout {
            Layout::Concat { starts, .. } => starts.len() - 1,
            Layout::Stripe { n, .. } => n.get() as usize,
            Layout::Multiplex { n } => *n as usize,
            Layout::Asm { disks, .. } => disks.len(),
        }
    }

    /// Logical size in sectors.
    pub fn capacity_sectors(&self) -> u64 {
        self.capacity
    }

    /// Copies every block has (1 for Concat/Stripe, members for Multiplex,
    /// `copies` for Asm).
    pub fn copies(&self) -> u8 {
        match &self.layout {
            Layout::Concat { .. } | Layout::Stripe { .. } => 1,
            Layout::Multiplex { n } => *n,
            Layout::Asm { copies, .. } => *copies,
        }
    }

    /// Failure group of a member (Asm), else None.
    pub fn failure_group(&self, member: u32) -> Option<u32> {
        match &self.layout {
            Layout::Asm { group_of, .. } => group_of.get(member as usize).copied(),
            _ => None,
        }
    }

    /// Appends the pieces of `[lba, lba + sectors)` to `out`: for each
    /// contiguous logical piece (not crossing a stripe / AU / member boundary),
    /// one [`VolPiece`] per copy, primary first. Pieces contiguous on a member
    /// are not merged. The caller guarantees `lba + sectors <= capacity`
    /// (debug-asserted; release builds clip).
    #[inline(always)]
    pub fn map(&self, lba: u64, sectors: u64, out: &mut Vec<VolPiece>) {
        debug_assert!(
            lba.checked_add(sectors).is_some_and(|e| e <= self.capacity),
            "request [{lba}, +{sectors}) beyond capacity {}",
            self.capacity
        );
        let end = lba.saturating_add(sectors).min(self.capacity);
        // The common case first, without the general loop: a request inside one stripe
        // unit (a database block, a small random I/O) is one piece.
        match self.layout {
            Layout::Stripe { shift, n } => {
                let off = lba & ((1 << shift) - 1);
                if lba < end && off + (end - lba) <= 1 << shift {
                    let (row, member) = n.div_rem(lba >> shift);
                    out.push(VolPiece {
                        member: member as u32,
                        member_lba: (row << shift) + off,
                        sectors: end - lba,
                        copy: 0,
                        extent: 0,
                    });
                    return;
                }
            }
            // Equal members (every profile's target over a system's LUNs): one division.
            Layout::Concat {
                equal: Some(size), ..
            } => {
                let (member, member_lba) = size.div_rem(lba);
                if lba < end && member_lba + (end - lba) <= size.get() {
                    out.push(VolPiece {
                        member: member as u32,
                        member_lba,
                        sectors: end - lba,
                        copy: 0,
                        extent: 0,
                    });
                    return;
                }
            }
            _ => {}
        }
        self.map_pieces(lba, end, out);
    }

    /// [`Volume::map`] of `[lba, end)` piece by piece (kept out of line: the common case
    /// above then needs no register saves).
    #[inline(never)]
    fn map_pieces(&self, lba: u64, end: u64, out: &mut Vec<VolPiece>) {
        // A request inside one concatenated member (a small random I/O on the LUNs) is one
        // piece: no loop.
        if let Layout::Concat { starts, .. } = &self.layout {
            if lba < end {
                // starts[0] = 0 <= lba < starts[n], as in `piece`.
                let i = starts.partition_point(|&s| s <= lba).saturating_sub(1);
                if end <= starts[i + 1] {
                    out.push(VolPiece {
                        member: i as u32,
                        member_lba: lba - starts[i],
                        sectors: end - lba,
                        copy: 0,
                        extent: 0,
                    });
                    return;
                }
            }
        }
        let mut pos = lba;
        let mut extent = 0u32;
        while pos < end {
            pos += self.piece(pos, end, extent, out);
            // Wrapping needs 2^32 pieces in one call: far beyond any request.
            extent = extent.wrapping_add(1);
        }
    }

    /// Appends the copies of the logical piece starting at `pos` (< `end`)
    /// and returns its length.
    fn piece(&self, pos: u64, end: u64, extent: u32, out: &mut Vec<VolPiece>) -> u64 {
        let mut push = |member: u32, member_lba: u64, sectors: u64, copy: u8| {
            out.push(VolPiece {
                member,
                member_lba,
                sectors,
                copy,
                extent,
            });
        };
        match &self.layout {
            Layout::Concat { starts, .. } => {
                // starts[0] = 0 <= pos < starts[n], so 1 <= point <= n.
                let i = starts.partition_point(|&s| s <= pos).saturating_sub(1);
                let len = (starts[i + 1] - pos).min(end - pos);
                push(i as u32, pos - starts[i], len, 0);
                len
            }
            &Layout::Stripe { shift, n } => {
                let stripe = 1u64 << shift;
                let u = pos >> shift;
                let off = pos & (stripe - 1);
                let len = (stripe - off).min(end - pos);
                let (row, member) = n.div_rem(u);
                push(member as u32, row * stripe + off, len, 0);
                len
            }
            &Layout::Multiplex { n } => {
                let len = end - pos;
                for c in 0..n {
                    push(u32::from(c), pos, len, c);
                }
                len
            }
            Layout::Asm {
                au,
                copies,
                groups,
                per_group,
                disks,
                ..
            } => {
                let (au, k, fg, s) = (*au, u64::from(*copies), *groups, *per_group);
                let a = pos / au;
                let off = pos % au;
                let len = (au - off).min(end - pos);
                let d = a % (fg * s);
                let r = a / (fg * s);
                let (f, i) = (d / s, d % s);
                for c in 0..k {
                    let disk = if c == 0 {
                        d
                    } else {
                        (f + c) % fg * s + (i + r) % s
                    };
                    push(disks[disk as usize], (k * r + c) * au + off, len, c as u8);
                }
                len
            }
        }
    }
}
