//! Controller caches: an LRU read cache of fixed-size segments (allocated one by one or in
//! slots of several), and the dirty-page table of the battery-backed write cache (NVS).
//!
//! The read cache is keyed by (group, segment): 32 bits when every group's segments fit beside
//! the group index, else the 64-bit page key (group index in the top 16 bits, page number
//! below); the fetches in flight by the page key. Memory is bounded by the configured cache
//! sizes, never by the run length. Nothing here iterates a hash map, so hash order cannot leak
//! into results.

use std::collections::HashMap;

mod age;
mod dirty;
mod lru;
mod slots;
mod wordmap;
pub use age::WriteOrder;
pub use dirty::DirtyPages;
pub use lru::{LruCache, SegmentCache};
pub use slots::ReadCache;
use std::hash::{BuildHasherDefault, Hasher};
pub(crate) use wordmap::WordMap;
pub(crate) use wordmap::{
    fibonacci_home, huge_table, prefetch_line, probe_slots, remove_and_shift_back,
};

/// Multiplicative hasher for u64 keys (keys are dense integers; no DoS concern in a simulator).
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(5) ^ *b as u64).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
        }
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
}

/// A hash map of u32 keys with the fast key hasher (smaller buckets, better cache use).
pub type KeyMap32<V> = HashMap<u32, V, BuildHasherDefault<KeyHasher>>;

/// Bits `lo..hi` (hi <= 64) of a word.
#[inline]
pub(crate) fn bits(lo: u64, hi: u64) -> u64 {
    debug_assert!(lo < hi && hi <= 64);
    (!0u64 >> (64 - (hi - lo))) << lo
}

