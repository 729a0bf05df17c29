//! `storlab db`: a real PostgreSQL cluster, bad directories, interruption.

use predicates::prelude::*;

use super::storlab;

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
        .stdout(
            predicate::str::is_match(r"server: shared_buffers 32MB, wal_sync_method \w+").unwrap(),
        );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["workload"]["kind"], "db");
    assert!(run["metrics"]["rows_per_s"].as_f64().unwrap() > 0.0);
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
    // Wait until the clients are running (the result file does not exist yet).
    std::thread::sleep(std::time::Duration::from_secs(8));
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
    assert!(!postgres_running_on(&data), "the server is stopped");
    assert!(!data.exists(), "its directory is removed");
}
