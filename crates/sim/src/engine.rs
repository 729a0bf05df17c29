//! Virtual time and the event queue.
//!
//! Time is a value (`SimTime`, integer nanoseconds since the start of the run); nothing here
//! reads a clock. Events are ordered by (time, sequence number), so two events due at the same
//! nanosecond always run in the order they were scheduled: every run with the same inputs
//! takes the same path.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// A point in simulated time, nanoseconds since the run started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// Nanoseconds since the start.
    pub fn ns(self) -> u64 {
        self.0
    }
    /// Seconds since the start.
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// This time plus `ns` nanoseconds.
    #[inline]
    pub fn plus(self, ns: u64) -> SimTime {
        SimTime(self.0 + ns)
    }
    /// Nanoseconds from `earlier` to this time, 0 when `earlier` is later.
    #[inline]
    pub fn saturating_since(self, earlier: SimTime) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

/// A time plus a span of nanoseconds.
impl std::ops::Add<u64> for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, ns: u64) -> SimTime {
        SimTime(self.0 + ns)
    }
}

impl std::ops::AddAssign<u64> for SimTime {
    #[inline]
    fn add_assign(&mut self, ns: u64) {
        self.0 += ns;
    }
}

/// Nanoseconds from one time to a later one (a span, not a time).
impl std::ops::Sub for SimTime {
    type Output = u64;
    #[inline]
    fn sub(self, earlier: SimTime) -> u64 {
        self.0 - earlier.0
    }
}

/// What happens at an event. Payloads are indices into the model's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A job issues its next I/O (think time over, or an open-loop arrival).
    JobIssue(u32),
    /// A device finished the disk operation with this id (the operation names its device).
    DeviceDone(u32),
    /// The data of the disk operation with this id has crossed its back-end loop.
    BackEndDone(u32),
    /// A host request's data and acknowledgement reached the host.
    HostDone(u32),
    /// End of the warm-up: statistics restart.
    WarmupEnd,
    /// The failure event with this index happens.
    Failure(u32),
    /// A rebuild task may issue its next chunk (rate limit reached).
    RebuildTick(u32),
    /// The trace replayer issues its next record.
    TraceNext,
    /// A timer of the simulated database.
    Db(crate::db::DbTimer),
    /// The read miss with this delayed fetch has had its processor time: its disk read starts.
    ReadMissStart(u32),
}

/// Bits of an event's index in its packed form; the kind takes the 4 above them.
const INDEX_BITS: u32 = 28;
const INDEX_MASK: u32 = (1 << INDEX_BITS) - 1;

impl Event {
    /// The event as 32 bits: its kind in the top 4, its index in the rest.
    ///
    /// # Panics
    /// When an index does not fit in 28 bits: more than 268 million requests or operations
    /// in flight at once, which no machine's memory holds.
    #[inline]
    fn pack(self) -> u32 {
        use crate::db::DbTimer;
        let (kind, index) = match self {
            Event::JobIssue(i) => (0, i),
            Event::DeviceDone(i) => (1, i),
            Event::HostDone(i) => (2, i),
            Event::WarmupEnd => (3, 0),
            Event::Failure(i) => (4, i),
            Event::RebuildTick(i) => (5, i),
            Event::TraceNext => (6, 0),
            Event::Db(DbTimer::Session(i)) => (7, i),
            Event::Db(DbTimer::Writer) => (8, 0),
            Event::Db(DbTimer::Checkpoint) => (9, 0),
            Event::Db(DbTimer::VictimBuffered(i)) => (10, i),
            Event::Db(DbTimer::WriterBuffered) => (11, 0),
            Event::Db(DbTimer::LogTimeout) => (12, 0),
            // Kind 12 with index 1: the 4 bits of kinds are all in use.
            Event::Db(DbTimer::LogWriterCpu) => (12, 1),
            Event::Db(DbTimer::JobCpu) => (12, 2),
            Event::Db(DbTimer::NextTest) => (12, 3),
            Event::BackEndDone(i) => (13, i),
            Event::ReadMissStart(i) => (14, i),
        };
        assert!(
            index <= INDEX_MASK,
            "event index {index} beyond {INDEX_MASK}: too many requests in flight"
        );
        (kind << INDEX_BITS) | index
    }

    #[inline]
    fn unpack(code: u32) -> Event {
        use crate::db::DbTimer;
        let i = code & INDEX_MASK;
        match code >> INDEX_BITS {
            0 => Event::JobIssue(i),
            1 => Event::DeviceDone(i),
            2 => Event::HostDone(i),
            3 => Event::WarmupEnd,
            4 => Event::Failure(i),
            5 => Event::RebuildTick(i),
            6 => Event::TraceNext,
            7 => Event::Db(DbTimer::Session(i)),
            8 => Event::Db(DbTimer::Writer),
            9 => Event::Db(DbTimer::Checkpoint),
            10 => Event::Db(DbTimer::VictimBuffered(i)),
            11 => Event::Db(DbTimer::WriterBuffered),
            12 if i == 0 => Event::Db(DbTimer::LogTimeout),
            12 if i == 1 => Event::Db(DbTimer::LogWriterCpu),
            12 if i == 2 => Event::Db(DbTimer::JobCpu),
            12 => Event::Db(DbTimer::NextTest),
            14 => Event::ReadMissStart(i),
            _ => Event::BackEndDone(i),
        }
    }
}

