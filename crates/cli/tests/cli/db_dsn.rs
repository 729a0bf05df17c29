//! `storlab db --dsn` against a server without pg_stat_statements in its
//! shared_preload_libraries: the run goes on without the per-statement profile.

use super::db::{scratch_tmp, serial, start_server, WITHOUT_STATEMENTS};
use super::storlab;

/// A server without pg_stat_statements in shared_preload_libraries: every test of the cycle
/// runs, the warning is printed once, and each result (text and JSON) says the per-statement
/// profile is left out.
#[test]
fn db_dsn_without_pg_stat_statements_runs_and_says_so() {
    let _s = serial();
    let dir = scratch_tmp();
    let bins = storlab_db::cluster::find_binaries(None).expect("PostgreSQL server binaries");
    let cluster = start_server(&bins, dir.path(), WITHOUT_STATEMENTS);
    let json = dir.path().join("db.json");
    let out = storlab()
        .args(["db", "--dsn", &cluster.conninfo("postgres")])
        .args(["--test", "cycle", "--scale", "300", "--clients", "2"])
        .args(["--duration", "1s", "--warmup", "0", "--json"])
        .arg(&json)
        .assert()
        .success()
        .get_output()
        .clone();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let why = "no per-statement block profile: pg_stat_statements is not in the server's \
               shared_preload_libraries";
    assert_eq!(stderr.matches(why).count(), 1, "warned once: {stderr}");
    assert_eq!(
        stdout.matches(&format!("note: {why}")).count(),
        4,
        "{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for run in runs {
        assert!(run["metrics"]["iops"].as_f64().unwrap() > 0.0, "{run}");
        let statements = run["db"]["statements"].as_array();
        assert!(statements.is_none_or(|s| s.is_empty()), "{run}");
        let notes = run["db"]["notes"].as_array().unwrap();
        assert!(notes.iter().any(|n| n == why), "{notes:?}");
    }
    cluster.stop().unwrap();
}
