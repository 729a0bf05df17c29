//! The least-recently-used set behind the controllers' read caches (and the simulated
//! database's operating-system cache), and the controllers' segment cache over it.

use super::wordmap::{MapKey, WordMap};
use std::collections::VecDeque;

/// Least-recently-used set of keys with a fixed capacity.
///
/// Exact LRU with one random memory access per touch: the map holds each key's last-use
/// stamp, and every use appends (key, stamp) to a queue in use order. The least recently
/// used key is the first queue entry whose stamp is still its key's current one; older
/// entries of keys used again since are skipped when they reach the front. The queue is
/// compacted (stale entries dropped, order kept) when it holds twice the capacity, so memory
/// stays bounded and each touch costs O(1) amortized.
///
/// Stamps are 32 bits, so a u32 key makes an 8-byte map slot (half the table a 64-bit key
/// needs, which is what a cache of millions of segments touched at random waits on). When
/// the stamps run out (every 4 billion uses) the cached keys are stamped 1, 2, ... again in
/// their use order, which keeps every later decision the same.
#[derive(Clone, Debug)]
pub struct LruCache<K: MapKey = u64> {
    /// Key -> its last-use stamp (stamps start at 1; 0 reads as absent).
    map: WordMap<K, u32>,
    queue: VecDeque<(K, u32)>,
    stamp: u32,
    capacity: usize,
    /// Queue entries that trigger a compaction: twice the capacity, at least 16.
    queue_limit: usize,
}

impl<K: MapKey> LruCache<K> {
    /// A cache holding at most `capacity` keys (0 disables it; at most 2^32 - 2, so the
    /// cached keys' stamps fit 32 bits after a renumbering).
    pub fn new(capacity: u64) -> LruCache<K> {
        LruCache::with_room(capacity, 0)
    }

    /// [`LruCache::new`] with its table sized for `room` keys (at most the capacity) from
    /// the start, instead of doubling as it fills. The table's size never changes which
    /// keys are cached.
    pub fn with_room(capacity: u64, room: u64) -> LruCache<K> {
        let capacity = capacity.min(u64::from(u32::MAX) - 1) as usize;
        let room = usize::try_from(room).unwrap_or(usize::MAX).min(capacity);
        LruCache {
            map: WordMap::with_room(room),
            queue: VecDeque::new(),
            stamp: 0,
            capacity,
            queue_limit: 2 * capacity.max(8),
        }
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.map.len() == 0
    }

    /// The stamp of the next use.
    #[inline]
    fn next_stamp(&mut self) -> u32 {
        if self.stamp == u32::MAX {
            self.renumber();
        }
        self.stamp += 1;
        self.stamp
    }

    /// Stamps the cached keys 1, 2, ... in their use order (the queue's live entries).
    #[cold]
    fn renumber(&mut self) {
        let map = &mut self.map;
        self.queue.retain(|&(k, s)| map.get(k) == s);
        for (i, (k, s)) in self.queue.iter_mut().enumerate() {
            *s = u32::try_from(i + 1).expect("at most 2^32 - 2 keys cached");
            map.set(*k, *s);
        }
        self.stamp = self.queue.len() as u32;
    }

    /// True (and marks it most recently used) when `key` is cached.
    #[inline]
    pub fn touch(&mut self, key: K) -> bool {
        // Stamped only when found: a miss leaves the stamps alone (only their order counts).
        let (slot, _, found) = self.map.probe(key);
        if found {
            let stamp = self.next_stamp();
            self.map.set_at(slot, true, key, stamp);
            self.record(key, stamp);
        }
        found
    }

    /// Starts loading the entry a coming lookup of `key` will read. A hint only.
    #[inline]
    pub fn prefetch(&self, key: K) {
        // A cache of no capacity keeps an empty table: loading it is harmless.
        self.map.prefetch(key);
    }

    /// True when `key` is cached, without changing recency.
    pub fn contains(&self, key: K) -> bool {
        self.map.get(key) != 0
    }

    /// Inserts `key` as most recently used, evicting the least recently used when full;
    /// returns the evicted key.
    pub fn insert(&mut self, key: K) -> Option<K> {
        if self.capacity == 0 {
            return None;
        }
        let stamp = self.next_stamp();
        let (slot, _, found) = self.map.probe(key);
        let mut evicted = None;
        if found || self.map.len() < self.capacity {
            // Stored at the slot the lookup found: one probe.
            self.map.set_at(slot, found, key, stamp);
        } else {
            // Evicted first, so the map never holds more than `capacity` keys (one more
            // could double its table); the eviction may move entries, so probe again.
            evicted = self.evict_lru();
            // The next eviction will most likely take the entry now at the front: start
            // loading its map slot so that eviction does not wait for memory.
            if let Some(&(k, _)) = self.queue.front() {
                self.map.prefetch(k);
            }
            self.map.set(key, stamp);
        }
        self.record(key, stamp);
        evicted
    }

    #[inline(always)]
    fn record(&mut self, key: K, stamp: u32) {
        self.queue.push_back((key, stamp));
        if self.queue.len() > self.queue_limit {
            self.compact();
        }
    }