/// A pending event in 16 bytes: its time, then its sequence number (high 32 bits) and its
/// packed event (low 32). Compared as one 128-bit number, entries order by time, then by
/// sequence; the packed event never decides, as sequence numbers are unique.
#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    seq_event: u64,
}

impl Entry {
    #[inline]
    fn key(self) -> u128 {
        (u128::from(self.time) << 64) | u128::from(self.seq_event)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed so the std max-heap pops the earliest (time, seq) first.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}

/// Pending events ordered by (time, sequence): a binary heap of 16-byte entries, beside a
/// queue of host completions in order.
///
/// Popping leaves the earliest entry in place, marked taken: most handlers schedule the next
/// event of the thing that just happened (a disk's next completion), and that event then
/// replaces the taken root with one sift down, instead of a pop's sift and a push's sift.
///
/// A host completion comes a path's transfer and latency after its data is ready: nearly
/// always no earlier than the host completion scheduled before it. Such a completion is
/// appended to `in_order` (sorted by construction, as sequence numbers only grow) instead of
/// sifting up the heap, and leaves it from the front; one that would come earlier than the
/// last one queued there goes to the heap. Each pop takes the earlier of the two fronts, so
/// the events come out in exactly the (time, sequence) order of one heap.
///
/// Sequence numbers are 32 bits; when they run out (every 4 billion events) the pending
/// events are renumbered in their order, which keeps every later comparison the same.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    /// Host completions in (time, sequence) order; the heap may hold earlier events (of
    /// any kind), so pops compare both fronts.
    in_order: VecDeque<Entry>,
    /// The root was returned by `pop` and is no longer pending.
    top_taken: bool,
    next_seq: u32,
    processed: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue::default()
    }

    /// Schedules `event` at `time`.
    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        if self.next_seq == u32::MAX {
            self.renumber();
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let entry = Entry {
            time: time.0,
            seq_event: (u64::from(seq) << 32) | u64::from(event.pack()),
        };
        if matches!(event, Event::HostDone(_))
            && self.in_order.back().is_none_or(|last| last.time <= time.0)
        {
            self.in_order.push_back(entry);
            return;
        }
        if self.top_taken {
            self.top_taken = false;
            // Any value may replace the root of a heap: dropping the PeekMut sifts it down.
            if let Some(mut root) = self.heap.peek_mut() {
                *root = entry;
            }
        } else {
            self.heap.push(entry);
        }
    }

    /// Gives the pending events the sequence numbers 0, 1, ... in their order.
    #[cold]
    fn renumber(&mut self) {
        self.settle();
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.extend(self.in_order.drain(..));
        entries.sort_unstable_by_key(|e| e.key());
        for (i, e) in entries.iter_mut().enumerate() {
            e.seq_event = ((i as u64) << 32) | (e.seq_event & u64::from(u32::MAX));
        }
        self.next_seq = u32::try_from(entries.len()).expect("fewer than 2^32 pending events");
        self.heap = BinaryHeap::from(entries);
    }

    /// Removes the taken root, if any.
    #[inline]
    fn settle(&mut self) {
        if self.top_taken {
            self.top_taken = false;
            self.heap.pop();
        }
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_until(SimTime(u64::MAX))
    }

    /// Removes and returns the earliest event if it is due at or before `end`.
    #[inline]
    pub fn pop_until(&mut self, end: SimTime) -> Option<(SimTime, Event)> {
        self.settle();
        let (e, from_heap) = match (self.heap.peek(), self.in_order.front()) {
            (Some(&h), Some(&f)) => {
                if h.key() < f.key() {
                    (h, true)
                } else {
                    (f, false)
                }
            }
            (Some(&h), None) => (h, true),
            (None, Some(&f)) => (f, false),
            (None, None) => return None,
        };
        if e.time > end.0 {
            return None;
        }
        if from_heap {
            self.top_taken = true;
        } else {
            self.in_order.pop_front();
        }
        self.processed += 1;
        Some((SimTime(e.time), Event::unpack(e.seq_event as u32)))
    }

    /// A queue whose sequence numbers are about to run out (tests of the renumbering).
    #[cfg(test)]
    fn near_sequence_end(left: u32) -> EventQueue {
        EventQueue {
            next_seq: u32::MAX - left,
            ..EventQueue::default()
        }
    }

    /// Drops every pending event: the run is over (a job finished).
    pub fn clear(&mut self) {
        self.heap.clear();
        self.in_order.clear();
        self.top_taken = false;
    }

    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.top_taken) + self.in_order.len()
    }

    /// True when nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_schedule_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), Event::HostDone(1));
        q.schedule(SimTime(10), Event::HostDone(2));
        q.schedule(SimTime(30), Event::HostDone(3));
        q.schedule(SimTime(10), Event::HostDone(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(10), Event::HostDone(2)),
                (SimTime(10), Event::HostDone(4)),
                (SimTime(30), Event::HostDone(1)),
                (SimTime(30), Event::HostDone(3)),
            ]
        );
        assert_eq!(q.processed(), 4);
        assert!(q.is_empty());
    }

    #[test]
    fn host_completions_in_and_out_of_order_keep_time_then_schedule_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(50), Event::HostDone(1));
        q.schedule(SimTime(40), Event::DeviceDone(2));
        // Earlier than the host completion before it, and one tying with it.
        q.schedule(SimTime(30), Event::HostDone(3));
        q.schedule(SimTime(50), Event::HostDone(4));
        q.schedule(SimTime(50), Event::DeviceDone(5));
        assert_eq!(q.len(), 5);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(30), Event::HostDone(3)),
                (SimTime(40), Event::DeviceDone(2)),
                (SimTime(50), Event::HostDone(1)),
                (SimTime(50), Event::HostDone(4)),
                (SimTime(50), Event::DeviceDone(5)),
            ]
        );
        assert!(q.is_empty());
    }

    #[test]
    fn pop_until_leaves_later_events_pending() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), Event::HostDone(1));
        q.schedule(SimTime(20), Event::HostDone(2));
        q.schedule(SimTime(21), Event::HostDone(3));
        assert_eq!(
            q.pop_until(SimTime(20)),
            Some((SimTime(10), Event::HostDone(1)))
        );
        // An event exactly at the end is due; one after it is not, and stays pending.
        assert_eq!(
            q.pop_until(SimTime(20)),
            Some((SimTime(20), Event::HostDone(2)))
        );
        assert_eq!(q.pop_until(SimTime(20)), None);
        assert_eq!(q.len(), 1);
        assert_eq!(q.processed(), 2);
        // A handler's event replacing the taken root is not lost by a refused pop.
        q.schedule(SimTime(25), Event::HostDone(4));
        assert_eq!(q.pop(), Some((SimTime(21), Event::HostDone(3))));
        assert_eq!(q.pop(), Some((SimTime(25), Event::HostDone(4))));
        assert!(q.is_empty());
    }

    #[test]
    fn every_event_survives_packing() {
        use crate::db::DbTimer;
        let max = INDEX_MASK;
        let all = [
            Event::JobIssue(max),
            Event::DeviceDone(7),
            Event::HostDone(max),
            Event::WarmupEnd,
            Event::Failure(3),
            Event::RebuildTick(max),
            Event::TraceNext,
            Event::Db(DbTimer::Session(max)),
            Event::Db(DbTimer::Writer),
            Event::Db(DbTimer::Checkpoint),
            Event::Db(DbTimer::VictimBuffered(0)),
            Event::Db(DbTimer::WriterBuffered),
            Event::Db(DbTimer::LogTimeout),
            Event::Db(DbTimer::LogWriterCpu),
            Event::Db(DbTimer::JobCpu),
            Event::Db(DbTimer::NextTest),
            Event::BackEndDone(max),
            Event::ReadMissStart(max),
        ];
        for e in all {
            assert_eq!(Event::unpack(e.pack()), e);
        }
    }

    #[test]
    #[should_panic(expected = "too many requests in flight")]
    fn an_index_beyond_28_bits_is_refused() {
        EventQueue::new().schedule(SimTime(1), Event::HostDone(INDEX_MASK + 1));
    }

    /// Random interleavings of scheduling and popping against std's binary heap: times at,
    /// near and far after the current one. The second queue's sequence numbers run out
    /// during the run: its order must not change when they are renumbered.
    #[test]
    fn matches_time_then_sequence_order_under_random_use() {
        random_use_matches_std(EventQueue::new());
        let q = random_use_matches_std(EventQueue::near_sequence_end(70_000));
        assert!(q.next_seq < 100_000, "the sequence numbers were renumbered");
    }

    /// Host completions (kept in order beside the heap when they come in order) and disk
    /// completions (always in the heap), mixed.
    fn kind_of(seq: u64) -> Event {
        if seq.is_multiple_of(3) {
            Event::DeviceDone(seq as u32)
        } else {
            Event::HostDone(seq as u32)
        }
    }

    fn random_use_matches_std(mut q: EventQueue) -> EventQueue {
        use std::cmp::Reverse;
        let mut model = std::collections::BinaryHeap::new();
        let (mut x, mut now, mut seq) = (99u64, 0u64, 0u64);
        for _ in 0..200_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = x >> 33;
            if r % 5 < 3 {
                let ahead = match r % 7 {
                    0 => 0,
                    1..=4 => (r >> 8) % 1000,
                    _ => (r >> 8) % 10_000_000_000,
                };
                q.schedule(SimTime(now + ahead), kind_of(seq));
                model.push(Reverse((now + ahead, seq)));
                seq += 1;
            } else {
                let want = model.pop().map(|Reverse(k)| k);
                let got = q.pop();
                assert_eq!(got, want.map(|(t, s)| (SimTime(t), kind_of(s))));
                if let Some((t, _)) = want {
                    now = t;
                }
            }
            assert_eq!(q.len(), model.len());
        }
        assert!(q.processed() > 70_000);
        q
    }
}
