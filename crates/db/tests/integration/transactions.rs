//! Transaction response time and commit latency of real runs, in the fields the simulator
//! fills: `tx_latency_ms`, `transactions` (per type) and `commit_ms` (for transactions that
//! commit explicitly).

use storlab_core::histogram::LatencySummaryMs;
use storlab_core::result::Run;
use storlab_db::run_db;

use super::{kept, one, options, scratch, serial, start};

/// Percentiles in order, every one positive.
fn plausible(what: &str, l: &LatencySummaryMs) {
    assert!(l.mean > 0.0 && l.p50 > 0.0, "{what}: {l:?}");
    assert!(
        l.p50 <= l.p95 && l.p95 <= l.p99 && l.p99 <= l.p999 && l.p999 <= l.max,
        "{what}: percentiles out of order: {l:?}"
    );
    assert!(l.mean <= l.max, "{what}: {l:?}");
}

/// The run's transaction figures: the types named, their counts adding up to the run's
/// transactions, each type's rate its count over the window, the overall response time
/// spanning the types'.
fn check_transactions(run: &Run, types: &[&str]) {
    let name = &run.workload.name;
    let m = &run.metrics;
    let all = m
        .tx_latency_ms
        .as_ref()
        .unwrap_or_else(|| panic!("{name}: no tx_latency_ms"));
    plausible(name, all);
    let names: Vec<&str> = m.transactions.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, types, "{name}: transaction types");
    let count: u64 = m.transactions.iter().map(|t| t.count).sum();
    assert_eq!(count, m.ios, "{name}: every transaction counted once");
    let tx_per_min = m.tx_per_min.unwrap();
    assert!(
        (count as f64 * 60.0 / run.workload.duration_s - tx_per_min).abs() <= 0.01 * tx_per_min,
        "{name}: {count} transactions in {} s against {tx_per_min} tx/min",
        run.workload.duration_s
    );
    for t in &m.transactions {
        assert!(t.count > 0, "{name} {}: none measured", t.name);
        plausible(&format!("{name} {}", t.name), &t.latency_ms);
        let rate = t.count as f64 / run.workload.duration_s;
        assert!((t.tx_per_s - rate).abs() <= 0.1, "{name} {}: {t:?}", t.name);
        assert!(t.latency_ms.max <= all.max, "{name} {}", t.name);
    }
}

#[test]
fn real_runs_report_transaction_response_time_per_type_and_commit_latency() {
    let _s = serial();
    let dir = scratch();
    let cluster = start(dir.path());
    let dsn = cluster.conninfo("postgres");
    let run = |suite: &str, test: &str, scale: u64| {
        one(run_db(&options(kept(dsn.clone()), suite, test, scale))
            .unwrap_or_else(|e| panic!("{suite}/{test}: {e}")))
    };

    let select = run("dpaws", "select-row", 5_000);
    check_transactions(&select, &["read"]);
    assert!(select.metrics.commit_ms.is_none(), "reads commit nothing");

    // Each update is one autocommit statement: its response time includes its commit,
    // which the client cannot time apart.
    let update = run("dpaws", "update-row", 5_000);
    check_transactions(&update, &["update"]);

    let oltp = run("oltp", "medium", 2_000);
    check_transactions(&oltp, &["read", "write"]);
    let commit = oltp
        .metrics
        .commit_ms
        .as_ref()
        .expect("write transactions commit");
    plausible("oltp commit", commit);
    // The commit is part of a write transaction: never longer than the longest of them.
    let write = &oltp.metrics.transactions[1].latency_ms;
    assert!(
        commit.max <= write.max,
        "commit {commit:?} within {write:?}"
    );
    // Reads are 60% of the mix: more of them than writes in any window of a second.
    let (read, write) = (&oltp.metrics.transactions[0], &oltp.metrics.transactions[1]);
    assert!(read.count > write.count, "{read:?} {write:?}");
    cluster.stop().unwrap();
}
