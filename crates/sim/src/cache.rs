//! Controller caches: an LRU read cache of fixed-size segments, and the dirty-page table of the
//! battery-backed write cache (NVS).
//!
//! The read cache is keyed by a 64-bit page key (group index in the top 16 bits, page number below).
//! Memory is bounded by the configured cache sizes, never by the run length. Nothing here
//! iterates a hash map, so hash order cannot leak into results.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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
}

/// A hash map with the fast key hasher.
pub type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// Page key: group in the top 16 bits, page number below.
#[inline]
pub fn page_key(group: u32, page: u64) -> u64 {
    debug_assert!(page < 1 << 48);
    ((group as u64) << 48) | page
}

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    key: u64,
    prev: u32,
    next: u32,
}

/// Least-recently-used set of segment keys with a fixed capacity.
#[derive(Clone, Debug)]
pub struct LruCache {
    map: KeyMap<u32>,
    nodes: Vec<Node>,
    head: u32,
    tail: u32,
    capacity: usize,
}

impl LruCache {
    /// A cache holding at most `capacity` segments (0 disables it).
    pub fn new(capacity: u64) -> LruCache {
        let capacity = capacity.min(u32::MAX as u64 - 1) as usize;
        LruCache {
            map: KeyMap::default(),
            nodes: Vec::new(),
            head: NIL,
            tail: NIL,
            capacity,
        }
    }

    /// Segments held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// True (and marks it most recently used) when `key` is cached.
    #[inline]
    pub fn touch(&mut self, key: u64) -> bool {
        match self.map.get(&key) {
            Some(&i) => {
                self.unlink(i);
                self.push_front(i);
                true
            }
            None => false,
        }
    }

    /// True when `key` is cached, without changing recency.
    pub fn contains(&self, key: u64) -> bool {
        self.map.contains_key(&key)
    }

    /// Inserts `key` as most recently used, evicting the least recently used when full.
    pub fn insert(&mut self, key: u64) {
        if self.capacity == 0 || self.touch(key) {
            return;
        }
        let i = if self.map.len() >= self.capacity {
            let victim = self.tail;
            self.unlink(victim);
            self.map.remove(&self.nodes[victim as usize].key);
            self.nodes[victim as usize].key = key;
            victim
        } else {
            self.nodes.push(Node {
                key,
                prev: NIL,
                next: NIL,
            });
            (self.nodes.len() - 1) as u32
        };
        self.map.insert(key, i);
        self.push_front(i);
    }

    fn unlink(&mut self, i: u32) {
        let Node { prev, next, .. } = self.nodes[i as usize];
        if prev == NIL {
            self.head = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
    }

    fn push_front(&mut self, i: u32) {
        let old = self.head;
        self.nodes[i as usize].prev = NIL;
        self.nodes[i as usize].next = old;
        if old != NIL {
            self.nodes[old as usize].prev = i;
        }
        self.head = i;
        if self.tail == NIL {
            self.tail = i;
        }
    }
}

/// Dirty, destaging and written-again bits of 64 consecutive pages.
#[derive(Clone, Copy, Debug, Default)]
struct Word {
    dirty: u64,
    destaging: u64,
    redirtied: u64,
}

/// Bits `lo..hi` (hi <= 64) of a word.
#[inline]
fn bits(lo: u64, hi: u64) -> u64 {
    debug_assert!(lo < hi && hi <= 64);
    (!0u64 >> (64 - (hi - lo))) << lo
}

/// Dirty pages of one RAID group, findable in address order so destage can sweep.
///
/// A sparse bitmap: a hash map from 64-page word to the word's dirty, destaging and
/// written-again bits, with two dense summary levels above it (one bit per non-empty word,
/// one bit per non-empty summary word). "Next dirty page at or after X" costs a few bit scans
/// and marking a run of pages dirty one hash lookup per 64 pages.
#[derive(Clone, Debug)]
pub struct DirtyPages {
    words: KeyMap<Word>,
    level1: Vec<u64>,
    level2: Vec<u64>,
    count: usize,
}

impl DirtyPages {
    /// An empty table for a group of `capacity_pages` pages.
    pub fn new(capacity_pages: u64) -> DirtyPages {
        let words = capacity_pages.div_ceil(64);
        let l1 = words.div_ceil(64) as usize;
        DirtyPages {
            words: KeyMap::default(),
            level1: vec![0; l1],
            level2: vec![0; l1.div_ceil(64)],
            count: 0,
        }
    }

