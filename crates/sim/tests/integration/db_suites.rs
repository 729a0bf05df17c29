//! The simulated database's other suites: `orabench/load-conventional` (appends, a commit
//! every `rows_per_commit` rows) and the OLTP mix (`oltp/medium`, `oltp/heavy`).

use storlab_core::result::Run;
use storlab_sim::{parse_workload, simulate};

use super::{opts, system, ENTERPRISE_RAID5};

fn run(test: &str, extra: &str) -> (Run, storlab_sim::config::DbSpec) {
    let s = system(ENTERPRISE_RAID5);
    let text = format!(
        "name = \"db\"\n[database]\ntest = \"{test}\"\ndata = \"datavol\"\nlog = \"logvol\"\n\
         rows = 500000\n{extra}\n"
    );
    let w = parse_workload(&text, "db.toml", &s).unwrap_or_else(|e| panic!("{e}"));
    let spec = w.database.clone().unwrap();
    (simulate(&s, &w, opts(10, 5, 5)).unwrap(), spec)
}

fn commits_per_s(r: &Run) -> f64 {
    let log = r.classes.iter().find(|c| c.name == "log").unwrap();
    log.commit.as_ref().unwrap().commits_per_s
}

#[test]
fn a_conventional_load_appends_without_reading_and_commits_every_n_rows() {
    let (r, spec) = run(
        "orabench/load-conventional",
        "sessions = 16\nrows_per_commit = 4\nbuffer = \"16MiB\"",
    );
    assert_eq!(spec.sessions, 16);
    let m = &r.metrics;
    let rows = m.rows_per_s.unwrap();
    // One commit per 4 rows.
    let commits = commits_per_s(&r);
    assert!(
        (rows / commits - 4.0).abs() < 0.01,
        "{rows} rows/s, {commits} commits/s"
    );
    assert!((m.tx_per_min.unwrap() / 60.0 - commits).abs() / commits < 0.01);
    // New heap blocks are created, not read; the right edge of the index stays cached: the
    // data files are written, hardly read.
    let data = &r.classes.iter().find(|c| c.name == "data").unwrap().metrics;
    assert!(data.write_mbps > 0.0, "{data:?}");
    assert!(
        data.read_iops < 0.01 * commits,
        "{} reads/s",
        data.read_iops
    );
    // Log per commit: 4 inserted rows of 100 bytes, each with its heap-insert (52) and index
    // insert (64) records, and the 50-byte commit record; log writes round up to 8 KiB blocks
    // shared by a group of commits.
    let per_commit = m.wal_mb_per_s.unwrap() * 1e6 / commits;
    let records = 4.0 * (100.0 + 52.0 + 64.0) + 50.0;
    assert!(
        per_commit >= records && per_commit < records + 8192.0,
        "{per_commit} bytes per commit"
    );
}

#[test]
fn the_oltp_mix_writes_in_two_of_five_transactions_and_thinks_between_them() {
    let (r, spec) = run("oltp/medium", "");
    assert_eq!(spec.sessions, 50, "the suite's medium client count");
    assert_eq!(spec.think_ns, 10_000_000);
    let tx_s = r.metrics.tx_per_min.unwrap() / 60.0;
    let commits = commits_per_s(&r);
    let share = commits / tx_s;
    assert!(
        (share - 0.4).abs() < 0.03,
        "{share} of the transactions commit"
    );
    // 50 sessions thinking 10 ms each: at most 5,000 transactions per second.
    assert!(tx_s < 5_000.0 && tx_s > 3_000.0, "{tx_s} tx/s");
    // Rows: 5 per read transaction, 3 (2 updates, 1 insert) per write transaction.
    let rows = r.metrics.rows_per_s.unwrap();
    let expect = 0.6 * 5.0 + 0.4 * 3.0;
    assert!(
        (rows / tx_s - expect).abs() < 0.15,
        "{} rows per tx",
        rows / tx_s
    );
    let (heavy, hspec) = run("oltp/heavy", "");
    assert_eq!(hspec.sessions, 100);
    // The history table (the last) grows beside the item table.
    assert_eq!(hspec.tables.len(), 2);
    assert!(heavy.metrics.tx_per_min.unwrap() > 1.5 * r.metrics.tx_per_min.unwrap());
}
