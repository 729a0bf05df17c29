use super::*;

#[test]
fn lru_evicts_least_recently_used() {
    let mut c = LruCache::<u64>::new(3);
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
fn inserting_a_cached_key_refreshes_it_and_evicts_nothing() {
    let mut c = LruCache::<u64>::new(3);
    for k in [1, 2, 3] {
        c.insert(k);
    }
    c.insert(1); // already cached: now the most recently used
    assert_eq!(c.len(), 3);
    assert!(c.contains(1) && c.contains(2) && c.contains(3));
    c.insert(4); // evicts 2, the least recently used
    assert!(!c.contains(2));
    assert!(c.contains(1) && c.contains(3) && c.contains(4));
    assert_eq!(c.len(), 3);
}

#[test]
fn a_full_cache_keeps_its_table_size() {
    // 8 keys fit the initial 16 slots (at most half full); a ninth, even for a moment,
    // would double them. A cache of 2^19 8 KiB segments (4 GiB) is the same case.
    let mut c = LruCache::<u64>::new(8);
    for k in 0..1_000 {
        c.insert(k % 37);
        assert!(c.len() <= 8);
    }
    assert_eq!(c.map.slots(), 16);
}

#[test]
fn zero_capacity_cache_holds_nothing() {
    let mut c = LruCache::<u64>::new(0);
    c.insert(1);
    assert!(!c.touch(1));
    assert!(c.is_empty());
}

#[test]
fn lru_matches_a_naive_model() {
    let mut c = LruCache::<u64>::new(16);
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

/// Uses of `n` keys drawn at random from 0..`keys` (a linear congruential sequence).
fn random_keys(seed: u64, keys: u64, n: usize) -> Vec<u64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % keys
        })
        .collect()
}

#[test]
fn running_out_of_stamps_changes_no_decision() {
    // The same uses on a fresh cache and on one whose stamps run out after 1,000 of them:
    // the same hits and the same keys held after every use, through the renumbering.
    let mut fresh = LruCache::<u32>::new(64);
    let mut wrapping = LruCache::<u32>::near_stamp_end(64, 1_000);
    let mut renumbered = false;
    for (i, key) in random_keys(77, 150, 5_000).into_iter().enumerate() {
        let key = key as u32;
        let hit = fresh.touch(key);
        assert_eq!(wrapping.touch(key), hit, "use {i}");
        if !hit {
            fresh.insert(key);
            wrapping.insert(key);
        }
        renumbered |= wrapping.stamp < 1_000;
        assert_eq!(wrapping.len(), fresh.len());
    }
    assert!(renumbered, "the stamps ran out and were renumbered");
    assert!((0..150).all(|k| fresh.contains(k) == wrapping.contains(k)));
}

#[test]
fn narrow_and_wide_segment_keys_cache_the_same_segments() {
    // 7 groups of 63 million segments (case 2's 514 GB RAID 5 ranks at 8 KiB) take 32-bit
    // keys; a group of 2^32 segments (32 TiB) or 2^32 groups of 2 do not.
    let narrow = SegmentCache::new(4096, 7, 63_000_000);
    assert!(matches!(narrow, SegmentCache::Narrow { shift: 26, .. }));
    assert!(matches!(
        SegmentCache::new(8, 2, 1 << 32),
        SegmentCache::Wide(_)
    ));
    assert!(matches!(
        SegmentCache::new(8, 1 << 31, 2),
        SegmentCache::Wide(_)
    ));
    // The largest key of a narrow cache stays below the empty key.
    assert!(matches!(
        SegmentCache::new(8, 1 << 31, 1),
        SegmentCache::Narrow { shift: 0, .. }
    ));
    let mut narrow = SegmentCache::new(300, 7, 1 << 20);
    let mut wide = SegmentCache::Wide(LruCache::new(300));
    assert!(matches!(narrow, SegmentCache::Narrow { shift: 20, .. }));
    for (i, x) in random_keys(5, 7 << 10, 20_000).into_iter().enumerate() {
        // Group in 0..7, segment spread over the whole group (its top bits set too).
        let (g, s) = ((x % 7) as u32, (x / 7) * 1021 % (1 << 20));
        let hit = wide.touch(g, s);
        assert_eq!(narrow.touch(g, s), hit, "use {i}");
        if !hit {
            wide.insert(g, s);
            narrow.insert(g, s);
        }
        assert_eq!(narrow.len(), wide.len());
    }
    assert_eq!(narrow.len(), 300);
    // The last group's last segment and the first group's first one are told apart.
    let mut c = SegmentCache::new(4, 7, 1 << 20);
    c.insert(6, (1 << 20) - 1);
    assert!(c.contains(6, (1 << 20) - 1) && !c.contains(0, 0) && !c.contains(5, (1 << 20) - 1));
}

#[test]
fn a_segment_cache_table_is_sized_for_what_it_can_come_to_hold() {
    let slots = |c: &SegmentCache| match c {
        SegmentCache::Narrow { lru, .. } => lru.table_slots(),
        SegmentCache::Wide(lru) => lru.table_slots(),
    };
    // The capacity, when the groups have more segments: 1,000 keys in 2,048 slots.
    let mut c = SegmentCache::new(1000, 4, 1 << 20);
    assert_eq!(slots(&c), 2048);
    for s in 0..5000 {
        c.insert((s % 4) as u32, s * 7919 % (1 << 20));
    }
    assert_eq!((c.len(), slots(&c)), (1000, 2048));
    // Every segment of the groups, when they are fewer: 2 x 100 in 512 slots.
    assert_eq!(slots(&SegmentCache::new(1000, 2, 100)), 512);
    // Capped for very large caches; wide keys too. An unused cache keeps the smallest table.
    let huge = SegmentCache::new(1 << 40, 1 << 12, 1 << 40);
    assert!(matches!(huge, SegmentCache::Wide(_)));
    assert_eq!(slots(&huge), 2 * PRESIZED_SEGMENTS_MAX as usize);
    assert_eq!(slots(&SegmentCache::new(0, 4, 1 << 20)), 16);
}
