//! Oracle's checkpoint queue: dirty blocks in the order they were first changed, each with the
//! log position (LSN) of that change. Incremental checkpointing writes from its head, so the
//! checkpoint position (the oldest change not yet on disk) never lags the log by more than a
//! target; Oracle's log-size-driven target is 90% of the smallest log file (Oracle Database
//! Performance Tuning Guide, "incremental checkpoint"), so that a log group is never needed
//! for recovery once the writer moves two groups on.
//!
//! A block is queued at its first change after it was last taken from the queue; a block
//! written meanwhile by other means (a victim, the writer's cleaning) keeps its entry, and the
//! caller skips it when the entry comes due if the block is clean by then.

use std::collections::VecDeque;

/// Share of the smallest log file the checkpoint position may lag the log, percent.
pub const LAG_PCT_OF_LOG_FILE: u64 = 90;

/// Blocks in order of first change, with the LSN of that change.
#[derive(Debug, Clone)]
pub struct CheckpointQueue {
    queue: VecDeque<(u64, u64)>,
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

    /// `block` was changed at log position `lsn`: queued unless it already is.
    pub fn changed(&mut self, block: u64, lsn: u64) {
        let (w, bit) = ((block / 64) as usize, 1u64 << (block % 64));
        if self.queued[w] & bit == 0 {
            self.queued[w] |= bit;
            self.queue.push_back((lsn, block));
        }
    }

    /// Takes the blocks first changed before log position `target` from the head of the
    /// queue, in the order of their first change, into `out`.
    pub fn due(&mut self, target: u64, out: &mut Vec<u64>) {
        while let Some(&(lsn, block)) = self.queue.front() {
            if lsn >= target {
                break;
            }
            self.queue.pop_front();
            self.queued[(block / 64) as usize] &= !(1u64 << (block % 64));
            out.push(block);
        }
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
            q.changed(block, lsn);
        }
        assert_eq!(q.len(), 3);
        let mut out = Vec::new();
        q.due(25, &mut out);
        assert_eq!(out, vec![500, 3]);
        // Taken from the queue, a block changed again is queued again, at the back.
        q.changed(500, 60);
        out.clear();
        q.due(u64::MAX, &mut out);
        assert_eq!(out, vec![77, 500]);
        assert!(q.is_empty());
    }
}
