//! `storlab db --capture` of a load whose sort spills to temporary files: the
//! characterization's temp bytes are what pg_stat_statements says the statements wrote
//! (`temp_blks_written`, every merge pass counted), not the temporary files' sizes.

// Real processes are waited for and timed in wall-clock time.
#![allow(clippy::disallowed_methods)]

use std::process::Command;
use std::time::{Duration, Instant};

use storlab_db::cluster::find_binaries;

use super::db::{scratch_tmp, start_server};
use super::db_capture::{client, num, psql, read_back, reader_dsn};
use super::storlab;

/// The spilling query: 20,000 rows of 33 bytes sorted in 64 kB of work memory.
const QUERY: &str = "SELECT count(*) FROM (SELECT v FROM s ORDER BY v OFFSET 0) x";

pub(super) fn capture_reads_the_temp_blocks_the_statements_wrote() {
    let bins = find_binaries(None).expect("the system's PostgreSQL server binaries");
    let dir = scratch_tmp();
    let cluster = start_server(&bins, dir.path(), &[]);
    let admin = cluster.conninfo("postgres");
    psql(&admin, "CREATE EXTENSION pg_stat_statements");
    psql(&admin, "CREATE ROLE reader LOGIN IN ROLE pg_monitor");
    psql(
        &admin,
        "CREATE TABLE s (id int, v text) WITH (autovacuum_enabled = off);
         INSERT INTO s SELECT g, md5(g::text) FROM generate_series(1, 20000) g",
    );
    psql(&admin, "VACUUM (FREEZE, ANALYZE)");
    psql(&admin, "ALTER DATABASE postgres SET work_mem = '64kB'");
    psql(&admin, "CHECKPOINT");
    let script = dir.path().join("sort.sql");
    std::fs::write(&script, format!("{QUERY};\n")).unwrap();
    let mut pgbench = Command::new(client("pgbench"))
        .args(["-n", "-c", "2", "-T", "600", "-R", "20", "-f"])
        .arg(&script)
        .arg(&admin)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("pgbench starts");
    let calls = "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements \
                 WHERE query LIKE '%ORDER BY v%' AND query NOT LIKE '%pg_stat_statements%'";
    let deadline = Instant::now() + Duration::from_secs(30);
    while num(&admin, calls) < 2.0 {
        assert!(Instant::now() < deadline, "the load never started");
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = dir.path().join("profile.json");
    let run = storlab()
        .args([
            "db",
            "--dsn",
            &reader_dsn(&cluster),
            "--capture",
            "6s",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let _ = pgbench.kill();
    let _ = pgbench.wait();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    // What one execution writes to temp, by pg_stat_statements and by the file sizes.
    let n = num(&admin, calls);
    let blocks = num(
        &admin,
        "SELECT sum(temp_blks_written) FROM pg_stat_statements \
         WHERE query LIKE '%ORDER BY v%' AND query NOT LIKE '%pg_stat_statements%'",
    ) / n;
    let files = num(
        &admin,
        "SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()",
    ) / n;
    let written = blocks * 8192.0;
    eprintln!("per execution: {written} bytes written, {files} bytes of temp files");
    let c = read_back(&out);
    let t = &c.transactions[0];
    // Per statement (the server's own transactions, autovacuum's among them, count too; at
    // 20 queries a second the capture's few transaction-control statements do not):
    // what the statement writes, every merge pass counted, not the files' sizes.
    assert!(
        (written - files).abs() > 0.3 * written,
        "the sort must rewrite its temp blocks for the test to tell the two apart"
    );
    let per_statement = t.temp_bytes / t.statements;
    assert!(
        (per_statement - written).abs() < 0.1 * written,
        "{per_statement} temp bytes per statement; the statement writes {written}"
    );
    cluster.stop().unwrap();
}
