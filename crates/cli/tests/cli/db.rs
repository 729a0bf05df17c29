//! `storlab db`: a real PostgreSQL cluster, bad directories, interruption.

// Real processes are waited for and timed in wall-clock time.
#![allow(clippy::disallowed_methods)]

use predicates::prelude::*;

use super::{signal_and_wait, storlab};

/// Tests that start servers run one at a time: the machine has two cores, and the
/// interrupt tests need the run to reach the phase they interrupt.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// An integer a query on the server of `data` returns (over the socket its pid file names),
/// None while the server cannot answer.
fn server_count(data: &std::path::Path, sql: &str) -> Option<i64> {
    let pid_file = std::fs::read_to_string(data.join("postmaster.pid")).ok()?;
    let lines: Vec<&str> = pid_file.lines().collect();
    let (port, socket) = (lines.get(3)?.trim(), lines.get(4)?.trim());
    let bins = storlab_db::cluster::find_binaries(None).ok()?;
    let out = std::process::Command::new(bins.bindir.join("psql"))
        .arg(format!(
            "host={socket} port={port} user=storlab dbname=postgres"
        ))
        .args(["-XAtq", "-c", sql])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// Waits until storlab's clients or load run `like` on the server of `data`.
fn wait_for_statement(data: &std::path::Path, like: &str) {
    let sql = format!(
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '{like}' \
         AND pid <> pg_backend_pid()"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while server_count(data, &sql).unwrap_or(0) == 0 {
        assert!(std::time::Instant::now() < deadline, "never saw {like}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Waits until storlab's DPAWS clients have committed `n` updates on the server of `data`
/// (each adds one to a row's version).
fn wait_for_updates(data: &std::path::Path, n: i64) {
    let sum: Vec<String> = (1..=15)
        .map(|k| format!("(SELECT coalesce(sum(version), 0) FROM storlab.dpaws_{k:02})"))
        .collect();
    let sql = format!("SELECT ({})::bigint", sum.join(" + "));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while server_count(data, &sql).unwrap_or(0) < n {
        assert!(
            std::time::Instant::now() < deadline,
            "never saw {n} updates committed"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

pub(crate) fn postgres_running_on(dir: &std::path::Path) -> bool {
    let needle = dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        let cmd = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd);
        cmd.contains(&needle) && cmd.contains("postgres")
    })
}

#[test]
fn db_runs_a_test_and_refuses_bad_directories() {
    let _s = serial();
    let dir = tempfile::Builder::new()
        .prefix("storlab-cli-db")
        .tempdir_in("/tmp")
        .unwrap();
    let data = dir.path().join("data");
    let out = dir.path().join("db.json");
    storlab()
        .args([
            "db",
            "--suite",
            "dpaws",
            "--test",
            "select-row",
            "--data-dir",
        ])
        .arg(&data)
        .args([
            "--scale",
            "500",
            "--clients",
            "4",
            // Long enough for the wait sampler to see active sessions on a busy machine.
            "--duration",
            "3s",
            "--warmup",
            "0",
            "--json",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("dpaws/select-row"))
        .stdout(predicate::str::contains("top wait events"))
        .stdout(predicate::str::is_match(r"(?m)^\s*transactions\s+tx/s").unwrap())
        .stdout(
            predicate::str::is_match(r"server: shared_buffers 32MB, wal_sync_method \w+").unwrap(),
        );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["workload"]["kind"], "db");
    assert!(run["metrics"]["rows_per_s"].as_f64().unwrap() > 0.0);
    // Transaction response time, in the fields a simulated database fills.
    assert_eq!(run["metrics"]["transactions"][0]["name"], "read");
    assert!(run["metrics"]["tx_latency_ms"]["p99"].as_f64().unwrap() > 0.0);
    assert!(run["db"]["wal"].is_object());
    assert!(!data.exists());
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("x"), b"x").unwrap();
    storlab()
        .args(["db", "--data-dir"])
        .arg(&data)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(data.to_string_lossy().as_ref()));
    storlab()
        .args(["db", "--suite", "nope", "--data-dir"])
        .arg(dir.path().join("d2"))
        .assert()
        .code(2);
}

#[test]
fn db_stops_on_sigint_keeps_partial_results_and_removes_the_cluster() {
    let _s = serial();
    let dir = tempfile::Builder::new()
        .prefix("storlab-cli-db")
        .tempdir_in("/tmp")
        .unwrap();
    let data = dir.path().join("data");
    let out = dir.path().join("partial.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .args([
            "db",
            "--suite",
            "dpaws",
            "--test",
            "update-row",
            "--data-dir",
        ])
        .arg(&data)
        .args([
            "--scale",
            "500",
            "--clients",
            "2",
            "--duration",
            "120s",
            "--warmup",
            "0",
            "--json",
        ])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn storlab");
    // Wait until the clients have committed updates in the measured window (there is no
    // warm-up), however long the start and the load take on a busy machine.
    wait_for_updates(&data, 20);
    assert!(postgres_running_on(&data), "the cluster is up");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().expect("wait");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["runs"][0]["partial"], true);
    assert!(v["runs"][0]["metrics"]["rows_per_s"].as_f64().unwrap() > 0.0);
    assert!(
        v["runs"][0]["metrics"]["tx_latency_ms"]["p99"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(!postgres_running_on(&data), "the server is stopped");
    assert!(!data.exists(), "its directory is removed");
}

/// Settings of a server without pg_stat_statements in shared_preload_libraries.
pub(crate) const WITHOUT_STATEMENTS: &[(&str, &str)] = &[("shared_preload_libraries", "")];

/// A PostgreSQL server of `bins` started for a test in `dir`/data, with these settings on
/// top of storlab's.
pub(crate) fn start_server(
    bins: &storlab_db::cluster::Binaries,
    dir: &std::path::Path,
    settings: &[(&str, &str)],
) -> storlab_db::cluster::Cluster {
    use storlab_db::cluster::{Cluster, ClusterSpec};
    let spec = ClusterSpec {
        data_dir: dir.join("data"),
        settings: settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..ClusterSpec::default()
    };
    Cluster::start(bins, &spec).unwrap_or_else(|e| panic!("PostgreSQL {}: {e}", bins.version))
}

pub(crate) fn scratch_tmp() -> tempfile::TempDir {
    // /tmp: traversable by the unprivileged server user.
    tempfile::Builder::new()
        .prefix("storlab-cli-db")
        .tempdir_in("/tmp")
        .unwrap()
}

#[test]
fn db_bad_numbers_settings_and_dsn_syntax_are_bad_input() {
    let _s = serial();
    let dir = scratch_tmp();
    let data = dir.path().join("data");
    let quick = ["--warmup", "0"];
    let cases: [(&[&str], &str); 6] = [
        (
            &["--clients", "0"],
            "--clients must be at least 1 and at most 1000 clients; got 0",
        ),
        (
            &["--scale", "0"],
            "--scale must be at least 1 and at most 1000000000; got 0",
        ),
        (
            &["--scale", "100", "--set", "shared_buffers"],
            "--set: use NAME=VALUE",
        ),
        (
            &["--scale", "100", "--set", "shared_buffers=banana"],
            "setting `shared_buffers`",
        ),
        (
            &["--scale", "100", "--set", "nosuchsetting=1"],
            "setting `nosuchsetting`",
        ),
        (
            &["--scale", "100", "--duration", "800h"],
            "--duration must be at least 1 ms and at most 604800 s; got 2880000 s",
        ),
    ];
    for (args, message) in cases {
        storlab()
            .args(["db", "--data-dir"])
            .arg(&data)
            .args(quick)
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
        assert!(!data.exists(), "{args:?}: nothing left");
        assert!(!postgres_running_on(&data));
    }
    // A DSN syntax error names the place, never the password (nor a piece of it).
    let out = storlab()
        .args(["db", "--dsn", "host=/tmp password=Hunter2 Secret9 dbname=x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--dsn: syntax error at character"))
        .get_output()
        .stderr
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(
        !text.contains("Hunter2") && !text.contains("Secret9"),
        "{text}"
    );
}

/// A cluster for --dsn runs, with a role `bench` that must give its password.
struct PasswordServer {
    cluster: storlab_db::cluster::Cluster,
    psql: std::path::PathBuf,
}

const BENCH_PASSWORD: &str = "Bench-Pw-4711";

impl PasswordServer {
    fn start(dir: &std::path::Path) -> PasswordServer {
        let bins = storlab_db::cluster::find_binaries(None).expect("PostgreSQL server binaries");
        let cluster = start_server(&bins, dir, &[]);
        let server = PasswordServer {
            psql: bins.bindir.join("psql"),
            cluster,
        };
        let hba = server.cluster.data_dir().join("pg_hba.conf");
        let old = std::fs::read_to_string(&hba).unwrap();
        std::fs::write(&hba, format!("local all bench scram-sha-256\n{old}")).unwrap();
        server.sql(&format!(
            "CREATE ROLE bench LOGIN PASSWORD '{BENCH_PASSWORD}';
             GRANT CREATE ON DATABASE postgres TO bench;
             CREATE EXTENSION pg_stat_statements;
             SELECT pg_reload_conf();"
        ));
        server
    }

    fn sql(&self, sql: &str) -> String {
        let out = std::process::Command::new(&self.psql)
            .arg(self.cluster.conninfo("postgres"))
            .args(["-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql])
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn socket(&self) -> String {
        format!(
            "host={} port={}",
            self.cluster.socket_dir().display(),
            self.cluster.port()
        )
    }
}

fn dsn_run(dsn: &str) -> assert_cmd::Command {
    let mut cmd = storlab();
    cmd.args(["db", "--dsn", dsn]);
    cmd.args(["--test", "select-row", "--scale", "300", "--clients", "2"]);
    cmd.args(["--duration", "1s", "--warmup", "0"]);
    for var in [
        "PGPASSWORD",
        "PGPASSFILE",
        "PGSERVICE",
        "PGSERVICEFILE",
        "PGUSER",
        "PGHOST",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

#[test]
fn db_dsn_takes_passwords_from_the_environment_and_names_connect_failures() {
    let _s = serial();
    let dir = scratch_tmp();
    let server = PasswordServer::start(dir.path());
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let bench = format!("{} user=bench dbname=postgres", server.socket());
    let never = |out: &std::process::Output, secret: &str| {
        let text = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!text.contains(secret), "the password is printed: {text}");
    };

    // No password anywhere: bad input saying where one can come from.
    dsn_run(&bench)
        .env("HOME", &home)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("asks for a password"));
    // A wrong one: the server's reason, never the password.
    let out = dsn_run(&bench)
        .env("HOME", &home)
        .env("PGPASSWORD", "Wrong-Pw-123")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "password authentication failed for user \"bench\"",
        ))
        .get_output()
        .clone();
    never(&out, "Wrong-Pw-123");
    // PGPASSWORD, ~/.pgpass (a socket matches `localhost`), and a service.
    dsn_run(&bench)
        .env("HOME", &home)
        .env("PGPASSWORD", BENCH_PASSWORD)
        .assert()
        .success();
    let pgpass = home.join(".pgpass");
    std::fs::write(
        &pgpass,
        format!("localhost:*:postgres:bench:{BENCH_PASSWORD}\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    dsn_run(&bench).env("HOME", &home).assert().success();
    let services = dir.path().join("services.conf");
    std::fs::write(
        &services,
        format!(
            "[lab]\nhost={}\nport={}\nuser=bench\ndbname=postgres\n",
            server.cluster.socket_dir().display(),
            server.cluster.port()
        ),
    )
    .unwrap();
    dsn_run("service=lab")
        .env("HOME", &home)
        .env("PGSERVICEFILE", &services)
        .assert()
        .success();
    assert_eq!(
        server.sql("SELECT count(*) FROM pg_namespace WHERE nspname = 'storlab'"),
        "0",
        "each run dropped its schema"
    );

    // No such database; a refused connection (exit 1: nothing wrong with the input).
    let nodb = format!("{} user=storlab dbname=nosuchdb", server.socket());
    dsn_run(&nodb)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "database \"nosuchdb\" does not exist",
        ));
    let out = dsn_run("host=127.0.0.1 port=1 user=x dbname=y password=Refused-Pw-99")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "cannot connect to 127.0.0.1 port 1",
        ))
        .stderr(predicate::str::contains("connection refused"))
        .get_output()
        .clone();
    never(&out, "Refused-Pw-99");
    // --schema public and a user's schema are refused, naming them.
    server.sql("CREATE SCHEMA users_own");
    for schema in ["public", "users_own"] {
        dsn_run(&format!("{} user=storlab dbname=postgres", server.socket()))
            .args(["--schema", schema])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!("--schema {schema}")));
    }
    server.cluster.stop().unwrap();
}

