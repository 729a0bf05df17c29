//! An operation's block accesses: its plan walked through the buffer cache until an
//! access misses (a read or a dirty victim's write to wait for) or the plan is done (the
//! commit, or the next operation).

use super::{builtin, character, DbEngine, DbIo, Stack};
use crate::db::layout::NEW_BLOCK;
use crate::db::DbTimer;

/// Where a walk of a session's plan stopped.
enum Walk {
    /// Every block accessed.
    Done,
    /// `block` missed; `victim`: the dirty page its buffer held.
    Miss {
        block: u64,
        new: bool,
        victim: Option<u64>,
    },
    /// A scan's multiblock read was issued.
    Waiting,
    /// Oracle: no free buffer within the scan limit.
    NoFreeBuffer,
}

impl DbEngine {
    /// Runs session `s`'s block accesses until one misses (a read to wait for) or the
    /// operation is done (commit, or the next operation).
    pub(super) fn advance(&mut self, s: u32, stack: &mut Stack) {
        // Oracle's change-by-change redo and a characterization's scans are decided once
        // per operation: the plain walk checks neither for each block.
        let scan = self.sessions[s as usize].scan;
        let walk = if self.oracle.is_some() || scan.0 < scan.1 {
            self.walk::<true>(s, stack)
        } else {
            self.walk::<false>(s, stack)
        };
        match walk {
            Walk::Done => self.operation_done(s, stack),
            Walk::Miss { block, new, victim } => self.miss(s, block, new, victim, stack),
            Walk::Waiting => {}
            Walk::NoFreeBuffer => self.free_buffer_wait(s, stack),
        }
    }

    /// Walks session `s`'s plan through the buffer cache from its next block to the first
    /// access that must wait. `CHECKS`: each block may be a change that appends Oracle's
    /// redo or a visit of a scan.
    #[inline(always)]
    fn walk<const CHECKS: bool>(&mut self, s: u32, stack: &mut Stack) -> Walk {
        let measuring = stack.measuring();
        loop {
            let sess = &mut self.sessions[s as usize];
            let at = sess.next;
            let Some(&(entry, write)) = sess.plan.get(at) else {
                return Walk::Done;
            };
            // A change waits for the sessions changing the same block before it.
            if write && self.pins.on() && self.pin_wait(s, at, entry & !NEW_BLOCK, stack) {
                return Walk::Waiting;
            }
            if CHECKS {
                // Oracle: the change's redo into the log buffer, or a wait for space in it.
                if write && self.oracle.is_some() && !self.redo_of_change(s, at, stack) {
                    return Walk::Waiting;
                }
                let scan = self.sessions[s as usize].scan;
                if (scan.0..scan.1).contains(&at) {
                    if let character::ScanStep::Wait = self.scan_visit(s, stack) {
                        return Walk::Waiting;
                    }
                }
            }
            let (block, new) = (entry & !NEW_BLOCK, entry & NEW_BLOCK != 0);
            let mut write = write;
            if CHECKS && self.oracle.is_some() {
                // Oracle: a block left uncleaned by a commit is cleaned out by this visit.
                match self.cleanout_visit(s, block, write, stack) {
                    Some(w) => write = w,
                    None => return Walk::Waiting,
                }
            }
            // PostgreSQL: a visit sets the hints a committed change left unset.
            write = self.hint_visit(block, write, stack);
            let a = if CHECKS && self.oracle.is_some() {
                let a = self.cache.access_or_wait(block, write);
                if a.no_free {
                    return Walk::NoFreeBuffer;
                }
                self.free_buffer_found(s, stack.now(), measuring);
                a
            } else {
                self.cache.access(block, write)
            };
            if measuring {
                self.stats.accesses += 1;
                self.stats.hits += u64::from(a.hit);
            }
            // A block the operation creates needs a buffer, not a read.
            if a.hit || (new && a.evicted_dirty.is_none()) {
                self.allocs += u64::from(!a.hit);
                self.sessions[s as usize].next = at + 1;
                continue;
            }
            return Walk::Miss {
                block,
                new,
                victim: a.evicted_dirty,
            };
        }
    }

    /// Session `s`'s access of `block` missed the buffer cache: it writes the dirty
    /// `victim` its buffer held first, else reads the block.
    fn miss(&mut self, s: u32, block: u64, new: bool, victim: Option<u64>, stack: &mut Stack) {
        self.allocs += 1;
        let sess = &mut self.sessions[s as usize];
        sess.wait_start = stack.now();
        builtin::prefetch_ahead(&self.cache, &sess.ahead);
        if let Some(victim) = victim {
            sess.pending_read = (!new).then_some(block);
            self.os_cache_keep(victim, 1);
            if !self.os_cache_write(victim, 1, DbTimer::VictimBuffered(s), stack) {
                self.issue_block(DbIo::VictimWrite(s), victim, true, stack);
            }
        } else {
            self.read_block(s, block, stack);
        }
    }

    /// Session `s`'s accesses are done: it commits, or goes on to its next operation.
    fn operation_done(&mut self, s: u32, stack: &mut Stack) {
        // Sorts and hash joins beyond memory: their temp writes and reads come first.
        if self.temp.is_some() && self.temp_step(s, stack) {
            return;
        }
        if !self.sessions[s as usize].commits {
            self.finish_op(s, stack);
            return;
        }
        builtin::prefetch_ahead(&self.cache, &self.sessions[s as usize].ahead);
        self.hint_prefetch(s);
        let bytes = self.commit_log_bytes(s);
        let per_commit = self.spec.log_bytes_per_commit;
        let step = if self.oracle.is_some() {
            self.commit_cleanout(s);
            let step = self.log.append(bytes);
            self.log_step(step, stack);
            self.log.commit_step(s, per_commit)
        } else {
            // PostgreSQL's log buffer starts no write of its own (its size is 0): the
            // operation's bytes and the commit record go in together.
            self.log.commit_step(s, bytes + per_commit)
        };
        self.sessions[s as usize].wait_start = stack.now();
        if let Some(step) = step {
            self.log_step(step, stack);
        }
    }
}
