//! The simulated database writer's path: its batched writes of dirty blocks go to the
//! devices, or through the host's file cache when there is one, at most its limit in flight.

use super::{DbEngine, DbIo, Stack, BLOCK_SECTORS};
use crate::db::DbTimer;
use crate::engine::SimTime;

impl DbEngine {
    /// The writer's round. PostgreSQL's background writer cleans, ahead of the clock hand,
    /// twice as many buffers as sessions allocated since the last round, at usage one or
    /// less wherever they are. Oracle's DBWR writes the dirty buffers at the cold end (those
    /// the next sweep takes) and the incremental checkpoint's.
    pub(super) fn writer_round(&mut self, stack: &mut Stack) {
        let pages = match self.oracle.as_mut() {
            None => {
                let frames = self.cache.frames();
                let want = (2 * self.allocs).max(1) as usize;
                self.cache.clean_ahead(frames, want)
            }
            Some(o) => {
                let swept = self.cache.swept();
                let window = cold_end_window(swept - o.swept_at_round);
                o.swept_at_round = swept;
                let mut pages = self.cache.take_write_list();
                pages.extend(self.cache.clean_cold_end(window, usize::MAX));
                pages
            }
        };
        self.allocs = 0;
        self.writer.submit(&pages);
        if stack.measuring() {
            if let Some(o) = self.oracle.as_mut() {
                o.cold_end_blocks += pages.len() as u64;
            }
        }
        self.incremental_checkpoint(stack.now().0, stack.measuring());
        stack.schedule_db(stack.now() + self.spec.dbwr_interval_ns, DbTimer::Writer);
        self.pump_writer(stack);
    }

    /// Issues the database writer's next writes while it has room for them.
    pub(super) fn pump_writer(&mut self, stack: &mut Stack) {
        if stack.measuring() {
            let backlog = self.writer.backlog_blocks();
            let max = &mut self.stats.writer_backlog_max_blocks;
            *max = (*max).max(backlog);
        }
        loop {
            // Oracle: a write whose redo is not on disk waits for it (the write-ahead rule).
            if self.oracle.is_some()
                && self.writer.has_room()
                && !self.next_write_redo_on_disk(stack)
            {
                return;
            }
            let Some(w) = self.writer.next_write() else {
                return;
            };
            let target = self.data;
            let following = self.writer.peek().map(|n| (n.first, n.blocks));
            if stack.measuring() {
                self.stats.writer_blocks += w.blocks;
                if let Some(o) = self.oracle.as_mut() {
                    let end = w.first + w.blocks;
                    o.undo_blocks_written += end.saturating_sub(o.undo.base().max(w.first));
                }
            }
            self.os_cache_keep(w.first, w.blocks);
            if !self.os_cache_write(w.first, w.blocks, DbTimer::WriterBuffered, stack) {
                stack.issue_db_io(
                    DbIo::Writer,
                    target,
                    w.first * BLOCK_SECTORS,
                    w.blocks * BLOCK_SECTORS,
                    true,
                );
            }
            // The write after this one goes down when one completes: its write-cache entries
            // load meanwhile.
            if let Some((first, blocks)) = following {
                stack.prefetch_io(target, first * BLOCK_SECTORS, blocks * BLOCK_SECTORS, true);
            }
        }
    }

    /// A checkpoint: every dirty block goes to the writer, in block order.
    pub(super) fn checkpoint(&mut self, stack: &mut Stack) {
        self.hint_checkpoint();
        let pages = self.cache.checkpoint();
        self.writer.submit(&pages);
        stack.note("checkpoint", "database", format!("{} blocks", pages.len()));
        self.pump_writer(stack);
    }

    /// A database-writer write is done (on the device, or copied into the file cache): the
    /// next one may go.
    pub(super) fn writer_write_done(&mut self, stack: &mut Stack) {
        let write = self.writer.done();
        let released = match write.filter(|_| self.oracle.is_some()) {
            Some(w) => self.cache.written(w.first, w.blocks),
            None => 0,
        };
        self.release_checkpoint_hold(stack);
        self.pump_writer(stack);
        if self.job.is_some() {
            self.job_free_buffers(stack);
        }
        if released > 0 && !self.free_buffer_waiters.is_empty() {
            // The sessions waiting for a free buffer look again, in the order they began.
            for s in std::mem::take(&mut self.free_buffer_waiters) {
                self.advance(s, stack);
            }
        }
    }

    /// Oracle: session `s` found no free buffer within its scan limit: it posts the writer
    /// (the write list goes to it now) and waits (`free buffer waits`) until a write frees
    /// buffers, then looks again.
    pub(super) fn free_buffer_wait(&mut self, s: u32, stack: &mut Stack) {
        let now = stack.now();
        self.sessions[s as usize].free_wait_since.get_or_insert(now);
        self.free_buffer_waiters.push(s);
        let pages = self.cache.take_write_list();
        if !pages.is_empty() {
            self.writer.submit(&pages);
            if stack.measuring() {
                if let Some(o) = self.oracle.as_mut() {
                    o.cold_end_blocks += pages.len() as u64;
                }
            }
        }
        self.pump_writer(stack);
    }

    /// Oracle: session `s` got a buffer; a wait for a free one ends.
    #[inline]
    pub(super) fn free_buffer_found(&mut self, s: u32, now: SimTime, measuring: bool) {
        if let Some(since) = self.sessions[s as usize].free_wait_since.take() {
            if measuring {
                self.stats.free_buffer_waits += 1;
                self.stats.free_buffer_wait_ns += now - since;
            }
        }
    }
}

/// Oracle's DBWR: the frames from the clock hand whose dirty buffers a round writes, twice
/// the frames the hand passed during the last round (the sweep the next round's
/// allocations are likely to make, with room for a faster one).
fn cold_end_window(swept_last_round: u64) -> usize {
    usize::try_from(swept_last_round.saturating_mul(2)).unwrap_or(usize::MAX)
}
