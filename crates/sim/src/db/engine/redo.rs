//! Oracle's mechanics in the simulated database (`engine = "oracle"`): each transaction's
//! undo (its blocks join the transaction's block changes, see [`crate::db::undo`]), and its
//! redo generated change by change, so that the log buffer fills while a large transaction
//! runs and the log writer's one-third trigger writes it out before the commit; and the
//! checkpoint queue, from whose head the writer's rounds write the blocks whose first change
//! is older than the incremental checkpoint's target or the log switches' lazy checkpoints'
//! (see [`crate::db::checkpoint_queue`]).

use super::{DbEngine, DbTimer, Stack};
use crate::config::DbTest;
use crate::db::checkpoint_queue::{CheckpointQueue, GroupCheckpoints, LAG_PCT_OF_LOG_FILE};
use crate::db::cleanout::{Cleanout, CLEANOUT_REDO_BYTES};
use crate::db::layout::NEW_BLOCK;
use crate::db::undo::{self, Undo};
use storlab_core::character::Engine;

/// Oracle's LGWR timeout: it wakes every 3 s and writes what the log buffer holds.
pub(super) const LOG_TIMEOUT_NS: u64 = 3_000_000_000;

/// A session's redo still to generate in its current transaction.
#[derive(Clone, Copy, Default)]
struct Pending {
    /// Redo bytes not yet appended, and changes left to append them with.
    bytes: u64,
    changes: u64,
    /// The plan entry the next change is at or after (each entry's redo appended once,
    /// though a miss makes the session visit it twice).
    next: usize,
}

/// The Oracle state of the database: undo segments, sessions' pending redo.
pub(super) struct Oracle {
    pub(super) undo: Undo,
    pending: Vec<Pending>,
    pub(super) queue: CheckpointQueue,
    /// Blocks the incremental checkpoint handed to the writer (measured window).
    pub checkpoint_blocks: u64,
    /// Sessions waiting for log buffer space.
    pub space: super::log_space::LogSpace,
    /// Blocks whose committed transaction is not cleaned out yet.
    pub cleanout: Cleanout,
    /// The log writer's redo wastage when the measured window began.
    pub wasted_at_reset: u64,
    /// Frames the buffer cache's hand had passed at the writer's last round.
    pub swept_at_round: u64,
    /// Blocks the writer took from the cold end of the cache (measured window).
    pub cold_end_blocks: u64,
    /// Undo blocks the writer wrote, whatever handed them over (measured window).
    pub undo_blocks_written: u64,
    /// The log switches' checkpoints, the checkpoint position, and a log write held until
    /// its group's checkpoint completes (see [`super::switch`]).
    pub groups: GroupCheckpoints,
    pub switch: super::switch::SwitchState,
    /// Blocks whose redo is not on disk, and the writes deferred for it.
    pub write_ahead: super::write_ahead::WriteAhead,
}

impl Oracle {
    /// Oracle's state for `spec` (None with PostgreSQL), its undo after the `blocks` of the
    /// tables.
    pub fn new(spec: &crate::config::DbSpec, blocks: u64) -> Option<Oracle> {
        (spec.engine == Engine::Oracle).then(|| Oracle {
            undo: Undo::new(blocks, spec.sessions),
            pending: vec![Pending::default(); spec.sessions as usize],
            queue: CheckpointQueue::new(page_space(spec, blocks)),
            checkpoint_blocks: 0,
            space: super::log_space::LogSpace::new(spec.sessions),
            cleanout: Cleanout::new(blocks, spec.buffer_blocks as usize),
            wasted_at_reset: 0,
            swept_at_round: 0,
            cold_end_blocks: 0,
            undo_blocks_written: 0,
            groups: GroupCheckpoints::default(),
            switch: super::switch::SwitchState::default(),
            write_ahead: super::write_ahead::WriteAhead::new(page_space(spec, blocks)),
        })
    }
}

/// Blocks of the page space: the tables', then the undo segments.
pub(super) fn page_space(spec: &crate::config::DbSpec, table_blocks: u64) -> u64 {
    table_blocks + undo::region_blocks(spec.engine, spec.sessions)
}

