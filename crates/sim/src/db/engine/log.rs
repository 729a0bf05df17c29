//! The simulated database's log path: a log writer step releases the commits its write made
//! durable and issues the next write (held first when its file still awaits archiving) to
//! every member of the current log group; with Oracle, each log switch starts a lazy
//! checkpoint of the group it leaves, and a write into a group whose checkpoint is not
//! complete is held (see [`super::switch`]).

use super::{DbEngine, DbIo, Stack};
use crate::config::DbSpec;
use crate::db::{LogConfig, LogStep, LogWrite};
use storlab_core::character::Engine;

/// Largest log write of PostgreSQL's WAL writer (and the least an Oracle one may write).
const MAX_WRITE_BYTES: u64 = 1 << 20;

/// The log writer's layout and triggers for `spec`: PostgreSQL writes WAL pages of 8 KiB,
/// at most 1 MiB at a time; Oracle writes redo blocks of 512 bytes, as much as a third of
/// its log buffer (at least 1 MiB) at a time, and also when a third of the buffer is full.
pub(super) fn config(spec: &DbSpec) -> LogConfig {
    let oracle = spec.engine == Engine::Oracle;
    let block = if oracle { 512 } else { 8192 };
    LogConfig {
        block,
        max_write: if oracle {
            (spec.log_buffer_bytes / 3)
                .div_ceil(block)
                .saturating_mul(block)
                .max(MAX_WRITE_BYTES)
        } else {
            MAX_WRITE_BYTES
        },
        file_bytes: spec.log_file_bytes,
        groups: spec.log_groups,
        members: 1 + spec.log_members.len() as u32,
        archive: spec.archive.is_some(),
        buffer_bytes: if oracle { spec.log_buffer_bytes } else { 0 },
        wastes_tail: oracle,
    }
}

impl DbEngine {
    pub(super) fn log_step(&mut self, step: LogStep, stack: &mut Stack) {
        self.log_started(&step);
        let measuring = stack.measuring();
        if step.completed && measuring {
            self.stats.log_writes += 1;
            self.stats.log_write_ns += stack.now() - self.log_write_start;
        }
        for &s in &step.released {
            if measuring {
                let waited = stack.now() - self.sessions[s as usize].wait_start;
                self.stats.commit_waits += 1;
                self.stats.commit_wait_ns += waited;
                self.commit_latency.record(waited);
            }
            if self.hints.is_some() {
                self.hint_commit(s);
            }
            self.finish_op(s, stack);
        }
        self.log.recycle(step.released);
        // The write first: the files this step filled (the write's own among them) are
        // queued for archiving after it is checked against the files still to be copied.
        if let Some(w) = step.write {
            if !self.hold_for_checkpoint(w, stack) && !self.hold_for_archive(w, stack.now()) {
                self.log_writer_run(w, stack);
            }
        }
        self.archive_files(&step.archive, stack);
        if step.switches > 0 && self.oracle.is_some() {
            self.switch_checkpoint(stack);
        }
        if step.completed {
            self.wake_log_space(stack);
            self.requeue_deferred(stack);
        }
    }

    /// Issues log write `w` to every member of the log group: the log target, then each
    /// further member (its log files from its start).
    pub(super) fn issue_log_write(&mut self, w: LogWrite, stack: &mut Stack) {
        if stack.measuring() {
            self.stats.log_bytes += w.bytes;
        }
        self.log_write_start = stack.now();
        let base = self.spec.log_offset.unwrap_or(0);
        stack.issue_db_io(
            DbIo::Log,
            self.log_target,
            (base + w.offset) / 512,
            w.bytes / 512,
            true,
        );
        for (i, &target) in self.log_members.iter().enumerate() {
            let io = DbIo::LogMember(i as u32);
            stack.issue_db_io(io, target, w.offset / 512, w.bytes / 512, true);
        }
    }
}
