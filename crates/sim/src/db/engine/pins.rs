//! Buffer pins: a session changing a block holds its buffer exclusively while it applies
//! the change (Oracle pins the buffer in exclusive mode; PostgreSQL takes the buffer's
//! content lock), so sessions changing the same block take turns, first come first served:
//! each waits until the holder before it is done. Oracle reports the wait as `buffer busy
//! waits`, PostgreSQL as `LWLock:BufferContent`. It matters where sessions change one block
//! at once: the right edge of a primary key on an ascending key that concurrent inserts all
//! extend, the last block of a table they append to.
//!
//! A change holds the block for its CPU time, one block visited and one row changed
//! (`cpu_per_block` + `cpu_per_row`): however many sessions change one block, they change it
//! at most 1 / (that time) times a second. With no CPU per block and row (a
//! characterization, whose CPU comes per transaction) nothing is held.

use super::{DbEngine, Stack};
use crate::db::DbTimer;
use crate::engine::SimTime;

/// The blocks being changed, and the waits for them.
pub(super) struct Pins {
    /// How long a change holds its block, ns (0: no pins).
    hold_ns: u64,
    /// Each block held or queued for, with when its last queued change releases it; only
    /// the blocks still held (released ones are dropped at each change). A change holds its
    /// block a few microseconds, so at a few thousand changes a second this list is nearly
    /// always empty, and a scan of it costs less than a hash lookup.
    held: Vec<(u64, SimTime)>,
    /// Changes that waited for a block, and their time waiting (measured window).
    pub waits: u64,
    pub wait_ns: u64,
}

impl Pins {
    pub fn new(hold_ns: u64) -> Pins {
        Pins {
            hold_ns,
            held: Vec::new(),
            waits: 0,
            wait_ns: 0,
        }
    }

    /// A change of `block` asked for at `now`: when it gets the block (at `now` when no one
    /// holds it or queues for it, else when the last one queued releases it). The block is
    /// then held for the hold time from that moment.
    pub fn take(&mut self, block: u64, now: SimTime) -> SimTime {
        self.held.retain(|&(_, free)| free > now);
        let hold = self.hold_ns;
        match self.held.iter_mut().find(|(b, _)| *b == block) {
            Some((_, free)) => {
                let start = *free;
                *free = start + hold;
                start
            }
            None => {
                self.held.push((block, now + hold));
                now
            }
        }
    }

    /// Changes hold their blocks.
    #[inline]
    pub fn on(&self) -> bool {
        self.hold_ns > 0
    }
}

impl DbEngine {
    /// Session `s` is about to change the block at `at` of its plan: it takes the block's
    /// pin, once per change. True when it must wait for the holders before it (it resumes
    /// when the block is its turn).
    #[inline]
    pub(super) fn pin_wait(&mut self, s: u32, at: usize, block: u64, stack: &mut Stack) -> bool {
        let sess = &mut self.sessions[s as usize];
        if sess.pinned == Some(at) {
            return false;
        }
        sess.pinned = Some(at);
        let now = stack.now();
        let start = self.pins.take(block, now);
        if start == now {
            return false;
        }
        if stack.measuring() {
            self.pins.waits += 1;
            self.pins.wait_ns += start - now;
        }
        stack.schedule_db(start, DbTimer::Session(s));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_of_one_block_take_turns_and_others_do_not_wait() {
        let mut p = Pins::new(10);
        let t = SimTime(100);
        assert_eq!(p.take(7, t), t, "nobody holds it");
        assert_eq!(p.take(7, t), SimTime(110), "after the first holder");
        assert_eq!(p.take(7, SimTime(105)), SimTime(120), "after the second");
        assert_eq!(p.take(8, t), t, "another block is free");
        assert_eq!(p.take(7, SimTime(500)), SimTime(500), "released long ago");
    }

    #[test]
    fn released_blocks_are_forgotten_and_held_ones_kept() {
        let mut p = Pins::new(1_000);
        for b in 0..100 {
            p.take(b, SimTime(0));
        }
        // Block 0 is still held at 500: the list keeps it (and every other, held as long).
        assert_eq!(p.take(100, SimTime(500)), SimTime(500));
        assert_eq!(p.held.len(), 101);
        assert_eq!(p.take(0, SimTime(600)), SimTime(1_000));
        // At 1,000 the first hundred are released, block 0's second turn is still held.
        assert_eq!(p.take(1, SimTime(1_000)), SimTime(1_000));
        assert_eq!(p.held.len(), 3, "block 0 queued, 100 and 1 held");
        // At 5,000 every block is released: only the new change is held.
        assert_eq!(p.take(0, SimTime(5_000)), SimTime(5_000));
        assert_eq!(p.held.len(), 1);
        assert_eq!(p.take(1, SimTime(5_000)), SimTime(5_000));
    }
}