impl DbEngine {
    /// Oracle: adds the undo blocks session `s`'s operation changes to its `plan` (a
    /// transaction that changes `rows` rows) and sets its redo to generate: the operation's
    /// log bytes and its undo's, spread over its block changes.
    pub(super) fn plan_undo(&mut self, s: u32, plan: &mut Vec<(u64, bool)>, rows: u64) {
        if self.oracle.is_none() || !self.sessions[s as usize].commits {
            return;
        }
        let record = match self.spec.test {
            DbTest::LoadConventional => undo::INSERT_RECORD_BYTES,
            _ => undo::UPDATE_RECORD_BYTES,
        };
        let redo = self.op_log_bytes(s as usize);
        let Some(o) = self.oracle.as_mut() else {
            return;
        };
        let undo_bytes = o.undo.record(s, rows, record, plan);
        let changes = plan.iter().filter(|e| e.1).count() as u64;
        o.pending[s as usize] = Pending {
            bytes: redo + undo_bytes,
            changes,
            next: 0,
        };
    }

    /// Oracle: session `s` changes the block of its plan's entry `at`: its share of the
    /// transaction's redo goes into the log buffer (once per entry). False when it does not
    /// fit: the session waits for log buffer space and visits the entry again.
    pub(super) fn redo_of_change(&mut self, s: u32, at: usize, stack: &mut Stack) -> bool {
        let Some(o) = self.oracle.as_ref() else {
            return true;
        };
        let p = o.pending[s as usize];
        if at < p.next || p.changes == 0 {
            return true;
        }
        let share = p.bytes / p.changes;
        if !self.log_space_for(s, share, stack) {
            return false;
        }
        let Some(o) = self.oracle.as_mut() else {
            return true;
        };
        let p = &mut o.pending[s as usize];
        p.next = at + 1;
        p.bytes -= share;
        p.changes -= 1;
        let block = self.sessions[s as usize].plan[at].0 & !NEW_BLOCK;
        o.queue.changed(block, self.log.lsn(), stack.now().0);
        o.write_ahead.redo.changed(block);
        let step = self.log.append(share);
        self.log_step(step, stack);
        true
    }

    /// The log bytes session `s`'s commit adds before its commit record: all of the
    /// operation's (PostgreSQL), or what its changes have not yet appended (Oracle).
    pub(super) fn commit_log_bytes(&mut self, s: u32) -> u64 {
        match self.oracle.as_mut() {
            Some(o) => std::mem::take(&mut o.pending[s as usize].bytes),
            None => self.op_log_bytes(s as usize),
        }
    }

    /// Oracle's incremental checkpoint, on each of the writer's rounds at time `now_ns`: the
    /// blocks first changed more than 90% of a log file ago, or longer ago than
    /// `log_checkpoint_timeout` (0: no time target), or before the position the log
    /// switches' lazy checkpoints want reached by now, go to the writer, oldest change first
    /// (those written meanwhile by other means skipped). The 90% is of the smallest log file
    /// (all are one size here): the checkpoint position stays within it of the log's end
    /// (Oracle Database Reference, V$INSTANCE_RECOVERY `LOG_FILE_SIZE_REDO_BLKS`: the redo
    /// blocks that guarantee a log switch does not wait for a checkpoint;
    /// `LOG_CHECKPOINT_INTERVAL`, unset by default, would only tighten it).
    pub(super) fn incremental_checkpoint(&mut self, now_ns: u64, measuring: bool) {
        let lsn = self.log.lsn();
        let lag = self.spec.log_file_bytes / 100 * LAG_PCT_OF_LOG_FILE;
        let timeout = self.spec.log_checkpoint_timeout_ns;
        let before_ns = if timeout == 0 {
            0
        } else {
            now_ns.saturating_sub(timeout)
        };
        let Some(position) = self.checkpoint_position() else {
            return;
        };
        let Some(o) = self.oracle.as_mut() else {
            return;
        };
        if measuring {
            o.switch.lag_max = o.switch.lag_max.max(lsn.saturating_sub(position));
        }
        let target = lsn.saturating_sub(lag).max(o.groups.target(lsn));
        self.queue_checkpoint(target, before_ns, measuring);
    }

