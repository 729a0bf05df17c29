//! What a measured block profile changes in an operation: the blocks it modifies, its CPU
//! time and its log bytes.

use super::DbEngine;

impl DbEngine {
    /// With a measured profile: marks as many of the plan's blocks modified as the profile
    /// says (heap blocks first, then leaves, then the rest of the descent), carrying the
    /// fraction to the session's next operation.
    pub(super) fn apply_profile(&self, plan: &mut [(u64, bool)], carry: &mut u64) {
        let Some(p) = self.spec.profile.as_ref() else {
            return;
        };
        let schema_writes = plan.iter().filter(|b| b.1).count() as u64;
        *carry += p.modified_milli(schema_writes, plan.len() as u64);
        let mut extra = (*carry / 1000).saturating_sub(schema_writes);
        *carry %= 1000;
        for b in plan.iter_mut().rev() {
            if extra == 0 {
                break;
            }
            if !b.1 {
                b.1 = true;
                extra -= 1;
            }
        }
    }

    /// CPU time of an operation of the test's transaction type `tx_type` that visits `blocks`
    /// blocks, processes `rows` rows and commits when `commits`: the server's CPU per
    /// operation measured on a real server when the profile has it, else the assumed cost
    /// per block visited, row processed, statement of the type and commit; and the load
    /// generator's CPU when it shares the host.
    pub(super) fn op_cpu_ns(&self, blocks: usize, rows: u64, tx_type: usize, commits: bool) -> u64 {
        let per_block = self.spec.cpu_ns_per_block;
        let mix = self.spec.test.def().mix;
        let statements = mix
            .get(tx_type)
            .map_or(0, |t| u64::from(t.statement_count()));
        let calls = self.spec.cpu_ns_per_row * rows
            + self.spec.cpu_ns_per_statement * statements
            + if commits {
                self.spec.cpu_ns_per_commit
            } else {
                0
            };
        let server = match self.spec.profile.as_ref() {
            Some(p) => match p.server_cpu_ns_per_op {
                Some(cpu) => cpu.round() as u64,
                None => (per_block as f64 * p.blocks_per_op).round() as u64 + calls,
            },
            None => per_block * blocks as u64 + calls,
        };
        server + self.spec.client_cpu_ns
    }

    /// Log bytes of an operation's changes (before its commit record).
    /// Log bytes of session `s`'s operation: measured, or what its plan generates.
    pub(super) fn op_log_bytes(&self, s: usize) -> u64 {
        match self.spec.profile.as_ref() {
            Some(p) => p.wal_bytes_per_op.round() as u64,
            None => self.sessions[s].log_bytes,
        }
    }
}
