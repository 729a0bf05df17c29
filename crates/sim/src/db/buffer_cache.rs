//! A database buffer cache with clock-sweep replacement (PostgreSQL's policy: each frame has
//! a usage count, bumped on access up to a cap, decremented as the hand passes; the first
//! frame found at zero is the victim). Frames carry a dirty flag so the model can tell when a
//! foreground session must write a dirty victim before reading (a "stall"), and a background
//! writer can clean frames just ahead of the hand.

/// Highest usage count a frame can reach (PostgreSQL's BM_MAX_USAGE_COUNT).
pub const MAX_USAGE: u8 = storlab_core::character::SIM_BUFFER_MAX_USAGE;

mod page_table;
mod writing;

const EMPTY: u32 = u32::MAX;

/// Frames past the hand looked at to guess the next victim (two cache lines of frames).
const VICTIM_LOOKAHEAD: usize = 16;

/// What one access did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// The page was in the cache.
    pub hit: bool,
    /// A dirty page was evicted to make room: the session writes it before its read.
    pub evicted_dirty: Option<u64>,
    /// Oracle: no free buffer within the scan limit (every one looked at is being written or
    /// went to the write list); the page was not loaded. Only [`BufferCache::access_or_wait`].
    pub no_free: bool,
}

/// One buffer frame: the page it holds and its usage count, in 8 bytes so an access touches
/// one cache line and the frames stay small. Dirty flags are a bitmap beside the frames.
#[derive(Debug, Clone, Copy)]
struct Frame {
    page: u32,
    usage: u8,
}

/// A fixed number of frames over a page space of `pages` page numbers (0 to pages - 1). The
/// page table maps the cached pages to their frames ([`page_table`]).
///
/// Dirty flags are one bit per frame: the background writer looks for the few dirty frames
/// among many (a few percent of a large cache between its rounds) 64 frames at a time.
#[derive(Debug, Clone)]
pub struct BufferCache {
    frames: Vec<Frame>,
    dirty: Vec<u64>,
    table: page_table::PageTable,
    pages: u64,
    hand: usize,
    dirty_count: usize,
    /// Frames the hand has passed, in all.
    swept: u64,
    /// Oracle: the sweep moves a dirty buffer at usage zero to the write list and goes on
    /// for a clean one, skipping at most this many dirty ones (0: it takes the dirty one).
    skip_dirty_frames: usize,
    /// Pages the sweep moved to the write list, for the database writer.
    write_list: Vec<u64>,
    /// Oracle: one bit per frame whose buffer is on the write list or being written: not
    /// reusable until its write completes ([`writing`]).
    writing: Vec<u64>,
    writing_count: usize,
}

impl BufferCache {
    /// A cache of `frames` frames (at least one) over pages 0 to `pages` - 1.
    pub fn new(frames: usize, pages: u64) -> Self {
        assert!(
            pages < EMPTY as u64,
            "a page space of {pages} pages is too large"
        );
        let empty = Frame {
            page: EMPTY,
            usage: 0,
        };
        let frames = frames.max(1);
        BufferCache {
            frames: crate::cache::huge_table(frames, empty),
            dirty: vec![0; frames.div_ceil(64)],
            table: page_table::PageTable::new(frames, pages),
            pages,
            hand: 0,
            dirty_count: 0,
            swept: 0,
            skip_dirty_frames: 0,
            write_list: Vec::new(),
            writing: Vec::new(),
            writing_count: 0,
        }
    }

    /// Number of frames.
    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// Frames the clock hand has passed since the cache was made (each look at a frame
    /// while sweeping for a victim counts one).
    pub fn swept(&self) -> u64 {
        self.swept
    }

    /// Oracle's foreground sweep: a dirty buffer at the cold end goes to the write list and
    /// the sweep goes on for a clean one, skipping at most `pct` percent of the frames; past
    /// that it takes the dirty one (the session writes it: a free buffer wait).
    /// Buffers handed to the writer are pinned until their writes complete
    /// ([`BufferCache::written`]).
    pub fn skip_dirty_victims(&mut self, pct: u64) {
        self.skip_dirty_frames = (self.frames.len() as u64 * pct / 100) as usize;
        self.writing = vec![0; self.frames.len().div_ceil(64)];
    }

