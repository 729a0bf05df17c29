//! Oracle's checkpoint queue: dirty blocks in the order they were first changed, each with the
//! log position (LSN) of that change. Incremental checkpointing writes from its head, so the
//! checkpoint position (the oldest change not yet on disk) never lags the log by more than a
//! target; Oracle's log-size-driven target is 90% of the smallest log file (Oracle Database
//! Performance Tuning Guide, "incremental checkpoint"), so that a log group is never needed
//! for recovery once the writer moves two groups on. Its time-driven target is
//! `LOG_CHECKPOINT_TIMEOUT` (default 1800 s, Oracle Database Reference): no buffer stays dirty
//! longer than that, so the blocks first changed longer ago come due as well.
//!
//! A block is queued at its first change after it was last taken from the queue; a block
//! written meanwhile by other means (a victim, the writer's cleaning) keeps its entry, and the
//! caller skips it when the entry comes due if the block is clean by then.

use std::collections::VecDeque;

mod log_groups;
pub use log_groups::GroupCheckpoints;

/// Share of the smallest log file the checkpoint position may lag the log, percent.
pub const LAG_PCT_OF_LOG_FILE: u64 = 90;

/// One queued block: the log position and the time of its first change.
#[derive(Debug, Clone, Copy)]
struct Entry {
    lsn: u64,
    at_ns: u64,
    block: u64,
}

/// Blocks in order of first change, with the LSN and time of that change.
#[derive(Debug, Clone)]
pub struct CheckpointQueue {
    queue: VecDeque<Entry>,
    /// One bit per block of the page space: queued now.
    queued: Vec<u64>,
}

impl CheckpointQueue {
    /// An empty queue over a page space of `pages` blocks.
    pub fn new(pages: u64) -> CheckpointQueue {
        CheckpointQueue {
            queue: VecDeque::new(),
            queued: vec![0; pages.div_ceil(64) as usize],
        }
    }

    /// `block` was changed at log position `lsn`, at time `at_ns`: queued unless it
    /// already is.
    pub fn changed(&mut self, block: u64, lsn: u64, at_ns: u64) {
        let (w, bit) = ((block / 64) as usize, 1u64 << (block % 64));
        if self.queued[w] & bit == 0 {
            self.queued[w] |= bit;
            self.queue.push_back(Entry { lsn, at_ns, block });
        }
    }

    /// Takes the blocks first changed before log position `target` or before time
    /// `before_ns` from the head of the queue, in the order of their first change, into
    /// `out`.
    pub fn due(&mut self, target: u64, before_ns: u64, out: &mut Vec<u64>) {
        while let Some(&Entry { lsn, at_ns, block }) = self.queue.front() {
            if lsn >= target && at_ns >= before_ns {
                break;
            }
            self.queue.pop_front();
            self.queued[(block / 64) as usize] &= !(1u64 << (block % 64));
            out.push(block);
        }
    }

    /// The log position of the oldest change still queued (None: the queue is empty).
    pub fn head_lsn(&self) -> Option<u64> {
        self.queue.front().map(|e| e.lsn)
    }

    /// Blocks queued.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_come_due_in_order_of_first_change_once_each() {
        let mut q = CheckpointQueue::new(1000);
        for (block, lsn) in [(500, 10), (3, 20), (500, 30), (77, 40), (3, 50)] {
            q.changed(block, lsn, lsn);
        }
        assert_eq!(q.len(), 3);
        let mut out = Vec::new();
        q.due(25, 0, &mut out);
        assert_eq!(out, vec![500, 3]);
        // Taken from the queue, a block changed again is queued again, at the back.
        q.changed(500, 60, 60);
        out.clear();
        q.due(u64::MAX, 0, &mut out);
        assert_eq!(out, vec![77, 500]);
        assert!(q.is_empty());
    }

    /// The time-driven target: a block first changed longer ago than the timeout comes due
    /// though the log has moved on little since (LOG_CHECKPOINT_TIMEOUT: no buffer stays
    /// dirty longer), and only the blocks that old, oldest first.
    #[test]
    fn the_oldest_change_comes_due_by_time_when_the_log_lags_little() {
        let s = 1_000_000_000u64;
        let mut q = CheckpointQueue::new(100);
        // Three blocks first changed at 0 s, 10 s and 20 s, 100 log bytes apart.
        for (i, block) in [40u64, 7, 99].into_iter().enumerate() {
            q.changed(block, 100 * i as u64, 10 * s * i as u64);
        }
        // At 25 s with a 12 s timeout, no log target (everything is within the log's lag).
        let mut out = Vec::new();
        q.due(0, 25 * s - 12 * s, &mut out);
        assert_eq!(out, vec![40, 7]);
        out.clear();
        q.due(0, 25 * s - 12 * s, &mut out);
        assert!(out.is_empty(), "due twice: {out:?}");
        assert_eq!(q.len(), 1);
    }
}
