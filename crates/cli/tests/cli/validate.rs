//! `storlab validate`: the reference cases, figures out of tolerance, bad cases.

use predicates::prelude::*;

use super::{example, signal_and_wait, storlab};

/// A checkout-like tree holding reference case 1 and its arrays.
fn case1_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("references")).unwrap();
    std::fs::create_dir_all(root.join("examples/arrays")).unwrap();
    let repo = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    for f in ["midrange-raid5.toml", "midrange-raid10.toml"] {
        std::fs::copy(example(f), root.join("examples/arrays").join(f)).unwrap();
    }
    std::fs::copy(
        format!("{repo}/references/case1-midrange.toml"),
        root.join("references/case1-midrange.toml"),
    )
    .unwrap();
    dir
}

/// An empty `references/` beside `examples/arrays/midrange-raid5.toml`, for cases of one's own.
fn raid5_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("references")).unwrap();
    std::fs::create_dir_all(root.join("examples/arrays")).unwrap();
    std::fs::copy(
        example("midrange-raid5.toml"),
        root.join("examples/arrays/midrange-raid5.toml"),
    )
    .unwrap();
    dir
}

#[test]
fn validate_checks_the_reference_cases_and_writes_the_runs() {
    let dir = case1_tree();
    let out = dir.path().join("v.json");
    storlab()
        .args(["validate", "--references"])
        .arg(dir.path().join("references"))
        .arg("--json")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("case1-midrange"))
        .stdout(predicate::str::contains("random PK select rows/s"))
        .stdout(predicate::str::contains(", 0 outside,"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    // Two arrays x (four profiles + three database tests), each run once however many
    // figures use it.
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 14);
    let db = runs
        .iter()
        .filter(|r| r["workload"]["kind"] == "db")
        .count();
    assert_eq!(db, 6);
    // The database runs took the workload's own warm-up, not the case's.
    assert!(runs
        .iter()
        .filter(|r| r["workload"]["kind"] == "db")
        .all(|r| r["workload"]["warmup_s"] != 10.0));
}

#[test]
fn validate_fails_a_figure_out_of_tolerance_and_rejects_bad_cases() {
    let dir = raid5_tree();
    let root = dir.path();
    // Writes a case of one figure and runs validate on it.
    let validate = |figure: &str| {
        std::fs::write(
            root.join("references/t.toml"),
            format!(
                "name = \"t\"\nsource = \"test\"\n[run]\nduration = \"5s\"\nwarmup = \"1s\"\nseed = 1\n\
                 [arrays]\nraid5 = \"examples/arrays/midrange-raid5.toml\"\n[[figures]]\n{figure}"
            ),
        )
        .unwrap();
        storlab()
            .args(["validate", "--references"])
            .arg(root.join("references"))
            .assert()
    };
    // A published figure ten times what the array can do: exit 1, the figure marked FAIL.
    validate("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"iops\"\npublished = 26000\ntolerance_pct = 30\n")
        .code(1)
        .stdout(predicate::str::contains("FAIL"))
        .stderr(predicate::str::contains(
            "1 reference figures outside tolerance",
        ));
    // An unknown metric is bad input: exit 2, naming the file and the key.
    validate("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"speed\"\npublished = 1\ntolerance_pct = 30\n")
        .code(2)
        .stderr(predicate::str::contains(
            "t.toml: metric: unknown metric \"speed\"",
        ));
    // A one-word gap mark names a shared analysis in [gaps]; a name with no entry (a typo)
    // is bad input, found before anything runs.
    validate("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"iops\"\npublished = 26000\ntolerance_pct = 30\ngap = \"fsat\"\n[gaps]\nfast = \"the model is faster\"\n")
        .code(2)
        .stdout(predicate::str::contains("IO/s").not())
        .stderr(predicate::str::contains(
            "t.toml: x: gap: no [gaps] entry named \"fsat\"",
        ));
}

#[test]
fn a_known_gap_is_printed_with_its_analysis_and_does_not_fail() {
    let dir = raid5_tree();
    let root = dir.path();
    std::fs::write(
        root.join("references/t.toml"),
        "name = \"t\"\nsource = \"test\"\n[run]\nduration = \"3s\"\nwarmup = \"1s\"\nseed = 1\n\
         [arrays]\nraid5 = \"examples/arrays/midrange-raid5.toml\"\n\
         [workloads.upd]\nwarmup = \"2s\"\n[workloads.upd.database]\ntest = \"dpaws/update-row\"\n\
         data = \"datavol\"\nlog = \"datavol\"\nsessions = 8\nrows = 100000\n\
         [[figures]]\nname = \"rows\"\narray = \"raid5\"\nprofile = \"upd\"\nmetric = \"rows_per_s\"\n\
         published = 1\ntolerance_pct = 30\ngap = \"faster\"\n\
         [[figures]]\nname = \"log\"\narray = \"raid5\"\nprofile = \"upd\"\nmetric = \"log.iops\"\n\
         published = 1\ntolerance_pct = 1000000000\n\
         [[figures]]\nname = \"log again\"\narray = \"raid5\"\nprofile = \"upd\"\nmetric = \"log.iops\"\n\
         published = 1\ntolerance_pct = 1000000000\ngap = \"an old analysis\"\n\
         [gaps]\nfaster = \"the model is faster\"\n",
    )
    .unwrap();
    storlab()
        .args(["validate", "--references"])
        .arg(root.join("references"))
        .assert()
        .success()
        .stdout(predicate::str::contains("GAP"))
        .stdout(predicate::str::contains(
            "known gap: rows: the model is faster",
        ))
        // A marked figure within its tolerance is named as such, not printed as a gap.
        .stdout(predicate::str::contains(
            "marked as a gap but within tolerance (the mark can go): log again",
        ))
        .stdout(predicate::str::contains("an old analysis").not())
        .stdout(predicate::str::contains(
            "3 figures, 2 within tolerance, 0 outside, 1 known gaps",
        ));
}

#[test]
fn a_references_directory_without_cases_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README"), "no cases here").unwrap();
    storlab()
        .args(["validate", "--references"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "--references {}: no reference case",
            dir.path().display()
        )));
    // A case file given instead of its directory is not silently replaced by the built-ins.
    let file = dir.path().join("case.toml");
    std::fs::write(&file, "").unwrap();
    storlab()
        .args(["validate", "--references"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a directory"));
}

#[test]
fn an_interrupted_validation_stops_at_once_keeping_the_runs_so_far() {
    let dir = raid5_tree();
    let root = dir.path();
    // One figure from an hour of simulated time: minutes of work, so the signal lands in it.
    std::fs::write(
        root.join("references/t.toml"),
        "name = \"t\"\nsource = \"test\"\n[run]\nduration = \"3600s\"\nwarmup = \"0s\"\nseed = 1\n\
         [arrays]\nraid5 = \"examples/arrays/midrange-raid5.toml\"\n[[figures]]\nname = \"x\"\n\
         array = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"iops\"\npublished = 1\n\
         tolerance_pct = 30\n",
    )
    .unwrap();
    let out = root.join("v.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .args(["validate", "--references"])
        .arg(root.join("references"))
        .arg("--json")
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn storlab");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (code, stderr, secs) = signal_and_wait(child, libc::SIGINT);
    assert!(secs < 5.0, "exit {secs} s after the signal");
    assert_eq!(code, Some(1));
    assert!(stderr.contains("interrupted"), "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["partial"], true, "the running one is kept, marked");
}
