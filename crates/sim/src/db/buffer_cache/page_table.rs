//! The buffer cache's page table: page number -> frame, for the cached pages only.
//!
//! Two forms, chosen by size when the cache is built:
//! - indexed directly by page number, 4 bytes per page of the database: no hashing, and the
//!   choice while that array is at most 4 times the hashed form (a database a few times the
//!   buffer cache);
//! - hashed: open addressing over at least twice as many slots as the cache has frames (a
//!   power of two), so it is never more than half full and never grows; linear probing,
//!   Fibonacci hashing, backward-shift deletion. A slot is 8 bytes, so a 512 MiB cache's
//!   table (65,536 frames) takes 1 MiB and stays in the processor's cache, where the direct
//!   array for case 2's 229 GB database would take 112 MiB and send most lookups to memory.

const EMPTY: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Slot {
    page: u32,
    frame: u32,
}

const FREE: Slot = Slot {
    page: EMPTY,
    frame: 0,
};

#[derive(Clone, Debug)]
pub(super) enum PageTable {
    /// Frame of every page number, `EMPTY` when not cached.
    Direct(Vec<u32>),
    Hashed(Hashed),
}

impl PageTable {
    /// A table for at most `max_len` of the page numbers 0 to `pages` - 1.
    pub fn new(max_len: usize, pages: u64) -> PageTable {
        let hashed_bytes = Hashed::slots_for(max_len) as u64 * std::mem::size_of::<Slot>() as u64;
        if pages.saturating_mul(4) <= 4 * hashed_bytes {
            PageTable::direct(pages)
        } else {
            PageTable::Hashed(Hashed::new(max_len))
        }
    }

    fn direct(pages: u64) -> PageTable {
        PageTable::Direct(crate::cache::huge_table(pages as usize, EMPTY))
    }

    /// The frame holding `page` (a page number below the table's page count).
    #[inline]
    pub fn get(&self, page: u32) -> Option<u32> {
        match self {
            PageTable::Direct(frames) => Some(frames[page as usize]).filter(|&f| f != EMPTY),
            PageTable::Hashed(h) => h.get(page),
        }
    }

    /// Starts loading the entry a lookup of `page` reads first. A hint only.
    #[inline]
    pub fn prefetch(&self, page: u32) {
        match self {
            PageTable::Direct(frames) => crate::cache::prefetch_line(&frames[page as usize]),
            PageTable::Hashed(h) => h.prefetch(page),
        }
    }

    /// Records that `frame` holds `page`, which the table must not hold.
    #[inline]
    pub fn insert(&mut self, page: u32, frame: u32) {
        match self {
            PageTable::Direct(frames) => {
                assert_eq!(
                    frames[page as usize], EMPTY,
                    "page {page} is already cached"
                );
                frames[page as usize] = frame;
            }
            PageTable::Hashed(h) => h.insert(page, frame),
        }
    }

    /// Forgets `page` (which the table must hold).
    #[inline]
    pub fn remove(&mut self, page: u32) {
        match self {
            PageTable::Direct(frames) => {
                assert_ne!(frames[page as usize], EMPTY, "page {page} is not cached");
                frames[page as usize] = EMPTY;
            }
            PageTable::Hashed(h) => h.remove(page),
        }
    }
}

/// The hashed form of [`PageTable`].
#[derive(Clone, Debug)]
pub(super) struct Hashed {
    slots: Vec<Slot>,
    shift: u32,
    len: usize,
    max_len: usize,
}

impl Hashed {
    fn slots_for(max_len: usize) -> usize {
        (2 * max_len.max(1)).next_power_of_two().max(2)
    }

    /// A table for at most `max_len` pages (at least one).
    fn new(max_len: usize) -> Hashed {
        let slots = Hashed::slots_for(max_len);
        Hashed {
            slots: crate::cache::huge_table(slots, FREE),
            shift: 64 - slots.trailing_zeros(),
            len: 0,
            max_len: max_len.max(1),
        }
    }

