//! `storlab db` interrupted (SIGINT, SIGTERM) in each phase, and killed: exit 1 with the
//! results gathered so far, and no server or data directory left behind.

// Real processes are waited for and timed in wall-clock time.
#![allow(clippy::disallowed_methods)]

use super::db::{postgres_running_on, scratch_tmp};
use super::{signal_and_wait, storlab};

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

pub(super) fn db_stops_on_sigint_keeps_partial_results_and_removes_the_cluster() {
    let dir = tempfile::Builder::new()
        .prefix("storlab-cli-db")
        .tempdir_in("/tmp")
        .unwrap();
    let data = dir.path().join("data");
    let out = dir.path().join("partial.json");
    let out_arg = out.to_str().expect("utf-8 path");
    let args = [
        "--scale",
        "500",
        "--clients",
        "2",
        "--duration",
        "120s",
        "--warmup",
        "0",
        "--json",
        out_arg,
    ];
    // Clients have committed updates in the measured window (there is no warm-up).
    let child = start_updating(&data, &args, 20);
    assert!(postgres_running_on(&data), "the cluster is up");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().expect("wait");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
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

/// Starts `storlab db` (DPAWS update-row) on a fresh data directory with `args`; returns the
/// child once its clients have committed `updates` updates (the load done, the test running),
/// however long the start and the load take on a busy machine.
fn start_updating(data: &std::path::Path, args: &[&str], updates: i64) -> std::process::Child {
    let child = start_db(data, args);
    wait_for_updates(data, updates);
    child
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

pub(super) fn db_sigint_during_initdb_stops_within_a_second() {
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

pub(super) fn db_sigint_during_the_load_and_the_warmup_stops_within_seconds() {
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
    let child = start_updating(&data, &args, 1);
    let says = "interrupted during the warm-up";
    stops_as_interrupted(child, libc::SIGTERM, &data, says, 5.0);
}

pub(super) fn db_killed_takes_its_server_along_and_the_next_run_cleans_up() {
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
    let child = start_updating(&data, &args, 1);
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
