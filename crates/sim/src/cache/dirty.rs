//! The dirty-page table of one RAID group's write cache, findable in address order.
//!
//! Membership is a sparse bitmap: a hash map from 64-page word (u32 index) to its dirty bits,
//! with three dense summary levels above it (one bit per non-empty word, one bit per
//! non-empty summary word, and one per non-empty word of those), so "next dirty page at or
//! after X" is a few bit scans, however sparse the dirty pages of a large group, and marking a
//! page dirty one lookup. Words with pages being destaged keep their destaging and written-again
//! bits in a second, small map (bounded by the destage queue), which keeps the big map at 16
//! bytes an entry and inside the processor caches for longer. Beside each first-level summary
//! word sits a word with one bit per table word that has an entry in that small map: writing
//! or scanning a word without one (most of them) needs no lookup there, and the bit shares
//! the summary's cache line.

use std::collections::hash_map::Entry;

use super::wordmap::{prefetch_line, WordMap};
use super::{bits, KeyMap32};

/// Index in a [`Summary`] of the non-empty bits and of the busy bits.
const NON_EMPTY: usize = 0;
const BUSY: usize = 1;

/// One first-level summary entry for 64 table words: which hold a dirty page
/// ([`NON_EMPTY`]) and which have pages being destaged ([`BUSY`]).
type Summary = [u64; 2];

/// Destaging and written-again bits of a word with a destage in flight.
#[derive(Clone, Copy, Debug, Default)]
struct Busy {
    destaging: u64,
    redirtied: u64,
}

/// Dirty pages of one RAID group.
#[derive(Clone, Debug)]
pub struct DirtyPages {
    words: WordMap,
    busy: KeyMap32<Busy>,
    level1: Vec<Summary>,
    upper: Upper,
    count: usize,
    /// Pages with a destage in flight (the rest of `count` is idle).
    destaging: usize,
}

/// The summary levels above the first: one bit per non-empty first-level word
/// (`level2`), and one bit per non-empty `level2` word (`level3`).
#[derive(Clone, Debug)]
struct Upper {
    level2: Vec<u64>,
    level3: Vec<u64>,
}

impl DirtyPages {
    /// Pages of the largest group: 2^32 - 1 words of 64, so the last word's index (2^32 - 2)
    /// stays clear of the word map's empty key (`u32::MAX`).
    pub const MAX_PAGES: u64 = (u32::MAX as u64) * 64;

    /// An empty table for a group of `capacity_pages` pages (at most [`Self::MAX_PAGES`]).
    pub fn new(capacity_pages: u64) -> DirtyPages {
        assert!(
            capacity_pages <= Self::MAX_PAGES,
            "a group of {capacity_pages} pages is too large"
        );
        let words = capacity_pages.div_ceil(64);
        let l1 = words.div_ceil(64) as usize;
        let l2 = l1.div_ceil(64);
        DirtyPages {
            words: WordMap::default(),
            busy: KeyMap32::default(),
            level1: vec![[0; 2]; l1],
            upper: Upper {
                level2: vec![0; l2],
                level3: vec![0; l2.div_ceil(64)],
            },
            count: 0,
            destaging: 0,
        }
    }

    /// Dirty pages held (destaging ones included).
    pub fn len(&self) -> usize {
        self.count
    }

    /// Dirty pages not being destaged.
    pub fn idle_len(&self) -> usize {
        self.count - self.destaging
    }

    /// True when nothing is dirty.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    #[inline]
    fn dirty_word(&self, w: u64) -> u64 {
        self.words.get(w as u32)
    }

    /// True when `page` is dirty.
    #[inline]
    pub fn contains(&self, page: u64) -> bool {
        self.dirty_word(page >> 6) & (1 << (page & 63)) != 0
    }

    /// Starts loading the table entry and summary word of `page` into the processor cache
    /// (a hint: no change).
    #[inline]
    pub fn prefetch(&self, page: u64) {
        let w = page >> 6;
        self.words.prefetch(w as u32);
        if let Some(summary) = self.level1.get((w >> 6) as usize) {
            prefetch_line(summary);
        }
    }

    /// Starts loading the summary word of `page`, all a read's [`DirtyPages::covers`] needs
    /// when the page's word is empty, as it mostly is: a hint, no change.
    #[inline]
    pub fn prefetch_summary(&self, page: u64) {
        if let Some(summary) = self.level1.get((page >> 12) as usize) {
            prefetch_line(summary);
        }
    }

