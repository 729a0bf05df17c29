//! Oracle's write-ahead rule on the database writer's path (see [`crate::db::write_ahead`]):
//! a write whose blocks have redo not yet on disk is deferred; DBWR posts LGWR when that redo
//! is in no log write yet and goes on with its other writes; the deferred ones go first once
//! a log write completes. Their time deferred is DBWR's wait for the log.

use super::{DbEngine, Stack};
use crate::db::write_ahead::{RedoNeed, RedoOnDisk};
use crate::db::BlockWrite;
use crate::engine::SimTime;

/// The write-ahead state of an Oracle database.
pub(super) struct WriteAhead {
    pub redo: RedoOnDisk,
    /// Writes deferred until their redo is on disk, with when each was deferred.
    deferred: Vec<(BlockWrite, SimTime)>,
    /// Measured window: writes deferred, their time deferred, and log writes DBWR asked for.
    pub waits: u64,
    pub wait_ns: u64,
    pub posts: u64,
}

impl WriteAhead {
    pub fn new(pages: u64) -> WriteAhead {
        WriteAhead {
            redo: RedoOnDisk::new(pages),
            deferred: Vec::new(),
            waits: 0,
            wait_ns: 0,
            posts: 0,
        }
    }

    pub fn reset(&mut self) {
        self.waits = 0;
        self.wait_ns = 0;
        self.posts = 0;
    }
}

impl DbEngine {
    /// Oracle: whether the writer's next write may go now. Its blocks' redo not on disk, the
    /// write is deferred (DBWR posts LGWR when that redo is in no log write yet) and the
    /// writer looks at the next one; true when the next write may go, false when none is
    /// queued.
    pub(super) fn next_write_redo_on_disk(&mut self, stack: &mut Stack) -> bool {
        loop {
            let Some(o) = self.oracle.as_mut() else {
                return true;
            };
            let Some(&w) = self.writer.peek() else {
                return false;
            };
            let need = o.write_ahead.redo.need(w.first, w.blocks);
            if need == RedoNeed::OnDisk {
                return true;
            }
            self.writer.take_next();
            o.write_ahead.deferred.push((w, stack.now()));
            if need == RedoNeed::Unwritten {
                if stack.measuring() {
                    o.write_ahead.posts += 1;
                }
                let step = self.log.post();
                self.log_step(step, stack);
            }
        }
    }

    /// A log step: a write it completed put the redo it covered on disk; a write it started
    /// that covers all the redo so far takes the blocks changed since the last one.
    pub(super) fn log_started(&mut self, step: &crate::db::LogStep) {
        let Some(o) = self.oracle.as_mut() else {
            return;
        };
        if step.completed {
            o.write_ahead.redo.write_done();
        }
        if step.write.is_some() && self.log.writing_to() == Some(self.log.lsn()) {
            o.write_ahead.redo.write_began();
        }
    }

    /// After a log write completed: the deferred writes go back to the head of the writer's
    /// queue (each is looked at again) and the writer issues what it may.
    pub(super) fn requeue_deferred(&mut self, stack: &mut Stack) {
        let Some(o) = self.oracle.as_mut() else {
            return;
        };
        if o.write_ahead.deferred.is_empty() {
            return;
        }
        let now = stack.now();
        let deferred = std::mem::take(&mut o.write_ahead.deferred);
        if stack.measuring() {
            o.write_ahead.waits += deferred.len() as u64;
            o.write_ahead.wait_ns += deferred.iter().map(|&(_, at)| now - at).sum::<u64>();
        }
        self.writer.requeue(deferred.iter().map(|&(w, _)| w));
        self.pump_writer(stack);
    }

    /// Oracle: the write-ahead rule's figures, per second of the window `secs`.
    pub(super) fn write_ahead_parameters(
        &self,
        o: &mut serde_json::Map<String, serde_json::Value>,
        secs: f64,
    ) {
        let Some(ora) = self.oracle.as_ref() else {
            return;
        };
        let w = &ora.write_ahead;
        let per_s = |n: u64| storlab_core::histogram::round_to(n as f64 / secs.max(1e-9), 1);
        // Log writes the database writer asked for (its writes' redo not on disk), the
        // writes it deferred for them, and their mean time deferred.
        o.insert("dbwr_log_posts_per_s".into(), per_s(w.posts).into());
        o.insert("dbwr_log_waits_per_s".into(), per_s(w.waits).into());
        let mean_ms = if w.waits == 0 {
            0.0
        } else {
            w.wait_ns as f64 / w.waits as f64 / 1e6
        };
        o.insert(
            "dbwr_log_wait_ms".into(),
            storlab_core::histogram::round_to(mean_ms, 3).into(),
        );
    }
}
