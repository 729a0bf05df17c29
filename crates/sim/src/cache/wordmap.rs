//! An open-addressing map from an integer key (u32 or u64) to a non-zero integer value (u32
//! or u64): linear probing, Fibonacci hashing, backward-shift deletion, at most half full. One
//! cache line per lookup (key and value share a slot), which matters because the dirty-page
//! table and the read cache are probed at random for every host I/O. A u32 key with a u32
//! value makes an 8-byte slot: twice the entries per cache line, half the table.

/// A key of a [`WordMap`]: its all-ones value marks empty slots and is never a key.
pub trait MapKey: Copy + Eq + std::fmt::Debug {
    const EMPTY: Self;
    fn wide(self) -> u64;
}

impl MapKey for u32 {
    const EMPTY: u32 = u32::MAX;
    #[inline]
    fn wide(self) -> u64 {
        u64::from(self)
    }
}

impl MapKey for u64 {
    const EMPTY: u64 = u64::MAX;
    #[inline]
    fn wide(self) -> u64 {
        self
    }
}

/// A value of a [`WordMap`]: zero reads as absent.
pub trait MapValue: Copy + Eq + std::fmt::Debug {
    const ZERO: Self;
}

impl MapValue for u32 {
    const ZERO: u32 = 0;
}

impl MapValue for u64 {
    const ZERO: u64 = 0;
}

#[derive(Clone, Copy, Debug)]
struct Slot<K, V> {
    key: K,
    bits: V,
}

impl<K: MapKey, V: MapValue> Slot<K, V> {
    const FREE: Slot<K, V> = Slot {
        key: K::EMPTY,
        bits: V::ZERO,
    };
}

/// Map K -> V where a missing key reads as 0 and storing 0 removes the key.
#[derive(Clone, Debug)]
pub struct WordMap<K: MapKey = u32, V: MapValue = u64> {
    slots: Vec<Slot<K, V>>,
    len: usize,
    shift: u32,
}

impl<K: MapKey, V: MapValue> Default for WordMap<K, V> {
    fn default() -> Self {
        WordMap {
            slots: vec![Slot::FREE; 16],
            len: 0,
            shift: 64 - 4,
        }
    }
}

