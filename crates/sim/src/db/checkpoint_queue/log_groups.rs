//! What the redo log's groups need from the checkpoint. A log switch starts a checkpoint of
//! the group just filled: every block changed by its redo must be written before the group
//! is reused (Oracle Database Concepts, "Overview of Checkpoints": a thread checkpoint on
//! each online redo log switch; "Reuse of Online Redo Log Files": a filled group is
//! available to LGWR only after the changes recorded in it have been checkpointed to disk).
//! With N groups that is N - 1 switches later, so the switch's checkpoint is lazy: its
//! target position moves with the log, from where the checkpoint stood at the switch to
//! the switch's log position when the log has gone 90% of the way to the group's reuse
//! (the same share of a log file as the incremental checkpoint's lag target). Its writes
//! so spread over the time the log takes to get there at the current redo rate, as the
//! incremental checkpoint's do, instead of going to the writer at once (the reason Oracle
//! has incremental checkpoints: Concepts, "Incremental checkpoints ... avoid writing large
//! numbers of blocks at online redo log switches").
//!
//! The checkpoint position is the log position of the oldest change not yet on disk: the
//! queue's head, or earlier, the oldest change of a batch handed to the writer whose writes
//! are not all done. A group whose redo is not all behind it cannot be reused (the log
//! writer waits: `log file switch (checkpoint incomplete)`, "Checkpoint not complete" in
//! the alert log; Database Reference, "Descriptions of Wait Events").

use std::collections::VecDeque;

use super::LAG_PCT_OF_LOG_FILE;

/// A switch's checkpoint not yet complete.
#[derive(Debug, Clone, Copy)]
struct Switch {
    /// The checkpoint position at the switch, and the switch's log position (the end of
    /// the group filled).
    from: u64,
    end: u64,
    /// Log bytes after the switch by which the position must reach `end`.
    pace: u64,
}

/// Switch checkpoints in progress and the batches handed to the writer not yet written.
#[derive(Debug, Clone, Default)]
pub struct GroupCheckpoints {
    switches: VecDeque<Switch>,
    /// (oldest change of the batch, blocks the writer had been handed once it was).
    handed: VecDeque<(u64, u64)>,
}

impl GroupCheckpoints {
    /// The log switched at position `end` with the checkpoint at `position`; the group
    /// filled is reused `reuse_bytes` of log later.
    pub fn switched(&mut self, position: u64, end: u64, reuse_bytes: u64) {
        let pace = (reuse_bytes / 100 * LAG_PCT_OF_LOG_FILE).max(1);
        self.switches.push_back(Switch {
            from: position.min(end),
            end,
            pace,
        });
    }

    /// The position the switch checkpoints in progress want reached at log position `lsn`
    /// (0: none in progress).
    pub fn target(&self, lsn: u64) -> u64 {
        self.switches
            .iter()
            .map(|s| {
                let gone = lsn.saturating_sub(s.end).min(s.pace);
                let span = u128::from(s.end - s.from);
                s.from + (span * u128::from(gone) / u128::from(s.pace)) as u64
            })
            .max()
            .unwrap_or(0)
    }

    /// A batch of changes from log position `oldest` on went to the writer, which had been
    /// handed `submitted` blocks once it had them.
    pub fn handed(&mut self, oldest: u64, submitted: u64) {
        self.handed.push_back((oldest, submitted));
    }

    /// The writer has written `completed` blocks: the batches all written are done.
    pub fn written(&mut self, completed: u64) {
        while self.handed.front().is_some_and(|&(_, n)| n <= completed) {
            self.handed.pop_front();
        }
    }

    /// The checkpoint position, given the oldest change still queued (`queue_head`; the
    /// log's position when none is), and the switch checkpoints it completes are done.
    pub fn position(&mut self, queue_head: u64) -> u64 {
        let position = self
            .handed
            .front()
            .map_or(queue_head, |&(oldest, _)| oldest.min(queue_head));
        while self.switches.front().is_some_and(|s| s.end <= position) {
            self.switches.pop_front();
        }
        position
    }

    /// Switch checkpoints in progress.
    pub fn in_progress(&self) -> usize {
        self.switches.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A switch at 1,000 with the checkpoint at 100 and the group reused 2,000 bytes on:
    /// the target moves from 100 to 1,000 over 90% of the 2,000, in step with the log.
    #[test]
    fn a_switch_checkpoint_is_due_in_step_with_the_log_until_the_group_is_needed() {
        let mut g = GroupCheckpoints::default();
        assert_eq!(g.target(5_000), 0, "no switch, no target");
        g.switched(100, 1_000, 2_000);
        assert_eq!(g.target(1_000), 100, "nothing more at the switch");
        assert_eq!(g.target(1_900), 550, "half way");
        assert_eq!(g.target(2_800), 1_000, "all of it at 90% of the way");
        assert_eq!(g.target(9_000), 1_000);
        // A later switch's target takes over once it is the further one.
        g.switched(1_000, 2_000, 2_000);
        assert_eq!(g.target(2_000), 1_000);
        assert_eq!(g.target(3_800), 2_000);
        assert_eq!(g.in_progress(), 2);
    }

    /// The position is the oldest change not on disk: a batch handed to the writer holds
    /// it back until the writer has written every block handed over with it; the switch
    /// checkpoints behind it are then complete.
    #[test]
    fn the_position_waits_for_the_writes_of_the_changes_handed_over() {
        let mut g = GroupCheckpoints::default();
        g.switched(0, 1_000, 2_000);
        g.handed(400, 10);
        g.handed(900, 25);
        assert_eq!(g.position(1_500), 400);
        g.written(12);
        assert_eq!(g.position(1_500), 900);
        assert_eq!(g.in_progress(), 1, "900 is before the switch at 1,000");
        g.written(25);
        assert_eq!(g.position(1_500), 1_500);
        assert_eq!(g.in_progress(), 0, "complete");
        assert_eq!(
            g.position(700),
            700,
            "the queue's head when nothing is in flight"
        );
    }
}
