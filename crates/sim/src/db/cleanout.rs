//! Oracle's block cleanout. A transaction that changes a block leaves its entry in the
//! block's interested transaction list (ITL) and lock bytes on the rows it changed. At commit
//! the session cleans out the blocks it changed (marks the ITL entry committed), without
//! generating redo, but only those still in the buffer cache and not yet written by the
//! database writer, and only its most recently changed ones up to a tenth of the buffer
//! cache ("commit cleanout"). Every other block it changed keeps the uncommitted-looking
//! entry: the next session that visits it, a query too, finds the transaction committed (in
//! its undo segment header), cleans the block out and so changes it: the block is dirtied
//! (written again later) and the change generates redo ("delayed block cleanout"). A session
//! that changes such a block cleans it out as part of its own change.
//!
//! Sources: Oracle Database Performance Tuning Guide ("delayed block cleanout": a block is
//! cleaned out by the next reader or writer when the commit did not); Steve Adams, as quoted
//! in the Oracle literature: commit cleanout "is limited to 10% of the cache", "the blocks
//! must not yet have been written to disk by DBWn"; Jonathan Lewis, "Clean it up" (Oracle
//! Scratchpad, 2009): the delayed cleanout generates redo and dirties the block, even on a
//! select. The redo of one cleanout, [`CLEANOUT_REDO_BYTES`], is assumed: a redo record
//! header and a block cleanout change vector of a few dozen bytes.

use crate::db::layout::NEW_BLOCK;

/// Redo of one delayed block cleanout, bytes (assumed: record header and change vector).
pub const CLEANOUT_REDO_BYTES: u64 = 100;

/// Which table and index blocks hold a committed transaction not yet cleaned out.
#[derive(Debug, Clone)]
pub struct Cleanout {
    /// One bit per block of the tables (undo blocks are not tracked).
    uncleaned: Vec<u64>,
    blocks: u64,
    /// Most blocks a commit cleans out: a tenth of the buffer cache's frames.
    commit_limit: usize,
    /// Blocks left uncleaned by commits, and cleaned out later by a visit, so far.
    pub left: u64,
    pub delayed: u64,
}

impl Cleanout {
    /// No block uncleaned, over `blocks` table blocks, for a buffer cache of `frames`.
    pub fn new(blocks: u64, frames: usize) -> Cleanout {
        Cleanout {
            uncleaned: vec![0; blocks.div_ceil(64) as usize],
            blocks,
            commit_limit: frames / 10,
            left: 0,
            delayed: 0,
        }
    }

    /// A transaction commits having changed `changed` (plan entries in the order it changed
    /// them, a created block flagged [`NEW_BLOCK`]; undo blocks are skipped). `unwritten(b)`:
    /// block `b` is still in the buffer cache and dirty, not yet written by the database
    /// writer. The most recent ones up to the limit that are unwritten are cleaned out now;
    /// the others are left for a later visit.
    pub fn commit(&mut self, changed: &[(u64, bool)], mut unwritten: impl FnMut(u64) -> bool) {
        let mut cleaned = 0;
        for &(entry, write) in changed.iter().rev() {
            let b = entry & !NEW_BLOCK;
            if !write || b >= self.blocks {
                continue;
            }
            if cleaned < self.commit_limit && unwritten(b) {
                cleaned += 1;
                continue;
            }
            let (w, bit) = ((b / 64) as usize, 1u64 << (b % 64));
            if self.uncleaned[w] & bit == 0 {
                self.uncleaned[w] |= bit;
                self.left += 1;
            }
        }
    }

    /// Whether `block` holds a committed transaction not cleaned out.
    #[inline]
    pub fn uncleaned(&self, block: u64) -> bool {
        block < self.blocks && self.uncleaned[(block / 64) as usize] >> (block % 64) & 1 != 0
    }

    /// A session visits `block` and cleans it out: true when it was uncleaned (the visit
    /// then changes the block).
    pub fn clean(&mut self, block: u64) -> bool {
        if !self.uncleaned(block) {
            return false;
        }
        self.uncleaned[(block / 64) as usize] &= !(1u64 << (block % 64));
        self.delayed += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_cleans_only_unwritten_blocks_up_to_a_tenth_of_the_cache() {
        // 100 frames: a commit cleans at most 10 blocks.
        let mut c = Cleanout::new(1000, 100);
        // Blocks 0..20 changed (and the undo block 1500, not tracked); 5 written already.
        let mut changed: Vec<(u64, bool)> = (0..20).map(|b| (b, true)).collect();
        changed[0].0 |= NEW_BLOCK;
        changed.push((1500, true));
        changed.push((3, false));
        c.commit(&changed, |b| !(10..15).contains(&b));
        // Cleaned: the last ten changed that are unwritten: 19..15 and 9..5.
        let left: Vec<u64> = (0..1000).filter(|&b| c.uncleaned(b)).collect();
        assert_eq!(left, [0, 1, 2, 3, 4, 10, 11, 12, 13, 14]);
        assert_eq!(c.left, 10);
        assert!(!c.uncleaned(1500));
    }

    #[test]
    fn a_visit_cleans_an_uncleaned_block_once() {
        let mut c = Cleanout::new(128, 1000);
        c.commit(&[(70, true)], |_| false);
        assert!(c.uncleaned(70));
        assert!(c.clean(70));
        assert!(!c.clean(70), "cleaned once");
        assert!(!c.clean(71));
        assert_eq!((c.left, c.delayed), (1, 1));
    }
}
