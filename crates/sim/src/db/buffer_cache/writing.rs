//! Oracle's buffers in the writer's hands: a buffer moved to the write list or handed to the
//! database writer stays pinned until its write completes, so no session can reuse it for
//! another block meanwhile (Oracle Database Concepts, "Database Buffer Cache": DBWR writes
//! cold, dirty buffers so that server processes find clean buffers; a server process that
//! cannot find one within its scan posts DBWR and waits, `free buffer waits`). PostgreSQL's
//! cache pins nothing: its bitmap is empty.

use super::BufferCache;

impl BufferCache {
    /// Whether frame `f`'s buffer is being written (always false without pinning).
    #[inline]
    pub(super) fn is_writing(&self, f: usize) -> bool {
        self.writing
            .get(f / 64)
            .is_some_and(|w| w >> (f % 64) & 1 != 0)
    }

    /// Pins (`true`) or releases frame `f`'s buffer; nothing without pinning.
    pub(super) fn set_writing(&mut self, f: usize, on: bool) {
        let Some(word) = self.writing.get_mut(f / 64) else {
            return;
        };
        let bit = 1u64 << (f % 64);
        if on && *word & bit == 0 {
            *word |= bit;
            self.writing_count += 1;
        } else if !on && *word & bit != 0 {
            *word &= !bit;
            self.writing_count -= 1;
        }
    }

    /// The write of `blocks` pages from `first` completed: their buffers are free for reuse
    /// (those still dirty, changed again meanwhile, stay in the cache as dirty buffers).
    /// Returns how many buffers it released.
    pub fn written(&mut self, first: u64, blocks: u64) -> usize {
        let before = self.writing_count;
        for page in first..first.saturating_add(blocks) {
            if let Some(f) = self.frame_of(page) {
                self.set_writing(f as usize, false);
            }
        }
        before - self.writing_count
    }

    /// Buffers pinned for the writer now.
    pub fn writing(&self) -> usize {
        self.writing_count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer on the write list is not reused until its write completes: with every
    /// buffer dirty and cold, a session that can wait gets none; once the writes complete
    /// the sweep takes the written buffers.
    #[test]
    fn a_buffer_being_written_is_not_reused_until_its_write_completes() {
        let frames = 10usize;
        let mut c = BufferCache::new(frames, 1_000);
        c.skip_dirty_victims(40);
        for p in 0..frames as u64 {
            c.access(p, true);
        }
        // The sweep moves four dirty buffers (40%) to the write list and finds no free one.
        let a = c.access_or_wait(100, false);
        assert!(a.no_free && !a.hit);
        assert!(!c.contains(100));
        assert_eq!(c.take_write_list(), vec![0, 1, 2, 3]);
        assert_eq!(c.writing(), 4);
        // Looking again passes over the four pinned buffers: still none free.
        assert!(c.access_or_wait(100, false).no_free);
        // Their write completes: the next sweep takes one of them, clean.
        assert_eq!(c.written(0, 4), 4);
        let a = c.access_or_wait(100, false);
        assert!(!a.no_free && a.evicted_dirty.is_none());
        assert!(c.contains(100));
        // A session that cannot wait takes a dirty buffer past the limit instead.
        let mut c = BufferCache::new(frames, 1_000);
        c.skip_dirty_victims(40);
        for p in 0..frames as u64 {
            c.access(p, true);
        }
        assert_eq!(c.access(100, false).evicted_dirty, Some(4));
    }

    /// The writer's cold-end round pins what it takes and passes over what it already has.
    #[test]
    fn the_writer_does_not_take_a_buffer_it_is_writing() {
        let mut c = BufferCache::new(8, 100);
        c.skip_dirty_victims(40);
        for p in 0..8 {
            c.access(p, true);
        }
        c.access(50, false);
        let first = c.clean_cold_end(8, usize::MAX);
        let pinned = c.writing();
        assert_eq!(pinned, first.len() + c.take_write_list().len());
        // Changed again while being written: dirty, but not handed over twice (the
        // cleaning of any dirty buffer at usage one or less finds none to take).
        for &p in &first {
            c.access(p, true);
        }
        assert!(c.clean_ahead(8, usize::MAX).is_empty());
    }
}
