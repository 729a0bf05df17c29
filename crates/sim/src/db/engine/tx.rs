//! Transaction response time of the simulated database: each transaction from its start
//! (after the session's think time, so the wait for a host CPU counts) to its commit
//! completing, or to its last statement for a transaction that commits nothing. Counted by
//! transaction type, for the transactions that complete in the measured window.
//!
//! Every operation of a session is one transaction. Types: those the test's mix declares
//! (`storlab_core::dbtest::mix`: the OLTP mix's `read` and `write` transactions; otherwise
//! the test's one type, named by what its statements do, `read`, `update` or `insert`), or a
//! characterization's.

use storlab_core::histogram::round_to;
use storlab_core::result::TransactionMetrics;
use storlab_core::{LatencyHistogram, LatencySummaryMs};

use crate::config::DbTest;
use crate::rng::Rng;

/// A transaction's think time and CPU burst, ns: their means (`fixed`), or exponential draws
/// with those means (`variability = "exponential"`, the service of a closed queueing network
/// that mean value analysis solves exactly).
pub(super) fn draw_times(
    exponential: bool,
    think_ns: u64,
    cpu_ns: u64,
    rng: &mut Rng,
) -> (u64, u64) {
    if !exponential {
        return (think_ns, cpu_ns);
    }
    let draw = |mean: u64, rng: &mut Rng| rng.exp(mean as f64).round() as u64;
    (draw(think_ns, rng), draw(cpu_ns, rng))
}

/// One transaction type's response times.
struct TxType {
    name: String,
    latency: LatencyHistogram,
}

/// Response times by transaction type.
pub(super) struct TxTimes {
    types: Vec<TxType>,
}

impl TxTimes {
    /// The transaction types of `test`'s mix, none recorded yet.
    pub fn new(test: DbTest) -> TxTimes {
        let names = test.def().mix.iter().map(|t| t.name.to_string()).collect();
        TxTimes::named(names)
    }

    /// The transaction types of a characterization, by name, none recorded yet.
    pub fn named(names: Vec<String>) -> TxTimes {
        TxTimes {
            types: names
                .into_iter()
                .map(|name| TxType {
                    name,
                    latency: LatencyHistogram::new(),
                })
                .collect(),
        }
    }

    /// Records a transaction of type `i` (in the order of the types) that took
    /// `response_ns`.
    #[inline]
    pub fn record_type(&mut self, i: usize, response_ns: u64) {
        if let Some(t) = self.types.get_mut(i) {
            t.latency.record(response_ns);
        }
    }

    /// The warm-up is over: the counts restart.
    pub fn reset(&mut self) {
        for t in &mut self.types {
            t.latency.reset();
        }
    }

    /// Every type's response times together.
    pub fn all(&self) -> LatencyHistogram {
        let mut all = LatencyHistogram::new();
        for t in &self.types {
            all.merge(&t.latency);
        }
        all
    }

    /// The overall response time and each type's figures over the `secs` of the window.
    pub fn metrics(&self, secs: f64) -> (LatencySummaryMs, Vec<TransactionMetrics>) {
        let types = self
            .types
            .iter()
            .map(|t| TransactionMetrics {
                name: t.name.clone(),
                count: t.latency.count(),
                tx_per_s: round_to(t.latency.count() as f64 / secs, 1),
                latency_ms: t.latency.summary_ms(),
            })
            .collect();
        (self.all().summary_ms(), types)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mix_counts_reads_and_writes_apart() {
        let mut t = TxTimes::new(DbTest::OltpMedium);
        t.record_type(0, 1_000_000);
        t.record_type(1, 3_000_000);
        t.record_type(1, 5_000_000);
        let (all, types) = t.metrics(2.0);
        let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["read", "write"]);
        assert_eq!((types[0].count, types[1].count), (1, 2));
        assert_eq!((types[0].tx_per_s, types[1].tx_per_s), (0.5, 1.0));
        assert_eq!(types[1].latency_ms.mean, 4.0);
        assert_eq!(all.mean, 3.0);
        assert_eq!(all.max, 5.0);
        t.reset();
        assert_eq!(t.all().count(), 0);
    }

    #[test]
    fn a_single_type_test_is_named_by_its_statements() {
        for (test, name) in [
            (DbTest::UpdateRow, "update"),
            (DbTest::SelectRange, "read"),
            (DbTest::LoadConventional, "insert"),
        ] {
            let mut t = TxTimes::new(test);
            t.record_type(0, 2_000_000);
            let (all, types) = t.metrics(1.0);
            assert_eq!(types.len(), 1);
            assert_eq!(types[0].name, name);
            assert_eq!(types[0].count, 1);
            assert_eq!(all, types[0].latency_ms);
        }
    }
}
