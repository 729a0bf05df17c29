//! What a job waits for besides its large I/Os: its CPU, its index leaf reads and free
//! buffers.
//!
//! - **CPU.** The job's one session spends the host CPU per block and per row the database
//!   spends for transactions (`cpu_per_block`, `cpu_per_row`): on the rows a load parses and
//!   the blocks it formats, on the blocks and rows an index build scans, and on each batch's
//!   blocks and rows before its commit. Its bursts run one after another on the host CPUs
//!   (the same run queue as the log writer's); what they process counts as done when the
//!   burst is over, so a slow CPU holds the job's I/O back.
//! - **Index leaves.** A batch's index leaves not in the buffer cache are read one at a time
//!   (single-block reads the job waits for) before its CPU burst.
//! - **Free buffers.** A batch starts only while the dirty blocks handed to the database
//!   writer and not yet written are at most [`FREE_BUFFER_SHARE`] of the buffer cache: past
//!   that, the job waits for the writer (`free buffer waits`).

use std::collections::VecDeque;

use super::super::{DbEngine, DbIo, Stack, BLOCK_SECTORS};
use crate::db::DbTimer;
use crate::engine::SimTime;

/// Share of the buffer cache the writer's backlog may hold before a job waits for free
/// buffers: Oracle's foreground gives up its search for a free buffer after scanning 40% of
/// the buffers (`_db_block_max_scan_pct`).
pub const FREE_BUFFER_SHARE: f64 = 0.4;

/// What a CPU burst of the job processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CpuWork {
    /// `bytes` read by stream `stream` of the current phase.
    Chunk { stream: usize, bytes: u64 },
    /// The batch of rows under way: its redo and commit follow.
    Batch,
}

/// The job's CPU, index reads and free-buffer waits.
#[derive(Clone, Debug, Default)]
pub(crate) struct JobWork {
    /// Bursts asked for, in order; the CPU is busy with them until `busy_until`.
    queue: VecDeque<CpuWork>,
    busy_until: SimTime,
    pub cpu_ns: u64,
    pub runqueue_ns: u64,
    /// Index leaves the batch still has to read, and the leaves changed and read in all.
    pub index_reads: VecDeque<u64>,
    pub index_blocks: u64,
    pub index_reads_done: u64,
    /// The batch's CPU, redo and commit record still to come.
    pub batch_cpu_ns: u64,
    pub batch_redo: u64,
    pub batch_commit: u64,
    /// Waiting for free buffers since; waits and their time.
    pub free_wait_since: Option<SimTime>,
    pub free_waits: u64,
    pub free_wait_ns: u64,
}

impl DbEngine {
    /// The job asks for `cpu` ns of host CPU to process `work`.
    pub(super) fn job_cpu(&mut self, cpu: u64, work: CpuWork, stack: &mut Stack) {
        let now = stack.now();
        let Some(job) = self.job.as_mut() else {
            return;
        };
        let ready = job.work.busy_until.max(now);
        let start = self.reserve_cpu(ready, cpu);
        let Some(job) = self.job.as_mut() else {
            return;
        };
        job.work.busy_until = start + cpu;
        job.work.cpu_ns += cpu;
        job.work.runqueue_ns += start - ready;
        job.work.queue.push_back(work);
        if stack.measuring() {
            self.stats.cpu_ns += cpu;
            self.stats.runqueue_ns += start - ready;
        }
        stack.schedule_db(start + cpu, DbTimer::JobCpu);
    }

    /// A CPU burst of the job is over: what it processed is done.
    pub(crate) fn job_cpu_done(&mut self, stack: &mut Stack) {
        let Some(job) = self.job.as_mut() else {
            return;
        };
        match job.work.queue.pop_front() {
            Some(CpuWork::Chunk { stream, bytes }) => {
                if let Some(s) = job
                    .phases
                    .get_mut(job.phase)
                    .and_then(|p| p.get_mut(stream))
                {
                    s.credit(bytes);
                }
                self.pump_job(stack);
            }
            Some(CpuWork::Batch) => self.job_batch_commit(stack),
            None => {}
        }
    }

    /// The batch's next step: its next index leaf read, else its CPU burst (or, without
    /// CPU, its commit).
    pub(super) fn job_batch_next(&mut self, stack: &mut Stack) {
        let Some(job) = self.job.as_mut() else {
            return;
        };
        if let Some(leaf) = job.work.index_reads.pop_front() {
            job.work.index_reads_done += 1;
            let target = self.data;
            stack.issue_db_io(
                DbIo::JobRead,
                target,
                leaf * BLOCK_SECTORS,
                BLOCK_SECTORS,
                false,
            );
            return;
        }
        let cpu = std::mem::take(&mut job.work.batch_cpu_ns);
        if cpu > 0 {
            self.job_cpu(cpu, CpuWork::Batch, stack);
        } else {
            self.job_batch_commit(stack);
        }
    }

    /// The job's index leaf read is done.
    pub(crate) fn job_read_done(&mut self, stack: &mut Stack) {
        self.job_batch_next(stack);
    }

    /// The batch's work is done: its redo goes to the log buffer and it commits.
    fn job_batch_commit(&mut self, stack: &mut Stack) {
        let Some(job) = self.job.as_mut() else {
            return;
        };
        let redo = std::mem::take(&mut job.work.batch_redo);
        let commit = std::mem::take(&mut job.work.batch_commit);
        job.redo_bytes += redo;
        let step = self.log.append(redo);
        self.log_step(step, stack);
        self.job_commit(commit, stack);
    }

    /// Whether the writer's backlog leaves the job too few free buffers.
    pub(super) fn job_short_of_buffers(&self) -> bool {
        let limit = (self.cache.frames() as f64 * FREE_BUFFER_SHARE) as u64;
        self.writer.queued_blocks() > limit.max(1)
    }

    /// The writer wrote: a job waiting for free buffers goes on when there are enough.
    pub(crate) fn job_free_buffers(&mut self, stack: &mut Stack) {
        let short = self.job_short_of_buffers();
        let Some(job) = self.job.as_mut() else {
            return;
        };
        let Some(since) = job.work.free_wait_since else {
            return;
        };
        if short {
            return;
        }
        job.work.free_wait_since = None;
        job.work.free_waits += 1;
        job.work.free_wait_ns += stack.now() - since;
        if stack.measuring() {
            self.stats.victim_waits += 1;
            self.stats.victim_wait_ns += stack.now() - since;
        }
        self.pump_job(stack);
    }
}
