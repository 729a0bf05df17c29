//! A conventional load's primary key: each inserted row's key goes into the index, and the
//! keys increase (an identity column or a sequence, as the real suite's load table has), so
//! every insert lands in the right-most leaf. A leaf takes keys until it holds what the
//! engine's right-edge split leaves in it ([`Table::right_edge_capacity`]: PostgreSQL 90%
//! of a leaf, Oracle a full block after its 90-10 split); the next key starts a new leaf,
//! formatted in the buffer cache (no read), and the split adds the new leaf's entry to the
//! branch block above it, which in turn starts a new branch block when it is full, up to the
//! root. A batch of `n` rows thus dirties about `1 + n / keys_per_leaf` leaves and a branch
//! block per new leaf; the leaves stay in the buffer cache while they fill (a leaf the
//! writer evicted meanwhile is read back first).
//!
//! The index's blocks are those the layout reserves for the finished table (its levels,
//! root first); a right-edge index is never wider than that, since the build leaves at least
//! as much free space in a block as the right-edge split does.
//!
//! Log of an entry: PostgreSQL's B-tree insert record ([`INDEX_INSERT_LOG_BYTES`], about
//! 64 bytes with its index tuple); Oracle's "insert leaf row" change vector (op 10.2, as a
//! redo dump shows it: the change header and its length array, the KTB redo, the slot and
//! the entry itself: [`LEAF_CHANGE_BYTES`] plus the entry) and the undo record that purges
//! the entry on rollback (an insert's undo record with the entry: [`undo::INSERT_RECORD_BYTES`]
//! plus the entry), whose own change is logged as well. A split logs one more entry record
//! for the branch block (the new leaf's entry); its other records (the new block's
//! formatting) are left out, a few hundred bytes per few hundred rows.

use crate::config::database::INDEX_INSERT_LOG_BYTES;
use crate::db::layout::{Segment, NEW_BLOCK};
use crate::db::schema::{oracle, BlockFormat};
use crate::db::undo;

/// Bytes of Oracle's "insert leaf row" change vector besides the entry: its change header
/// (24) and length array (8), the KTB redo of the transaction's ITL entry (24), the ITL slot,
/// row number and entry size (8).
pub const LEAF_CHANGE_BYTES: u64 = 64;

/// The primary key a conventional load fills at its right edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RightEdge {
    /// First block of each level, root first, and blocks the layout gives each level.
    level_base: Vec<u64>,
    level_blocks: Vec<u64>,
    /// Entries a block of each level holds when it splits (root first, leaves last).
    per_block: Vec<u64>,
    /// Log bytes of one entry inserted, and its undo record (0: no undo).
    pub entry_redo: u64,
    pub entry_undo: u64,
}

impl RightEdge {
    /// The primary key of the table of `seg`.
    pub fn new(seg: &Segment) -> RightEdge {
        let t = &seg.table;
        let (per_leaf, fanout) = t.right_edge_capacity();
        let levels = seg.level_blocks.len();
        let mut per_block = vec![fanout; levels];
        if let Some(leaf) = per_block.last_mut() {
            *leaf = per_leaf;
        }
        let (entry_redo, entry_undo) = match t.format {
            BlockFormat::Postgresql => (INDEX_INSERT_LOG_BYTES, 0),
            BlockFormat::Oracle => {
                let entry = oracle::leaf_entry_bytes(t.key_bytes);
                (LEAF_CHANGE_BYTES + entry, undo::INSERT_RECORD_BYTES + entry)
            }
        };
        RightEdge {
            level_base: seg.level_base.clone(),
            level_blocks: seg.level_blocks.clone(),
            per_block,
            entry_redo,
            entry_undo,
        }
    }

    /// Keys a leaf takes before it splits.
    pub fn keys_per_leaf(&self) -> u64 {
        self.per_block.last().copied().unwrap_or(1)
    }

    /// Block `b` of `level` (clamped to the level's blocks).
    fn block(&self, level: usize, b: u64) -> u64 {
        self.level_base[level] + b.min(self.level_blocks[level].saturating_sub(1))
    }

    /// Appends to `out` the index blocks the keys of rows `first..end` (0-based, in key
    /// order) change, each once, in the order they are changed: the leaves, a leaf that
    /// starts in the batch flagged [`NEW_BLOCK`], and after each new block the block above
    /// it that gains its entry. Returns the entries the new blocks add to the levels above
    /// (splits).
    pub fn blocks(&self, first: u64, end: u64, out: &mut Vec<u64>) -> u64 {
        let Some(leaf_level) = self.level_base.len().checked_sub(1) else {
            return 0;
        };
        if end <= first {
            return 0;
        }
        let per_leaf = self.keys_per_leaf();
        let mut splits = 0;
        for leaf in first / per_leaf..=(end - 1) / per_leaf {
            let starts = leaf * per_leaf >= first;
            let b = self.block(leaf_level, leaf) | if starts { NEW_BLOCK } else { 0 };
            push_once(out, b);
            if starts && leaf > 0 {
                splits += self.gained(leaf_level, leaf, out);
            }
        }
        splits
    }

