//! The simulated database writer's path: its batched writes of dirty blocks go to the
//! devices, or through the host's file cache when there is one, at most its limit in flight.

use super::{DbEngine, DbIo, Stack, BLOCK_SECTORS};
use crate::db::DbTimer;

impl DbEngine {
    /// Issues the database writer's next writes while it has room for them.
    pub(super) fn pump_writer(&mut self, stack: &mut Stack) {
        loop {
            let Some(w) = self.writer.next_write() else {
                return;
            };
            let target = self.data;
            let following = self.writer.peek().map(|n| (n.first, n.blocks));
            if stack.measuring() {
                self.stats.writer_blocks += w.blocks;
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
        let pages = self.cache.checkpoint();
        self.writer.submit(&pages);
        stack.note("checkpoint", "database", format!("{} blocks", pages.len()));
        self.pump_writer(stack);
    }

    /// A database-writer write is done (on the device, or copied into the file cache): the
    /// next one may go.
    pub(super) fn writer_write_done(&mut self, stack: &mut Stack) {
        self.writer.done();
        self.pump_writer(stack);
        if self.job.is_some() {
            self.job_free_buffers(stack);
        }
    }
}
