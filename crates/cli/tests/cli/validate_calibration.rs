//! `storlab validate`: figures used for calibration, workloads taken from a file.

use predicates::prelude::*;

use super::validate::{assert_scorecard_matches_figures, raid5_tree};
use super::{example, storlab};

/// A case of one's own that calibrates on one figure and predicts another: a workload
/// characterization (`workload_from`, relative to the case) run on the RAID 5 array.
const CALIBRATED_CASE: &str = r#"
name = "calibrated"
source = "a characterization measured on the RAID 5 array"
[run]
duration = "10s"
warmup = "5s"
seed = 1
[arrays]
raid5 = "examples/arrays/midrange-raid5.toml"
[workloads."order entry"]
workload_from = "workloads/order-entry.char.toml"
database = { data = "datavol", log = "datavol", sessions = 16 }
[[figures]]
name = "order entry tx/min, RAID 5 (measured, characterized)"
array = "raid5"
profile = "order entry"
metric = "tx_per_min"
published = 1000.0
tolerance_pct = 1000000.0
calibration = true
[[figures]]
name = "order entry IO/s, RAID 5 (predicted)"
array = "raid5"
profile = "order entry"
metric = "iops"
published = 1000.0
tolerance_pct = 1000000.0
"#;

#[test]
fn figures_used_for_calibration_are_apart_from_the_predictions() {
    let dir = raid5_tree();
    let refs = dir.path().join("references");
    std::fs::write(refs.join("calibrated.toml"), CALIBRATED_CASE).unwrap();
    // Beside the cases but not among them (every *.toml of the directory is a case).
    std::fs::create_dir(refs.join("workloads")).unwrap();
    std::fs::copy(
        example("../workloads/order-entry.char.toml"),
        refs.join("workloads/order-entry.char.toml"),
    )
    .unwrap();
    let json = dir.path().join("v.json");
    let out = storlab()
        .args(["validate", "--references"])
        .arg(&refs)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The calibration figure is printed in its own group, after the predictions.
    let (predictions, calibration) = stdout
        .split_once("used for calibration")
        .unwrap_or_else(|| panic!("no calibration group in\n{stdout}"));
    assert!(
        predictions.contains("order entry IO/s, RAID 5 (predicted)"),
        "{stdout}"
    );
    assert!(
        !predictions.contains("(measured, characterized)"),
        "{stdout}"
    );
    assert!(calibration.contains("order entry tx/min, RAID 5 (measured, characterized)"));
    assert!(
        stdout.contains("1 figures: 1 within tolerance, 0 outside; 1 more used for calibration"),
        "{stdout}"
    );
    // The JSON gives both figures, flagged; the scorecard counts the prediction only.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).expect("validate --json");
    let flags: Vec<bool> = v["figures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["calibration"].as_bool().unwrap())
        .collect();
    assert_eq!(flags, [true, false]);
    assert_eq!(v["scorecard"]["overall"]["figures"], 1);
    assert_eq!(v["scorecard"]["calibration"]["figures"], 1);
    assert_eq!(v["scorecard"]["cases"][0]["figures"], 1);
    assert_scorecard_matches_figures(&v);
}

#[test]
fn a_calibration_figure_outside_tolerance_still_fails_the_run() {
    let dir = raid5_tree();
    let refs = dir.path().join("references");
    let case = CALIBRATED_CASE.replacen("tolerance_pct = 1000000.0", "tolerance_pct = 0.0001", 1);
    std::fs::write(refs.join("calibrated.toml"), case).unwrap();
    // Beside the cases but not among them (every *.toml of the directory is a case).
    std::fs::create_dir(refs.join("workloads")).unwrap();
    std::fs::copy(
        example("../workloads/order-entry.char.toml"),
        refs.join("workloads/order-entry.char.toml"),
    )
    .unwrap();
    storlab()
        .args(["validate", "--references"])
        .arg(&refs)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "1 figures: 1 within tolerance, 0 outside; 1 more used for calibration (not \
             predictions): 0 within tolerance",
        ));
    // A workload_from that does not exist is bad input naming the case and the key; the
    // case's database.sessions is checked against the declared bounds of [database]
    // sessions, naming the key, the bound and the value.
    let bounds = "database.sessions must be at least 1 and at most 100000 sessions";
    for (from, to, message) in [
        (
            "order-entry.char.toml",
            "missing.char.toml",
            "missing.char.toml".into(),
        ),
        ("sessions = 16", "sessions = 0", format!("{bounds}; got 0")),
        (
            "sessions = 16",
            "sessions = 5000000000",
            format!("{bounds}; got 5000000000"),
        ),
        (
            "sessions = 16",
            "sessions = \"16\"",
            "database.sessions must be a whole number, 0 or more; got \"16\"".into(),
        ),
    ] {
        let case = CALIBRATED_CASE.replace(from, to);
        std::fs::write(refs.join("calibrated.toml"), case).unwrap();
        storlab()
            .args(["validate", "--references"])
            .arg(&refs)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
}
