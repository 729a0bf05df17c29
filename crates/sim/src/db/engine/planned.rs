//! What the sessions' transactions do per execution, as they plan them: blocks visited and
//! changed, and redo, before the engine's own mechanics (Oracle's undo blocks and their redo,
//! a measured profile's extra changes). A built-in test's figures then compare with its
//! characterization (`DbSpec::builtin_character`), a characterization's with its file.

use storlab_core::histogram::round_to;

/// Sums over the transactions that started in the measured window.
#[derive(Default)]
pub(super) struct Planned {
    txns: u64,
    visits: u64,
    changed: u64,
    redo_bytes: u64,
}

impl Planned {
    /// A transaction of `plan` (its block visits, the changed ones marked) that generates
    /// `redo_bytes` with its commit record.
    pub fn add(&mut self, plan: &[(u64, bool)], redo_bytes: u64) {
        self.txns += 1;
        self.visits += plan.len() as u64;
        self.changed += plan.iter().filter(|e| e.1).count() as u64;
        self.redo_bytes += redo_bytes;
    }

    /// The averages per transaction, for the run's parameters.
    pub fn json(&self) -> serde_json::Value {
        let per = |n: u64| round_to(n as f64 / self.txns.max(1) as f64, 2);
        serde_json::json!({
            "transactions": self.txns,
            "logical_reads": per(self.visits),
            "blocks_changed": per(self.changed),
            "redo_bytes": per(self.redo_bytes),
        })
    }
}