    #[inline]
    fn home(&self, page: u32) -> usize {
        crate::cache::fibonacci_home(u64::from(page), self.shift)
    }

    /// The slot holding `page`, or the free slot ending its probe sequence.
    #[inline]
    fn find(&self, page: u32) -> (usize, bool) {
        debug_assert!(page != EMPTY);
        crate::cache::probe_slots(&self.slots, self.home(page), |s| {
            (s.page == page, s.page == EMPTY)
        })
    }

    #[inline]
    fn get(&self, page: u32) -> Option<u32> {
        match self.find(page) {
            (i, true) => Some(self.slots[i].frame),
            _ => None,
        }
    }

    #[inline]
    fn prefetch(&self, page: u32) {
        crate::cache::prefetch_line(&self.slots[self.home(page)]);
    }

    /// # Panics
    /// When `page` is already there, or the table holds as many pages as it was made for.
    #[inline]
    fn insert(&mut self, page: u32, frame: u32) {
        let (i, found) = self.find(page);
        assert!(!found, "page {page} is already cached");
        assert!(self.len < self.max_len, "page table full");
        self.slots[i] = Slot { page, frame };
        self.len += 1;
    }

    #[inline]
    fn remove(&mut self, page: u32) {
        let (hole, found) = self.find(page);
        assert!(found, "page {page} is not cached");
        self.len -= 1;
        let shift = self.shift;
        crate::cache::remove_and_shift_back(&mut self.slots, hole, FREE, |s| {
            (s.page != EMPTY).then(|| crate::cache::fibonacci_home(u64::from(s.page), shift))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Random inserts and removes on both forms against std's map; the hashed tables are
    /// small enough that probe sequences wrap around their end and deletions shift entries
    /// back across it.
    #[test]
    fn both_forms_match_a_reference_map() {
        let mut rng = Rng::from_seed(9);
        for (max_len, hashed) in [1usize, 3, 16, 100]
            .into_iter()
            .flat_map(|n| [(n, false), (n, true)])
        {
            let pages = 4 * max_len as u64 + 3;
            let mut t = if hashed {
                PageTable::Hashed(Hashed::new(max_len))
            } else {
                PageTable::direct(pages)
            };
            let mut len = 0;
            let mut reference = std::collections::HashMap::new();
            for step in 0..20_000u32 {
                let page = rng.below(pages) as u32;
                match reference.get(&page) {
                    Some(&frame) => {
                        assert_eq!(t.get(page), Some(frame), "step {step}");
                        if rng.below(2) == 0 {
                            t.remove(page);
                            reference.remove(&page);
                            len -= 1;
                        }
                    }
                    None => {
                        assert_eq!(t.get(page), None, "step {step}");
                        if reference.len() < max_len {
                            t.insert(page, step);
                            reference.insert(page, step);
                            len += 1;
                        }
                    }
                }
                if let PageTable::Hashed(h) = &t {
                    assert_eq!(h.len, len, "step {step}");
                }
            }
            for (&page, &frame) in &reference {
                assert_eq!(t.get(page), Some(frame));
            }
        }
    }

    #[test]
    fn the_direct_form_serves_databases_a_few_times_the_cache() {
        // 65,536 frames: 131,072 slots of 8 bytes (1 MiB) hashed.
        assert!(matches!(
            PageTable::new(65_536, 1 << 20),
            PageTable::Direct(_)
        ));
        assert!(matches!(
            PageTable::new(65_536, (1 << 20) + 1),
            PageTable::Hashed(_)
        ));
        // Case 2's 229 GB database under a 512 MiB cache.
        assert!(matches!(
            PageTable::new(65_536, 28_000_000),
            PageTable::Hashed(_)
        ));
    }

    #[test]
    #[should_panic(expected = "page table full")]
    fn refuses_more_pages_than_it_was_made_for() {
        let mut t = Hashed::new(2);
        t.insert(1, 0);
        t.insert(2, 1);
        t.insert(3, 2);
    }
}
