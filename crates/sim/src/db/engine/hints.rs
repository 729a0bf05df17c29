//! PostgreSQL's hint bits in the simulated database (see [`crate::db::hint_bits`]): a
//! durable commit leaves the heap blocks it changed holding tuples without hints; the next
//! visit sets them and dirties the block when its buffer was clean, with a full-page image
//! in the WAL when hints are WAL-logged (`data_checksums`) and no WAL record touched the page
//! since the last checkpoint began. With hints WAL-logged the WAL writer writes the WAL no
//! commit carries every `wal_writer_delay` (200 ms, PostgreSQL's default).

use super::{DbEngine, Stack};
use crate::config::DbSpec;
use crate::db::hint_bits::{HintBits, HintVisit, FPI_FOR_HINT_BYTES};
use crate::db::layout::Layout;
use crate::db::workload_mix::WorkloadMix;
use storlab_core::character::Engine;

/// PostgreSQL's `wal_writer_delay` default: the WAL writer's sleep between rounds, ns.
pub(super) const WAL_WRITER_DELAY_NS: u64 = 200_000_000;

/// The hint bits of a PostgreSQL database's sessions over `blocks` blocks, its heap blocks
/// those of `mix`'s table segments (or of the built-in layout's heaps); None with Oracle and
/// for a job.
pub(super) fn new(spec: &DbSpec, mix: Option<&WorkloadMix>, blocks: u64) -> Option<HintBits> {
    if spec.engine != Engine::Postgresql || spec.job.is_some() {
        return None;
    }
    let heap: Vec<(u64, u64)> = match mix {
        Some(m) => m
            .segments
            .iter()
            .filter(|s| s.heap)
            .map(|s| (s.first_block, s.blocks + s.reserve_blocks))
            .collect(),
        None => Layout::new(&spec.tables)
            .segments
            .iter()
            .map(|s| (s.heap_base, s.end() - s.heap_base))
            .collect(),
    };
    Some(HintBits::new(blocks, &heap, spec.data_checksums))
}

impl DbEngine {
    /// PostgreSQL with hints WAL-logged: the WAL writer's first round (see
    /// [`DbEngine::log_timeout`]).
    pub(super) fn start_wal_writer(&mut self, stack: &mut Stack) {
        if self.hints.as_ref().is_some_and(|h| h.wal_logged()) {
            let at = stack.now() + WAL_WRITER_DELAY_NS;
            stack.schedule_db(at, crate::db::DbTimer::LogTimeout);
        }
    }

    /// PostgreSQL: a session visits `block` (`write`: to change it). Returns whether the
    /// access dirties the block: a change, or a read that sets hints on a clean buffer.
    /// A change and a read finding the hints set (nearly every visit) are decided here; a
    /// read that sets hints goes on in [`DbEngine::hint_set`].
    #[inline(always)]
    pub(super) fn hint_visit(&mut self, block: u64, write: bool, stack: &mut Stack) -> bool {
        let Some(h) = self.hints.as_deref_mut() else {
            return write;
        };
        if write {
            h.stamp(block);
            return true;
        }
        if !h.unhinted(block) {
            return false;
        }
        self.hint_set(block, stack)
    }

    /// A read of `block`, which holds tuples without hints, sets them: it dirties the block
    /// when its buffer is clean (returns true then), with a full-page image in the WAL when
    /// hints are WAL-logged and no WAL record touched the page since the last checkpoint.
    #[inline(never)]
    fn hint_set(&mut self, block: u64, stack: &mut Stack) -> bool {
        let dirty = self.cache.dirty_page(block);
        let Some(h) = self.hints.as_deref_mut() else {
            return false;
        };
        match h.visit(block, false, dirty) {
            HintVisit::Nothing | HintVisit::SetOnDirty => false,
            HintVisit::Dirtied { fpi } => {
                if fpi {
                    if stack.measuring() {
                        self.stats.hint_fpi_bytes += FPI_FOR_HINT_BYTES;
                    }
                    self.log.append_background(FPI_FOR_HINT_BYTES);
                }
                true
            }
        }
    }

    /// PostgreSQL: session `s`'s commit is durable: the heap blocks it changed hold tuples
    /// without hints.
    pub(super) fn hint_commit(&mut self, s: u32) {
        if !self.sessions[s as usize].commits {
            return;
        }
        if let Some(h) = self.hints.as_mut() {
            h.commit(&self.sessions[s as usize].plan);
        }
    }

    /// PostgreSQL: session `s` is about to commit: the hint bits of the blocks it changed
    /// start loading into the processor's cache for [`DbEngine::hint_commit`] (a hint only).
    #[inline]
    pub(super) fn hint_prefetch(&self, s: u32) {
        if let Some(h) = self.hints.as_ref() {
            h.prefetch(&self.sessions[s as usize].plan);
        }
    }

    /// PostgreSQL: a checkpoint begins (its redo pointer is the log's end).
    pub(super) fn hint_checkpoint(&mut self) {
        if let Some(h) = self.hints.as_mut() {
            h.checkpoint();
        }
    }

    /// The counters restart with the measured window.
    pub(super) fn hint_reset(&mut self) {
        if let Some(h) = self.hints.as_mut() {
            h.left = 0;
            h.set = 0;
            h.dirtied = 0;
            h.images = 0;
        }
    }

    /// PostgreSQL: the hint bits' figures, per second of the window `secs`: heap blocks
    /// commits left without hints, visits that set them, of them those that dirtied a clean
    /// block (written again), and the full-page images they wrote to the WAL.
    pub(super) fn hint_parameters(
        &self,
        o: &mut serde_json::Map<String, serde_json::Value>,
        secs: f64,
    ) {
        let Some(h) = self.hints.as_ref() else {
            return;
        };
        let per_s = |n: u64| storlab_core::histogram::round_to(n as f64 / secs.max(1e-9), 1);
        o.insert("hints_left_per_s".into(), per_s(h.left).into());
        o.insert("hints_set_per_s".into(), per_s(h.set).into());
        o.insert("hint_dirtied_blocks_per_s".into(), per_s(h.dirtied).into());
        o.insert("hint_fpi_per_s".into(), per_s(h.images).into());
        o.insert(
            "hint_fpi_bytes_per_s".into(),
            per_s(self.stats.hint_fpi_bytes).into(),
        );
        o.insert("hints_wal_logged".into(), h.wal_logged().into());
    }
}
