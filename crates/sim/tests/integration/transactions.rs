//! Transaction response time of the simulated database: each transaction from its start
//! (after think time) to its commit, by type; consistent with the run's throughput, its
//! sessions (Little's law) and its commit latency.

use storlab_core::result::Run;
use storlab_core::LatencySummaryMs;

use super::database::db_run;

fn tx_latency(r: &Run) -> LatencySummaryMs {
    r.metrics
        .tx_latency_ms
        .expect("a database run has tx_latency_ms")
}

/// Transactions per second of every type together.
fn tx_per_s(r: &Run) -> f64 {
    let count: u64 = r.metrics.transactions.iter().map(|t| t.count).sum();
    count as f64 / r.workload.duration_s
}

/// Sessions a closed loop keeps busy by Little's law: throughput times (response + think).
fn littles_sessions(r: &Run, think_ms: f64) -> f64 {
    tx_per_s(r) * (tx_latency(r).mean + think_ms) / 1e3
}

#[test]
fn sessions_equal_throughput_times_response_and_think_time() {
    for (test, extra, sessions, think_ms) in [
        (
            "dpaws/update-row",
            "sessions = 16\nthink = \"0ms\"",
            16.0,
            0.0,
        ),
        (
            "dpaws/update-row",
            "sessions = 32\nthink = \"2ms\"",
            32.0,
            2.0,
        ),
        (
            "dpaws/select-row",
            "sessions = 8\nbuffer = \"8MiB\"",
            8.0,
            0.0,
        ),
        ("oltp/medium", "", 50.0, 10.0),
    ] {
        let r = db_run(test, &format!("rows = 200000\n{extra}"), 5, 11);
        let n = littles_sessions(&r, think_ms);
        assert!(
            (n - sessions).abs() / sessions < 0.03,
            "{test} ({extra}): {:.1} tx/s x ({} ms + {think_ms} ms) = {n:.2} sessions, not {sessions}",
            tx_per_s(&r),
            tx_latency(&r).mean,
        );
    }
}

#[test]
fn a_transaction_takes_at_least_its_commit() {
    let r = db_run(
        "dpaws/update-row",
        "sessions = 32\nrows = 200000\nbuffer = \"8MiB\"",
        5,
        12,
    );
    let (tx, commit) = (tx_latency(&r), r.metrics.commit_ms.expect("commit_ms"));
    for (what, t, c) in [
        ("mean", tx.mean, commit.mean),
        ("p50", tx.p50, commit.p50),
        ("p95", tx.p95, commit.p95),
        ("p99", tx.p99, commit.p99),
        ("max", tx.max, commit.max),
    ] {
        assert!(t >= c, "{what}: transaction {t} ms < its commit {c} ms");
    }
    // With a small buffer cache the transaction also waits for its reads: longer than the
    // commit alone by about the read waits each transaction has.
    let (read_pct, _) = super::database::wait(&r, "IO:DataFileRead");
    assert!(read_pct > 10.0, "read waits {read_pct}%");
    assert!(tx.mean > 1.1 * commit.mean, "{tx:?} vs commit {commit:?}");
}

#[test]
fn the_oltp_mix_reports_its_read_and_write_transactions() {
    let r = db_run("oltp/medium", "rows = 200000", 5, 13);
    let m = &r.metrics;
    let names: Vec<&str> = m.transactions.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["read", "write"]);
    let (read, write) = (&m.transactions[0], &m.transactions[1]);
    // Every transaction of the window is one of the two types: they add up to tx/min.
    let per_min = (read.count + write.count) as f64 * 60.0 / r.workload.duration_s;
    assert!(
        (per_min - m.tx_per_min.unwrap()).abs() <= 0.1,
        "{per_min} vs {m:?}"
    );
    for t in [read, write] {
        let rate = t.count as f64 / r.workload.duration_s;
        assert!((rate - t.tx_per_s).abs() <= 0.05, "{t:?}");
    }
    // 60% of the mix reads.
    let read_share = read.count as f64 / (read.count + write.count) as f64;
    assert!((read_share - 0.6).abs() < 0.02, "read share {read_share}");
    // Only write transactions commit: as many as the log's commits, each at least its
    // commit's wait.
    let log = r
        .classes
        .iter()
        .find(|c| c.name == "log")
        .expect("log class");
    let commits_per_s = log.commit.as_ref().expect("group commit").commits_per_s;
    assert!(
        (write.tx_per_s - commits_per_s).abs() <= 0.1,
        "{commits_per_s}"
    );
    let commit = m.commit_ms.expect("commit_ms");
    assert!(write.latency_ms.mean >= commit.mean && write.latency_ms.p99 >= commit.p99);
    // The overall response time lies between the two types'.
    let all = tx_latency(&r);
    let (lo, hi) = (
        read.latency_ms.mean.min(write.latency_ms.mean),
        read.latency_ms.mean.max(write.latency_ms.mean),
    );
    assert!(all.mean >= lo - 1e-4 && all.mean <= hi + 1e-4, "{all:?}");
    assert_eq!(all.max, read.latency_ms.max.max(write.latency_ms.max));
}

#[test]
fn single_type_tests_count_every_operation_as_a_transaction() {
    // One row per operation: the transaction rate is the row rate.
    let sel = db_run("dpaws/select-row", "sessions = 4\nrows = 200000", 5, 14);
    assert_eq!(sel.metrics.transactions.len(), 1);
    assert_eq!(sel.metrics.transactions[0].name, "read");
    let rows = sel.metrics.rows_per_s.unwrap();
    assert!((tx_per_s(&sel) - rows).abs() <= 0.1, "{rows}");
    // The load commits `rows_per_commit` rows per transaction.
    let load = db_run(
        "orabench/load-conventional",
        "sessions = 4\nrows = 200000\nrows_per_commit = 5",
        5,
        14,
    );
    let t = &load.metrics.transactions;
    assert_eq!((t.len(), t[0].name.as_str()), (1, "insert"));
    let rows = load.metrics.rows_per_s.unwrap();
    assert!((5.0 * tx_per_s(&load) - rows).abs() <= 0.5, "{rows} {t:?}");
    assert!(tx_latency(&load).mean >= load.metrics.commit_ms.unwrap().mean);
}

#[test]
fn io_runs_have_no_transactions() {
    let s = super::system(super::MIDRANGE_RAID5);
    let r = super::run_profile(&s, "randread-8k", super::opts(2, 1, 1));
    assert!(r.metrics.tx_latency_ms.is_none() && r.metrics.transactions.is_empty());
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains("tx_latency_ms") && !json.contains("\"transactions\""));
}
