//! `storlab db --dsn DSN --capture SPAN --out FILE` on real servers the test starts, with a
//! load of known rate (pgbench at a fixed rate of single-row updates) running meanwhile: the
//! characterization's rates match the load, and the capture writes nothing to the server.

// Real processes are waited for and timed in wall-clock time.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use storlab_core::character::{from_results, Characterization};
use storlab_db::cluster::{find_binaries, Binaries, Cluster};

use super::db::{scratch_tmp, start_server, WITHOUT_STATEMENTS};
use super::{signal_and_wait, storlab};

/// Updates per second the load runs at.
const RATE: f64 = 200.0;

/// The system's server (15 on Debian bookworm) and the newest of STORLAB_TEST_PG_BINS.
pub(crate) fn oldest_and_newest() -> Vec<Binaries> {
    let mut all = vec![find_binaries(None).expect("the system's PostgreSQL server binaries")];
    match std::env::var_os("STORLAB_TEST_PG_BINS") {
        Some(list) if !list.is_empty() => {
            let newest = std::env::split_paths(&list)
                .map(|d| {
                    find_binaries(Some(&d)).unwrap_or_else(|e| {
                        panic!("STORLAB_TEST_PG_BINS lists {}: {e}", d.display())
                    })
                })
                .max_by_key(|b| b.major);
            all.extend(newest.filter(|b| b.major != all[0].major));
        }
        _ => eprintln!("STORLAB_TEST_PG_BINS is not set: only the system's PostgreSQL is tested"),
    }
    all
}

/// Client programs (psql, pgbench) of the system's installation: they talk to every newer
/// server too.
pub(crate) fn client(name: &str) -> PathBuf {
    find_binaries(None).expect("binaries").bindir.join(name)
}

