//! The host's file cache under the simulated database's data files (`os_cache`): PostgreSQL
//! reads and writes its data files through the operating system's page cache, so a block the
//! buffer cache lacks may still be in memory. Such a read costs a system call and a copy
//! (`os_read`, a short `IO:DataFileRead` wait, as PostgreSQL reports it) and no device I/O.
//! Every block read from the device or written by the database stays in the file cache, which
//! evicts the least recently used. Writes, a session's dirty victim as the database writer's,
//! are a system call and a copy; the host writes the blocks back to the devices in the
//! background (at most `WRITEBACK_MAX` at once). A database on raw devices, ASM or O_DIRECT
//! has none (`os_cache = 0`, the default).

use super::{DbEngine, DbIo, DbTimer, Stack, NEW_BLOCK};
use crate::cache::LruCache;
use crate::config::DbSpec;

/// Write-backs of the file cache in flight at most: beyond them a session's write waits for
/// the device, as the kernel throttles writers when dirty pages pile up.
pub(super) const WRITEBACK_MAX: u32 = 4096;

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

impl DbEngine {
    /// When the file cache holds `block` (session `s`'s current block, a buffer miss), the
    /// session reads it from there: it waits `os_read` and goes on, and true is returned.
    /// False: the block must come from the device.
    pub(super) fn os_cache_read(&mut self, s: u32, block: u64, stack: &mut Stack) -> bool {
        if !self.os_cache.touch(block) {
            return false;
        }
        let wait = self.spec.os_read_ns;
        if stack.measuring() {
            self.stats.os_hits += 1;
            self.stats.read_waits += 1;
            self.stats.read_wait_ns += wait;
        }
        self.sessions[s as usize].next += 1;
        stack.schedule_db(stack.now() + wait.max(1), DbTimer::Session(s));
        true
    }

    /// Blocks `first..first + blocks` are written through the file cache (a session's dirty
    /// victim, or a database-writer write): the writer of them pays the system call and the
    /// copy (`os_read` per block) and hears at `done`, while the host writes the blocks back
    /// in the background. False when there is no file cache, or too many write-backs are in
    /// flight: the caller then writes to the device and waits for it.
    pub(super) fn os_cache_write(
        &mut self,
        first: u64,
        blocks: u64,
        done: DbTimer,
        stack: &mut Stack,
    ) -> bool {
        if self.spec.os_cache_blocks == 0 || self.writebacks >= WRITEBACK_MAX {
            return false;
        }
        self.writebacks += 1;
        let at = stack.now() + (self.spec.os_read_ns * blocks).max(1);
        stack.schedule_db(at, done);
        stack.issue_db_io(
            DbIo::Writeback,
            self.data,
            first * super::BLOCK_SECTORS,
            blocks * super::BLOCK_SECTORS,
            true,
        );
        true
    }

    /// Session `s`'s current block came from the device: it is now in the file cache too.
    pub(super) fn os_cache_keep_current(&mut self, s: u32) {
        let sess = &self.sessions[s as usize];
        if let Some(&(entry, _)) = sess.plan.get(sess.next) {
            self.os_cache.insert(entry & !NEW_BLOCK);
        }
    }

    /// Blocks `first..first + count` were written through the file cache.
    pub(super) fn os_cache_keep(&mut self, first: u64, count: u64) {
        for b in first..first + count {
            self.os_cache.insert(b);
        }
    }
}