impl<K: MapKey, V: MapValue> WordMap<K, V> {
    /// An empty map whose table takes `entries` without growing: a map that will fill up
    /// to a known bound (a cache's capacity) is not rebuilt on the way (each doubling
    /// moves every entry, about twice per entry in all).
    pub fn with_room(entries: usize) -> Self {
        let slots = entries.saturating_mul(2).next_power_of_two().max(16);
        WordMap {
            slots: huge_table(slots, Slot::FREE),
            len: 0,
            shift: 64 - slots.trailing_zeros(),
        }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Slots of the table (twice the entries it can hold before it doubles).
    #[cfg(test)]
    pub(crate) fn slots(&self) -> usize {
        self.slots.len()
    }

    #[inline]
    fn home(&self, key: K) -> usize {
        fibonacci_home(key.wide(), self.shift)
    }

    #[inline]
    fn find(&self, key: K) -> (usize, bool) {
        debug_assert!(key != K::EMPTY);
        probe_slots(&self.slots, self.home(key), |s| {
            (s.key == key, s.key == K::EMPTY)
        })
    }

    /// Asks the processor to start loading the slot where a lookup of `key` begins and the
    /// one after it (probes and removals continue there), so a lookup made a little later
    /// does not wait for memory. No effect on the map's contents.
    #[inline]
    pub fn prefetch(&self, key: K) {
        // By address, with no bounds check: the slot after the last one lies past the
        // table, harmless for a hint (the table's first slot is then loaded on demand).
        let home = self.slots.as_ptr().wrapping_add(self.home(key));
        prefetch_ptr(home);
        prefetch_ptr(home.wrapping_add(1));
    }

    /// The bits of `key` (0 when absent).
    #[inline]
    pub fn get(&self, key: K) -> V {
        let (i, found) = self.find(key);
        if found {
            self.slots[i].bits
        } else {
            V::ZERO
        }
    }

    /// Finds `key`: (slot, its bits or 0, found). Pass the slot to [`WordMap::set_at`] to
    /// update without probing again.
    #[inline]
    pub fn probe(&self, key: K) -> (usize, V, bool) {
        let (i, found) = self.find(key);
        (i, if found { self.slots[i].bits } else { V::ZERO }, found)
    }

    /// Stores `bits` for `key` at the slot [`WordMap::probe`] returned (no change in between).
    #[inline(always)]
    pub fn set_at(&mut self, slot: usize, found: bool, key: K, bits: V) {
        if found {
            if bits == V::ZERO {
                self.remove_at(slot);
            } else {
                self.slots[slot].bits = bits;
            }
        } else if bits != V::ZERO {
            self.slots[slot] = Slot { key, bits };
            self.len += 1;
            if self.len * 2 > self.slots.len() {
                self.grow();
            }
        }
    }

    /// Sets the bits of `key`; 0 removes it. Returns the previous bits.
    #[inline]
    pub fn set(&mut self, key: K, bits: V) -> V {
        let (i, found) = self.find(key);
        if found {
            let old = self.slots[i].bits;
            if bits == V::ZERO {
                self.remove_at(i);
            } else {
                self.slots[i].bits = bits;
            }
            return old;
        }
        if bits != V::ZERO {
            self.slots[i] = Slot { key, bits };
            self.len += 1;
            if self.len * 2 > self.slots.len() {
                self.grow();
            }
        }
        V::ZERO
    }

    fn remove_at(&mut self, hole: usize) {
        self.len -= 1;
        let shift = self.shift;
        remove_and_shift_back(&mut self.slots, hole, Slot::FREE, |s| {
            (s.key != K::EMPTY).then(|| fibonacci_home(s.key.wide(), shift))
        });
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.slots = huge_table(old.len() * 2, Slot::FREE);
        self.shift -= 1;
        // Every key is distinct and the new table is at most a quarter full: each entry
        // goes to the first free slot from its home, with no key compared and no size
        // checked (a cache filling its table moves each entry about twice on the way).
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.key != K::EMPTY) {
            let mut i = self.home(s.key);
            while self.slots[i].key != K::EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// Every (key, bits) entry, in slot order (callers must not depend on the order).
    pub fn entries(&self) -> impl Iterator<Item = (K, V)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.key != K::EMPTY)
            .map(|s| (s.key, s.bits))
    }
}

