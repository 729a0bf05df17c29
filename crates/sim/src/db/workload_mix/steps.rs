//! A characterization's steps planned (`[[transactions.steps]]`, see
//! `storlab_core::character::steps`): each statement reaches its rows by key, by a range of
//! consecutive keys, or appends them, and visits exactly the blocks those rows and keys lie in.
//!
//! - A table segment with `rows` holds them evenly: `rows_per_block` is its rows over its
//!   blocks, rounded up, so row `r` lies in block `r / rows_per_block`.
//! - Its primary key (an index segment with `table`) is a header block, the upper levels root
//!   first, then the leaves (the last `leaf_blocks` blocks of the segment). It holds one key
//!   per row of the table and per row of the table's growth room: key `k` of `keys` lies in
//!   leaf `k * leaves / keys`, and in block `k * blocks / keys` of each upper level. An upper
//!   level has the blocks of the level below over the fanout, rounded up (the root one
//!   block), with the smallest fanout, at least `leaves^(1 / (levels - 1))`, whose upper
//!   levels fit between the header and the leaves. `leaf_blocks` left out: the segment's
//!   blocks less the header and one block per upper level.
//! - Appends go on from the row the table's last append ended at, from the end of its rows
//!   into its growth room, wrapping to its start when the room is full (the space of deleted
//!   rows reused). The heap blocks and leaves they write are created, not read.
//! - Redo: each type's average (`redo_bytes`), or, when the data set gives it ([`RowRedo`]:
//!   a built-in test's tables), row by row: each row a step changes and each row it inserts
//!   into its table, the commit record left to the commit.

use storlab_core::character::{steps as decl, Changes, Characterization, Reach, SegmentKind};

use super::{MixOp, MixSegment, WorkloadMix, BLOCK_BYTES};
use crate::db::layout::NEW_BLOCK;
use crate::rng::Rng;

/// A table segment reached by key.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Keyed {
    pub rows: u64,
    pub rows_per_block: u64,
    /// Rows its growth room holds.
    pub room_rows: u64,
    pub index: Option<Levels>,
}

/// A primary key's levels in the page space.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Levels {
    /// First block and blocks of each level, root first, leaves last.
    pub base: Vec<u64>,
    pub blocks: Vec<u64>,
    /// Keys it holds: the table's rows and its growth room's.
    pub keys: u64,
}

impl Levels {
    #[inline]
    fn block(&self, level: usize, key: u64) -> u64 {
        let n = self.blocks[level];
        let keys = self.keys.max(1);
        // The product fits 64 bits for any table below 2^32 keys and levels below 2^32
        // blocks: a 64-bit division then, far cheaper than the 128-bit one it equals.
        let at = match key.checked_mul(n) {
            Some(p) => p / keys,
            None => (key as u128 * n as u128 / keys as u128) as u64,
        };
        self.base[level] + at.min(n - 1)
    }

    fn leaf(&self, key: u64) -> u64 {
        self.block(self.blocks.len() - 1, key)
    }
}

/// Redo of the rows the steps reach, row by row.
#[derive(Clone, Debug, PartialEq)]
pub struct RowRedo {
    /// Bytes of a changed row.
    pub changed_row: u64,
    /// Per segment: bytes of a row inserted into it (its row and, with a primary key, the
    /// key's entry).
    pub inserted_row: Vec<u64>,
}

/// One step resolved to segment indexes.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Planned {
    /// The table segment; None: one of the indexed tables, picked per execution.
    pub table: Option<usize>,
    pub reach: Reach,
    pub rows: u64,
    pub changes: Changes,
    pub times: u32,
}

/// Blocks of the upper levels above `leaves` leaves in a tree of `levels` levels, root
/// first, at `fanout` children a block.
fn upper_levels(leaves: u64, levels: u32, fanout: u64) -> Vec<u64> {
    let mut v = Vec::new();
    let mut below = leaves;
    for _ in 1..levels.saturating_sub(1) {
        below = below.div_ceil(fanout).max(1);
        v.push(below);
    }
    if levels > 1 {
        v.push(1);
    }
    v.reverse();
    v
}