    /// Takes the pages the sweep moved to the write list (they are clean now; their writes
    /// are the caller's).
    pub fn take_write_list(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.write_list)
    }

    /// Number of dirty frames.
    pub fn dirty(&self) -> usize {
        self.dirty_count
    }

    fn is_dirty(&self, f: usize) -> bool {
        self.dirty[f / 64] >> (f % 64) & 1 != 0
    }

    fn set_dirty(&mut self, f: usize, dirty: bool) {
        let bit = 1u64 << (f % 64);
        if dirty {
            self.dirty[f / 64] |= bit;
        } else {
            self.dirty[f / 64] &= !bit;
        }
    }

    /// Whether `page` is cached.
    pub fn contains(&self, page: u64) -> bool {
        self.frame_of(page).is_some()
    }

    /// The frame holding `page`, if it is in the page space and cached.
    #[inline]
    fn frame_of(&self, page: u64) -> Option<u32> {
        (page < self.pages)
            .then(|| self.table.get(page as u32))
            .flatten()
    }

    /// Starts loading the page-table entry of `page`. A hint only.
    #[inline]
    pub fn prefetch_entry(&self, page: u64) {
        if page < self.pages {
            self.table.prefetch(page as u32);
        }
    }

    /// Starts loading the frame of `page`, which an access made a little later touches, and
    /// says whether the page is cached now. A hint: changes nothing.
    #[inline]
    pub fn prefetch(&self, page: u64) -> bool {
        match self.frame_of(page) {
            Some(f) => {
                crate::cache::prefetch_line(&self.frames[f as usize]);
                true
            }
            None => false,
        }
    }

    /// Reads (`write = false`) or modifies (`write = true`) `page`, loading it on a miss.
    /// Panics when `page` is outside the page space.
    ///
    /// The hit, nearly every access, inlines into the caller; the load is out of line.
    #[inline(always)]
    pub fn access(&mut self, page: u64, write: bool) -> Access {
        self.access_in(page, write, false)
    }

    /// [`BufferCache::access`] by a session that can wait for a free buffer (Oracle): past
    /// the scan limit it gets no buffer (`no_free`) rather than a dirty one to write.
    #[inline(always)]
    pub fn access_or_wait(&mut self, page: u64, write: bool) -> Access {
        self.access_in(page, write, true)
    }

    #[inline(always)]
    fn access_in(&mut self, page: u64, write: bool, may_wait: bool) -> Access {
        assert!(
            page < self.pages,
            "page {page} outside a page space of {}",
            self.pages
        );
        if let Some(f) = self.table.get(page as u32) {
            let fr = &mut self.frames[f as usize];
            fr.usage = (fr.usage + 1).min(MAX_USAGE);
            if write && !self.is_dirty(f as usize) {
                self.set_dirty(f as usize, true);
                self.dirty_count += 1;
            }
            return Access {
                hit: true,
                evicted_dirty: None,
                no_free: false,
            };
        }
        self.load(page, write, may_wait)
    }

    /// A miss of `page`: the clock's victim frame takes it.
    #[inline(never)]
    fn load(&mut self, page: u64, write: bool, may_wait: bool) -> Access {
        let Some(f) = self.victim(may_wait) else {
            return Access {
                hit: false,
                evicted_dirty: None,
                no_free: true,
            };
        };
        let old = self.frames[f];
        let old_dirty = self.is_dirty(f);
        let evicted_dirty = (old.page != EMPTY && old_dirty).then_some(old.page as u64);
        if old.page != EMPTY {
            self.table.remove(old.page);
        }
        if old_dirty {
            self.dirty_count -= 1;
        }
        self.frames[f] = Frame {
            page: page as u32,
            usage: 1,
        };
        self.set_dirty(f, write);
        self.dirty_count += usize::from(write);
        self.table.insert(page as u32, f as u32);
        // The next miss most likely evicts the first frame from the hand that is empty or
        // has usage zero now: start loading its page's table entry, which that eviction
        // removes, so the removal does not wait for memory. A hint only.
        let next = self.frames[self.likely_victim()].page;
        if next != EMPTY {
            self.table.prefetch(next);
        }
        Access {
            hit: false,
            evicted_dirty,
            no_free: false,
        }
    }

    /// The frame the next sweep takes if no access comes first: the first one from the hand
    /// that is empty or at usage zero, looking at most `VICTIM_LOOKAHEAD` frames (beyond
    /// that, the one under the hand). Reads only.
    fn likely_victim(&self) -> usize {
        let n = self.frames.len();
        let mut f = self.hand;
        for _ in 0..VICTIM_LOOKAHEAD.min(n) {
            let fr = &self.frames[f];
            if fr.page == EMPTY || fr.usage == 0 {
                return f;
            }
            f += 1;
            if f == n {
                f = 0;
            }
        }
        self.hand
    }

    /// Sweeps the hand to the first frame with usage zero (an empty frame is taken at once).
    /// Oracle: a buffer being written is passed over and a dirty one at usage zero goes to
    /// the write list, at most `skip_dirty_frames` of them in all; past that a session that
    /// can wait gets none, others take the dirty buffer (or, all being written, any).
    fn victim(&mut self, may_wait: bool) -> Option<usize> {
        let n = self.frames.len();
        let limit = self.skip_dirty_frames;
        let (mut skipped, mut looked) = (0, 0);
        loop {
            let f = self.hand;
            self.hand += 1;
            self.swept += 1;
            looked += 1;
            if self.hand == n {
                self.hand = 0;
            }
            if limit > 0 && self.is_writing(f) {
                if skipped >= limit && may_wait {
                    return None;
                }
                skipped += 1;
                if looked > 2 * n {
                    self.set_writing(f, false);
                    return Some(f);
                }
                continue;
            }
            let fr = &mut self.frames[f];
            if fr.page == EMPTY || fr.usage == 0 {
                if limit > 0 && self.dirty[f / 64] >> (f % 64) & 1 != 0 {
                    if skipped < limit {
                        skipped += 1;
                        let page = u64::from(fr.page);
                        self.set_dirty(f, false);
                        self.dirty_count -= 1;
                        self.set_writing(f, true);
                        self.write_list.push(page);
                        continue;
                    }
                    if may_wait {
                        return None;
                    }
                }
                return Some(f);
            }
            fr.usage -= 1;
        }
    }

    /// The background writer: cleans up to `max` dirty frames among the next `lookahead`
    /// frames from the hand (the ones likely to be evicted soonest) and returns their pages,
    /// which the caller writes asynchronously.
    pub fn clean_ahead(&mut self, lookahead: usize, max: usize) -> Vec<u64> {
        let lookahead = lookahead.min(self.frames.len());
        let mut out = Vec::new();
        self.clean_from_hand(lookahead, 1, max, &mut out);
        out
    }

    /// Oracle's database writer at the cold end: cleans up to `max` dirty frames with usage
    /// zero among the next `window` frames from the hand (the buffers the next sweep takes:
    /// the cold end of the replacement order) and returns their pages. A dirty frame that was
    /// used since the hand last passed it is left dirty, however long ago it was changed,
    /// so that a block changed again and again while in use is written once rather than
    /// after each change.
    pub fn clean_cold_end(&mut self, window: usize, max: usize) -> Vec<u64> {
        let mut out = Vec::new();
        self.clean_from_hand(window.min(self.frames.len()), 0, max, &mut out);
        out
    }

    /// Cleans the dirty frames with usage at most `usage` among the next `lookahead` frames
    /// from the hand (wrapping), in clock order, until `out` holds `max` pages.
    fn clean_from_hand(&mut self, lookahead: usize, usage: u8, max: usize, out: &mut Vec<u64>) {
        let n = self.frames.len();
        let before = out.len();
        // The frames from the hand to the end, then from the start.
        let ahead = lookahead.min(n - self.hand);
        self.clean_frames(self.hand, self.hand + ahead, usage, max, out);
        self.clean_frames(0, lookahead - ahead, usage, max, out);
        self.dirty_count -= out.len() - before;
    }

    /// Cleans the dirty frames of [from, to) with usage at most `usage`, in order, until
    /// `out` holds `max` pages. Only the dirty frames are visited, found 64 at a time.
    fn clean_frames(&mut self, from: usize, to: usize, usage: u8, max: usize, out: &mut Vec<u64>) {
        if from >= to {
            return;
        }
        for w in from / 64..=(to - 1) / 64 {
            if out.len() >= max {
                return;
            }
            let lo = from.max(w * 64) - w * 64;
            let hi = to.min((w + 1) * 64) - w * 64;
            let in_range = crate::cache::bits(lo as u64, hi as u64);
            let mut candidates = self.dirty[w] & in_range;
            while candidates != 0 && out.len() < max {
                let f = w * 64 + candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                if self.frames[f].usage <= usage && !self.is_writing(f) {
                    self.dirty[w] &= !(1 << (f % 64));
                    self.set_writing(f, true);
                    out.push(u64::from(self.frames[f].page));
                }
            }
        }
    }

    /// Whether `page` is cached and dirty (changed since it was last written).
    pub fn dirty_page(&self, page: u64) -> bool {
        self.frame_of(page)
            .is_some_and(|f| self.is_dirty(f as usize))
    }

    /// Cleans `page` when it is cached and dirty (its write is the caller's): true then.
    pub fn clean(&mut self, page: u64) -> bool {
        let Some(f) = self.table.get(page as u32) else {
            return false;
        };
        if !self.is_dirty(f as usize) {
            return false;
        }
        self.set_dirty(f as usize, false);
        self.set_writing(f as usize, true);
        self.dirty_count -= 1;
        true
    }

    /// A checkpoint: cleans every dirty frame and returns their pages in page order (the
    /// order a checkpointer sorts its writes in).
    pub fn checkpoint(&mut self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.dirty_count);
        for (w, word) in self.dirty.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                let f = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                out.push(u64::from(self.frames[f].page));
            }
        }
        for &p in &out {
            if let Some(f) = self.frame_of(p) {
                self.set_writing(f as usize, true);
            }
        }
        self.dirty_count = 0;
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests;
