//! An operation's start: its blocks' frames and array cache entries loaded during its think
//! time and CPU burst, and the burst on the host CPUs (a FIFO run queue).

use super::{tx, DbEngine, BLOCK_SECTORS};
use crate::db::layout::NEW_BLOCK;
use crate::db::DbTimer;
use crate::engine::SimTime;
use crate::model::Stack;

impl DbEngine {
    /// Starts session `s`'s operation of `plan`: its think time, then its CPU burst of
    /// `cpu` ns on the host CPUs, then its block accesses.
    #[inline(always)]
    pub(super) fn launch(
        &mut self,
        s: u32,
        plan: Vec<(u64, bool)>,
        rows: u64,
        cpu: u64,
        think: u64,
        stack: &mut Stack,
    ) {
        let now = stack.now();
        // The blocks' buffer frames load during the CPU burst, before the accesses, and so
        // do the array read-cache entries of blocks the buffer cache lacks (at most four:
        // the leaf and heap blocks a miss reads).
        let mut absent = [0u64; 4];
        let mut n_absent = 0;
        for &(entry, _) in &plan {
            if !self.cache.prefetch(entry & !NEW_BLOCK)
                && entry & NEW_BLOCK == 0
                && n_absent < absent.len()
            {
                absent[n_absent] = entry;
                n_absent += 1;
            }
        }
        let target = self.data;
        let exponential = self.spec.exponential_times;
        let sess = &mut self.sessions[s as usize];
        let (think, cpu) = tx::draw_times(exponential, think, cpu, &mut sess.rng);
        sess.plan = plan;
        sess.next = 0;
        sess.pinned = None;
        sess.rows = rows;
        let ready = now + think;
        sess.tx_start = ready;
        if think > 0 {
            // The session asks for a CPU when its think time is over, not before: a burst
            // reserved in advance would hold a CPU idle through the think time against the
            // log writer and sessions asking meanwhile (and drawn think times end out of
            // the order they began).
            sess.cpu_pending = Some(cpu);
            stack.schedule_db(ready, DbTimer::Session(s));
        } else {
            self.run_cpu(s, ready, cpu, stack);
        }
        for &block in &absent[..n_absent] {
            stack.prefetch_io(target, block * BLOCK_SECTORS, BLOCK_SECTORS, false);
        }
    }

    /// Session `s`'s CPU burst, asked for at `ready`: it runs on the host CPU that frees up
    /// first, in the order sessions ask (a FIFO run queue).
    #[inline]
    pub(super) fn run_cpu(&mut self, s: u32, ready: SimTime, cpu: u64, stack: &mut Stack) {
        let start = self.reserve_cpu(ready, cpu);
        if stack.measuring() {
            self.stats.cpu_ns += cpu;
            self.stats.runqueue_ns += start - ready;
        }
        stack.schedule_db(start + cpu, DbTimer::Session(s));
    }
}

impl DbEngine {
    /// Reserves `cpu` ns of the host CPU that frees up first for a burst asked for at
    /// `ready` (a FIFO run queue shared by the sessions and the log writer); returns when
    /// the burst starts.
    #[inline]
    pub(super) fn reserve_cpu(&mut self, ready: SimTime, cpu: u64) -> SimTime {
        let (cpu_i, free) = self
            .cpu_free
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|&(_, f)| f)
            .expect("at least one CPU");
        let start = ready.max(free);
        self.cpu_free[cpu_i] = start + cpu;
        start
    }
}
