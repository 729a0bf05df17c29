//! The host's file cache under the simulated database's data files (`os_cache`): PostgreSQL
//! reads and writes its data files through the operating system's page cache, so a block the
//! buffer cache lacks may still be in memory. Such a read costs a system call and a copy
//! (`os_read`, a short `IO:DataFileRead` wait, as PostgreSQL reports it) and no device I/O.
//! Every block read from the device or written by the database stays in the file cache, which
//! evicts the least recently used. Writes, a session's dirty victim as the database writer's,
//! are a system call and a copy; the host writes the blocks back to the devices in the
//! background (at most `WRITEBACK_MAX` at once). A database on raw devices, ASM or O_DIRECT
//! has none (`os_cache = 0`, the default).

use super::{DbIo, DbTimer, Issuer, Model, NEW_BLOCK};
use crate::cache::LruCache;
use crate::config::DbSpec;
use crate::engine::{Event, SimTime};

/// Write-backs of the file cache in flight at most: beyond them a session's write waits for
/// the device, as the kernel throttles writers when dirty pages pile up.
const WRITEBACK_MAX: u32 = 4096;

/// The file cache at the start: empty, or (`os_cache_warm`) holding the database's first
/// blocks in order, as many as fit (all of them when it is larger than the database).
pub(super) fn initial(spec: &DbSpec, db_blocks: u64) -> LruCache {
    let mut c = LruCache::new(spec.os_cache_blocks);
    if spec.os_cache_warm {
        for b in 0..db_blocks.min(spec.os_cache_blocks) {
            c.insert(b);
        }
    }
    c
}

impl Model {
    /// When the file cache holds `block` (session `s`'s current block, a buffer miss), the
    /// session reads it from there: it waits `os_read` and goes on, and true is returned.
    /// False: the block must come from the device.
    pub(super) fn os_cache_read(&mut self, s: u32, block: u64) -> bool {
        let measuring = self.now >= self.opts.warmup_ns;
        let db = self.db.as_mut().expect("database");
        if !db.os_cache.touch(block) {
            return false;
        }
        let wait = db.spec.os_read_ns;
        if measuring {
            db.stats.os_hits += 1;
            db.stats.read_waits += 1;
            db.stats.read_wait_ns += wait;
        }
        db.sessions[s as usize].next += 1;
        self.queue.schedule(
            SimTime(self.now + wait.max(1)),
            Event::Db(DbTimer::Session(s)),
        );
        true
    }

    /// Blocks `first..first + blocks` are written through the file cache (a session's dirty
    /// victim, or a database-writer write): the writer of them pays the system call and the
    /// copy (`os_read` per block) and hears at `done`, while the host writes the blocks back
    /// in the background. False when there is no file cache, or too many write-backs are in
    /// flight: the caller then writes to the device and waits for it.
    pub(super) fn os_cache_write(&mut self, first: u64, blocks: u64, done: DbTimer) -> bool {
        let db = self.db.as_mut().expect("database");
        if db.spec.os_cache_blocks == 0 || db.writebacks >= WRITEBACK_MAX {
            return false;
        }
        db.writebacks += 1;
        let target = db.data;
        let at = self.now + (db.spec.os_read_ns * blocks).max(1);
        self.queue.schedule(SimTime(at), Event::Db(done));
        self.issue_host(
            Issuer::Db(DbIo::Writeback),
            target,
            first * super::BLOCK_SECTORS,
            blocks * super::BLOCK_SECTORS,
            true,
            self.now,
        );
        true
    }

    /// Session `s`'s current block came from the device: it is now in the file cache too.
    pub(super) fn os_cache_keep_current(&mut self, s: u32) {
        let db = self.db.as_mut().expect("database");
        let sess = &db.sessions[s as usize];
        if let Some(&(entry, _)) = sess.plan.get(sess.next) {
            db.os_cache.insert(entry & !NEW_BLOCK);
        }
    }

    /// Blocks `first..first + count` were written through the file cache.
    pub(super) fn os_cache_keep(&mut self, first: u64, count: u64) {
        let db = self.db.as_mut().expect("database");
        for b in first..first + count {
            db.os_cache.insert(b);
        }
    }
}