/// The upper levels of `leaves` leaves in `levels` levels with the smallest fanout whose
/// levels take at most `room` blocks (None: not even one block a level fits).
fn fitted_upper_levels(leaves: u64, levels: u32, room: u64) -> Option<Vec<u64>> {
    if levels <= 1 {
        return Some(Vec::new());
    }
    let sum = |f: u64| upper_levels(leaves, levels, f).iter().sum::<u64>();
    let least = ((leaves as f64).powf(1.0 / f64::from(levels - 1)).ceil() as u64).max(2);
    let (mut lo, mut hi) = (least, least.max(leaves).max(2));
    if sum(hi) > room {
        return None;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if sum(mid) <= room {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(upper_levels(leaves, levels, lo))
}

/// The keyed tables of `c` laid out as `segments`, one entry per segment.
pub(super) fn keyed(
    c: &Characterization,
    segments: &[MixSegment],
) -> Result<Vec<Option<Keyed>>, String> {
    let mut out = Vec::with_capacity(segments.len());
    for (s, laid) in c.segments.iter().zip(segments) {
        let Some(rows) = s.rows.filter(|_| s.kind == SegmentKind::Table) else {
            out.push(None);
            continue;
        };
        let rows_per_block = rows.div_ceil(laid.blocks.max(1)).max(1);
        let room_rows = laid.reserve_blocks * rows_per_block;
        let index = match decl::primary_key(c, &s.name) {
            Some(x) => Some(levels(c, x, &segments[x], rows + room_rows)?),
            None => None,
        };
        out.push(Some(Keyed {
            rows,
            rows_per_block,
            room_rows,
            index,
        }));
    }
    Ok(out)
}

fn levels(c: &Characterization, x: usize, laid: &MixSegment, keys: u64) -> Result<Levels, String> {
    let s = &c.segments[x];
    let height = s.levels.unwrap_or(1).max(1);
    let upper = u64::from(height - 1);
    let leaves = s
        .leaf_blocks
        .unwrap_or_else(|| laid.blocks.saturating_sub(1 + upper).max(1));
    let room = laid.blocks.saturating_sub(1 + leaves);
    let Some(mut blocks) = fitted_upper_levels(leaves, height, room) else {
        return Err(format!(
            "segments[{x}] ({}): a header block, {upper} upper levels and {leaves} leaves need \
             at least {} blocks of {BLOCK_BYTES} bytes; its size holds {} (raise its size or \
             lower `leaf_blocks`)",
            s.name,
            1 + upper + leaves,
            laid.blocks
        ));
    };
    blocks.push(leaves);
    let mut base = Vec::with_capacity(blocks.len());
    let mut next = laid.first_block + 1;
    for (i, n) in blocks.iter().enumerate() {
        if i == blocks.len() - 1 {
            next = laid.first_block + laid.blocks - n;
        }
        base.push(next);
        next += n;
    }
    Ok(Levels { base, blocks, keys })
}

/// Every transaction type's steps, resolved.
pub(super) fn planned(c: &Characterization) -> Vec<Vec<Planned>> {
    let index_of = |name: &str| c.segments.iter().position(|s| s.name == name);
    c.transactions
        .iter()
        .map(|t| {
            t.steps
                .iter()
                .map(|st| Planned {
                    table: index_of(&st.table),
                    reach: st.reach,
                    rows: st.rows,
                    changes: st.changes(),
                    times: st.times,
                })
                .collect()
        })
        .collect()
}

impl WorkloadMix {
    /// Plans an execution of type `ty`, which has steps, into `out`: each step's visits in
    /// order. The random draws: the table of the `"*"` steps (when there are several), then
    /// each key and range step's first key.
    pub(super) fn plan_steps(
        &self,
        ty: usize,
        rng: &mut Rng,
        log_bytes: u64,
        appends: &mut [u64],
        out: &mut Vec<(u64, bool)>,
    ) -> MixOp {
        let steps = &self.steps[ty];
        let any = if steps.iter().any(|s| s.table.is_none()) && !self.any_tables.is_empty() {
            let n = self.any_tables.len() as u64;
            self.any_tables[if n > 1 { rng.below(n) as usize } else { 0 }]
        } else {
            0
        };
        let rooms = self.segments.len();
        let mut writes = false;
        let (mut rows, mut log_bytes) = (0, log_bytes);
        for st in steps {
            let table = st.table.unwrap_or(any);
            let Some(k) = self.keyed.get(table).and_then(Option::as_ref) else {
                continue;
            };
            let seg = &self.segments[table];
            writes |= st.changes != Changes::Nothing;
            for _ in 0..st.times {
                match st.reach {
                    Reach::Key | Reach::Range => {
                        let n = st.rows.clamp(1, k.rows);
                        rows += n;
                        if let Some(r) = self.row_redo.as_ref() {
                            if st.changes != Changes::Nothing {
                                log_bytes += n * r.changed_row;
                            }
                        }
                        let key = rng.below(k.rows - n + 1);
                        reach(seg, k, key, n, st.changes, 0, out);
                    }
                    Reach::Append => {
                        let n = st.rows.max(1);
                        rows += n;
                        if let Some(r) = self.row_redo.as_ref() {
                            log_bytes += n * r.inserted_row.get(table).copied().unwrap_or(0);
                        }
                        let room = k.room_rows.max(n);
                        let at = &mut appends[rooms + table];
                        if *at + n > room {
                            *at = 0;
                        }
                        let first = k.rows + *at;
                        *at += n;
                        reach(seg, k, first, n, Changes::TableAndIndex, NEW_BLOCK, out);
                    }
                }
            }
        }
        MixOp {
            tx_type: ty,
            commits: writes || self.types[ty].redo_bytes > 0.0,
            log_bytes,
            cpu_ns: self.times_ns[ty].0,
            think_ns: self.times_ns[ty].1,
            scan: (out.len(), out.len()),
            rows,
        }
    }
}

/// Appends the visits of `n` rows from key `key` of table `seg`: the descent, the leaves and
/// the heap blocks, the ones `changes` names marked changed and the written ones tagged `new`.
fn reach(
    seg: &MixSegment,
    k: &Keyed,
    key: u64,
    n: u64,
    changes: Changes,
    new: u64,
    out: &mut Vec<(u64, bool)>,
) {
    let last = key + n - 1;
    if let Some(x) = &k.index {
        let leaf_changed = changes == Changes::TableAndIndex;
        for l in 0..x.blocks.len() - 1 {
            out.push((x.block(l, key), false));
        }
        let tag = if leaf_changed { new } else { 0 };
        for b in x.leaf(key)..=x.leaf(last) {
            out.push((b | tag, leaf_changed));
        }
    }
    let heap_changed = changes != Changes::Nothing;
    let tag = if heap_changed { new } else { 0 };
    for b in key / k.rows_per_block..=last / k.rows_per_block {
        out.push(((seg.first_block + b) | tag, heap_changed));
    }
}

#[cfg(test)]
mod tests {
    use super::Levels;

    /// Key `k` lies in block `k * blocks / keys` of a level, the last block at most, with
    /// products past 64 bits (a level of 2^40 blocks) worked out exactly as with small ones.
    #[test]
    fn a_key_lies_in_its_proportional_block_of_each_level() {
        let levels = Levels {
            base: vec![1, 10, 1 << 41],
            blocks: vec![1, 7, 1 << 40],
            keys: 3 << 32,
        };
        let exact = |level: usize, key: u64| {
            let n = levels.blocks[level] as u128;
            let at = (key as u128 * n / levels.keys as u128).min(n - 1);
            levels.base[level] + at as u64
        };
        for key in [0, 1, 12_345, 1 << 32, (3 << 32) - 1, u64::MAX / 4] {
            for level in 0..3 {
                assert_eq!(levels.block(level, key), exact(level, key), "{level} {key}");
            }
        }
        assert_eq!(
            levels.block(1, (3 << 32) - 1),
            16,
            "the last key: the last block"
        );
        assert_eq!(levels.leaf(1 << 32), (1 << 41) + (1 << 40) / 3);
        assert_eq!(levels.block(0, u64::MAX / 4), 1, "the root holds every key");
    }
}
