//! What a run of an analytic query reports: each query's elapsed time (its transaction's
//! response time; `metrics.elapsed_s` the mean over the queries that finished in the
//! window), and none of the rates of a transaction load (rows per second, transactions per
//! minute, WAL), which a query that returns one aggregate does not have.

use storlab_core::histogram::round_to;
use storlab_core::result::Metrics;

use super::DbEngine;

impl DbEngine {
    /// The database runs an analytic query (its full scans, join and sort) in a loop.
    fn runs_query(&self) -> bool {
        self.spec.character.as_ref().is_some_and(|c| c.full_scans)
    }

    /// A query run's figures into `m`: its elapsed time, no rates.
    pub(super) fn query_metrics(&self, m: &mut Metrics) {
        if !self.runs_query() {
            return;
        }
        m.rows_per_s = None;
        m.tx_per_min = None;
        m.wal_mb_per_s = None;
        m.commit_ms = None;
        m.elapsed_s = m
            .transactions
            .first()
            .filter(|t| t.count > 0)
            .map(|t| round_to(t.latency_ms.mean / 1e3, 6));
    }
}
