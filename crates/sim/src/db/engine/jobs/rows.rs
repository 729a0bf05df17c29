//! Jobs that change rows and commit in batches: a conventional load (rows inserted into new
//! blocks of the table, its input file read ahead), a full-table update and a delete of
//! every row (the table scanned with multiblock reads ahead of the changes). Each batch of
//! `rows_per_commit` rows dirties its table blocks in the buffer cache (dirty victims go to
//! the database writer), records its undo (Oracle), appends its redo to the log buffer and
//! commits; the next batch starts when the commit's log write is done.
//!
//! Index maintenance: a delete removes each row's entry from every index of the table (its
//! primary key: the leaves of the batch's keys, in key order as the heap is); an update
//! changes an index only when the updated column has one (`indexed_update`): each row's
//! entry moves from its old value's leaf to its new value's, two leaves anywhere in that
//! index (the values bear no relation to the row's place); a conventional load inserts each
//! row's key into the primary key at its right edge ([`super::append`]). Each index block
//! changed is a buffer-cache access that dirties it, read first when it misses (a block the
//! load starts is formatted, not read).

use super::super::{DbEngine, Stack};
use super::append::RightEdge;
use super::Role;
use crate::config::database::JobKind;
use crate::config::DbSpec;
use crate::db::layout::{Layout, NEW_BLOCK};
use crate::db::undo;
use storlab_core::character::Engine;

/// Rows changed in batches, each committed.
#[derive(Clone, Debug)]
pub(crate) struct RowWork {
    kind: JobKind,
    total: u64,
    committed: u64,
    batch: u64,
    /// Rows of the batch waiting for its commit (0: none).
    in_batch: u64,
    rows_per_block: u64,
    heap_base: u64,
    /// Input bytes per row: the input file's, or the scanned heap's.
    input_bytes_per_row: f64,
    /// Heap blocks (relative) already changed.
    next_block: u64,
    /// Redo per row, undo record per row (0: no undo), commit record.
    redo_per_row: u64,
    undo_record: u64,
    commit_bytes: u64,
    /// The index leaves each row changes.
    index: IndexWork,
}

/// The index leaves a batch changes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum IndexWork {
    None,
    /// The primary key's leaves (first leaf, leaves) of a table of `rows` rows: a delete.
    KeyOrder {
        first: u64,
        leaves: u64,
        rows: u64,
    },
    /// An index of its own on the updated column (first leaf, leaves): two leaves per row.
    Moves {
        first: u64,
        leaves: u64,
    },
    /// The primary key filled at its right edge: a conventional load.
    RightEdge(RightEdge),
}

impl RowWork {
    /// The rows of job `kind` on `db`'s first table; its input of `input_bytes`;
    /// `moved_index`: the updated column's index (first block, leaves), when it has one.
    pub fn new(
        db: &DbSpec,
        kind: JobKind,
        input_bytes: u64,
        moved_index: Option<(u64, u64)>,
    ) -> RowWork {
        let layout = Layout::new(&db.tables);
        let index = match (kind, moved_index) {
            (JobKind::DeleteAll, _) => layout.segments.first().map_or(IndexWork::None, |s| {
                let leaf = s.level_base.len().saturating_sub(1);
                IndexWork::KeyOrder {
                    first: s.level_base.get(leaf).copied().unwrap_or(0),
                    leaves: s.level_blocks.get(leaf).copied().unwrap_or(0),
                    rows: s.table.rows.max(1),
                }
            }),
            (JobKind::UpdateAll, Some((first, leaves))) if leaves > 0 => {
                IndexWork::Moves { first, leaves }
            }
            (JobKind::LoadConventional, _) => layout
                .segments
                .first()
                .map_or(IndexWork::None, |s| IndexWork::RightEdge(RightEdge::new(s))),
            _ => IndexWork::None,
        };
        let (heap_base, rows_per_block, rows, row_bytes) =
            layout.segments.first().map_or((0, 1, 0, 0), |s| {
                (
                    s.heap_base,
                    s.rows_per_block,
                    s.table.rows,
                    s.table.row_bytes,
                )
            });
        let undo_record = match (db.engine, kind) {
            (Engine::Postgresql, _) => 0,
            (Engine::Oracle, JobKind::LoadConventional) => {
                let index = match &index {
                    IndexWork::RightEdge(e) => e.entry_undo,
                    _ => 0,
                };
                undo::INSERT_RECORD_BYTES + index
            }
            // The undo of a delete holds the whole row.
            (Engine::Oracle, JobKind::DeleteAll) => undo::UPDATE_RECORD_BYTES + row_bytes,
            (Engine::Oracle, _) => undo::UPDATE_RECORD_BYTES,
        };
        RowWork {
            kind,
            total: rows,
            committed: 0,
            batch: db.rows_per_commit.max(1),
            in_batch: 0,
            rows_per_block: rows_per_block.max(1),
            heap_base,
            input_bytes_per_row: input_bytes as f64 / rows.max(1) as f64,
            next_block: 0,
            redo_per_row: db.log_bytes_per_row,
            undo_record,
            commit_bytes: db.log_bytes_per_commit,
            index,
        }
    }

