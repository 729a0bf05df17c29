//! `storlab io`: real files, bad input, interruption.

use predicates::prelude::*;

use super::{scratch_dir, storlab};

#[test]
fn io_runs_a_profile_and_writes_the_schema() {
    let dir = scratch_dir();
    let out = dir.path().join("io.json");
    storlab()
        .args(["io", "--target"])
        .arg(dir.path().join("f.dat"))
        .args([
            "--profile",
            "randread-8k",
            "--size",
            "16m",
            "--jobs",
            "2",
            "--iodepth",
            "2",
            "--duration",
            "1s",
            "--warmup",
            "0",
            "--json",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("randread-8k"))
        .stdout(predicate::str::contains("ns CPU per I/O"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["target"]["kind"], "real");
    assert!(run["metrics"]["iops"].as_f64().unwrap() > 0.0);
    assert!(run["tool"]["cpu_ns_per_io"].as_f64().unwrap() > 0.0);
    assert!(
        !dir.path().join("f.dat").exists(),
        "the created file is removed"
    );
}

#[test]
fn io_refuses_bad_input_with_exit_2() {
    let dir = scratch_dir();
    let f = dir.path().join("f.dat");
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--profile", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown profile"));
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--bs", "1000"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("512"));
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--iodepth", "0"])
        .assert()
        .code(2);
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--size", "1000t", "--profile", "randwrite-8k"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("free space"));
    std::fs::write(&f, b"somebody's data").unwrap();
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--profile", "randwrite-8k", "--duration", "1s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--overwrite"));
    assert_eq!(std::fs::read(&f).unwrap(), b"somebody's data");
    // The root file system's device is mounted: never written, even when named.
    if let Some(dev) = ["/dev/vda", "/dev/sda", "/dev/nvme0n1"]
        .iter()
        .find(|d| std::path::Path::new(d).exists())
    {
        storlab()
            .args([
                "io",
                "--target",
                dev,
                "--profile",
                "randwrite-8k",
                "--force-destroy",
                dev,
                "--duration",
                "1s",
            ])
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains("mounted")
                    .or(predicate::str::contains("in use"))
                    .or(predicate::str::contains("cannot")),
            );
    }
}

#[test]
fn io_stops_on_sigint_keeps_partial_results_and_cleans_up() {
    let dir = scratch_dir();
    let out = dir.path().join("partial.json");
    let target = dir.path().join("f.dat");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .args(["io", "--target"])
        .arg(&target)
        .args([
            "--profile",
            "randwrite-8k",
            "--size",
            "16m",
            "--jobs",
            "1",
            "--iodepth",
            "1",
            "--duration",
            "60s",
            "--warmup",
            "0",
            "--json",
        ])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn storlab");
    std::thread::sleep(std::time::Duration::from_millis(2500));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(1), "interrupted runs exit 1");
    assert!(String::from_utf8_lossy(&output.stdout).contains("PARTIAL"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["runs"][0]["partial"], true);
    assert!(v["runs"][0]["metrics"]["ios"].as_u64().unwrap() > 0);
    let window = v["runs"][0]["workload"]["duration_s"].as_f64().unwrap();
    assert!(
        window < 10.0,
        "the window is what ran before the stop: {window}"
    );
    assert!(!target.exists(), "the file storlab created is gone");
}
