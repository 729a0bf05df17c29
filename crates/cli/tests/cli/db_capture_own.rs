//! `storlab db --capture` with `pg_stat_statements.track_utility` on (its default): a known
//! workload run inside the capture's window, a few transactions of four statements each
//! (`BEGIN`, `UPDATE`, `SELECT`, `COMMIT`), is characterized with the workload's four
//! statements per transaction, none of the capture's own statements or transactions
//! counted. So few transactions make a single statement or transaction of the capture's a
//! visible error (one in 48 calls is 2%).

// Real processes are waited for and timed in wall-clock time.
#![allow(clippy::disallowed_methods)]

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::db::{scratch_tmp, start_server};
use super::db_capture::{client, num, oldest_and_newest, psql, read_back, reader_dsn};

/// Transactions the workload runs in the window, and its statements in each.
const TRANSACTIONS: u32 = 12;
const PER_TRANSACTION: f64 = 4.0;

/// The workload: `TRANSACTIONS` explicit transactions, one after the other.
fn workload() -> String {
    (1..=TRANSACTIONS)
        .map(|k| {
            format!(
                "BEGIN;\nUPDATE t SET v = v + 1 WHERE id = {k};\n\
                 SELECT v FROM t WHERE id = {k};\nCOMMIT;\n"
            )
        })
        .collect()
}

pub(super) fn capture_counts_only_the_workloads_statements_with_track_utility_on() {
    for bins in oldest_and_newest() {
        let at = format!("PostgreSQL {}", bins.version);
        let dir = scratch_tmp();
        // Nothing else commits in the database: no autovacuum.
        let cluster = start_server(&bins, dir.path(), &[("autovacuum", "off")]);
        let admin = cluster.conninfo("postgres");
        psql(&admin, "CREATE EXTENSION pg_stat_statements");
        assert_eq!(
            psql(&admin, "SHOW pg_stat_statements.track_utility"),
            "on",
            "{at}"
        );
        psql(&admin, "CREATE ROLE reader LOGIN IN ROLE pg_monitor");
        psql(
            &admin,
            "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL);
             INSERT INTO t SELECT g, 0 FROM generate_series(1, 100) g",
        );
        // The test watches the capture from another database, so that its own queries are
        // not in the captured one.
        psql(&admin, "CREATE DATABASE watch");
        let watch = cluster.conninfo("watch");
        psql(&watch, "CREATE EXTENSION pg_stat_statements");
        // The workload's session connects before the capture starts: a backend's start is a
        // transaction of its own, which the workload's statements would be divided by.
        let mut session = Command::new(client("psql"))
            .arg(&admin)
            .args(["-Xq", "-v", "ON_ERROR_STOP=1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let idle = "SELECT count(*) FROM pg_stat_activity \
                    WHERE datname = 'postgres' AND application_name = 'psql' AND state = 'idle'";
        let deadline = Instant::now() + Duration::from_secs(30);
        while num(&watch, idle) < 1.0 {
            assert!(Instant::now() < deadline, "{at}: psql never connected");
            std::thread::sleep(Duration::from_millis(50));
        }
        // Past the server's 1 s between two flushes of a backend's statistics.
        std::thread::sleep(Duration::from_millis(1500));
        let out = dir.path().join("profile.json");
        let capture = Command::new(env!("CARGO_BIN_EXE_storlab"))
            .args(["db", "--dsn", &reader_dsn(&cluster), "--capture", "5s"])
            .arg("--out")
            .arg(&out)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Its first snapshot is taken once it has sampled pg_stat_activity (run, not only
        // prepared: pg_stat_statements counts executions).
        let sampling = "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements \
                        WHERE query LIKE '%storlab capture%' \
                          AND query LIKE '%FROM pg_stat_activity%'";
        let deadline = Instant::now() + Duration::from_secs(30);
        while num(&watch, sampling) < 1.0 {
            assert!(Instant::now() < deadline, "{at}: the capture never sampled");
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut stdin = session.stdin.take().unwrap();
        stdin.write_all(workload().as_bytes()).unwrap();
        drop(stdin);
        assert!(
            session.wait().unwrap().success(),
            "{at}: the workload failed"
        );
        let done = capture.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(done.status.success(), "{at}: {stderr}");
        assert_eq!(
            num(&admin, "SELECT sum(v) FROM t"),
            f64::from(TRANSACTIONS),
            "{at}: the workload ran once"
        );
        let c = read_back(&out);
        let t = &c.transactions[0];
        assert!(
            (t.statements - PER_TRANSACTION).abs() < 0.02 * PER_TRANSACTION,
            "{at}: {} statements per transaction; the workload runs {PER_TRANSACTION}: {stderr}",
            t.statements
        );
        cluster.stop().unwrap();
    }
}