/// Home slot of `key` in an open-addressing table of `2^(64 - shift)` slots: Fibonacci
/// hashing (the top bits of the key times 2^64 / golden ratio).
#[inline]
pub(crate) fn fibonacci_home(key: u64, shift: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

/// Linear probing from slot `home` of a table a power of two long: the slot holding the key
/// and true, or the free slot ending the probe sequence and false. `test` says of a slot
/// whether it holds the key and whether it is free.
#[inline(always)]
pub(crate) fn probe_slots<S>(
    slots: &[S],
    home: usize,
    test: impl Fn(&S) -> (bool, bool),
) -> (usize, bool) {
    let mask = slots.len() - 1;
    let mut i = home;
    loop {
        let (hit, free) = test(&slots[i]);
        if hit {
            return (i, true);
        }
        if free {
            return (i, false);
        }
        i = (i + 1) & mask;
    }
}

/// Empties slot `hole` of a linear-probing table (a power of two long) and moves back the
/// entries after it that would no longer be found (backward-shift deletion, no tombstones).
/// `home` gives an occupied slot's home slot, None for a free one.
pub(crate) fn remove_and_shift_back<S: Copy>(
    slots: &mut [S],
    mut hole: usize,
    free: S,
    home: impl Fn(&S) -> Option<usize>,
) {
    let mask = slots.len() - 1;
    slots[hole] = free;
    let mut i = (hole + 1) & mask;
    while let Some(h) = home(&slots[i]) {
        // The entry moves back into the hole unless its home lies cyclically in (hole, i].
        let stays = if hole <= i {
            hole < h && h <= i
        } else {
            hole < h || h <= i
        };
        if !stays {
            slots[hole] = slots[i];
            slots[i] = free;
            hole = i;
        }
        i = (i + 1) & mask;
    }
}

/// Starts loading the cache line holding `value`. A hint only: results never depend on it.
#[inline(always)]
pub(crate) fn prefetch_line<T>(value: &T) {
    prefetch_ptr(value as *const T);
}

/// Starts loading the cache line at `at`, which need not point into any allocation. A
/// hint only: results never depend on it.
#[inline(always)]
pub(crate) fn prefetch_ptr<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no architectural effect and cannot fault, whatever the
    // address; SSE is part of the x86_64 baseline, so the instruction exists on every
    // x86_64 processor.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// A table of `n` copies of `value`, backed by huge pages when the kernel allows it
/// (transparent huge pages in `madvise` mode): tables looked up at random addresses, like a
/// buffer cache's page table over a large database, otherwise cost a TLB miss on nearly
/// every lookup. The advice is given before the memory is first written, when the kernel
/// can still choose huge pages. A hint only: results never depend on it, and nothing is
/// asked for tables under 4 MiB or off Linux.
pub(crate) fn huge_table<T: Clone>(n: usize, value: T) -> Vec<T> {
    const HUGE: usize = 2 << 20;
    let mut table = Vec::with_capacity(n);
    let bytes = n * std::mem::size_of::<T>();
    #[cfg(target_os = "linux")]
    if bytes >= 2 * HUGE {
        // The 2 MiB-aligned part of the allocation: the only part huge pages can back.
        let base = table.as_mut_ptr() as usize;
        let start = base.next_multiple_of(HUGE);
        let end = (base + bytes) / HUGE * HUGE;
        if end > start {
            // SAFETY: MADV_HUGEPAGE changes how the kernel backs pages of this allocation
            // (not yet written), never their contents; the range lies inside it.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = bytes;
    table.resize(n, value);
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn huge_tables_hold_their_values_whatever_their_backing() {
        for n in [0usize, 1, 1000, 3 << 20] {
            let t = huge_table(n, 0xABCD_u32);
            assert_eq!(t.len(), n);
            assert!(t.iter().all(|&v| v == 0xABCD));
        }
    }

    #[test]
    fn a_map_with_room_takes_that_many_entries_without_growing() {
        for room in [0usize, 1, 8, 9, 1000, 1 << 12] {
            let mut m: WordMap<u32, u32> = WordMap::with_room(room);
            let slots = m.slots();
            assert!(slots.is_power_of_two() && slots >= 16 && slots >= 2 * room);
            for k in 0..room as u32 {
                m.set(k.wrapping_mul(2_654_435_761) >> 1, k + 1);
            }
            assert_eq!((m.len(), m.slots()), (room, slots), "room {room}");
            for k in 0..room as u32 {
                assert_eq!(m.get(k.wrapping_mul(2_654_435_761) >> 1), k + 1);
            }
            // One more than the room may grow the table; nothing is lost.
            m.set(u32::MAX - 1, 7);
            assert_eq!((m.len(), m.get(u32::MAX - 1)), (room + 1, 7));
        }
    }

    #[test]
    fn matches_a_hash_map_under_random_updates() {
        let mut m: WordMap = WordMap::default();
        let mut model: HashMap<u32, u64> = HashMap::new();
        let mut x = 7u64;
        for _ in 0..200_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = ((x >> 33) % 5000) as u32;
            let bits = if (x >> 20).is_multiple_of(3) {
                0
            } else {
                x >> 40
            };
            let old = m.set(key, bits);
            let model_old = if bits == 0 {
                model.remove(&key)
            } else {
                model.insert(key, bits)
            };
            assert_eq!(old, model_old.unwrap_or(0));
            assert_eq!(m.len, model.len());
        }
        for k in 0..5000u32 {
            assert_eq!(m.get(k), model.get(&k).copied().unwrap_or(0));
        }
        let mut listed: Vec<(u32, u64)> = m.entries().collect();
        listed.sort_unstable();
        let mut expected: Vec<(u32, u64)> = model.into_iter().collect();
        expected.sort_unstable();
        assert_eq!(listed, expected);
    }
}
