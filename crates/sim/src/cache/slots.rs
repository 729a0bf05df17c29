//! A controller's read cache as the array allocates it: segments that each take their own
//! room, or slots of several segments allocated whole.
//!
//! Arrays that allocate cache in slots larger than what a read stages (a 64 KiB slot per
//! track in Symmetrix-class arrays) give a random 8 KiB read miss a whole slot: a cache of C
//! bytes in slots of S bytes holds at most C / S randomly read blocks, not C / 8 KiB. Arrays
//! that allocate in small pages (4 KiB in DS8000-class ones) lose nothing; their slot is
//! their segment.

use super::lru::LruCache;
use super::wordmap::WordMap;
use super::{page_key, SegmentCache};

/// The read cache of one controller, keyed by (RAID group, segment of the group).
#[derive(Clone, Debug)]
pub struct ReadCache {
    /// Segments allocated one by one (capacity 0 when allocated in slots).
    segments: SegmentCache,
    /// Segments allocated in slots of several.
    slots: Option<Box<Slots>>,
}

/// Slots of `1 << shift` segments: the least recently used slot is evicted whole.
#[derive(Clone, Debug)]
struct Slots {
    /// Cached slots, by `page_key(group, slot)`.
    lru: LruCache<u64>,
    /// Per cached slot, the segments it holds (one bit each; a slot is cached exactly when
    /// it holds one).
    held: WordMap<u64, u64>,
    shift: u32,
}

impl ReadCache {
    /// A cache of `capacity_slots` slots of `slot_segments` segments (a power of two, at most
    /// 64; 1 caches segments one by one) over `groups` groups of at most `max_segments`.
    pub fn new(
        capacity_slots: u64,
        groups: usize,
        max_segments: u64,
        slot_segments: u64,
    ) -> ReadCache {
        assert!(
            slot_segments.is_power_of_two() && slot_segments <= 64,
            "slot of {slot_segments} segments"
        );
        if slot_segments == 1 || capacity_slots == 0 {
            return ReadCache {
                segments: SegmentCache::new(capacity_slots, groups, max_segments),
                slots: None,
            };
        }
        ReadCache {
            segments: SegmentCache::new(0, groups, max_segments),
            slots: Some(Box::new(Slots {
                lru: LruCache::new(capacity_slots),
                held: WordMap::default(),
                shift: slot_segments.trailing_zeros(),
            })),
        }
    }

    /// True (and marks it most recently used) when the segment is cached.
    #[inline]
    pub fn touch(&mut self, group: u32, segment: u64) -> bool {
        match &mut self.slots {
            None => self.segments.touch(group, segment),
            Some(s) => {
                let (key, bit) = s.key(group, segment);
                s.held.get(key) & bit != 0 && s.lru.touch(key)
            }
        }
    }

    /// Inserts the segment as most recently used; when its slot is not cached, the least
    /// recently used slot makes room with every segment it holds.
    #[inline]
    pub fn insert(&mut self, group: u32, segment: u64) {
        match &mut self.slots {
            None => self.segments.insert(group, segment),
            Some(s) => {
                let (key, bit) = s.key(group, segment);
                let held = s.held.get(key);
                if held != 0 {
                    s.lru.touch(key);
                } else if let Some(evicted) = s.lru.insert(key) {
                    s.held.set(evicted, 0);
                }
                s.held.set(key, held | bit);
            }
        }
    }

    /// Starts loading the entry a coming lookup of the segment will read. A hint only.
    #[inline]
    pub fn prefetch(&self, group: u32, segment: u64) {
        match &self.slots {
            None => self.segments.prefetch(group, segment),
            Some(s) => s.held.prefetch(s.key(group, segment).0),
        }
    }

    /// True when the segment is cached, without changing recency.
    pub fn contains(&self, group: u32, segment: u64) -> bool {
        match &self.slots {
            None => self.segments.contains(group, segment),
            Some(s) => {
                let (key, bit) = s.key(group, segment);
                s.held.get(key) & bit != 0
            }
        }
    }

