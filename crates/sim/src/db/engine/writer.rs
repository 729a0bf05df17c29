//! The simulated database writer's path: its batched writes of dirty blocks go to the
//! devices, or through the host's file cache when there is one, at most its limit in flight.

use super::{DbIo, Issuer, Model, BLOCK_SECTORS};
use crate::db::DbTimer;

impl Model {
    /// Issues the database writer's next writes while it has room for them.
    pub(super) fn pump_writer(&mut self) {
        loop {
            let db = self.db.as_mut().expect("database");
            let Some(w) = db.writer.next_write() else {
                return;
            };
            let target = db.data;
            let following = db.writer.peek().map(|n| (n.first, n.blocks));
            if self.now >= self.opts.warmup_ns {
                db.stats.writer_blocks += w.blocks;
            }
            self.os_cache_keep(w.first, w.blocks);
            if !self.os_cache_write(w.first, w.blocks, DbTimer::WriterBuffered) {
                self.issue_host(
                    Issuer::Db(DbIo::Writer),
                    target,
                    w.first * BLOCK_SECTORS,
                    w.blocks * BLOCK_SECTORS,
                    true,
                    self.now,
                );
            }
            // The write after this one goes down when one completes: its write-cache entries
            // load meanwhile.
            if let Some((first, blocks)) = following {
                self.prefetch_io(target, first * BLOCK_SECTORS, blocks * BLOCK_SECTORS, true);
            }
        }
    }

    /// A database-writer write is done (on the device, or copied into the file cache): the
    /// next one may go.
    pub(super) fn writer_write_done(&mut self) {
        self.db.as_mut().expect("database").writer.done();
        self.pump_writer();
    }
}
