//! `storlab validate`: the reference cases, figures out of tolerance, bad cases.

use predicates::prelude::*;

use super::{example, storlab};

#[test]
fn validate_checks_the_reference_cases_and_writes_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.json");
    let refs = format!("{}/../../references", env!("CARGO_MANIFEST_DIR"));
    storlab()
        .args(["validate", "--references", &refs, "--json"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("case1-midrange"))
        .stdout(predicate::str::contains("within tolerance, 0 outside"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    // Two arrays x four profiles, each run once however many figures use it.
    assert_eq!(v["runs"].as_array().unwrap().len(), 8);
}

#[test]
fn validate_fails_a_figure_out_of_tolerance_and_rejects_bad_cases() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("references")).unwrap();
    std::fs::create_dir_all(root.join("examples/arrays")).unwrap();
    std::fs::copy(
        example("midrange-raid5.toml"),
        root.join("examples/arrays/midrange-raid5.toml"),
    )
    .unwrap();
    let case = |figure: &str| {
        format!(
            "name = \"t\"\nsource = \"test\"\n[run]\nduration = \"5s\"\nwarmup = \"1s\"\nseed = 1\n\
             [arrays]\nraid5 = \"examples/arrays/midrange-raid5.toml\"\n[[figures]]\n{figure}"
        )
    };
    // A published figure ten times what the array can do: exit 1, the figure marked FAIL.
    std::fs::write(
        root.join("references/t.toml"),
        case("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"iops\"\npublished = 26000\ntolerance_pct = 30\n"),
    )
    .unwrap();
    storlab()
        .args(["validate", "--references"])
        .arg(root.join("references"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL"))
        .stderr(predicate::str::contains(
            "1 reference figures outside tolerance",
        ));
    // An unknown metric is bad input: exit 2, naming the file and the key.
    std::fs::write(
        root.join("references/t.toml"),
        case("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"speed\"\npublished = 1\ntolerance_pct = 30\n"),
    )
    .unwrap();
    storlab()
        .args(["validate", "--references"])
        .arg(root.join("references"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "t.toml: metric: unknown metric \"speed\"",
        ));
}