    /// Dirty pages held (destaging ones included).
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when nothing is dirty.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// True when `page` is dirty.
    #[inline]
    pub fn contains(&self, page: u64) -> bool {
        self.words
            .get(&(page >> 6))
            .is_some_and(|w| w.dirty & (1 << (page & 63)) != 0)
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
        let mut all = true;
        Self::for_words(first, end, |w, mask| {
            all &= self.words.get(&w).is_some_and(|x| x.dirty & mask == mask);
        });
        all
    }

    /// Pages of [first, end) that are not dirty (what writing them would add).
    pub fn count_clean(&self, first: u64, end: u64) -> u64 {
        let mut clean = 0;
        Self::for_words(first, end, |w, mask| {
            let dirty = self.words.get(&w).map_or(0, |x| x.dirty);
            clean += (mask & !dirty).count_ones() as u64;
        });
        clean
    }

    /// Marks pages [first, end) dirty; returns how many were not dirty before. Pages being
    /// destaged are flagged so they stay dirty after their destage.
    pub fn write(&mut self, first: u64, end: u64) -> u64 {
        let mut added = 0;
        let (level1, level2) = (&mut self.level1, &mut self.level2);
        let words = &mut self.words;
        Self::for_words(first, end, |w, mask| {
            let word = words.entry(w).or_default();
            if word.dirty == 0 {
                level1[(w >> 6) as usize] |= 1 << (w & 63);
                level2[(w >> 12) as usize] |= 1 << ((w >> 6) & 63);
            }
            word.redirtied |= mask & word.destaging;
            added += (mask & !word.dirty).count_ones() as u64;
            word.dirty |= mask;
        });
        self.count += added as usize;
        added
    }

    /// Like [`DirtyPages::write`], but only when at most `budget` pages would be added;
    /// returns None (and changes nothing) otherwise. One lookup when the range is in one word.
    pub fn write_within(&mut self, first: u64, end: u64, budget: u64) -> Option<u64> {
        let w = first >> 6;
        if (end - 1) >> 6 != w {
            return (self.count_clean(first, end) <= budget).then(|| self.write(first, end));
        }
        let mask = bits(first & 63, end - (w << 6));
        let word = self.words.entry(w).or_default();
        let added = (mask & !word.dirty).count_ones() as u64;
        if added > budget {
            if word.dirty == 0 {
                self.words.remove(&w);
            }
            return None;
        }
        if word.dirty == 0 {
            self.level1[(w >> 6) as usize] |= 1 << (w & 63);
            self.level2[(w >> 12) as usize] |= 1 << ((w >> 6) & 63);
        }
        word.redirtied |= mask & word.destaging;
        word.dirty |= mask;
        self.count += added as usize;
        Some(added)
    }

    /// Drops every dirty page that is not being destaged (its data is lost); returns how many.
    /// Order-independent, so iterating the map here cannot leak hash order into results.
    pub fn drop_idle(&mut self) -> u64 {
        let mut dropped = 0u64;
        let mut emptied = Vec::new();
        for (&w, word) in self.words.iter_mut() {
            let idle = word.dirty & !word.destaging;
            dropped += idle.count_ones() as u64;
            word.dirty &= !idle;
            word.redirtied &= word.dirty;
            if word.dirty == 0 {
                emptied.push(w);
            }
        }
        for w in emptied {
            self.words.remove(&w);
            let l1 = &mut self.level1[(w >> 6) as usize];
            *l1 &= !(1u64 << (w & 63));
            if *l1 == 0 {
                self.level2[(w >> 12) as usize] &= !(1u64 << ((w >> 6) & 63));
            }
        }
        self.count -= dropped as usize;
        dropped
    }

    /// First non-empty word index at or after `from`.
    fn next_word(&self, from: u64) -> Option<u64> {
        let i1 = (from >> 6) as usize;
        let here = *self.level1.get(i1)? & (!0u64 << (from & 63));
        if here != 0 {
            return Some(((i1 as u64) << 6) | here.trailing_zeros() as u64);
        }
        let start = i1 as u64 + 1;
        let mut i2 = (start >> 6) as usize;
        let mut mask = !0u64 << (start & 63);
        while i2 < self.level2.len() {
            let b = self.level2[i2] & mask;
            if b != 0 {
                let l1 = ((i2 as u64) << 6) | b.trailing_zeros() as u64;
                return Some((l1 << 6) | self.level1[l1 as usize].trailing_zeros() as u64);
            }
            i2 += 1;
            mask = !0;
        }
        None
    }