    /// Segments held.
    pub fn len(&self) -> usize {
        match &self.slots {
            None => self.segments.len(),
            Some(s) => s.held.entries().map(|(_, h)| h.count_ones() as usize).sum(),
        }
    }

    /// Slots allocated (segments when they are allocated one by one).
    pub fn slots_used(&self) -> usize {
        self.slots
            .as_ref()
            .map_or(self.segments.len(), |s| s.lru.len())
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.slots_used() == 0
    }
}

impl Slots {
    /// The slot's key and the segment's bit in it.
    #[inline]
    fn key(&self, group: u32, segment: u64) -> (u64, u64) {
        let mask = (1u64 << self.shift) - 1;
        (
            page_key(group, segment >> self.shift),
            1 << (segment & mask),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Random one-segment reads over `region` segments, each miss staged: the hit ratio.
    fn random_hit_ratio(cache: &mut ReadCache, region: u64, reads: u32) -> f64 {
        let mut rng = Rng::from_seed(7);
        let mut hits = 0;
        for i in 0..reads {
            let s = rng.below(region);
            let hit = cache.touch(0, s);
            if !hit {
                cache.insert(0, s);
            }
            // The first half warms the cache.
            hits += u32::from(hit && i >= reads / 2);
        }
        f64::from(hits) / f64::from(reads / 2)
    }

    #[test]
    fn random_reads_fill_a_slot_each_so_the_cache_holds_capacity_over_slot_blocks() {
        // 64 MiB of cache over 512 MiB read at random in 8 KiB blocks (65,536 of them).
        let (cache_bytes, region) = (64u64 << 20, 65_536);
        // Allocated by 8 KiB segment: 8,192 blocks held, hit ratio 8,192 / 65,536 = 12.5%.
        let mut by_segment = ReadCache::new(cache_bytes / 8192, 1, region, 1);
        let h = random_hit_ratio(&mut by_segment, region, 400_000);
        assert!((h - 0.125).abs() < 0.01, "by segment: {h}");
        // In 64 KiB slots: 1,024 slots of the region's 8,192, each holding about one random
        // block: 1,024 / 65,536 = 1.6%. A little more: one miss in 8 lands in a cached slot
        // and adds a block to it (1 / (1 - 1/8) = 1.14 blocks a slot, 1.8%).
        let mut by_slot = ReadCache::new(cache_bytes / 65_536, 1, region, 8);
        let h = random_hit_ratio(&mut by_slot, region, 400_000);
        assert!((0.0156..0.0195).contains(&h), "in slots: {h}");
        assert_eq!(by_slot.slots_used(), 1024);
        assert!(
            (1024..1024 * 5 / 4).contains(&by_slot.len()),
            "{}",
            by_slot.len()
        );
    }

    #[test]
    fn an_evicted_slot_takes_its_segments_and_a_cached_slot_takes_more() {
        let mut c = ReadCache::new(2, 2, 1 << 20, 4);
        c.insert(0, 0);
        c.insert(0, 1);
        assert!(c.contains(0, 1) && !c.contains(0, 2) && !c.touch(0, 3));
        assert_eq!((c.len(), c.slots_used()), (2, 1));
        // Group 1's slot 0 is another slot; slot 1 of group 0 (segments 4-7) evicts the least
        // recently used, group 0's slot 0, once group 1's is used again.
        c.insert(1, 2);
        assert!(c.touch(1, 2));
        c.insert(0, 5);
        assert!(!c.contains(0, 0) && !c.contains(0, 1));
        assert!(c.contains(1, 2) && c.contains(0, 5));
        assert_eq!((c.len(), c.slots_used()), (2, 2));
        // A hit refreshes its slot: group 1's survives the next eviction.
        assert!(c.touch(1, 2));
        c.insert(0, 9);
        assert!(c.contains(1, 2) && !c.contains(0, 5) && c.contains(0, 9));
    }
}
