//! The order in which pages became dirty, for write caches that destage the oldest dirty
//! data first (least recently written) rather than sweeping addresses.

use std::collections::{BTreeSet, VecDeque};

use super::DirtyPages;

/// Pages of one group in the order they became dirty (or dirty again after a destage that
/// left them rewritten). Entries of pages cleaned meanwhile are skipped when they reach the
/// front; the queue never holds more than twice the group's pages plus a few.
#[derive(Clone, Debug, Default)]
pub struct WriteOrder {
    queue: VecDeque<u64>,
}

impl WriteOrder {
    /// Notes that `page` became dirty now.
    pub fn note(&mut self, page: u64, dirty: &DirtyPages) {
        self.queue.push_back(page);
        if self.queue.len() > 2 * dirty.len() + 64 {
            self.compact(dirty);
        }
    }

    /// The oldest dirty page not on its way to disk, if any. Entries in front of it (pages
    /// cleaned or being destaged since) are dropped.
    pub fn oldest(&mut self, dirty: &DirtyPages) -> Option<u64> {
        while let Some(&page) = self.queue.front() {
            if dirty.peek_run(page, 1) == Some((page, 1)) {
                return Some(page);
            }
            self.queue.pop_front();
        }
        None
    }

    /// Keeps the first entry of each page still dirty, in order.
    #[cold]
    fn compact(&mut self, dirty: &DirtyPages) {
        let mut seen = BTreeSet::new();
        self.queue.retain(|&p| dirty.contains(p) && seen.insert(p));
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True when no entry is held.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_idle_dirty_page_comes_first_whatever_its_address() {
        let mut d = DirtyPages::new(1 << 20);
        let mut o = WriteOrder::default();
        for p in [900, 5, 400] {
            d.write(p, p + 1);
            o.note(p, &d);
        }
        assert_eq!(o.oldest(&d), Some(900));
        // Page 900 goes to disk: the next oldest is 5, though 400 follows 900 in address.
        assert_eq!(d.take_run(900, 1), Some((900, 1)));
        assert_eq!(o.oldest(&d), Some(5));
        // Written again during its destage, 900 stays dirty and is noted again: newest.
        d.write(900, 901);
        assert_eq!(d.destaged(900, 1), 0);
        o.note(900, &d);
        d.take_run(5, 1);
        d.destaged(5, 1);
        assert_eq!(o.oldest(&d), Some(400));
        d.take_run(400, 1);
        assert_eq!(o.oldest(&d), Some(900));
    }

    #[test]
    fn entries_of_cleaned_pages_never_pile_up() {
        let mut d = DirtyPages::new(1 << 20);
        let mut o = WriteOrder::default();
        for p in 0..10_000u64 {
            let page = p * 7 % 5_000;
            if d.write(page, page + 1) == 1 {
                o.note(page, &d);
                assert!(
                    o.len() <= 2 * d.len() + 64,
                    "{} entries, {} dirty",
                    o.len(),
                    d.len()
                );
            }
            // Destaged from elsewhere (a run from the address cursor): the entry stays.
            if p % 2 == 0 {
                let q = (p * 13) % 5_000;
                if d.take_run(q, 1) == Some((q, 1)) {
                    d.destaged(q, 1);
                }
            }
        }
    }
}