    /// True when word `w` holds a dirty page (its summary bit: no table lookup). Words past
    /// the group's end (a read segment overhanging it) hold none.
    #[inline]
    fn has_word(&self, w: u64) -> bool {
        self.level1
            .get((w >> 6) as usize)
            .is_some_and(|l1| l1[NON_EMPTY] >> (w & 63) & 1 != 0)
    }

    /// True when word `w` has an entry in the map of words being destaged.
    #[inline]
    fn is_busy(&self, w: u64) -> bool {
        self.level1[(w >> 6) as usize][BUSY] >> (w & 63) & 1 != 0
    }

    fn set_busy(&mut self, w: u64, busy: bool) {
        let b = &mut self.level1[(w >> 6) as usize][BUSY];
        if busy {
            *b |= 1 << (w & 63);
        } else {
            *b &= !(1u64 << (w & 63));
        }
    }

    /// Starts loading the table entries of pages [first, first+count) (a destage about to
    /// complete), a hint that changes nothing.
    #[inline]
    pub fn prefetch_run(&self, first: u64, count: u64) {
        for w in first >> 6..=(first + count - 1) >> 6 {
            self.words.prefetch(w as u32);
        }
    }

    /// Calls `f(word index, mask)` for each word overlapping pages [first, end).
    #[inline]
    fn for_words(first: u64, end: u64, mut f: impl FnMut(u64, u64)) {
        let mut p = first;
        while p < end {
            let w = p >> 6;
            let hi = end.min((w + 1) << 6);
            f(w, bits(p & 63, hi - (w << 6)));
            p = hi;
        }
    }

    /// True when every page of [first, end) is dirty.
    pub fn covers(&self, first: u64, end: u64) -> bool {
        // An empty word (its summary bit clear) settles it without a table lookup.
        let mut all = true;
        Self::for_words(first, end, |w, _| all &= self.has_word(w));
        if !all {
            return false;
        }
        Self::for_words(first, end, |w, mask| {
            all &= self.dirty_word(w) & mask == mask
        });
        all
    }

    /// Pages of [first, end) that are not dirty (what writing them would add).
    pub fn count_clean(&self, first: u64, end: u64) -> u64 {
        let mut clean = 0;
        Self::for_words(first, end, |w, mask| {
            clean += (mask & !self.dirty_word(w)).count_ones() as u64
        });
        clean
    }

    fn mark_summary(level1: &mut [Summary], upper: &mut Upper, w: u64) {
        level1[(w >> 6) as usize][NON_EMPTY] |= 1 << (w & 63);
        let i2 = w >> 12;
        upper.level2[i2 as usize] |= 1 << ((w >> 6) & 63);
        upper.level3[(i2 >> 6) as usize] |= 1 << (i2 & 63);
    }

    fn clear_summary(level1: &mut [Summary], upper: &mut Upper, w: u64) {
        let l1 = &mut level1[(w >> 6) as usize][NON_EMPTY];
        *l1 &= !(1u64 << (w & 63));
        if *l1 == 0 {
            let i2 = w >> 12;
            let l2 = &mut upper.level2[i2 as usize];
            *l2 &= !(1u64 << ((w >> 6) & 63));
            if *l2 == 0 {
                upper.level3[(i2 >> 6) as usize] &= !(1u64 << (i2 & 63));
            }
        }
    }

    /// Sets `mask` of word `w` dirty; returns the pages added. Pages being destaged are
    /// flagged so they stay dirty after their destage.
    #[inline]
    fn write_word(&mut self, w: u64, mask: u64) -> u64 {
        let (slot, word, found) = self.words.probe(w as u32);
        self.write_probed(w, mask, slot, word, found);
        (mask & !word).count_ones() as u64
    }

    /// Sets `mask` of word `w`, already probed (`slot`, `word`, `found`), dirty.
    #[inline(always)]
    fn write_probed(&mut self, w: u64, mask: u64, slot: usize, word: u64, found: bool) {
        if word == 0 {
            Self::mark_summary(&mut self.level1, &mut self.upper, w);
        }
        self.words.set_at(slot, found, w as u32, word | mask);
        let again = mask & word;
        if again != 0 && self.is_busy(w) {
            if let Some(b) = self.busy.get_mut(&(w as u32)) {
                b.redirtied |= again & b.destaging;
            }
        }
    }

