//! `storlab db`: a real PostgreSQL cluster, bad directories and bad input; the helpers the
//! tests that start servers share.

use predicates::prelude::*;

use super::storlab;

/// Every test that starts PostgreSQL servers, one after the other in one test: the machine
/// has two cores, and the interrupt tests need the run to reach the phase they interrupt.
/// One test, not one each behind a lock: a test waiting for another's lock would hold one of
/// the harness's two threads idle while the servers run, minutes in all. Each case runs
/// whatever the others did; the test fails naming every case that failed.
#[test]
fn postgresql_servers_one_test_after_the_other() {
    super::one_after_the_other(&cases![
        db::db_runs_a_test_and_refuses_bad_directories,
        db::db_bad_numbers_settings_and_dsn_syntax_are_bad_input,
        db_capture::capture_matches_a_known_load_and_writes_nothing_on_15_and_the_newest,
        db_capture::capture_without_pg_stat_statements_warns_and_stops_on_sigint,
        db_capture::a_db_result_converts_to_the_characterization_its_measured_profile_agrees_with,
        db_capture_own::capture_counts_only_the_workloads_statements_with_track_utility_on,
        db_capture_temp::capture_reads_the_temp_blocks_the_statements_wrote,
        db_dsn::db_dsn_without_pg_stat_statements_runs_and_says_so,
        db_dsn::db_dsn_takes_passwords_from_the_environment_and_names_connect_failures,
        db_interrupt::db_stops_on_sigint_keeps_partial_results_and_removes_the_cluster,
        db_interrupt::db_sigint_during_initdb_stops_within_a_second,
        db_interrupt::db_sigint_during_the_load_and_the_warmup_stops_within_seconds,
        db_interrupt::db_killed_takes_its_server_along_and_the_next_run_cleans_up,
        unprivileged::an_unprivileged_user_starts_its_own_postgresql_and_leaves_nothing_behind,
        users_sweep::a_real_server_is_swept_one_user_count_after_the_other,
        users_sweep::real_clients_think_between_transactions,
    ]);
}

pub(crate) fn postgres_running_on(dir: &std::path::Path) -> bool {
    let needle = dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        let cmd = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd);
        cmd.contains(&needle) && cmd.contains("postgres")
    })
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

pub(super) fn db_runs_a_test_and_refuses_bad_directories() {
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

pub(super) fn db_bad_numbers_settings_and_dsn_syntax_are_bad_input() {
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
