//! PostgreSQL's hint bits. A heap tuple's infomask carries `HEAP_XMIN_COMMITTED` and
//! `HEAP_XMAX_COMMITTED`, which say that the transaction that inserted or deleted (updated) it
//! committed. The transaction that changes a tuple does not set them: the first backend that
//! examines the tuple after the commit (a select, an update, a vacuum: any visibility check)
//! looks the transaction up in the commit log, sets the bit and marks the buffer dirty with
//! `MarkBufferDirtyHint`. It may set it only once the commit record is flushed to the WAL,
//! which a synchronous commit has done before it returns.
//!
//! `MarkBufferDirtyHint` writes no WAL unless hint bits must be WAL-logged (data checksums or
//! `wal_log_hints = on`): then, if the buffer is not already dirty and the page's LSN is not
//! past the redo pointer of the last checkpoint (no WAL record has touched the page since the
//! checkpoint began), it writes a full-page image of the page first (`XLogSaveBufferForHint`,
//! record `XLOG_FPI_FOR_HINT`) and stamps the page with its LSN, so the page's next hints
//! until the next checkpoint cost no WAL. A buffer already dirty is left as it is.
//!
//! So a page a transaction changed that the checkpointer or the background writer wrote
//! before anyone read it again is dirtied again by its next reader and written again: the
//! first select after a bulk load or a run of updates writes the table.
//!
//! The model keeps one bit per heap block: the block holds tuples a committed transaction
//! changed whose hints are not set. The first visit after the commit sets them (as a
//! visibility check of every tuple of the page does: a scan, a page prune); index pages carry
//! no hint bits. A single-row visit of a real page examines one tuple, so a page holding
//! several unhinted tuples may be dirtied by several readers in turn where the model dirties
//! it once. Index pages' `LP_DEAD` marks (`kill_prior_tuple`) are not modelled: an index scan
//! sets them only when every version of a row is dead to all transactions, which an update
//! whose newest version is live never leaves.
//!
//! Sources: PostgreSQL `src/backend/access/heap/heapam_visibility.c` (`SetHintBits`: no hint
//! before the commit record is flushed), `src/backend/storage/buffer/bufmgr.c`
//! (`MarkBufferDirtyHint`), `src/backend/access/transam/xloginsert.c`
//! (`XLogSaveBufferForHint`: an image only when the page LSN is at or before `RedoRecPtr`);
//! `XLogHintBitIsNeeded()` is `DataChecksumsEnabled() || wal_log_hints`.

use crate::db::layout::NEW_BLOCK;

/// WAL bytes of one `XLOG_FPI_FOR_HINT` record: the 8 KiB page image (a full heap page's
/// hole between `pd_lower` and `pd_upper` is a few bytes and left in) and the record and
/// block headers (assumed: 24 + 20 bytes, rounded).
pub const FPI_FOR_HINT_BYTES: u64 = 8192 + 50;

/// What a visit of a block did with its hints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HintVisit {
    /// Nothing to set, or the visit is a change (it dirties the block and its WAL record
    /// covers the page anyway).
    Nothing,
    /// The visit set hints on a block already dirty: no write, no WAL.
    SetOnDirty,
    /// The visit set hints on a clean block: it is dirty now and will be written again;
    /// `fpi`: with it a full-page image went to the WAL.
    Dirtied { fpi: bool },
}

/// Which heap blocks hold committed changes whose hint bits are not set, and which pages a
/// WAL record touched since the last checkpoint began.
///
/// Three bits per block, kept together by 64 blocks ([`HEAP`], [`UNHINTED`], [`LOGGED`]), so
/// a commit or a visit of a block finds all it needs in one place in memory.
#[derive(Debug, Clone)]
pub struct HintBits {
    words: Vec<[u64; 3]>,
    blocks: u64,
    /// Hint bits are WAL-logged (data checksums, or `wal_log_hints`).
    wal_logged: bool,
    /// Counters: blocks commits left unhinted, visits that set hints, of them those that
    /// dirtied a clean block, and of those the ones that wrote a full-page image.
    pub left: u64,
    pub set: u64,
    pub dirtied: u64,
    pub images: u64,
}