    /// Marks pages [first, end) dirty; returns how many were not dirty before.
    pub fn write(&mut self, first: u64, end: u64) -> u64 {
        let mut added = 0;
        Self::for_words(first, end, |w, mask| added += self.write_word(w, mask));
        self.count += added as usize;
        added
    }

    /// Like [`DirtyPages::write`], but only when at most `budget` pages would be added;
    /// returns None (and changes nothing) otherwise.
    pub fn write_within(&mut self, first: u64, end: u64, budget: u64) -> Option<u64> {
        let w = first >> 6;
        if (end - 1) >> 6 == w {
            // One word: one lookup to decide and update.
            let mask = bits(first & 63, end - (w << 6));
            let (slot, word, found) = self.words.probe(w as u32);
            let added = (mask & !word).count_ones() as u64;
            if added > budget {
                return None;
            }
            self.write_probed(w, mask, slot, word, found);
            self.count += added as usize;
            return Some(added);
        }
        (self.count_clean(first, end) <= budget).then(|| self.write(first, end))
    }

    /// First non-empty word index at or after `from`.
    fn next_word(&self, from: u64) -> Option<u64> {
        let i1 = (from >> 6) as usize;
        let here = self.level1.get(i1)?[NON_EMPTY] & (!0u64 << (from & 63));
        if here != 0 {
            return Some(((i1 as u64) << 6) | here.trailing_zeros() as u64);
        }
        // The first-level word's first non-empty word.
        let first_in = |l1: u64| {
            let non_empty = self.level1[l1 as usize][NON_EMPTY];
            Some((l1 << 6) | non_empty.trailing_zeros() as u64)
        };
        let (level2, level3) = (&self.upper.level2, &self.upper.level3);
        // The rest of this second-level word, then the next non-empty one.
        let start = i1 as u64 + 1;
        let i2 = start >> 6;
        let b = level2.get(i2 as usize)? & (!0u64 << (start & 63));
        if b != 0 {
            return first_in((i2 << 6) | b.trailing_zeros() as u64);
        }
        let start = i2 + 1;
        let mut i3 = (start >> 6) as usize;
        let mut mask = !0u64 << (start & 63);
        while i3 < level3.len() {
            let b = level3[i3] & mask;
            if b != 0 {
                let i2 = ((i3 as u64) << 6) | b.trailing_zeros() as u64;
                let l2 = level2[i2 as usize];
                return first_in((i2 << 6) | l2.trailing_zeros() as u64);
            }
            i3 += 1;
            mask = !0;
        }
        None
    }

    /// Dirty pages of word `w` that are not being destaged.
    #[inline]
    fn idle_bits(&self, w: u64) -> u64 {
        let dirty = self.dirty_word(w);
        if dirty == 0 || !self.is_busy(w) {
            return dirty;
        }
        dirty & !self.busy.get(&(w as u32)).map_or(0, |b| b.destaging)
    }

    /// First page at or after `from` that is dirty and not being destaged.
    fn first_idle_from(&self, from: u64) -> Option<u64> {
        if self.count == self.destaging {
            // Everything dirty is already on its way to disk: no scan.
            return None;
        }
        let mut w = from >> 6;
        if w >= u64::from(u32::MAX) || (w >> 6) as usize >= self.level1.len() {
            // At or past the group's end (a cursor left there by the last page; in the
            // largest group its word is the map's empty key).
            return None;
        }
        let mut mask = !0u64 << (from & 63);
        loop {
            let idle = self.idle_bits(w) & mask;
            if idle != 0 {
                return Some((w << 6) | idle.trailing_zeros() as u64);
            }
            w = self.next_word(w + 1)?;
            mask = !0;
        }
    }

    /// The next run of dirty pages not being destaged, starting at the first such page at or
    /// after `cursor` (wrapping to the start), not crossing `boundary`-page-aligned limits.
    /// Marks the run as destaging and returns (first page, page count).
    pub fn take_run(&mut self, cursor: u64, boundary: u64) -> Option<(u64, u64)> {
        let (first, count) = self.peek_run(cursor, boundary)?;
        self.mark_destaging(first, count);
        // The next run for this group most likely starts in the next dirty word: start
        // loading its slot now, so the lookup then finds it in the processor cache.
        if let Some(w) = self.next_word(((first + count - 1) >> 6) + 1) {
            self.words.prefetch(w as u32);
        }
        Some((first, count))
    }