    /// The index blocks rows `first..end` change, in the order they are changed (a block
    /// they start flagged [`NEW_BLOCK`]), and the redo of their index entries.
    fn index_changes(&self, first: u64, end: u64) -> (Vec<u64>, u64) {
        if let IndexWork::RightEdge(e) = &self.index {
            let mut blocks = Vec::new();
            let splits = e.blocks(first, end, &mut blocks);
            let entries = end.saturating_sub(first) + splits;
            return (blocks, entries * e.entry_redo);
        }
        (self.index_leaves(first, end), 0)
    }

    /// The index leaves rows `first..end` of a delete or an update change, in the order
    /// they are changed.
    fn index_leaves(&self, first: u64, end: u64) -> Vec<u64> {
        match self.index {
            IndexWork::None | IndexWork::RightEdge(_) => Vec::new(),
            IndexWork::KeyOrder {
                first: base,
                leaves,
                rows,
            } if end > first => {
                let leaf = |k: u64| base + k * leaves / rows;
                (leaf(first)..=leaf(end - 1)).collect()
            }
            IndexWork::KeyOrder { .. } => Vec::new(),
            IndexWork::Moves {
                first: base,
                leaves,
            } => (first..end)
                .flat_map(|r| [2 * r, 2 * r + 1])
                .map(|k| base + spread(k) % leaves)
                .collect(),
        }
    }

    /// Share of the rows committed, 0 to 1.
    pub fn share_committed(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.committed as f64 / self.total as f64
        }
    }

    /// Share of the rows up to the end of the batch under way (what the input may be read
    /// up to, and ahead of).
    pub fn share_wanted(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            (self.committed + self.batch).min(self.total) as f64 / self.total as f64
        }
    }

    /// Rows the job changes.
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn all_committed(&self) -> bool {
        self.committed >= self.total
    }

    /// The batch's commit is durable.
    pub fn committed_batch(&mut self) {
        self.committed += std::mem::take(&mut self.in_batch);
    }

    pub fn describe(&self, kind: JobKind) -> String {
        format!(
            "{} {} rows, {} per block, committing every {}",
            match kind {
                JobKind::LoadConventional => "insert",
                JobKind::DeleteAll => "delete",
                _ => "update",
            },
            self.total,
            self.rows_per_block,
            self.batch
        )
    }

    /// Whether the next batch's input has been read (`input_done` bytes, `input_finished`)
    /// and no batch is under way.
    fn ready(&self, input_done: u64, input_finished: bool) -> bool {
        if self.in_batch > 0 || self.all_committed() {
            return false;
        }
        let end = (self.committed + self.batch).min(self.total);
        input_finished || (input_done as f64 / self.input_bytes_per_row) as u64 >= end
    }

    /// The next batch when its input has been read (`input_done` bytes, `input_finished`):
    /// its rows, and the heap blocks it changes; None while it waits for its input or its
    /// commit.
    fn next_batch(&mut self, input_done: u64, input_finished: bool) -> Option<(u64, Vec<u64>)> {
        if self.in_batch > 0 || self.all_committed() {
            return None;
        }
        let end = (self.committed + self.batch).min(self.total);
        let available = if input_finished {
            self.total
        } else {
            (input_done as f64 / self.input_bytes_per_row) as u64
        };
        if available < end {
            return None;
        }
        let last = (end - 1) / self.rows_per_block;
        let new = self.kind == JobKind::LoadConventional;
        let blocks = (self.next_block..=last)
            .map(|b| (self.heap_base + b) | if new { NEW_BLOCK } else { 0 })
            .collect();
        self.next_block = last + 1;
        self.in_batch = end - self.committed;
        Some((self.in_batch, blocks))
    }
}