    /// First page at or after `from` that is dirty and not being destaged.
    fn first_idle_from(&self, from: u64) -> Option<u64> {
        let mut w = from >> 6;
        let mut mask = !0u64 << (from & 63);
        loop {
            if let Some(x) = self.words.get(&w) {
                let idle = x.dirty & !x.destaging & mask;
                if idle != 0 {
                    return Some((w << 6) | idle.trailing_zeros() as u64);
                }
            }
            w = self.next_word(w + 1)?;
            mask = !0;
        }
    }

    /// The next run of dirty pages not being destaged, starting at the first such page at or
    /// after `cursor` (wrapping to the start), not crossing `boundary`-page-aligned limits.
    /// Marks the run as destaging and returns (first page, page count).
    pub fn take_run(&mut self, cursor: u64, boundary: u64) -> Option<(u64, u64)> {
        let first = self
            .first_idle_from(cursor)
            .or_else(|| self.first_idle_from(0))?;
        let limit = (first / boundary + 1) * boundary;
        let mut p = first;
        while p < limit {
            let w = p >> 6;
            let Some(word) = self.words.get_mut(&w) else {
                break;
            };
            let lo = p & 63;
            let hi = limit.min((w + 1) << 6) - (w << 6);
            // Consecutive idle pages from p, within this word and the limit.
            let idle = (word.dirty & !word.destaging & bits(lo, hi)) >> lo;
            let n = (!idle).trailing_zeros() as u64;
            if n == 0 {
                break;
            }
            word.destaging |= bits(lo, lo + n);
            p += n;
            if lo + n < 64 {
                break;
            }
        }
        Some((first, p - first))
    }

    /// A destage of [first, first+count) completed; returns the pages freed. Pages written
    /// again during the destage stay dirty.
    pub fn destaged(&mut self, first: u64, count: u64) -> u64 {
        let mut freed = 0;
        let (level1, level2) = (&mut self.level1, &mut self.level2);
        let words = &mut self.words;
        Self::for_words(first, first + count, |w, mask| {
            let Some(word) = words.get_mut(&w) else {
                panic!("destaged word {w} is not in the dirty table");
            };
            debug_assert_eq!(word.destaging & mask, mask, "pages were not being destaged");
            let free = mask & !word.redirtied;
            word.dirty &= !free;
            word.destaging &= !mask;
            word.redirtied &= !mask;
            freed += free.count_ones() as u64;
            if word.dirty == 0 {
                words.remove(&w);
                let l1 = &mut level1[(w >> 6) as usize];
                *l1 &= !(1u64 << (w & 63));
                if *l1 == 0 {
                    level2[(w >> 12) as usize] &= !(1u64 << ((w >> 6) & 63));
                }
            }
        });
        self.count -= freed as usize;
        freed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recently_used() {
        let mut c = LruCache::new(3);
        c.insert(1);
        c.insert(2);
        c.insert(3);
        assert!(c.touch(1));
        c.insert(4); // evicts 2
        assert!(!c.contains(2));
        assert!(c.contains(1) && c.contains(3) && c.contains(4));
        assert_eq!(c.len(), 3);
        c.insert(5); // evicts 3
        assert!(!c.contains(3));
    }

    #[test]
    fn zero_capacity_cache_holds_nothing() {
        let mut c = LruCache::new(0);
        c.insert(1);
        assert!(!c.touch(1));
        assert!(c.is_empty());
    }

    #[test]
    fn lru_matches_a_naive_model() {
        let mut c = LruCache::new(16);
        let mut naive: Vec<u64> = Vec::new();
        let mut x = 12345u64;
        for _ in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = (x >> 33) % 40;
            let hit = c.touch(key);
            assert_eq!(hit, naive.contains(&key));
            if hit {
                naive.retain(|&k| k != key);
            } else {
                c.insert(key);
                if naive.len() == 16 {
                    naive.remove(0);
                }
            }
            naive.push(key);
        }
    }

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
            if i % 3 == 0 {
                let want = model
                    .range(cursor..)
                    .next()
                    .or(model.iter().next())
                    .copied();
                let got = d.take_run(cursor, 16);
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
}