/// Page key: group in the top 16 bits, page number below.
#[inline]
pub fn page_key(group: u32, page: u64) -> u64 {
    debug_assert!(page < 1 << 48);
    ((group as u64) << 48) | page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirty_runs_sweep_in_order_and_respect_boundaries() {
        let mut d = DirtyPages::new(1 << 20);
        for p in [3, 4, 5, 6, 9, 17] {
            assert_eq!(d.write(p, p + 1), 1);
        }
        assert_eq!(d.write(4, 5), 0);
        assert_eq!(d.take_run(0, 8), Some((3, 4)));
        assert_eq!(d.take_run(0, 8), Some((9, 1)));
        assert_eq!(d.take_run(10, 8), Some((17, 1)));
        assert_eq!(d.take_run(0, 8), None);
        // Page 5 is rewritten during its destage: it stays dirty.
        assert_eq!(d.write(5, 6), 0);
        assert_eq!(d.destaged(3, 4), 3);
        assert!(d.contains(5) && !d.contains(3));
        assert_eq!(d.take_run(0, 8), Some((5, 1)));
    }

    #[test]
    fn a_write_through_cleans_idle_pages_and_unflags_rewritten_destaging_ones() {
        let mut d = DirtyPages::new(1 << 20);
        assert_eq!(d.write(0, 10), 10);
        assert_eq!(d.write(100, 102), 2);
        // Pages 0..4 go to disk; 2 and 3 are written again meanwhile (they would stay dirty).
        assert_eq!(d.take_run(0, 4), Some((0, 4)));
        assert_eq!(d.write(2, 4), 0);
        // A write-through of pages 2..8: 4..8 are idle and become clean; 2..4 are on their
        // way to disk, so they stay until their destage, and no longer stay after it.
        assert_eq!(d.clean_idle(2, 8), 4);
        assert_eq!(d.len(), 8);
        assert!(d.contains(3) && !d.contains(4) && !d.contains(7) && d.contains(8));
        assert_eq!(d.destaged(0, 4), 4);
        assert_eq!(d.len(), 4);
        // What is left is 8, 9, 100 and 101, found in order.
        assert_eq!(d.take_run(0, 64), Some((8, 2)));
        assert_eq!(d.take_run(0, 1024), Some((100, 2)));
        // Nothing dirty in range: nothing to clean; a whole word cleaned empties it.
        assert_eq!(d.clean_idle(200, 300), 0);
        assert_eq!(d.destaged(8, 2), 2);
        assert_eq!(d.destaged(100, 2), 2);
        assert!(d.is_empty());
        assert_eq!(d.write(64, 128), 64);
        assert_eq!(d.clean_idle(0, 192), 64);
        assert!(d.is_empty());
        assert_eq!(d.take_run(0, 64), None);
    }

    #[test]
    fn a_peeked_run_marked_in_part_leaves_the_rest_idle() {
        let mut d = DirtyPages::new(1 << 20);
        d.write(60, 200);
        assert_eq!(d.peek_run(0, 1024), Some((60, 140)));
        // The first 68 pages (across a word boundary) go; the rest is found next.
        d.mark_destaging(60, 68);
        assert_eq!(d.peek_run(0, 1024), Some((128, 72)));
        assert_eq!(d.take_run(0, 1024), Some((128, 72)));
        assert_eq!(d.peek_run(0, 1024), None);
        assert_eq!(d.destaged(60, 68), 68);
        assert_eq!(d.destaged(128, 72), 72);
        assert!(d.is_empty());
    }

    #[test]
    fn dirty_run_stops_at_boundary_and_wraps() {
        let mut d = DirtyPages::new(1 << 20);
        for p in 6..12 {
            d.write(p, p + 1);
        }
        assert_eq!(d.take_run(7, 8), Some((7, 1)));
        assert_eq!(d.take_run(100, 8), Some((6, 1)));
        assert_eq!(d.take_run(0, 8), Some((8, 4)));
    }

    #[test]
    fn covers_needs_every_page_of_every_word_dirty() {
        let mut d = DirtyPages::new(1 << 20);
        assert!(!d.covers(0, 1));
        // Pages 60..200 span words 0 to 3.
        d.write(60, 200);
        assert!(d.covers(60, 200) && d.covers(64, 128) && d.covers(199, 200));
        assert!(!d.covers(59, 200) && !d.covers(60, 201));
        // Word 1 (pages 64..128) loses one page, then all of them: its summary bit clears.
        d.clean_idle(100, 101);
        assert!(!d.covers(60, 200) && d.covers(60, 100) && d.covers(101, 200));
        d.clean_idle(64, 128);
        assert!(!d.covers(60, 200) && !d.covers(64, 65));
        assert!(d.covers(60, 64) && d.covers(128, 200));
    }

    #[test]
    fn dirty_pages_match_a_sorted_set_model() {
        use std::collections::BTreeSet;
        let cap = 1 << 22;
        let mut d = DirtyPages::new(cap);
        let mut model = BTreeSet::new();
        let mut x = 99u64;
        let mut cursor = 0;
        for i in 0..50_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let p = (x >> 20) % cap;
            assert_eq!(d.write(p, p + 1) == 1, model.insert(p));
            // Ranges around a dirty page, inside one word and across words.
            let (lo, hi) = (p.saturating_sub(x % 3), p + 1 + (x >> 8) % 70);
            let all = (lo..hi).all(|q| model.contains(&q));
            assert_eq!(d.covers(lo, hi), all, "covers {lo}..{hi}");
            assert!(d.covers(p, p + 1));
            if i % 7 == 0 {
                // A write-through over a range: every dirty page in it is idle here.
                let (lo, hi) = (p.saturating_sub(x % 300), p + x % 200);
                let gone: Vec<u64> = model.range(lo..hi).copied().collect();
                assert_eq!(d.clean_idle(lo, hi), gone.len() as u64);
                for q in gone {
                    model.remove(&q);
                }
            }
            if i % 3 == 0 {
                let want = model
                    .range(cursor..)
                    .next()
                    .or(model.iter().next())
                    .copied();
                let peeked = d.peek_run(cursor, 16);
                let got = d.take_run(cursor, 16);
                assert_eq!(peeked, got, "peek_run finds the run take_run takes");
                assert_eq!(got.map(|g| g.0), want);
                if let Some((first, n)) = got {
                    for q in first..first + n {
                        assert!(model.remove(&q));
                    }
                    assert_eq!(d.destaged(first, n), n);
                    cursor = first + n;
                }
            }
            assert_eq!(d.len(), model.len());
        }
    }

    #[test]
    fn pages_rewritten_while_destaging_match_a_set_model() {
        use std::collections::{BTreeSet, VecDeque};
        let cap = 1 << 13;
        let mut d = DirtyPages::new(cap);
        let (mut dirty, mut destaging, mut again) =
            (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        let mut inflight = VecDeque::new();
        let mut x = 7u64;
        let mut cursor = 0;
        for i in 0..40_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let p = (x >> 24) % cap;
            match i % 5 {
                0 | 1 => {
                    assert_eq!(d.write(p, p + 1) == 1, dirty.insert(p), "write {p}");
                    if destaging.contains(&p) {
                        again.insert(p);
                    }
                }
                2 if inflight.len() < 40 => {
                    let want = dirty
                        .difference(&destaging)
                        .find(|&&q| q >= cursor)
                        .or(dirty.difference(&destaging).next())
                        .copied();
                    let got = d.take_run(cursor, 8 << (x % 3));
                    assert_eq!(got.map(|g| g.0), want, "run from {cursor}");
                    if let Some((first, n)) = got {
                        for q in first..first + n {
                            assert!(dirty.contains(&q) && destaging.insert(q));
                        }
                        inflight.push_back((first, n));
                        cursor = first + n;
                    }
                }
                3 if x.is_multiple_of(11) => {
                    // A write-through: idle pages clean, destaging ones no longer stay.
                    let (lo, hi) = (p, (p + x % 90).min(cap));
                    let idle: Vec<u64> = dirty
                        .range(lo..hi)
                        .filter(|q| !destaging.contains(q))
                        .copied()
                        .collect();
                    assert_eq!(d.clean_idle(lo, hi), idle.len() as u64);
                    for q in idle {
                        dirty.remove(&q);
                    }
                    again.retain(|q| !(lo..hi).contains(q));
                }
                _ => {
                    if let Some((first, n)) = inflight.pop_front() {
                        let mut freed = 0;
                        for q in first..first + n {
                            destaging.remove(&q);
                            if !again.remove(&q) {
                                dirty.remove(&q);
                                freed += 1;
                            }
                        }
                        assert_eq!(d.destaged(first, n), freed, "destaged {first}+{n}");
                    }
                }
            }
            assert_eq!(d.len(), dirty.len());
            assert_eq!(d.idle_len(), dirty.len() - destaging.len());
            assert!(d.contains(p) == dirty.contains(&p));
        }
    }
}
