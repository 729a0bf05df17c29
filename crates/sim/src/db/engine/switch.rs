//! Oracle's log switches in the simulated database. Each switch starts a lazy checkpoint of
//! the group it leaves, due by the time that group is reused (see
//! [`crate::db::checkpoint_queue::GroupCheckpoints`]): the writer's rounds write its blocks
//! in step with the log. When the log writer's first write into a group comes while the
//! group's previous redo is not all checkpointed, the write is held ("Checkpoint not
//! complete"): every block changed before the end of that redo goes to the writer at once,
//! and the write goes when they are written. Meanwhile committing sessions wait (`log file
//! switch (checkpoint incomplete)`) and redo fills the log buffer (`log buffer space`).

use super::{DbEngine, Stack};
use crate::db::LogWrite;
use crate::engine::SimTime;

/// Log switches' state: files the log writer has begun, the write held, and the waits.
#[derive(Debug, Default)]
pub(super) struct SwitchState {
    /// Log files (group uses) whose first write has been issued or held.
    files_begun: u64,
    /// The first write into a group whose checkpoint is incomplete, since when, and the
    /// checkpoint position it needs.
    held: Option<(LogWrite, SimTime, u64)>,
    /// Holds ended in the measured window, their time, and committing sessions' time
    /// spent waiting through them.
    pub holds: u64,
    pub hold_ns: u64,
    pub session_ns: u64,
    /// The largest lag of the checkpoint position behind the log's end at a writer round
    /// (measured window), bytes.
    pub lag_max: u64,
}

impl SwitchState {
    /// The warm-up is over: the counts restart.
    pub fn reset(&mut self) {
        self.holds = 0;
        self.hold_ns = 0;
        self.session_ns = 0;
        self.lag_max = 0;
    }
}

impl DbEngine {
    /// Oracle: the log switched (its write that fills a group is issued): the group's lazy
    /// checkpoint starts, due before the group is reused, `log_files - 1` switches later.
    pub(super) fn switch_checkpoint(&mut self, stack: &mut Stack) {
        let group = self.log.group();
        stack.note("log switch", "database", format!("to group {group}"));
        let Some(position) = self.checkpoint_position() else {
            return;
        };
        let file = self.spec.log_file_bytes;
        let end = self.log.switches.saturating_mul(file);
        let reuse = u64::from(self.spec.log_groups.max(2) - 1).saturating_mul(file);
        let Some(o) = self.oracle.as_mut() else {
            return;
        };
        o.groups.switched(position, end, reuse);
        let queued = o.queue.len();
        stack.note(
            "checkpoint",
            "database",
            format!("lazy: {queued} blocks queued, due before this group is reused"),
        );
    }

    /// Oracle: true (and the write held) when `w` is the log writer's first write into a
    /// group whose previous redo is not all checkpointed: the blocks changed by that redo
    /// go to the writer at once.
    pub(super) fn hold_for_checkpoint(&mut self, w: LogWrite, stack: &mut Stack) -> bool {
        let file = self.spec.log_file_bytes;
        let groups = u64::from(self.spec.log_groups.max(1));
        let Some(o) = self.oracle.as_mut() else {
            return false;
        };
        if !w.offset.is_multiple_of(file) {
            return false;
        }
        let begun = o.switch.files_begun;
        o.switch.files_begun += 1;
        if begun < groups {
            return false;
        }
        // The group's previous use ended where the log began the file after it.
        let need = (begun + 1 - groups).saturating_mul(file);
        if self.checkpoint_position().is_some_and(|p| p >= need) {
            return false;
        }
        let blocks = self.queue_checkpoint(need, 0, stack.measuring());
        let Some(o) = self.oracle.as_mut() else {
            return false;
        };
        o.switch.held = Some((w, stack.now(), need));
        let group = self.log.group();
        stack.note(
            "checkpoint not complete",
            "database",
            format!("group {group} waits; {blocks} more blocks to the writer"),
        );
        self.pump_writer(stack);
        true
    }

    /// A database-writer write completed: a log write held for its group's checkpoint goes
    /// once the checkpoint position has passed the group's previous redo (then, when
    /// archiving, once the group is archived).
    pub(super) fn release_checkpoint_hold(&mut self, stack: &mut Stack) {
        let held = self.oracle.as_ref().and_then(|o| o.switch.held);
        let Some((w, since, need)) = held else {
            return;
        };
        if self.checkpoint_position().is_some_and(|p| p < need) {
            return;
        }
        let now = stack.now();
        let waiting = self.log.waiting() as u64;
        let Some(o) = self.oracle.as_mut() else {
            return;
        };
        o.switch.held = None;
        if since >= stack.warmup_end() {
            let held_ns = now - since;
            o.switch.holds += 1;
            o.switch.hold_ns += held_ns;
            o.switch.session_ns += held_ns * waiting;
        }
        if !self.hold_for_archive(w, now) {
            self.log_writer_run(w, stack);
        }
    }
}
