//! A built-in test's sessions: each transaction planned by the characterization planner
//! ([`crate::db::workload_mix`]) from the test's characterization on this database's tables
//! ([`crate::config::DbSpec::builtin_mix`]), then run with the engine's row-level mechanics:
//! a measured profile's extra changes, Oracle's undo records (one per row), the CPU of the
//! blocks visited and rows processed, and the section's think time.
//!
//! A test whose transactions each reach one row by key and append nothing (`update-row`,
//! `select-row`) plans a session's next transaction one early, on a copy of its random state
//! (its own draws do not change), and starts loading that plan's page-table entries, so that
//! when it starts its buffer lookups do not wait for memory.

use super::{DbEngine, Stack};
use crate::db::buffer_cache::BufferCache;
use crate::db::layout::NEW_BLOCK;
use crate::db::workload_mix::MixOp;
use crate::rng::Rng;

/// A session's next transaction, planned one early.
pub(super) struct Ahead {
    /// The session's random state the plan was drawn from, and its state after.
    from: Rng,
    to: Rng,
    op: MixOp,
    plan: Vec<(u64, bool)>,
}

impl Ahead {
    pub fn new() -> Ahead {
        Ahead {
            from: Rng::from_seed(0),
            to: Rng::from_seed(0),
            op: MixOp::default(),
            plan: Vec::new(),
        }
    }
}

/// Starts loading the page-table entries of the transaction planned ahead (none planned: no
/// effect). A hint only: a session does it again each time it waits, so the entries are
/// still in the processor's cache when its next transaction looks them up.
#[inline]
pub(super) fn prefetch_ahead(cache: &BufferCache, ahead: &Ahead) {
    for &(entry, _) in &ahead.plan {
        cache.prefetch_entry(entry & !NEW_BLOCK);
    }
}

impl DbEngine {
    /// Plans session `s`'s next transaction of the built-in test into `plan`: the one planned
    /// ahead when it was drawn from the session's current random state, else a new one.
    fn plan_builtin(&mut self, s: u32, plan: &mut Vec<(u64, bool)>) -> MixOp {
        let DbEngine {
            builtin,
            sessions,
            cache,
            mix_appends,
            ..
        } = self;
        let Some(mix) = builtin.as_deref() else {
            plan.clear();
            return MixOp::default();
        };
        let sess = &mut sessions[s as usize];
        let ahead = &mut sess.ahead;
        let op = if !ahead.plan.is_empty() && ahead.from == sess.rng {
            std::mem::swap(plan, &mut ahead.plan);
            ahead.plan.clear();
            sess.rng.clone_from(&ahead.to);
            ahead.op
        } else {
            mix.plan(&mut sess.rng, &mut sess.carry, mix_appends, plan)
        };
        if mix.single_rows() {
            ahead.from.clone_from(&sess.rng);
            ahead.to.clone_from(&sess.rng);
            ahead.op = mix.plan(&mut ahead.to, &mut sess.carry, mix_appends, &mut ahead.plan);
            prefetch_ahead(cache, ahead);
        }
        op
    }

    /// Draws session `s`'s next transaction of the built-in test and starts it.
    pub(super) fn start_builtin(&mut self, s: u32, stack: &mut Stack) {
        let mut plan = std::mem::take(&mut self.sessions[s as usize].plan);
        let op = self.plan_builtin(s, &mut plan);
        let rows = op.rows;
        let sess = &mut self.sessions[s as usize];
        sess.commits = op.commits;
        sess.log_bytes = op.log_bytes;
        sess.tx_type = op.tx_type;
        if stack.measuring() {
            let commit = if op.commits {
                self.spec.log_bytes_per_commit
            } else {
                0
            };
            self.stats.planned.add(&plan, op.log_bytes + commit);
        }
        let mut carry = self.sessions[s as usize].dirty_carry;
        self.apply_profile(&mut plan, &mut carry);
        if self.oracle.is_some() {
            self.plan_undo(s, &mut plan, rows);
        }
        self.sessions[s as usize].dirty_carry = carry;
        let cpu = self.op_cpu_ns(plan.len(), rows, op.tx_type, op.commits);
        let think = self.spec.think_ns;
        self.launch(s, plan, rows, cpu, think, stack);
    }
}