    /// The checkpoint position (Oracle): the log position of the oldest change not yet on
    /// disk. The switch checkpoints it completes are done.
    pub(super) fn checkpoint_position(&mut self) -> Option<u64> {
        let lsn = self.log.lsn();
        let o = self.oracle.as_mut()?;
        o.groups.written(self.writer.completed_blocks);
        let head = o.queue.head_lsn().unwrap_or(lsn);
        Some(o.groups.position(head))
    }

    /// The blocks first changed before log position `target` or before time `before_ns` go
    /// to the writer, oldest change first (those written meanwhile by other means skipped);
    /// returns their count.
    pub(super) fn queue_checkpoint(
        &mut self,
        target: u64,
        before_ns: u64,
        measuring: bool,
    ) -> usize {
        let Some(o) = self.oracle.as_mut() else {
            return 0;
        };
        let oldest = o.queue.head_lsn();
        let mut due = Vec::new();
        o.queue.due(target, before_ns, &mut due);
        due.retain(|&b| self.cache.clean(b));
        if measuring {
            o.checkpoint_blocks += due.len() as u64;
        }
        self.writer.submit(&due);
        if let Some(oldest) = oldest.filter(|_| !due.is_empty()) {
            o.groups.handed(oldest, self.writer.submitted_blocks);
        }
        due.len()
    }

    /// Oracle: session `s` commits: it cleans out the blocks it changed that are still in
    /// the buffer cache unwritten (at most a tenth of the cache); the others are left to the
    /// next visit (delayed block cleanout).
    pub(super) fn commit_cleanout(&mut self, s: u32) {
        let Some(o) = self.oracle.as_mut() else {
            return;
        };
        let cache = &self.cache;
        o.cleanout
            .commit(&self.sessions[s as usize].plan, |b| cache.dirty_page(b));
    }

    /// Oracle: session `s` visits `block` (`write`: to change it). A block holding a
    /// committed transaction not cleaned out is cleaned out by the visit: a query's visit
    /// then changes the block (it is dirtied, enters the checkpoint queue) and generates the
    /// cleanout's redo; a change cleans it out as part of itself. Returns whether the access
    /// changes the block, or None when the cleanout's redo does not fit in the log buffer
    /// (the session waits and visits again).
    #[inline]
    pub(super) fn cleanout_visit(
        &mut self,
        s: u32,
        block: u64,
        write: bool,
        stack: &mut Stack,
    ) -> Option<bool> {
        let Some(o) = self.oracle.as_mut() else {
            return Some(write);
        };
        if !o.cleanout.uncleaned(block) {
            return Some(write);
        }
        if write {
            o.cleanout.clean(block);
            return Some(true);
        }
        if !self.log_space_for(s, CLEANOUT_REDO_BYTES, stack) {
            return None;
        }
        let o = self.oracle.as_mut()?;
        o.cleanout.clean(block);
        o.queue.changed(block, self.log.lsn(), stack.now().0);
        o.write_ahead.redo.changed(block);
        let step = self.log.append(CLEANOUT_REDO_BYTES);
        self.log_step(step, stack);
        Some(true)
    }

    /// The log writer's timeout: it writes what is unwritten, and wakes again in 3 s
    /// (Oracle's LGWR) or in `wal_writer_delay` (PostgreSQL's WAL writer).
    pub(super) fn log_timeout(&mut self, stack: &mut Stack) {
        let step = self.log.timeout();
        self.log_step(step, stack);
        let delay = if self.oracle.is_some() {
            LOG_TIMEOUT_NS
        } else {
            super::hints::WAL_WRITER_DELAY_NS
        };
        stack.schedule_db(stack.now() + delay, DbTimer::LogTimeout);
    }
}
