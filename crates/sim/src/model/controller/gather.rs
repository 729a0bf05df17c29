//! Write gathering on RAID 5/6: the partial stripe at the head of a sequential writer stays
//! in the write cache until the writer fills it, so sequential data leaves the cache as
//! full-stripe writes (parity computed from the new data, no reads) instead of one
//! read-modify-write per destage of the stripe's first part.
//!
//! Compaq's RAID Array 3000 user guide (EK-SMCPQ-UG §2.5.2.2, "Write Gathering") describes
//! it: the controller holds contiguous writes in cache until they fill an entire stripe, so
//! parity comes from the data it holds and no data or parity is read. The hold here ends when the writer moves on past the
//! stripe, or `full_stripe_hold` after its last write (a writer that stopped), or at once
//! when writes wait for room in the write cache or the controller has gone write-through.

use super::{CacheGroup, ControllerPart};
use crate::config::resolve::PAGE_SECTORS;
use crate::engine::SimTime;

/// Sequential writers tracked per group.
pub(super) const WRITE_SEQ_SLOTS: usize = 8;

/// Writes in a row that make a writer sequential.
const SEQUENTIAL_WRITES: u32 = 2;

/// A sequential writer of a group: where its next write is expected, and when it last wrote.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct WriteStream {
    /// Start of its last write, sectors.
    last_lba: u64,
    /// End of the data it has written, sectors.
    next_lba: u64,
    /// Writes in a row.
    run: u32,
    last_write: SimTime,
}

/// A group's write-gathering state: its stripe and its sequential writers.
#[derive(Clone, Debug)]
pub(super) struct Gather {
    /// Full stripe, pages; 0 when the group has no parity or nothing is held.
    stripe_pages: u64,
    hold_ns: u64,
    streams: [WriteStream; WRITE_SEQ_SLOTS],
    victim: usize,
    /// After a search found only held stripes: the idle dirty pages it saw, and when the
    /// first hold it relied on may end.
    all_held: Option<(usize, SimTime)>,
}

impl Gather {
    /// Gathering for a group whose full stripe is `stripe_sectors` (None: no parity), with
    /// the controller's `full_stripe_hold`.
    pub(super) fn new(stripe_sectors: Option<u64>, hold_ns: u64) -> Gather {
        let stripe_pages = match stripe_sectors {
            Some(s) if hold_ns > 0 && s.is_multiple_of(PAGE_SECTORS) => s / PAGE_SECTORS,
            _ => 0,
        };
        Gather {
            stripe_pages,
            hold_ns,
            streams: [WriteStream::default(); WRITE_SEQ_SLOTS],
            victim: 0,
            all_held: None,
        }
    }

    /// True when the group holds partial stripes for sequential writers.
    #[inline]
    pub(super) fn enabled(&self) -> bool {
        self.stripe_pages > 0
    }

    /// A write of `sectors` at `lba` went into the write cache at `now`: it continues the
    /// writer whose data it starts inside of or right after (a log writer rewriting its
    /// last, partly filled block continues too), or starts a new one in the oldest slot.
    pub(super) fn note_write(&mut self, lba: u64, sectors: u64, now: SimTime) {
        let end = lba + sectors;
        let found = (self.streams.iter())
            .position(|s| s.run > 0 && s.last_lba <= lba && lba <= s.next_lba && end >= s.next_lba);
        let s = match found {
            Some(i) => &mut self.streams[i],
            None => {
                let i = self.victim;
                self.victim = (i + 1) % WRITE_SEQ_SLOTS;
                self.streams[i] = WriteStream::default();
                &mut self.streams[i]
            }
        };
        s.last_lba = lba;
        s.next_lba = end;
        s.run = s.run.saturating_add(1);
        s.last_write = now;
    }

    /// The stripe (first page) a sequential writer active at `now` is filling and has not
    /// filled, if page `page` lies in it.
    fn held_stripe(&self, page: u64, now: SimTime) -> Option<u64> {
        let stripe = page / self.stripe_pages * self.stripe_pages;
        let filling = |s: &WriteStream| {
            // The first page the writer has not written whole.
            let head = s.next_lba / PAGE_SECTORS;
            s.run >= SEQUENTIAL_WRITES
                && now.saturating_since(s.last_write) <= self.hold_ns
                && stripe <= head
                && head < stripe + self.stripe_pages
        };
        self.streams.iter().any(filling).then_some(stripe)
    }

    /// Every idle dirty page (`idle` of them) was found held at `now`: until one more is
    /// idle (or one fewer) or a writer's hold may have ended, a search finds nothing.
    fn all_held(&mut self, idle: usize, now: SimTime) {
        let ends = (self.streams.iter())
            .filter(|s| s.run >= SEQUENTIAL_WRITES)
            .map(|s| s.last_write.plus(self.hold_ns + 1))
            .filter(|&t| t > now)
            .min();
        self.all_held = ends.map(|t| (idle, t));
    }

