//! A simulated database with an automatic warm-up measures on past the window asked for
//! while its window is not steady (up to five windows), and says so; with a fixed warm-up it
//! measures exactly `--duration`.

use super::{scratch_dir, sim};

/// Case 2's update-row database with 64 sessions: its rows/s swing with its checkpoints in
/// cycles longer than a minute, so a 60 s window after the warm-up sees a trend.
fn case2_update_row(warmup: &str, json: &std::path::Path) -> serde_json::Value {
    sim("enterprise-raid5.toml")
        .args(["--db-test", "dpaws/update-row", "--sessions", "64"])
        .args(["--rows", "31900000", "--db-set", "tables=15"])
        .args([
            "--db-set",
            "row_bytes=[14,805]",
            "--db-set",
            "buffer=512MiB",
        ])
        .args(["--warmup", warmup, "--duration", "60s", "--json"])
        .arg(json)
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    doc["runs"][0].clone()
}

#[test]
fn an_automatic_run_measures_on_until_its_window_is_steady() {
    let dir = scratch_dir();
    let auto = case2_update_row("auto", &dir.path().join("auto.json"));
    // The same warm-up, fixed: exactly --duration, and that window is not steady.
    let warmup = format!("{}s", auto["workload"]["warmup_s"].as_f64().unwrap());
    let fixed = case2_update_row(&warmup, &dir.path().join("fixed.json"));
    assert_eq!(
        fixed["workload"]["duration_s"], 60.0,
        "a fixed warm-up: exactly --duration"
    );
    assert_eq!(
        fixed["steady"], false,
        "this window is not steady: {fixed:#}"
    );
    let measured = auto["workload"]["duration_s"].as_f64().unwrap();
    assert!(
        measured > 60.0 && measured <= 300.0 && measured % 60.0 == 0.0,
        "whole windows, at most five: {measured}"
    );
    assert_eq!(auto["steady"], true, "{:#}", auto["steady_reason"]);
    let said = auto["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str()
            .is_some_and(|w| w.contains(&format!("measured {measured:.0} s where 60 s was asked")))
    });
    assert!(
        said,
        "the result says it measured longer: {:#}",
        auto["warnings"]
    );
    // The figures cover the whole window: one series point a second of it.
    let points = auto["series"].as_array().unwrap().len();
    assert_eq!(points as f64, measured, "series over the measured window");
}
