//! The simulated database's log path: a log writer step releases the commits its write made
//! durable and issues the next write (held first when its file still awaits archiving).

use super::{DbEngine, DbIo, Stack};
use crate::db::{LogStep, LogWrite};

impl DbEngine {
    pub(super) fn log_step(&mut self, step: LogStep, stack: &mut Stack) {
        let measuring = stack.measuring();
        for &s in &step.released {
            if measuring {
                let waited = stack.now() - self.sessions[s as usize].wait_start;
                self.stats.commit_waits += 1;
                self.stats.commit_wait_ns += waited;
                self.commit_latency.record(waited);
            }
            self.finish_op(s, stack);
        }
        self.log.recycle(step.released);
        // The write first: the files this step filled (the write's own among them) are
        // queued for archiving after it is checked against the files still to be copied.
        if let Some(w) = step.write {
            if !self.hold_for_archive(w, stack.now()) {
                self.issue_log_write(w, stack);
            }
        }
        self.archive_files(&step.archive, stack);
    }

    pub(super) fn issue_log_write(&mut self, w: LogWrite, stack: &mut Stack) {
        if stack.measuring() {
            self.stats.log_bytes += w.bytes;
        }
        let base = self.spec.log_offset.unwrap_or(0);
        stack.issue_db_io(
            DbIo::Log,
            self.log_target,
            (base + w.offset) / 512,
            w.bytes / 512,
            true,
        );
    }
}
