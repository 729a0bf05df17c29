//! Virtual time and the event queue.
//!
//! Time is a value (`SimTime`, integer nanoseconds since the start of the run); nothing here
//! reads a clock. Events are ordered by (time, sequence number), so two events due at the same
//! nanosecond always run in the order they were scheduled: every run with the same inputs
//! takes the same path.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
}

/// What happens at an event. Payloads are indices into the model's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A job issues its next I/O (think time over, or an open-loop arrival).
    JobIssue(u32),
    /// A device finished the operation with this id.
    DeviceDone { disk: u32, op: u32 },
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
    Db(crate::dbmodel::DbTimer),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    event: Event,
}

impl Entry {
    #[inline]
    fn key(&self) -> u128 {
        (u128::from(self.time) << 64) | u128::from(self.seq)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
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
    /// One 128-bit comparison (branch-free) instead of a tuple's two.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}

/// Pending events ordered by (time, sequence).
///
/// Popping leaves the earliest entry in place, marked taken: most handlers schedule the next
/// event of the thing that just happened (a disk's next completion), and that event then
/// replaces the taken root with one sift down, instead of a pop's sift and a push's sift.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    /// The root was returned by `pop` and is no longer pending.
    top_taken: bool,
    next_seq: u64,
    processed: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue::default()
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let entry = Entry {
            time: time.0,
            seq,
            event,
        };
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
        self.settle();
        let e = *self.heap.peek()?;
        self.top_taken = true;
        self.processed += 1;
        Some((SimTime(e.time), e.event))
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.settle();
        self.heap.peek().map(|e| SimTime(e.time))
    }

    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.top_taken)
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

    /// Random interleavings of scheduling and popping against std's binary heap: times at,
    /// near and far after the current one.
    #[test]
    fn matches_time_then_sequence_order_under_random_use() {
        use std::cmp::Reverse;
        let mut q = EventQueue::new();
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
                q.schedule(SimTime(now + ahead), Event::HostDone(seq as u32));
                model.push(Reverse((now + ahead, seq)));
                seq += 1;
            } else {
                let want = model.pop().map(|Reverse(k)| k);
                let got = q.pop();
                assert_eq!(
                    got,
                    want.map(|(t, s)| (SimTime(t), Event::HostDone(s as u32)))
                );
                if let Some((t, _)) = want {
                    now = t;
                }
            }
            assert_eq!(q.len(), model.len());
        }
    }
}