    /// The run [`DirtyPages::take_run`] would take, without marking it: (first page, page
    /// count). The one scan both use.
    pub fn peek_run(&self, cursor: u64, boundary: u64) -> Option<(u64, u64)> {
        let first = self
            .first_idle_from(cursor)
            .or_else(|| self.first_idle_from(0))?;
        let limit = (first / boundary + 1) * boundary;
        let mut p = first;
        while p < limit {
            let w = p >> 6;
            let lo = p & 63;
            let hi = limit.min((w + 1) << 6) - (w << 6);
            // Consecutive idle pages from p, within this word and the limit.
            let n = (!((self.idle_bits(w) & bits(lo, hi)) >> lo)).trailing_zeros() as u64;
            p += n;
            if n == 0 || lo + n < 64 {
                break;
            }
        }
        Some((first, p - first))
    }

    /// Marks pages [first, first+count), all dirty and idle (part of a run
    /// [`DirtyPages::peek_run`] found), as destaging.
    pub fn mark_destaging(&mut self, first: u64, count: u64) {
        Self::for_words(first, first + count, |w, mask| {
            let b = self.busy.entry(w as u32).or_default();
            debug_assert_eq!(b.destaging & mask, 0, "pages already destaging");
            b.destaging |= mask;
            self.set_busy(w, true);
        });
        self.destaging += count as usize;
    }

    /// A destage of [first, first+count) completed; returns the pages freed. Pages written
    /// again during the destage stay dirty.
    pub fn destaged(&mut self, first: u64, count: u64) -> u64 {
        self.destaging -= count as usize;
        let mut freed = 0;
        Self::for_words(first, first + count, |w, mask| {
            let key = w as u32;
            let Entry::Occupied(mut entry) = self.busy.entry(key) else {
                panic!("destaged word {w} has no destage in flight");
            };
            let b = entry.get_mut();
            debug_assert_eq!(b.destaging & mask, mask, "pages were not being destaged");
            let free = mask & !b.redirtied;
            b.destaging &= !mask;
            b.redirtied &= !mask;
            if b.destaging == 0 {
                entry.remove();
                self.set_busy(w, false);
            }
            let (slot, word, found) = self.words.probe(key);
            assert!(
                word & mask == mask,
                "destaged pages of word {w} are not dirty"
            );
            self.words.set_at(slot, found, key, word & !free);
            freed += free.count_ones() as u64;
            if word & !free == 0 {
                Self::clear_summary(&mut self.level1, &mut self.upper, w);
            }
        });
        self.count -= freed as usize;
        freed
    }

    /// A newer write put pages [first, end) on disk directly (write-through): the dirty ones
    /// not being destaged become clean, and those being destaged no longer stay dirty after
    /// their destage; returns the pages cleaned now.
    pub fn clean_idle(&mut self, first: u64, end: u64) -> u64 {
        let mut cleaned = 0u64;
        Self::for_words(first, end, |w, mask| {
            let key = w as u32;
            let destaging = if self.is_busy(w) {
                self.busy.get_mut(&key).map_or(0, |b| {
                    b.redirtied &= !mask;
                    b.destaging
                })
            } else {
                0
            };
            let (slot, word, found) = self.words.probe(key);
            let idle = word & mask & !destaging;
            if idle == 0 {
                return;
            }
            self.words.set_at(slot, found, key, word & !idle);
            if word & !idle == 0 {
                Self::clear_summary(&mut self.level1, &mut self.upper, w);
            }
            cleaned += idle.count_ones() as u64;
        });
        self.count -= cleaned as usize;
        cleaned
    }

    /// Drops every dirty page that is not being destaged (its data is lost); returns how many.
    /// Order-independent, so iterating the map here cannot leak hash order into results.
    pub fn drop_idle(&mut self) -> u64 {
        let mut dropped = 0u64;
        let entries: Vec<(u32, u64)> = self.words.entries().collect();
        for (w, word) in entries {
            let b = self.busy.get(&w).copied().unwrap_or_default();
            let idle = word & !b.destaging;
            dropped += idle.count_ones() as u64;
            self.words.set(w, word & !idle);
            if word & !idle == 0 {
                Self::clear_summary(&mut self.level1, &mut self.upper, w as u64);
            }
        }
        for b in self.busy.values_mut() {
            b.redirtied &= b.destaging;
        }
        self.count -= dropped as usize;
        dropped
    }
}

#[cfg(test)]
mod tests;