    /// Drops the queue's stale entries (keys used again since), keeping the order.
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        let map = &self.map;
        self.queue.retain(|&(k, s)| map.get(k) == s);
    }

    fn evict_lru(&mut self) -> Option<K> {
        while let Some((k, s)) = self.queue.pop_front() {
            // One probe finds the entry and removes it.
            let (slot, stamp, found) = self.map.probe(k);
            if stamp == s {
                self.map.set_at(slot, found, k, 0);
                return Some(k);
            }
        }
        None
    }

    /// Slots of the map's table (tests of its sizing).
    #[cfg(test)]
    fn table_slots(&self) -> usize {
        self.map.slots()
    }

    /// A cache whose stamps run out after `left` more uses (tests of the renumbering).
    #[cfg(test)]
    fn near_stamp_end(capacity: u64, left: u32) -> LruCache<K> {
        LruCache {
            stamp: u32::MAX - left,
            ..LruCache::new(capacity)
        }
    }
}

/// Most segments a read cache's table is sized for before its first use: 2^21, a table of
/// 32 MiB with 32-bit keys (a 16 GiB cache of 8 KiB segments), so a run too short to fill a
/// much larger cache does not pay for its whole table.
const PRESIZED_SEGMENTS_MAX: u64 = 1 << 21;

/// A controller's read cache of segments, keyed by (RAID group, segment of the group).
///
/// When every group's segment number fits below a shift that leaves room for the group index
/// in 32 bits, the key is `group << shift | segment` and each map slot takes 8 bytes (4 GiB of
/// groups' capacity per bit of group index at 8 KiB segments: every array of the shipped
/// examples and reference cases); otherwise the key is 64 bits and a slot 16 bytes. The
/// choice changes only the table's size, never which segments are cached.
#[derive(Clone, Debug)]
pub enum SegmentCache {
    /// 32-bit keys: `group << shift | segment`.
    Narrow { lru: LruCache<u32>, shift: u32 },
    /// 64-bit keys: [`super::page_key`].
    Wide(LruCache<u64>),
}

impl SegmentCache {
    /// A cache of `capacity` segments over `groups` groups of at most `max_segments` each.
    /// Its table is sized from the start for as many segments as it can come to hold (the
    /// capacity, or every segment of the groups when they are fewer), up to
    /// [`PRESIZED_SEGMENTS_MAX`]; a cache larger than that grows its table as it fills.
    pub fn new(capacity: u64, groups: usize, max_segments: u64) -> SegmentCache {
        let room = capacity
            .min((groups as u64).saturating_mul(max_segments))
            .min(PRESIZED_SEGMENTS_MAX);
        // Bits of the largest segment number, then room for every group index below the
        // empty key (u32::MAX).
        let shift = 64 - max_segments.saturating_sub(1).leading_zeros();
        let fits = shift < 32 && (groups as u64) << shift <= u64::from(u32::MAX);
        if fits {
            SegmentCache::Narrow {
                lru: LruCache::with_room(capacity, room),
                shift,
            }
        } else {
            SegmentCache::Wide(LruCache::with_room(capacity, room))
        }
    }

    #[inline]
    fn narrow_key(shift: u32, group: u32, segment: u64) -> u32 {
        debug_assert!(segment < 1 << shift, "segment {segment} beyond its group");
        (group << shift) | segment as u32
    }

    /// True (and marks it most recently used) when the segment is cached.
    #[inline]
    pub fn touch(&mut self, group: u32, segment: u64) -> bool {
        match self {
            SegmentCache::Narrow { lru, shift } => {
                lru.touch(Self::narrow_key(*shift, group, segment))
            }
            SegmentCache::Wide(lru) => lru.touch(super::page_key(group, segment)),
        }
    }

    /// Inserts the segment as most recently used, evicting the least recently used when full.
    #[inline]
    pub fn insert(&mut self, group: u32, segment: u64) {
        match self {
            SegmentCache::Narrow { lru, shift } => {
                lru.insert(Self::narrow_key(*shift, group, segment));
            }
            SegmentCache::Wide(lru) => {
                lru.insert(super::page_key(group, segment));
            }
        }
    }

    /// Starts loading the entry a coming lookup of the segment will read. A hint only.
    #[inline]
    pub fn prefetch(&self, group: u32, segment: u64) {
        match self {
            SegmentCache::Narrow { lru, shift } => {
                lru.prefetch(Self::narrow_key(*shift, group, segment))
            }
            SegmentCache::Wide(lru) => lru.prefetch(super::page_key(group, segment)),
        }
    }

    /// True when the segment is cached, without changing recency.
    pub fn contains(&self, group: u32, segment: u64) -> bool {
        match self {
            SegmentCache::Narrow { lru, shift } => {
                lru.contains(Self::narrow_key(*shift, group, segment))
            }
            SegmentCache::Wide(lru) => lru.contains(super::page_key(group, segment)),
        }
    }

    /// Segments held.
    pub fn len(&self) -> usize {
        match self {
            SegmentCache::Narrow { lru, .. } => lru.len(),
            SegmentCache::Wide(lru) => lru.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests;
