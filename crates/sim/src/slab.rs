//! A slab of reusable slots addressed by u32 ids, for requests and disk operations in flight.
//! Freeing a slot that is not occupied panics: that would be a request completing twice.

/// Slots of `T` with a free list.
#[derive(Clone, Debug, Default)]
pub struct Slab<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
    live: usize,
}

impl<T> Slab<T> {
    /// An empty slab.
    pub fn new() -> Slab<T> {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }

    /// Stores `value`; returns its id. Inlined everywhere: each caller stores its own type,
    /// and a call would copy the value once more.
    #[inline(always)]
    pub fn insert(&mut self, value: T) -> u32 {
        self.live += 1;
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = Some(value);
                id
            }
            None => {
                self.slots.push(Some(value));
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Removes and returns the value at `id`.
    ///
    /// # Panics
    /// When `id` is not occupied (an invariant violation: completing twice).
    #[inline]
    pub fn remove(&mut self, id: u32) -> T {
        let v = self.slots[id as usize]
            .take()
            .unwrap_or_else(|| freed_twice(id));
        self.release(id);
        v
    }

    /// Copies out and frees the value at `id`: the same as [`Slab::remove`], but read in
    /// place. (`remove` moves the value out of its `Option` around the tag byte, and the
    /// compiler's copy of the two halves made the next load wait for both stores to land:
    /// a store-forwarding stall on every disk completion.)
    ///
    /// # Panics
    /// When `id` is not occupied (an invariant violation: completing twice).
    #[inline]
    pub fn take(&mut self, id: u32) -> T
    where
        T: Copy,
    {
        let slot = &mut self.slots[id as usize];
        let v = *slot.as_ref().unwrap_or_else(|| freed_twice(id));
        *slot = None;
        self.release(id);
        v
    }

    /// Puts the emptied slot `id` on the free list.
    #[inline]
    fn release(&mut self, id: u32) {
        self.free.push(id);
        self.live -= 1;
    }

    /// The value at `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &T {
        self.slots[id as usize]
            .as_ref()
            .unwrap_or_else(|| panic!("slab slot {id} is empty"))
    }

    /// The value at `id`, mutably.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut T {
        self.slots[id as usize]
            .as_mut()
            .unwrap_or_else(|| panic!("slab slot {id} is empty"))
    }

    /// Occupied slots.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when no slot is occupied.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Slots ever allocated (the high-water mark of concurrent entries).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}

/// The panic of freeing a slot that is not occupied (a request completing twice).
#[cold]
fn freed_twice(id: u32) -> ! {
    panic!("slab slot {id} freed twice or never used")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_freed_slots() {
        let mut s = Slab::new();
        let a = s.insert("a");
        let b = s.insert("b");
        assert_eq!(s.remove(a), "a");
        let c = s.insert("c");
        assert_eq!(c, a);
        assert_eq!(*s.get(b), "b");
        assert_eq!(s.len(), 2);
        assert_eq!(s.capacity_used(), 2);
    }

    #[test]
    fn take_frees_like_remove() {
        let mut s = Slab::new();
        let a = s.insert(7u64);
        let b = s.insert(8u64);
        assert_eq!(s.take(a), 7);
        assert_eq!(s.len(), 1);
        assert_eq!(s.insert(9), a);
        assert_eq!(s.take(b), 8);
        assert_eq!(*s.get(a), 9);
    }

    #[test]
    #[should_panic(expected = "freed twice")]
    fn double_take_panics() {
        let mut s = Slab::new();
        let a = s.insert(1);
        s.take(a);
        s.take(a);
    }

    #[test]
    #[should_panic(expected = "freed twice")]
    fn double_free_panics() {
        let mut s = Slab::new();
        let a = s.insert(1);
        s.remove(a);
        s.remove(a);
    }
}
