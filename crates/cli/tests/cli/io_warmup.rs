//! `storlab io --warmup auto`: the warm-up of a real I/O run lasts until its one-second
//! series is steady, at most `--warmup-max`, and the result says how long it was; on its own,
//! over a sweep, and as a cell of a plan.

use std::path::Path;

use super::{scratch_dir, signal_and_wait, storlab};

/// The real runs with an automatic warm-up, one after the other: each judges its own
/// steadiness on the same disk. One test, not one each: a test waiting for another's lock
/// would hold one of the harness's threads idle for minutes.
#[test]
fn real_runs_warm_up_automatically() {
    an_automatic_warmup_ends_at_the_first_steady_window();
    the_limit_bounds_an_automatic_warmup_and_says_so();
    each_point_of_a_sweep_warms_up_on_its_own();
    ctrl_c_in_an_automatic_warmup_stops_and_keeps_a_partial_result();
    a_plan_cell_on_a_real_target_warms_up_automatically();
}

pub(super) fn read_runs(path: &Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("result file")).unwrap();
    v["runs"].as_array().expect("runs").clone()
}

fn warmup_s(run: &serde_json::Value) -> f64 {
    run["workload"]["warmup_s"].as_f64().expect("warmup_s")
}

/// A steady workload: O_DIRECT random reads of a small file offered at a fixed rate (the
/// device keeps up, so IOPS and latency stay flat from the first second).
pub(super) const STEADY: [&str; 10] = [
    "--profile",
    "randread-8k",
    "--size",
    "16m",
    "--rate-iops",
    "1000",
    "--jobs",
    "1",
    "--iodepth",
    "1",
];

fn an_automatic_warmup_ends_at_the_first_steady_window() {
    let dir = scratch_dir();
    let out = dir.path().join("auto.json");
    storlab()
        .args(["io", "--target"])
        .arg(dir.path().join("f.dat"))
        .args(STEADY)
        .args([
            "--duration",
            "5s",
            "--warmup",
            "auto",
            "--warmup-max",
            "300s",
        ])
        .arg("--json")
        .arg(&out)
        .assert()
        .success();
    let runs = read_runs(&out);
    let run = &runs[0];
    assert_eq!(run["workload"]["warmup_auto"], true);
    // The test looks at one full window (60 one-second samples) first and ends the warm-up
    // at the first second it passes (the unit tests of the decision pin that to the 60th
    // second on a flat series); this machine's disk is shared, so here the end is only
    // bounded: after one window, before the limit, which it would say it had reached.
    let w = warmup_s(run);
    assert!((60.0..300.0).contains(&w), "warm-up {w} s");
    let reason = run["steady_reason"].as_str().unwrap_or("");
    assert!(!reason.starts_with("no steady state within"), "{reason}");
    assert_eq!(run["workload"]["duration_s"], 5.0);
    assert_eq!(run["series"].as_array().unwrap().len(), 5);
    assert!(run["metrics"]["ios"].as_u64().unwrap() > 0);
}

fn the_limit_bounds_an_automatic_warmup_and_says_so() {
    let dir = scratch_dir();
    let out = dir.path().join("limit.json");
    storlab()
        .args(["io", "--target"])
        .arg(dir.path().join("f.dat"))
        .args(STEADY)
        .args(["--duration", "2s", "--warmup", "auto", "--warmup-max", "3s"])
        .arg("--json")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicates::str::contains("s warm-up (auto)"))
        .stdout(predicates::str::contains("raise --warmup-max"));
    let runs = read_runs(&out);
    let run = &runs[0];
    assert_eq!(run["workload"]["warmup_auto"], true);
    let w = warmup_s(run);
    assert!((3.0..3.5).contains(&w), "warm-up {w} s");
    assert_eq!(run["steady"], false);
    let reason = run["steady_reason"].as_str().unwrap();
    assert!(
        reason.starts_with("no steady state within the 3 s warm-up limit: only 3 one-second"),
        "{reason}"
    );
    assert_eq!(run["workload"]["duration_s"], 2.0);
}

fn each_point_of_a_sweep_warms_up_on_its_own() {
    let dir = scratch_dir();
    let out = dir.path().join("sweep.json");
    storlab()
        .args(["io", "--target"])
        .arg(dir.path().join("f.dat"))
        .args(["--size", "16m", "--sweep", "--sweep-max", "2"])
        .args(["--duration", "1s", "--warmup", "auto", "--warmup-max", "2s"])
        .arg("--json")
        .arg(&out)
        .assert()
        .success();
    let runs = read_runs(&out);
    assert_eq!(runs.len(), 2);
    for run in &runs {
        assert_eq!(run["workload"]["warmup_auto"], true);
        let w = warmup_s(run);
        assert!((2.0..2.5).contains(&w), "warm-up {w} s");
        assert_eq!(run["steady"], false);
    }
}

fn ctrl_c_in_an_automatic_warmup_stops_and_keeps_a_partial_result() {
    let dir = scratch_dir();
    let out = dir.path().join("partial.json");
    let target = dir.path().join("f.dat");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .args(["io", "--target"])
        .arg(&target)
        .args(STEADY)
        .args(["--duration", "5s", "--warmup", "auto", "--json"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn storlab");
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let (code, stderr, secs) = signal_and_wait(child, libc::SIGINT);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(secs < 1.0, "{secs} s from the signal to the exit");
    let runs = read_runs(&out);
    let run = &runs[0];
    assert_eq!(run["partial"], true);
    assert_eq!(run["workload"]["warmup_auto"], true);
    let w = warmup_s(run);
    assert!(w > 0.0 && w < 60.0, "stopped in the warm-up: {w} s");
    assert_eq!(run["steady"], false);
    let reason = run["steady_reason"].as_str().unwrap();
    assert!(reason.starts_with("interrupted after"), "{reason}");
    assert!(!target.exists(), "the file storlab created is gone");
}

#[test]
fn warmup_max_errors_name_warmup_max() {
    let dir = scratch_dir();
    let f = dir.path().join("f.dat");
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--warmup", "auto", "--warmup-max", "48h"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--warmup-max must be at most 86400 s; got 172800 s",
        ));
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--warmup", "48h"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--warmup must be at most 86400 s; got 172800 s",
        ));
    storlab()
        .args(["db", "--data-dir"])
        .arg(dir.path().join("pg"))
        .args(["--warmup", "auto", "--warmup-max", "48h"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--warmup-max must be at most"));
}

fn a_plan_cell_on_a_real_target_warms_up_automatically() {
    let dir = scratch_dir();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "title = \"auto io\"\nduration = \"2s\"\n\
             [[targets]]\nname = \"local\"\ndir = \"{}\"\nio_size = \"16MiB\"\n\
             [[workloads]]\nprofile = \"randread-8k\"\nwarmup = \"auto\"\n",
            real.display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    storlab()
        .arg("compare")
        .arg(&plan)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let runs = read_runs(&out.join("results.json"));
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["target"]["kind"], "real");
    assert_eq!(run["workload"]["warmup_auto"], true);
    // At least one full window of the steady-state test, at most the default limit.
    let w = warmup_s(run);
    assert!((60.0..=600.5).contains(&w), "warm-up {w} s");
}