pub(crate) fn psql(dsn: &str, sql: &str) -> String {
    let out = Command::new(client("psql"))
        .arg(dsn)
        .args(["-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

pub(crate) fn num(dsn: &str, sql: &str) -> f64 {
    let v = psql(dsn, sql);
    v.parse().unwrap_or_else(|_| panic!("{sql}: {v:?}"))
}

/// A table of 10000 rows (updated through its index), frozen and checkpointed, so that reading the catalogs later sets no
/// hint bits (which would write WAL on a server with data checksums).
fn prepare(dsn: &str, statements: bool) {
    if statements {
        psql(dsn, "CREATE EXTENSION pg_stat_statements");
    }
    psql(dsn, "CREATE ROLE reader LOGIN IN ROLE pg_monitor");
    psql(
        dsn,
        "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL) WITH (autovacuum_enabled = off);
         INSERT INTO t SELECT g, 0 FROM generate_series(1, 10000) g",
    );
    psql(dsn, "VACUUM (FREEZE, ANALYZE)");
    psql(dsn, "CHECKPOINT");
}

/// pgbench updating one random row of `t` per transaction at `rate` per second, 2 clients.
///
/// A session publishes its commit count at most once a second on its own, while
/// pg_stat_statements counts each statement as it ends: over a window of a few seconds the
/// second of commits a session holds back at either end would move statements per
/// transaction and the transaction rate by 10 to 25%. So each update also asks its session
/// to publish at once (`pg_stat_force_next_flush`, a function in the FROM list: no statement
/// or transaction of its own, no block read), and both counters describe the same updates.
fn load(dsn: &str, dir: &Path, rate: f64) -> Child {
    let script = dir.join("update.sql");
    std::fs::write(
        &script,
        "\\set id random(1, 10000)\n\
         UPDATE t SET v = v + 1 FROM pg_stat_force_next_flush() AS publish WHERE id = :id;\n",
    )
    .unwrap();
    let child = Command::new(client("pgbench"))
        .args(["-n", "-c", "2", "-T", "600", "-R", &rate.to_string(), "-f"])
        .arg(&script)
        .arg(dsn)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("pgbench starts");
    // Until both clients are connected and have published their first counters.
    let deadline = Instant::now() + Duration::from_secs(30);
    while num(dsn, "SELECT sum(v) FROM t") < rate {
        assert!(Instant::now() < deadline, "the load never started");
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_millis(1500));
    child
}

/// What the capture must leave as it was.
fn fingerprint(dsn: &str) -> String {
    psql(
        dsn,
        "SELECT (SELECT count(*) FROM pg_class) || ' ' || (SELECT count(*) FROM pg_namespace) \
         || ' ' || (SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension) \
         || ' ' || (SELECT tup_inserted || '/' || tup_deleted FROM pg_stat_database \
                    WHERE datname = current_database())",
    )
}

pub(crate) fn reader_dsn(cluster: &Cluster) -> String {
    format!(
        "host={} port={} user=reader dbname=postgres",
        cluster.socket_dir().display(),
        cluster.port()
    )
}

pub(crate) fn read_back(path: &Path) -> Characterization {
    let text = std::fs::read_to_string(path).expect("the characterization is written");
    Characterization::from_text(&text, &path.display().to_string()).expect("it reads back")
}

pub(super) fn capture_matches_a_known_load_and_writes_nothing_on_15_and_the_newest() {
    for bins in oldest_and_newest() {
        let at = format!("PostgreSQL {}", bins.version);
        eprintln!("capture on {at}");
        let dir = scratch_tmp();
        let cluster = start_server(&bins, dir.path(), &[]);
        let admin = cluster.conninfo("postgres");
        prepare(&admin, true);
        let mut pgbench = load(&admin, dir.path(), RATE);
        let before = fingerprint(&admin);
        let (sum0, lsn0, t0) = (
            num(&admin, "SELECT sum(v) FROM t"),
            psql(&admin, "SELECT pg_current_wal_lsn()"),
            Instant::now(),
        );
        let out = dir.path().join("profile.json");
        let run = storlab()
            .args([
                "db",
                "--dsn",
                &reader_dsn(&cluster),
                "--capture",
                "8s",
                "--out",
            ])
            .arg(&out)
            .output()
            .unwrap();
        let secs = t0.elapsed().as_secs_f64();
        let updates = num(&admin, "SELECT sum(v) FROM t") - sum0;
        let wal = num(
            &admin,
            &format!("SELECT pg_current_wal_lsn() - '{lsn0}'::pg_lsn"),
        );
        let _ = pgbench.kill();
        let _ = pgbench.wait();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{at}: {stderr}");
        eprint!("{}{stderr}", String::from_utf8_lossy(&run.stdout));
        let c = read_back(&out);
        let t = &c.transactions[0];
        let tps = c.observed.as_ref().unwrap().transactions_per_s.unwrap();
        // pgbench's schedule, and the rate the test saw around the capture.
        assert!((tps - RATE).abs() < 0.15 * RATE, "{at}: {tps} tx/s");
        let seen = updates / secs;
        assert!((tps - seen).abs() < 0.15 * seen, "{at}: {tps} vs {seen}");
        // WAL per update: a heap update and a commit record (a few hundred bytes at most).
        let per_update = wal / updates;
        assert!(
            (t.redo_bytes - per_update).abs() < 0.25 * per_update,
            "{at}: {} vs {per_update} WAL bytes per transaction",
            t.redo_bytes
        );
        assert!(t.redo_bytes > 60.0 && t.redo_bytes < 1000.0, "{at}: {t:?}");
        assert!(
            (t.statements - 1.0).abs() < 0.1,
            "{at}: one UPDATE each: {t:?}"
        );
        assert!(t.logical_reads >= 2.0, "{at}: index and heap: {t:?}");
        // The heap block changed by each (HOT) update, and again by the pruning of the old
        // row versions: a WAL record each besides the commit.
        assert!(
            t.blocks_changed > 0.8 && t.blocks_changed < 3.0,
            "{at}: {t:?}"
        );
        assert_eq!(c.sessions, 2, "{at}: pgbench's two connections");
        let names: Vec<&str> = c.segments.iter().map(|s| s.name.as_str()).collect();
        assert!(
            names.contains(&"public.t") && names.contains(&"public.t_pkey"),
            "{names:?}"
        );
        assert!(t.index_share > 0.0 && t.index_share < 1.0, "{at}: {t:?}");
        assert!(!stderr.contains("pg_stat_statements"), "{at}: {stderr}");

        // Nothing created, inserted or deleted; the capture's own statements wrote no WAL
        // and were all reads (or the SET and transaction control around them).
        assert_eq!(fingerprint(&admin), before, "{at}");
        let own = psql(
            &admin,
            "SELECT coalesce(sum(wal_bytes), 0) || ' ' || count(*) FROM pg_stat_statements \
             WHERE userid = 'reader'::regrole",
        );
        let (bytes, count) = own.split_once(' ').unwrap();
        assert_eq!(bytes, "0", "{at}: the capture wrote WAL");
        assert!(count.parse::<u32>().unwrap() > 3, "{at}: {own}");
        let queries = psql(
            &admin,
            "SELECT string_agg(regexp_replace(query, '\\s+', ' ', 'g'), E'\\n') \
             FROM pg_stat_statements \
             WHERE userid = 'reader'::regrole",
        );
        for q in queries.lines() {
            let word = q
                .trim_start_matches("/* storlab capture */")
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_uppercase();
            assert!(
                ["SELECT", "SET", "SHOW", "START", "BEGIN", "COMMIT"].contains(&word.as_str()),
                "{at}: the capture ran {q:?}"
            );
        }
        cluster.stop().unwrap();
    }
}

pub(super) fn capture_without_pg_stat_statements_warns_and_stops_on_sigint() {
    let dir = scratch_tmp();
    let bins = find_binaries(None).expect("binaries");
    let cluster = start_server(&bins, dir.path(), WITHOUT_STATEMENTS);
    let admin = cluster.conninfo("postgres");
    prepare(&admin, false);
    let mut pgbench = load(&admin, dir.path(), RATE);
    let out = dir.path().join("profile.toml");
    let run = storlab()
        .args([
            "db",
            "--dsn",
            &reader_dsn(&cluster),
            "--capture",
            "4s",
            "--cpus",
            "3",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "pg_stat_statements is not installed in this database (storlab never creates it)"
        ),
        "{stderr}"
    );
    let c = read_back(&out);
    let t = &c.transactions[0];
    let tps = c.observed.as_ref().unwrap().transactions_per_s.unwrap();
    assert!((tps - RATE).abs() < 0.2 * RATE, "{tps} tx/s");
    assert_eq!(t.statements, 1.0);
    assert!(t.logical_reads >= 2.0 && t.redo_bytes > 60.0, "{t:?}");
    assert_eq!(
        psql(
            &admin,
            "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'"
        ),
        "0"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    // The server's settings are keys of [instance.settings], read back as the server shows
    // them; the CPUs are the ones given.
    assert!(text.contains("[instance.settings]"), "{text}");
    for name in [
        "shared_buffers",
        "max_connections",
        "wal_buffers",
        "checkpoint_timeout",
        "max_wal_size",
    ] {
        let shown = psql(&admin, &format!("SHOW {name}"));
        assert_eq!(
            c.instance.settings.get(name),
            Some(&shown),
            "{name}: {text}"
        );
    }
    assert!(!text.contains("#   shared_buffers"), "{text}");
    assert_eq!(c.instance.cpus, 3);
    assert!(!stderr.contains("instance.cpus"), "{stderr}");

    // Ctrl-C during the interval: out within a second, exit 1, nothing written.
    let cut = dir.path().join("cut.json");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_storlab"))
        .args([
            "db",
            "--dsn",
            &reader_dsn(&cluster),
            "--capture",
            "60s",
            "--out",
        ])
        .arg(&cut)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let waiting =
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'storlab capture'";
    while num(&admin, waiting) < 1.0 {
        assert!(Instant::now() < deadline, "the capture never connected");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(1000));
    let (code, stderr, secs) = signal_and_wait(child, libc::SIGINT);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(secs < 1.0, "{secs} s to stop");
    assert!(
        stderr.contains("interrupted") && stderr.contains("nothing was written"),
        "{stderr}"
    );
    assert!(!cut.exists());
    let _ = pgbench.kill();
    let _ = pgbench.wait();
    cluster.stop().unwrap();
}

#[test]
fn capture_bad_input_and_unreachable_servers_are_named() {
    let dir = scratch_tmp();
    let out = dir.path().join("p.json");
    let cases: [(&[&str], i32, &str); 6] = [
        (
            &["--capture", "5s", "--out", "p.txt"],
            2,
            "name a .json or a .toml file",
        ),
        (
            &["--capture", "25h"],
            2,
            "--capture must be at least 1 s and at most 86400 s; got 90000 s",
        ),
        (
            &["--capture", "5s", "--cpus", "0"],
            2,
            "--cpus must be at least 1 and at most 4096 CPUs; got 0",
        ),
        (
            &["--capture", "5s", "--cpus", "5000"],
            2,
            "--cpus must be at least 1 and at most 4096 CPUs; got 5000",
        ),
        (
            &["--capture", "5s", "--out", "/nonexistent-dir/p.json"],
            2,
            "does not exist",
        ),
        (&["--capture", "2s"], 1, "storlab-no-such-socket"),
    ];
    for (args, code, message) in cases {
        let mut cmd = storlab();
        cmd.args([
            "db",
            "--dsn",
            "host=/tmp/storlab-no-such-socket port=5999 dbname=x",
        ]);
        cmd.args(args);
        if !args.contains(&"--out") {
            cmd.arg("--out").arg(&out);
        }
        let run = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!out.exists());
    }
    // --capture needs a server given by --dsn.
    storlab()
        .args(["db", "--capture", "5s", "--out"])
        .arg(&out)
        .assert()
        .code(2);
}

pub(super) fn a_db_result_converts_to_the_characterization_its_measured_profile_agrees_with() {
    let dir = scratch_tmp();
    let json = dir.path().join("db.json");
    storlab()
        .args(["db", "--data-dir"])
        .arg(dir.path().join("data"))
        .args(["--test", "update-row", "--scale", "300", "--clients", "2"])
        .args(["--duration", "2s", "--warmup", "0", "--json"])
        .arg(&json)
        .assert()
        .success();
    let text = std::fs::read_to_string(&json).unwrap();
    let results: storlab_core::result::Results = serde_json::from_str(&text).unwrap();
    let c = from_results(&results, None, "db.json").expect("converts");
    let p = storlab_sim::db::MeasuredProfile::from_results(&results, "dpaws/update-row", "db.json")
        .expect("a measured profile");
    let t = &c.transactions[0];
    // Calls per operation: the measured profile is per call, the characterization per
    // transaction.
    let k = t.statements;
    assert!((k - 1.0).abs() < 0.05, "one UPDATE per transaction: {k}");
    let close = |a: f64, b: f64, what: &str| {
        assert!((a - b).abs() <= 0.01 + 2e-3 * b.abs(), "{what}: {a} vs {b}");
    };
    close(t.logical_reads, p.blocks_per_op * k, "logical reads");
    close(
        t.physical_reads.unwrap(),
        p.read_per_op * k,
        "physical reads",
    );
    // Blocks dirtied are a lower bound of the blocks changed.
    assert!(
        t.blocks_changed + 0.01 >= p.dirtied_per_op * k,
        "{t:?} {p:?}"
    );
    let cpu_ns = p.server_cpu_ns_per_op.expect("storlab started the server");
    close(t.cpu_ms, cpu_ns / 1e6, "CPU ms");
    // All the WAL of the window: the statements' own and the commit records.
    assert!(
        t.redo_bytes >= 0.9 * p.wal_bytes_per_op * k,
        "{} vs {}",
        t.redo_bytes,
        p.wal_bytes_per_op
    );
    assert_eq!(c.name, p.test);
    assert_eq!(c.sessions, 2);
    c.validate("db.json").unwrap();
}