/// A heap block (only they carry hint bits).
const HEAP: usize = 0;
/// Holds tuples of a committed transaction without hints.
const UNHINTED: usize = 1;
/// Its LSN is past the last checkpoint's redo pointer (kept only when hints are WAL-logged:
/// nothing else asks).
const LOGGED: usize = 2;

/// Sets bit `kind` of blocks `from` to `to` - 1, a word at a time.
fn set_range(words: &mut [[u64; 3]], kind: usize, from: u64, to: u64) {
    let mut b = from;
    while b < to {
        let (w, lo) = (b / 64, b % 64);
        let hi = (to - w * 64).min(64);
        words[w as usize][kind] |= crate::cache::bits(lo, hi);
        b = (w + 1) * 64;
    }
}

impl HintBits {
    /// No block unhinted, over `blocks` blocks whose heap blocks are `heap` (ranges of first
    /// block and count); `wal_logged`: hints are WAL-logged.
    pub fn new(blocks: u64, heap: &[(u64, u64)], wal_logged: bool) -> HintBits {
        let mut words = crate::cache::huge_table(blocks.div_ceil(64) as usize, [0; 3]);
        for &(first, n) in heap {
            set_range(&mut words, HEAP, first, (first + n).min(blocks));
        }
        HintBits {
            words,
            blocks,
            wal_logged,
            left: 0,
            set: 0,
            dirtied: 0,
            images: 0,
        }
    }

    /// Bit `kind` of block `b` (below `blocks`).
    #[inline]
    fn get(&self, kind: usize, b: u64) -> bool {
        self.words[(b / 64) as usize][kind] >> (b % 64) & 1 != 0
    }

    /// Sets or clears bit `kind` of block `b` (below `blocks`).
    #[inline]
    fn put(&mut self, kind: usize, b: u64, on: bool) {
        let (w, m) = ((b / 64) as usize, 1u64 << (b % 64));
        if on {
            self.words[w][kind] |= m;
        } else {
            self.words[w][kind] &= !m;
        }
    }

    /// Starts loading the bits of the blocks `changed` (as [`HintBits::commit`] takes them)
    /// into the processor's cache, for a commit that comes later. A hint only.
    #[inline]
    pub fn prefetch(&self, changed: &[(u64, bool)]) {
        for &(entry, write) in changed {
            let b = entry & !NEW_BLOCK;
            if write && b < self.blocks {
                crate::cache::prefetch_line(&self.words[(b / 64) as usize]);
            }
        }
    }

    /// Whether hints are WAL-logged.
    pub fn wal_logged(&self) -> bool {
        self.wal_logged
    }

    /// A transaction's commit is durable, having changed `changed` (plan entries, a created
    /// block flagged [`NEW_BLOCK`]): its heap blocks hold tuples without hints.
    pub fn commit(&mut self, changed: &[(u64, bool)]) {
        for &(entry, write) in changed {
            let b = entry & !NEW_BLOCK;
            if !write || b >= self.blocks {
                continue;
            }
            let (w, m) = (&mut self.words[(b / 64) as usize], 1u64 << (b % 64));
            if w[HEAP] & m != 0 && w[UNHINTED] & m == 0 {
                w[UNHINTED] |= m;
                self.left += 1;
            }
        }
    }

    /// A checkpoint began: its redo pointer is the log's end, past every page's LSN.
    pub fn checkpoint(&mut self) {
        if self.wal_logged {
            for w in &mut self.words {
                w[LOGGED] = 0;
            }
        }
    }

    /// Whether `block` holds tuples without hints.
    #[inline]
    pub fn unhinted(&self, block: u64) -> bool {
        block < self.blocks && self.get(UNHINTED, block)
    }