    /// Block `b` (> 0) of `level` is new: the block above gains its entry, and is new
    /// itself when the entry is the first it takes: block 0 of a level appears when the
    /// level below gets its second block (the tree grows a level, a new root), a later block
    /// when the block before it is full (and then the level above gains it in turn).
    /// Returns the entries added.
    fn gained(&self, level: usize, b: u64, out: &mut Vec<u64>) -> u64 {
        let Some(up) = level.checked_sub(1) else {
            return 0;
        };
        let parent = b / self.per_block[up];
        let starts = if parent == 0 {
            b == 1
        } else {
            b.is_multiple_of(self.per_block[up])
        };
        push_once(
            out,
            self.block(up, parent) | if starts { NEW_BLOCK } else { 0 },
        );
        1 + if starts && parent > 0 {
            self.gained(up, parent, out)
        } else {
            0
        }
    }
}

/// Pushes `b` unless `out` holds it already (a batch's few index blocks).
fn push_once(out: &mut Vec<u64>, b: u64) {
    let plain = b & !NEW_BLOCK;
    if !out.iter().any(|&o| o & !NEW_BLOCK == plain) {
        out.push(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::layout::Layout;
    use crate::db::Table;

    fn edge(table: Table) -> (RightEdge, Segment) {
        let seg = Layout::new(&[table]).segments[0].clone();
        (RightEdge::new(&seg), seg)
    }

    #[test]
    fn increasing_keys_fill_the_right_most_leaf_then_start_the_next() {
        // PostgreSQL, 8-byte keys: 366 per leaf at 90% ((8192 - 24 - 16) * 0.9 / (4 + 16)).
        let (e, seg) = edge(Table::full_postgresql(1_000_000, 100));
        let per_leaf = e.keys_per_leaf();
        assert_eq!(per_leaf, 366);
        let leaves = seg.level_base[seg.level_base.len() - 1];
        let branch = seg.level_base[seg.level_base.len() - 2];
        let mut out = Vec::new();
        // The first batch starts the first leaf: no split.
        assert_eq!(e.blocks(0, 100, &mut out), 0);
        assert_eq!(out, vec![leaves | NEW_BLOCK]);
        out.clear();
        // Rows 300..400 finish leaf 0 and start leaf 1: the tree grows a branch block
        // above the two.
        assert_eq!(e.blocks(300, 400, &mut out), 1);
        assert_eq!(
            out,
            vec![leaves, (leaves + 1) | NEW_BLOCK, branch | NEW_BLOCK]
        );
        out.clear();
        // Leaf 2's entry goes into that branch block.
        e.blocks(2 * 366, 2 * 366 + 1, &mut out);
        assert_eq!(out, vec![(leaves + 2) | NEW_BLOCK, branch]);
        out.clear();
        // A batch of 1,000 rows inside one branch block's span: 3 or 4 leaves, one branch.
        let splits = e.blocks(10_000, 11_000, &mut out);
        assert_eq!(splits, (11_000 - 1) / 366 - (10_000 - 1) / 366);
        assert_eq!(out.len() as u64, (11_000 - 1) / 366 - 10_000 / 366 + 2);
    }

    #[test]
    fn oracle_leaves_stay_full_and_each_entry_carries_its_undo() {
        let t = Table {
            fillfactor: 90,
            key_bytes: oracle::number_bytes(1_000_000),
            format: BlockFormat::Oracle,
            ..Table::full_postgresql(1_000_000, 100)
        };
        let (e, seg) = edge(t);
        // 472 keys of 5 bytes per full leaf against 425 when built; 2,119 leaves fit the
        // layout's 2,353.
        assert_eq!(e.keys_per_leaf(), 472);
        assert!(1_000_000u64.div_ceil(472) <= seg.level_blocks[seg.level_blocks.len() - 1]);
        // Entry of 15 bytes: 64 + 15 of redo, 70 + 15 of undo.
        assert_eq!((e.entry_redo, e.entry_undo), (79, 85));
        // The last row lands in the layout's leaves.
        let mut out = Vec::new();
        e.blocks(999_999, 1_000_000, &mut out);
        let last = seg.level_base[2] + seg.level_blocks[2];
        assert!(out.iter().all(|&b| (b & !NEW_BLOCK) < last));
    }

    #[test]
    fn a_full_branch_block_starts_a_new_one_above_its_leaves() {
        let (e, seg) = edge(Table::full_postgresql(10_000_000, 100));
        assert_eq!(seg.level_blocks.len(), 3);
        let fanout = e.per_block[1];
        let per_leaf = e.keys_per_leaf();
        let mut out = Vec::new();
        // The key that starts leaf `fanout` starts branch block 1, and the tree grows a new
        // root above the two branch blocks.
        let row = fanout * per_leaf;
        assert_eq!(e.blocks(row, row + 1, &mut out), 2);
        assert_eq!(
            out,
            vec![
                (seg.level_base[2] + fanout) | NEW_BLOCK,
                (seg.level_base[1] + 1) | NEW_BLOCK,
                seg.level_base[0] | NEW_BLOCK,
            ]
        );
    }
}
