//! Controller caches: an LRU read cache of fixed-size segments, and the dirty-page table of the
//! battery-backed write cache (NVS).
//!
//! The read cache is keyed by a 64-bit page key (group index in the top 16 bits, page number below).
//! Memory is bounded by the configured cache sizes, never by the run length. Nothing here
//! iterates a hash map, so hash order cannot leak into results.

use std::collections::HashMap;

mod dirty;
mod wordmap;
pub use dirty::DirtyPages;
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
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
}

/// A hash map with the fast key hasher.
pub type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// A hash map of u32 keys with the fast key hasher (smaller buckets, better cache use).
pub type KeyMap32<V> = HashMap<u32, V, BuildHasherDefault<KeyHasher>>;

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