/// A fixed scramble of `k` (splitmix64's finaliser): where a row's old or new value lies in
/// an index on the updated column.
fn spread(k: u64) -> u64 {
    let mut z = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl DbEngine {
    /// Starts the next batch of a row job when its input is there and the writer leaves it
    /// free buffers: its blocks and index leaves changed in the buffer cache, its undo and
    /// redo generated; its leaf reads, CPU and commit follow ([`super::work`]). True while
    /// the job waits for the batch or for free buffers.
    pub(super) fn job_rows_step(&mut self, stack: &mut Stack) -> bool {
        let short = self.job_short_of_buffers();
        let Some(job) = self.job.as_mut() else {
            return false;
        };
        let Some(input) = job.phases.first().and_then(|p| p.first()) else {
            return false;
        };
        debug_assert!(matches!(input.role, Role::Data | Role::Source));
        let (done, finished) = (input.done, input.finished());
        let Some(r) = job.rows.as_mut() else {
            return false;
        };
        if r.in_batch > 0 || job.work.free_wait_since.is_some() {
            return true;
        }
        if !r.ready(done, finished) {
            return false;
        }
        if short {
            job.work.free_wait_since = Some(stack.now());
            return true;
        }
        let Some((rows, mut blocks)) = r.next_batch(done, finished) else {
            return false;
        };
        let (leaves, index_redo) = r.index_changes(r.committed, r.committed + rows);
        let (redo_per_row, undo_record, commit_bytes) =
            (r.redo_per_row, r.undo_record, r.commit_bytes);
        let mut redo = rows * redo_per_row + index_redo;
        let mut undo_blocks = Vec::new();
        if undo_record > 0 {
            if let Some(o) = self.oracle.as_mut() {
                redo += o.undo.record(0, rows, undo_record, &mut undo_blocks);
            }
        }
        blocks.extend(undo_blocks.into_iter().map(|(b, _)| b));
        let misses = self.job_dirty(&blocks, &leaves, stack);
        let touched = (blocks.len() + leaves.len()) as u64;
        // A batch is one statement and its commit.
        let cpu = self.spec.cpu_ns_per_block * touched
            + self.spec.cpu_ns_per_row * rows
            + self.spec.cpu_ns_per_statement
            + self.spec.cpu_ns_per_commit;
        let Some(job) = self.job.as_mut() else {
            return true;
        };
        let w = &mut job.work;
        w.index_blocks += leaves.len() as u64;
        w.index_reads.extend(misses);
        w.batch_cpu_ns = cpu;
        w.batch_redo = redo;
        w.batch_commit = commit_bytes;
        self.job_batch_next(stack);
        true
    }

    /// The job changes `blocks` (flagged [`NEW_BLOCK`] when it formats them) and the index
    /// `leaves`: each is a buffer-cache access that dirties it; a dirty victim goes to the
    /// database writer. Returns the leaves that missed (to be read).
    fn job_dirty(&mut self, blocks: &[u64], leaves: &[u64], stack: &mut Stack) -> Vec<u64> {
        let mut victims = Vec::new();
        let mut misses = Vec::new();
        for (i, &b) in blocks.iter().chain(leaves).enumerate() {
            let block = b & !NEW_BLOCK;
            let a = self.cache.access(block, true);
            if let Some(v) = a.evicted_dirty {
                victims.push(v);
            }
            if i >= blocks.len() && !a.hit && b & NEW_BLOCK == 0 {
                misses.push(block);
            }
            if let Some(o) = self.oracle.as_mut() {
                o.queue.changed(block, self.log.lsn(), stack.now().0);
            }
        }
        if !victims.is_empty() {
            self.writer.submit(&victims);
            self.pump_writer(stack);
        }
        misses
    }
}