/// Starts `storlab db` on a fresh data directory with `args`; returns the child once its
/// server runs.
fn spawn_db(data: &std::path::Path, args: &[&str]) -> std::process::Child {
    let child = start_db(data, args);
    wait_until(data, "the server never came up", postgres_running_on);
    child
}

/// Starts `storlab db` (DPAWS update-row) on a fresh data directory with `args`.
fn start_db(data: &std::path::Path, args: &[&str]) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .args([
            "db",
            "--suite",
            "dpaws",
            "--test",
            "update-row",
            "--data-dir",
        ])
        .arg(data)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn storlab")
}

/// Waits (up to a minute) until `done(data)`.
fn wait_until(data: &std::path::Path, what: &str, done: fn(&std::path::Path) -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !done(data) {
        assert!(std::time::Instant::now() < deadline, "{what}");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn db_sigint_during_initdb_stops_within_a_second() {
    let _s = serial();
    let dir = scratch_tmp();
    let data = dir.path().join("init");
    let child = start_db(&data, &["--scale", "500", "--duration", "5s"]);
    // initdb has begun writing the data directory; the server is not up yet.
    wait_until(&data, "initdb never started", |d| {
        d.join("PG_VERSION").exists()
    });
    stops_as_interrupted(child, libc::SIGINT, &data, "interrupted", 1.0);
}

/// Signals `child` and checks it stopped as an interrupted run must: exit 1 with `says` in
/// its message, within `within_s` seconds of the signal, nothing of `data` left running or
/// on disk.
fn stops_as_interrupted(
    child: std::process::Child,
    signal: i32,
    data: &std::path::Path,
    says: &str,
    within_s: f64,
) {
    let (code, stderr, secs) = signal_and_wait(child, signal);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(says), "{stderr}");
    assert!(secs < within_s, "{secs} s from signal {signal} to exit");
    assert!(!postgres_running_on(data) && !data.exists(), "nothing left");
}

#[test]
fn db_sigint_during_the_load_and_the_warmup_stops_within_seconds() {
    let _s = serial();
    let dir = scratch_tmp();
    let data = dir.path().join("load");
    // 15 tables of 2 million rows: the load runs for minutes.
    let child = spawn_db(&data, &["--scale", "2000000", "--duration", "5s"]);
    wait_for_statement(&data, "%INSERT INTO storlab.dpaws%");
    stops_as_interrupted(
        child,
        libc::SIGINT,
        &data,
        "interrupted during the load",
        5.0,
    );

    let data = dir.path().join("warmup");
    let args = [
        "--scale",
        "500",
        "--clients",
        "2",
        "--warmup",
        "60s",
        "--duration",
        "5s",
    ];
    let child = spawn_db(&data, &args);
    wait_for_updates(&data, 1);
    let says = "interrupted during the warm-up";
    stops_as_interrupted(child, libc::SIGTERM, &data, says, 5.0);
}

#[test]
fn db_killed_takes_its_server_along_and_the_next_run_cleans_up() {
    let _s = serial();
    let dir = scratch_tmp();
    let data = dir.path().join("data");
    let args = [
        "--scale",
        "500",
        "--clients",
        "2",
        "--warmup",
        "0",
        "--duration",
        "60s",
    ];
    let child = spawn_db(&data, &args);
    std::thread::sleep(std::time::Duration::from_secs(2));
    let (code, _, _) = signal_and_wait(child, libc::SIGKILL);
    assert_eq!(code, None, "killed");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while postgres_running_on(&data) {
        assert!(
            std::time::Instant::now() < deadline,
            "the server outlived storlab"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The next run on the same directory removes the leftovers and runs.
    storlab()
        .args(["db", "--test", "select-row", "--data-dir"])
        .arg(&data)
        .args([
            "--scale",
            "300",
            "--clients",
            "2",
            "--duration",
            "1s",
            "--warmup",
            "0",
        ])
        .assert()
        .success();
    assert!(
        !postgres_running_on(&data) && !data.exists(),
        "nothing left"
    );
}
