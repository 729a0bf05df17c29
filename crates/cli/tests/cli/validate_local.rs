//! `storlab validate --local`: the calibration, the real and the simulated database runs, the
//! fitted array, and a work directory that is gone afterwards.

use std::os::unix::fs::PermissionsExt;

use predicates::prelude::*;

use super::db::postgres_running_on;
use super::storlab;

fn work_dirs_in(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("storlab-local."))
        .collect()
}

fn runs_of<'a>(v: &'a serde_json::Value, target: &str, kind: &str) -> Vec<&'a serde_json::Value> {
    v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["target"]["kind"] == target && r["workload"]["kind"] == kind)
        .collect()
}

#[test]
fn validate_local_compares_real_and_simulated_and_cleans_up() {
    let dir = super::scratch_dir();
    // The database server runs as another user: it must reach the work directory.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = dir.path().join("out/local.json");
    let assert = storlab()
        .current_dir(dir.path())
        .args(["validate", "--local", "--duration", "3s", "--json"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("fitted array"));
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    for test in ["dpaws/update-row", "dpaws/select-row"] {
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(test))
            .unwrap_or_else(|| panic!("no row for {test}:\n{stdout}"));
        let cells: Vec<&str> = line.split_whitespace().collect();
        let number = |s: &str| s.replace(',', "").parse::<f64>().unwrap();
        assert!(number(cells[1]) > 0.0 && number(cells[2]) > 0.0, "{line}");
    }
    assert!(stdout.contains("simulated update-row"), "{stdout}");

    let array = dir.path().join("out/local.array.toml");
    assert!(array.exists());
    storlab()
        .args(["sim", "--array"])
        .arg(&array)
        .args(["--profile", "randread-8k", "--duration", "2s"])
        .assert()
        .success();

    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(runs_of(&v, "real", "io").len() >= 3, "calibration runs");
    assert_eq!(runs_of(&v, "real", "db").len(), 2, "real database runs");
    assert_eq!(runs_of(&v, "sim", "db").len(), 2, "simulated database runs");
    for r in runs_of(&v, "sim", "db") {
        assert!(r["metrics"]["rows_per_s"].as_f64().unwrap() > 0.0);
        // The model takes the real server's CPU per operation and the load generator's (it
        // ran beside the server): each operation's CPU burst is their sum.
        let test = &r["workload"]["name"];
        let real = runs_of(&v, "real", "db")
            .into_iter()
            .find(|x| &x["workload"]["name"] == test)
            .expect("the real run of the test");
        let server = real["db"]["server_cpu_ns_per_op"]
            .as_f64()
            .expect("server CPU");
        let client = real["tool"]["cpu_ns_per_io"].as_f64().expect("client CPU");
        let p = &r["workload"]["parameters"]["profile"];
        assert!((p["server_cpu_ns_per_op"].as_f64().unwrap() - server).abs() < 1.0);
        let burst = r["metrics"]["waits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["event"] == "CPU")
            .and_then(|w| w["avg_ms"].as_f64())
            .expect("CPU wait");
        assert!(
            (burst - (server + client) / 1e6).abs() < 0.0011,
            "{test}: {burst} ms of CPU per operation, server {server} ns + client {client} ns"
        );
    }

    assert!(
        work_dirs_in(dir.path()).is_empty(),
        "the work directory is removed"
    );
    assert!(
        !postgres_running_on(dir.path()),
        "no server is left running"
    );
}

#[test]
fn validate_local_refuses_a_missing_directory() {
    let dir = super::scratch_dir();
    storlab()
        .args(["validate", "--local", "--dir"])
        .arg(dir.path().join("missing"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not an existing directory"));
}

#[test]
fn validate_local_stops_on_sigint_and_removes_everything() {
    let dir = super::scratch_dir();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .current_dir(dir.path())
        .args(["validate", "--local", "--duration", "60s"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn storlab");
    // Interrupt once the real database is up (after the calibration).
    let mut waited = 0;
    while !postgres_running_on(dir.path()) {
        assert!(waited < 450, "the server never started (90 s)");
        std::thread::sleep(std::time::Duration::from_millis(200));
        waited += 1;
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        work_dirs_in(dir.path()).is_empty(),
        "the work directory is removed"
    );
    assert!(
        !postgres_running_on(dir.path()),
        "no server is left running"
    );
}
