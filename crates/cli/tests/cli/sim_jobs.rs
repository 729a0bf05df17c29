//! `storlab sim --db-test` with a job: it runs to completion and prints its elapsed time;
//! `--duration` is its time limit; bad job keys and options exit 2.

use predicates::prelude::*;

use super::{example, storlab};

fn job_args(test: &str) -> Vec<String> {
    [
        "sim",
        "--array",
        &example("enterprise-raid5.toml"),
        "--db-test",
        test,
        "--db-data",
        "datavol",
        "--db-log",
        "logvol",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn sim_runs_a_job_to_completion_and_prints_its_elapsed_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("job.json");
    storlab()
        .args(job_args("job/create-tablespace"))
        .args(["--db-set", "size=1GiB", "--db-set", "files=2"])
        .args(["--duration", "600s", "--json"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("job: ran to completion: elapsed"))
        .stdout(predicate::str::contains("NOT STEADY").not());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    let elapsed = run["metrics"]["elapsed_s"].as_f64().unwrap();
    assert!(elapsed > 0.0 && elapsed < 600.0, "{elapsed}");
    assert_eq!(run["metrics"]["job"]["complete"], true);
    assert_eq!(
        run["metrics"]["job"]["volumes"][0]["write_bytes"],
        2u64 << 30
    );
    assert_eq!(
        run["workload"]["parameters"]["test"],
        "job/create-tablespace"
    );
    assert_eq!(run["workload"]["warmup_s"], 0.0);
}

#[test]
fn sim_reports_a_job_that_reaches_its_time_limit_as_incomplete_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("job.json");
    storlab()
        .args(job_args("job/copy-file"))
        .args(["--db-set", "size=8GiB", "--duration", "2s", "--json"])
        .arg(&out)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("job INCOMPLETE"))
        .stderr(predicate::str::contains("job incomplete"))
        .stderr(predicate::str::contains("--duration"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let job = &v["runs"][0]["metrics"]["job"];
    assert_eq!(job["complete"], false);
    assert!(job["done_pct"].as_f64().unwrap() < 100.0);
    assert_eq!(v["runs"][0]["metrics"]["elapsed_s"], 2.0);
}

#[test]
fn sim_refuses_bad_job_keys_and_a_warmup_with_exit_2() {
    storlab()
        .args(job_args("job/create-tablespace"))
        .args(["--db-set", "files=100"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("database.files"))
        .stderr(predicate::str::contains("64"));
    storlab()
        .args(job_args("job/create-tablespace"))
        .args(["--db-set", "write_size=12KiB"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("multiple of 8 KiB"));
    storlab()
        .args(job_args("job/copy-file"))
        .args(["--warmup", "5s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--warmup does not apply"));
}

#[test]
fn the_users_sweep_refuses_a_job_with_exit_2() {
    storlab()
        .args(job_args("job/update-all"))
        .args(["--users-sweep", "--max-response-ms", "100"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--users-sweep"))
        .stderr(predicate::str::contains("job/update-all"))
        .stderr(predicate::str::contains("runs once to completion"));
}
