//! The database writer: dirty blocks handed over by the buffer cache (cleaning ahead of the
//! clock hand, or a checkpoint) are written asynchronously, adjacent blocks coalesced into one
//! multi-block write up to a length cap, with at most `max_outstanding` writes in flight.

use std::collections::VecDeque;

/// One write to issue: `blocks` blocks from block `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockWrite {
    pub first: u64,
    pub blocks: u64,
}

/// The writer's queue and in-flight count.
#[derive(Debug, Clone)]
pub struct DbWriter {
    max_outstanding: u32,
    max_blocks: u64,
    queue: VecDeque<BlockWrite>,
    outstanding: u32,
    /// Each write in flight, in the order issued.
    inflight: VecDeque<BlockWrite>,
    /// Counters.
    pub writes: u64,
    pub blocks_written: u64,
    /// Blocks handed over, and blocks whose write completed (a completion is counted as
    /// the oldest write in flight's: completions out of order shift the count by at most
    /// the writes in flight). Blocks handed over before the `n`th are all written once
    /// `completed_blocks` reaches `n`, up to that reordering.
    pub submitted_blocks: u64,
    pub completed_blocks: u64,
}

impl DbWriter {
    /// At most `max_outstanding` writes in flight, each at most `max_blocks` blocks.
    pub fn new(max_outstanding: u32, max_blocks: u64) -> Self {
        DbWriter {
            max_outstanding: max_outstanding.max(1),
            max_blocks: max_blocks.max(1),
            queue: VecDeque::new(),
            outstanding: 0,
            inflight: VecDeque::new(),
            writes: 0,
            blocks_written: 0,
            submitted_blocks: 0,
            completed_blocks: 0,
        }
    }

    /// Queues blocks to write, coalescing runs of adjacent blocks in the order given (sort
    /// them first to get the most coalescing, as a checkpoint does).
    pub fn submit(&mut self, blocks: &[u64]) {
        self.submitted_blocks += blocks.len() as u64;
        for &b in blocks {
            match self.queue.back_mut() {
                Some(w) if w.first + w.blocks == b && w.blocks < self.max_blocks => w.blocks += 1,
                _ => self.queue.push_back(BlockWrite {
                    first: b,
                    blocks: 1,
                }),
            }
        }
    }

    /// Writes waiting to be issued.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Blocks waiting to be issued.
    pub fn queued_blocks(&self) -> u64 {
        self.queue.iter().map(|w| w.blocks).sum()
    }

    /// Writes in flight.
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// Fewer writes than the limit are in flight.
    pub fn has_room(&self) -> bool {
        self.outstanding < self.max_outstanding
    }

    /// The next write to issue, while fewer than the limit are in flight.
    pub fn next_write(&mut self) -> Option<BlockWrite> {
        if self.outstanding >= self.max_outstanding {
            return None;
        }
        let w = self.queue.pop_front()?;
        self.outstanding += 1;
        self.writes += 1;
        self.blocks_written += w.blocks;
        self.inflight.push_back(w);
        Some(w)
    }

    /// The write [`DbWriter::next_write`] will return once there is room (none queued: None).
    pub fn peek(&self) -> Option<&BlockWrite> {
        self.queue.front()
    }

    /// Takes the write [`DbWriter::next_write`] would issue without issuing it (the caller
    /// defers it: the write-ahead rule), None when none is queued.
    pub fn take_next(&mut self) -> Option<BlockWrite> {
        self.queue.pop_front()
    }

    /// Puts writes taken with [`DbWriter::take_next`] back at the head of the queue, in the
    /// order given.
    pub fn requeue(&mut self, writes: impl DoubleEndedIterator<Item = BlockWrite>) {
        for w in writes.rev() {
            self.queue.push_front(w);
        }
    }

    /// A write completed: returns it, taken as the oldest in flight (completions out of
    /// order name another write of the same batch).
    pub fn done(&mut self) -> Option<BlockWrite> {
        assert!(self.outstanding > 0, "completion without a write in flight");
        self.outstanding -= 1;
        let w = self.inflight.pop_front();
        self.completed_blocks += w.map_or(0, |w| w.blocks);
        w
    }

    /// Blocks handed over whose writes have not completed: the writer's backlog.
    pub fn backlog_blocks(&self) -> u64 {
        self.submitted_blocks - self.completed_blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn adjacent_blocks_coalesce_up_to_the_cap() {
        let mut w = DbWriter::new(8, 4);
        w.submit(&[1, 2, 3, 4, 5, 6, 9, 10, 20]);
        let mut got = Vec::new();
        while let Some(x) = w.next_write() {
            got.push((x.first, x.blocks));
        }
        assert_eq!(got, vec![(1, 4), (5, 2), (9, 2), (20, 1)]);
        assert_eq!(w.blocks_written, 9);
    }

    /// The counts a checkpoint waits on: blocks handed over, and blocks whose writes are
    /// done, in the order issued.
    #[test]
    fn completed_blocks_follow_the_writes_done() {
        let mut w = DbWriter::new(2, 4);
        w.submit(&[1, 2, 3, 7]);
        assert_eq!((w.submitted_blocks, w.completed_blocks), (4, 0));
        let first = w.next_write().expect("a write");
        assert_eq!(first.blocks, 3);
        w.next_write().expect("a second write");
        assert!(w.next_write().is_none());
        w.done();
        assert_eq!(w.completed_blocks, 3);
        w.submit(&[9]);
        w.done();
        assert_eq!((w.submitted_blocks, w.completed_blocks), (5, 4));
    }

    #[test]
    fn a_deferred_write_goes_back_to_the_head_of_the_queue() {
        let mut w = DbWriter::new(8, 4);
        w.submit(&[1, 2, 9, 20]);
        let first = w.take_next().expect("a write");
        assert_eq!((first.first, first.blocks), (1, 2));
        let second = w.take_next().expect("a write");
        w.requeue([first, second].into_iter());
        let got: Vec<u64> = std::iter::from_fn(|| w.next_write().map(|x| x.first)).collect();
        assert_eq!(got, [1, 9, 20]);
        assert_eq!(w.blocks_written, 4);
    }

    #[test]
    fn never_more_than_the_limit_in_flight() {
        let mut w = DbWriter::new(3, 16);
        let mut rng = Rng::from_seed(5);
        let blocks: Vec<u64> = (0..500).map(|_| rng.below(1_000_000)).collect();
        w.submit(&blocks);
        let mut in_flight = 0u32;
        let mut peak = 0;
        let mut issued = 0;
        while issued < 500 || in_flight > 0 {
            while let Some(_x) = w.next_write() {
                in_flight += 1;
                issued += 1;
            }
            peak = peak.max(in_flight);
            assert_eq!(w.outstanding(), in_flight);
            // Completions arrive one or two at a time.
            for _ in 0..(1 + rng.below(2)).min(u64::from(in_flight)) {
                w.done();
                in_flight -= 1;
            }
            if w.queued() == 0 && in_flight == 0 {
                break;
            }
        }
        assert_eq!(peak, 3);
        assert_eq!(w.writes, 500);
    }
}
