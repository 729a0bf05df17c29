//! Sessions running a workload characterization ([`crate::db::workload_mix`]): each
//! transaction planned from the mix, its CPU demand on the host CPUs, its think time after
//! it; and the scans' multiblock reads.
//!
//! A scan visit that misses the buffer cache reads the run of consecutive blocks from it that
//! the scan goes on to visit and the cache lacks, at most `multiblock_read_count` blocks, in
//! one I/O (Oracle's `db file scattered read`; under PostgreSQL the host's read-ahead). Oracle
//! keeps the blocks in the buffer cache (a dirty buffer they replace goes to the database
//! writer); PostgreSQL reads scans through a small ring of its own, so they replace nothing
//! in the buffer cache. A scan block the host's file cache holds is read from there, one
//! block at a time; a scan block the transaction changes goes through the buffer cache like
//! any change.

use storlab_core::character::Engine;

use super::{DbEngine, DbIo, Stack, BLOCK_SECTORS};
use crate::db::workload_mix::MixOp;

/// What a session does with its current block visit.
pub(super) enum ScanStep {
    /// Not a scan read: the ordinary buffer access.
    Buffer,
    /// A multiblock read was issued: the session waits for it.
    Wait,
}

impl DbEngine {
    /// Plans session `s`'s next transaction of the characterization into `plan`.
    pub(super) fn plan_character(&mut self, s: u32, plan: &mut Vec<(u64, bool)>) -> MixOp {
        let Some(c) = self.spec.character.as_ref() else {
            return MixOp::default();
        };
        let sess = &mut self.sessions[s as usize];
        let mut op = c
            .mix
            .plan(&mut sess.rng, &mut sess.carry, &mut self.mix_appends, plan);
        if c.full_scans {
            op.scan = crate::db::query::full_scans(&c.workload, &c.mix, plan);
        }
        sess.tx_type = op.tx_type;
        sess.scan = op.scan;
        op
    }

    /// Starts session `s`'s planned transaction: the think time of its previous one, then
    /// the CPU demand of this one, then its visits.
    pub(super) fn start_planned(
        &mut self,
        s: u32,
        plan: Vec<(u64, bool)>,
        op: MixOp,
        stack: &mut Stack,
    ) {
        if stack.measuring() {
            self.stats.redo_bytes += op.log_bytes;
            self.stats.planned.add(&plan, op.log_bytes);
        }
        self.temp_begin(s, op.tx_type);
        let sess = &mut self.sessions[s as usize];
        sess.commits = op.commits;
        sess.log_bytes = op.log_bytes;
        let think = std::mem::replace(&mut sess.think_after_ns, op.think_ns);
        // Oracle: the changed blocks' undo, and the redo spread over the changes.
        let mut plan = plan;
        let changes = plan.iter().filter(|e| e.1).count() as u64;
        self.plan_undo(s, &mut plan, changes);
        self.launch(s, plan, 1, op.cpu_ns, think, stack);
    }

    /// Session `s`'s current visit, when it is a scan's and misses the buffer cache: issues
    /// the multiblock read.
    pub(super) fn scan_visit(&mut self, s: u32, stack: &mut Stack) -> ScanStep {
        let Some(c) = self.spec.character.as_ref() else {
            return ScanStep::Buffer;
        };
        let max = c.mix.multiblock_read_count;
        let sess = &self.sessions[s as usize];
        let i = sess.next;
        if i < sess.scan.0 || i >= sess.scan.1 {
            return ScanStep::Buffer;
        }
        let (done, visits) = (i - sess.scan.0, sess.scan.1 - sess.scan.0);
        // A spilling join partitions what the scan has read so far.
        if self.temp.is_some() && self.temp_with_scan(s, done, visits, stack) {
            return ScanStep::Wait;
        }
        let sess = &self.sessions[s as usize];
        let (block, write) = sess.plan[i];
        if !write && self.scan_reads_direct(s) {
            return self.direct_read(s, max, stack);
        }
        if write
            || self.cache.contains(block)
            || (self.spec.os_cache_blocks > 0 && self.os_cache.contains(block))
        {
            return ScanStep::Buffer;
        }
        let mut n = 1u64;
        while n < max && i + (n as usize) < sess.scan.1 {
            let (b, w) = sess.plan[i + n as usize];
            if w || b != block + n || self.cache.contains(b) {
                break;
            }
            n += 1;
        }
        if stack.measuring() {
            self.stats.accesses += n;
            self.stats.scan_reads += 1;
            self.stats.scan_blocks += n;
        }
        if self.spec.engine == Engine::Oracle {
            let mut victims = Vec::new();
            for b in block..block + n {
                if let Some(v) = self.cache.access(b, false).evicted_dirty {
                    victims.push(v);
                }
            }
            self.allocs += n;
            if !victims.is_empty() {
                victims.sort_unstable();
                self.writer.submit(&victims);
                self.pump_writer(stack);
            }
        }
        if self.spec.os_cache_blocks > 0 {
            self.os_cache_keep(block, n);
        }
        let sess = &mut self.sessions[s as usize];
        sess.read_span = n;
        sess.read_kind = super::direct_path::ReadKind::Scattered;
        sess.wait_start = stack.now();
        stack.issue_db_io(
            DbIo::Read(s),
            self.data,
            block * BLOCK_SECTORS,
            n * BLOCK_SECTORS,
            false,
        );
        ScanStep::Wait
    }

    /// The characterization's figures into the run's parameters.
    pub(super) fn character_parameters(
        &self,
        o: &mut serde_json::Map<String, serde_json::Value>,
        secs: f64,
    ) {
        let st = &self.stats;
        let secs = secs.max(1e-9);
        let per_s = |n: u64| storlab_core::histogram::round_to(n as f64 / secs, 1);
        o.insert("multiblock_reads_per_s".into(), per_s(st.scan_reads).into());
        let avg = if st.scan_reads == 0 {
            0.0
        } else {
            storlab_core::histogram::round_to(st.scan_blocks as f64 / st.scan_reads as f64, 2)
        };
        o.insert("blocks_per_multiblock_read".into(), avg.into());
        let direct = st.scan_waits.direct_blocks;
        if direct > 0 {
            o.insert("direct_read_blocks_per_s".into(), per_s(direct).into());
        }
        if self.spec.engine == Engine::Oracle {
            // The host CPUs' busy share: the sessions' CPU and the log writer's over the
            // CPUs (Oracle's DB CPU and background CPU over NUM_CPUS).
            let busy_ns = (st.cpu_ns + st.log_writer_cpu_ns) as f64;
            let cpus = f64::from(self.spec.cpus.max(1));
            let pct = 100.0 * busy_ns / (cpus * secs * 1e9);
            o.insert(
                "host_cpu_busy_pct".into(),
                storlab_core::histogram::round_to(pct, 1).into(),
            );
        }
        // Redo generated (the log's writes round each up to whole log blocks).
        o.insert("redo_bytes_per_s".into(), per_s(st.redo_bytes).into());
        o.insert("database_bytes".into(), (self.page_blocks * 8192).into());
    }
}