    /// True when the last search found every idle page held, none has come or gone since,
    /// and no writer's hold has ended.
    #[inline]
    fn nothing_new(&self, idle: usize, now: SimTime) -> bool {
        self.all_held
            .is_some_and(|(seen, until)| seen == idle && now < until)
    }

    /// A destage run [first, first + pages) found for the group: trimmed to leave out the
    /// partial stripe a sequential writer is still filling. Some(run) to issue (what is
    /// left), or Err(page) when the whole run is held: look again from `page`.
    pub(super) fn trim(&self, (first, pages): (u64, u64), now: SimTime) -> Result<u64, u64> {
        let end = first + pages;
        if end.is_multiple_of(self.stripe_pages) {
            return Ok(pages);
        }
        match self.held_stripe(end - 1, now) {
            None => Ok(pages),
            Some(stripe) if stripe > first => Ok(stripe - first),
            Some(stripe) => Err(stripe + self.stripe_pages),
        }
    }
}

impl ControllerPart {
    /// Group `g`'s next destage run from its cursor, marked destaging, leaving out partial
    /// stripes sequential writers are filling (when the group gathers writes and no write
    /// waits for room); None when nothing is left to destage now.
    pub(super) fn next_destage_run(&mut self, g: u32, now: SimTime) -> Option<(u64, u64)> {
        let ctrl = self.groups[g as usize].ctrl as usize;
        let hold = !self.ctrls[ctrl].write_through && self.ctrls[ctrl].waiters.is_empty();
        let grp: &mut CacheGroup = &mut self.groups[g as usize];
        // By age, the run starts at the oldest dirty page; by address, at the cursor.
        let start = match &mut grp.write_order {
            Some(order) => order.oldest(&grp.dirty).unwrap_or(grp.destage_cursor),
            None => grp.destage_cursor,
        };
        if !hold || !grp.gather.enabled() {
            return grp.dirty.take_run(start, grp.destage_run_pages);
        }
        let idle = grp.dirty.idle_len();
        if grp.gather.nothing_new(idle, now) {
            return None;
        }
        let mut cursor = start;
        let mut first_held = None;
        // Each held stripe belongs to a writer: past them all, a run is found or none is.
        for _ in 0..=WRITE_SEQ_SLOTS {
            let run = grp.dirty.peek_run(cursor, grp.destage_run_pages)?;
            if first_held == Some(run.0) {
                break;
            }
            match grp.gather.trim(run, now) {
                Ok(pages) => {
                    grp.dirty.mark_destaging(run.0, pages);
                    return Some((run.0, pages));
                }
                Err(next) => {
                    first_held.get_or_insert(run.0);
                    cursor = next;
                }
            }
        }
        grp.gather.all_held(idle, now);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    #[test]
    fn the_stripe_a_sequential_writer_fills_is_held_until_it_moves_on_or_stops() {
        // 4 data units of 64 KiB: a stripe of 512 sectors, 64 pages.
        let mut g = Gather::new(Some(512), 1_000_000_000);
        // Not sequential yet: one write.
        g.note_write(0, 16, at(0));
        assert_eq!(g.trim((0, 2), at(1)), Ok(2));
        // 8 KiB writes in a row (the second rewrites the first's tail): held.
        g.note_write(8, 16, at(1));
        g.note_write(24, 16, at(2));
        assert_eq!(g.trim((0, 5), at(3)), Err(64));
        // A run ending on a stripe boundary is never trimmed.
        assert_eq!(g.trim((0, 64), at(3)), Ok(64));
        // The writer stopped more than the hold ago: destaged as it is.
        assert_eq!(g.trim((0, 5), at(1100)), Ok(5));
        // A random write elsewhere does not move the sequential writer's head.
        g.note_write(100_000, 16, at(4));
        assert_eq!(g.trim((0, 5), at(5)), Err(64));
        // The writer moved into the next stripe: the first no longer waits.
        for i in 0..70u64 {
            g.note_write(40 + 8 * i, 8, at(5));
        }
        assert_eq!(g.trim((0, 10), at(6)), Ok(10));
        assert_eq!(g.trim((64, 3), at(6)), Err(128));
        // Whole stripes before the held one still go.
        assert_eq!(g.trim((0, 70), at(6)), Ok(64));
    }

    #[test]
    fn groups_without_parity_or_hold_do_not_gather() {
        assert!(!Gather::new(None, 1_000).enabled());
        assert!(!Gather::new(Some(512), 0).enabled());
        assert!(Gather::new(Some(512), 1).enabled());
    }
}
