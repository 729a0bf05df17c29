//! The log writer is a process like the sessions: before each log write it needs a CPU
//! burst (`log_writer_cpu`: waking up, gathering the redo to write, issuing the write and,
//! after the previous one, posting the commits it made durable), taken in turn with the
//! sessions' bursts on the host's CPUs. On a host whose CPUs are busy it waits in the run
//! queue first, so each write cycle takes longer and more commits arrive meanwhile and share
//! the next write (group commit grows). The committing sessions wait through it: their
//! `log file sync` includes the writer's CPU and run-queue time, `log file parallel write`
//! only the write's I/O. With no burst (0, the default) a write is issued at once.

use super::{DbEngine, Stack};
use crate::db::{DbTimer, LogWrite};

impl DbEngine {
    /// The log writer issues `w` after its CPU burst, or at once without one.
    pub(super) fn log_writer_run(&mut self, w: LogWrite, stack: &mut Stack) {
        let cpu = self.spec.log_writer_cpu_ns;
        if cpu == 0 {
            self.issue_log_write(w, stack);
            return;
        }
        let now = stack.now();
        let start = self.reserve_cpu(now, cpu);
        if stack.measuring() {
            self.stats.log_writer_cpu_ns += cpu;
            self.stats.log_writer_runqueue_ns += start - now;
        }
        debug_assert!(self.log_cpu_pending.is_none(), "one log write at a time");
        self.log_cpu_pending = Some(w);
        stack.schedule_db(start + cpu, DbTimer::LogWriterCpu);
    }

    /// The log writer's burst is over: its write goes to every member.
    pub(super) fn log_writer_cpu_done(&mut self, stack: &mut Stack) {
        if let Some(w) = self.log_cpu_pending.take() {
            self.issue_log_write(w, stack);
        }
    }
}