    /// A change of `block`: its page carries the LSN of the change's WAL record (what
    /// [`HintBits::visit`] does for a change).
    #[inline]
    pub fn stamp(&mut self, block: u64) {
        if self.wal_logged && block < self.blocks {
            self.put(LOGGED, block, true);
        }
    }

    /// A session visits `block` (`write`: to change it; `dirty`: its buffer is dirty now).
    /// A change stamps the page with its WAL record's LSN; a read of a block holding tuples
    /// without hints sets them.
    #[inline]
    pub fn visit(&mut self, block: u64, write: bool, dirty: bool) -> HintVisit {
        if block >= self.blocks {
            return HintVisit::Nothing;
        }
        if write {
            self.stamp(block);
            return HintVisit::Nothing;
        }
        if !self.get(UNHINTED, block) {
            return HintVisit::Nothing;
        }
        self.put(UNHINTED, block, false);
        self.set += 1;
        if dirty {
            return HintVisit::SetOnDirty;
        }
        self.dirtied += 1;
        let fpi = self.wal_logged && !self.get(LOGGED, block);
        if fpi {
            self.put(LOGGED, block, true);
            self.images += 1;
        }
        HintVisit::Dirtied { fpi }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_committed_heap_changes_are_left_unhinted() {
        // Blocks 0..10 are index, 10..100 heap.
        let mut h = HintBits::new(100, &[(10, 90)], false);
        h.commit(&[
            (5, true),
            (20, true),
            (21, false),
            (30 | NEW_BLOCK, true),
            (20, true),
        ]);
        let left: Vec<u64> = (0..100).filter(|&b| h.unhinted(b)).collect();
        assert_eq!(left, [20, 30]);
        assert_eq!(h.left, 2);
    }

    #[test]
    fn heap_ranges_mark_exactly_their_blocks() {
        // Ranges inside a word, across words, ending at a word's edge, and past the end.
        let ranges = [(3, 5), (60, 70), (192, 64), (290, 40)];
        let h = HintBits::new(300, &ranges, false);
        for b in 0..320 {
            let inside = b < 300 && ranges.iter().any(|&(f, n)| (f..f + n).contains(&b));
            assert_eq!(b < 300 && h.get(HEAP, b), inside, "block {b}");
        }
    }

    #[test]
    fn the_first_reader_dirties_a_clean_block_once() {
        let mut h = HintBits::new(100, &[(0, 100)], false);
        h.commit(&[(7, true), (8, true)]);
        assert_eq!(h.visit(7, false, false), HintVisit::Dirtied { fpi: false });
        assert_eq!(h.visit(7, false, false), HintVisit::Nothing, "set once");
        // Block 8 still dirty from the change: hints cost nothing.
        assert_eq!(h.visit(8, false, true), HintVisit::SetOnDirty);
        assert_eq!((h.set, h.dirtied, h.images), (2, 1, 0));
    }

    /// With hints WAL-logged, a page no WAL record touched since the checkpoint began gets a
    /// full-page image; one changed since does not, nor a second hint before the next
    /// checkpoint.
    #[test]
    fn a_full_page_image_only_for_pages_untouched_since_the_checkpoint() {
        let mut h = HintBits::new(100, &[(0, 100)], true);
        for b in [1, 2] {
            h.visit(b, true, false);
        }
        h.commit(&[(1, true), (2, true)]);
        h.checkpoint();
        // Block 2 changed again after the checkpoint began (not yet committed).
        h.visit(2, true, false);
        assert_eq!(h.visit(1, false, false), HintVisit::Dirtied { fpi: true });
        assert_eq!(h.visit(2, false, false), HintVisit::Dirtied { fpi: false });
        h.commit(&[(1, true)]);
        assert_eq!(h.visit(1, false, false), HintVisit::Dirtied { fpi: false });
        assert_eq!(h.images, 1);
    }
}
