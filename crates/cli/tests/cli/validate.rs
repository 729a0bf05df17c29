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
pub(super) fn raid5_tree() -> tempfile::TempDir {
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
        // One figure of case 1 is outside its tolerance: it is printed as FAIL with its
        // error and counted, and the exit status is 1.
        .code(1)
        .stdout(predicate::str::contains("case1-midrange"))
        .stdout(predicate::str::contains("random PK select rows/s"))
        .stdout(
            predicate::str::is_match(
                r"conventional load redo MB/s, RAID 5 .* \+[0-9,]+\.[0-9]% +within 30%  FAIL\n",
            )
            .unwrap(),
        )
        .stdout(
            predicate::str::is_match(
                r"random PK update rows/s, RAID 10 / RAID 5 .* \+3\.9% +0\.99 to 1\.21  pass\n",
            )
            .unwrap(),
        )
        .stdout(predicate::str::contains(
            "\n10 figures: 9 within tolerance, 1 outside\n",
        ))
        .stdout(predicate::str::contains("GAP").not())
        .stderr(predicate::str::contains(
            "1 of 10 reference figures outside tolerance",
        ));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    // Every figure, and the scorecard computed from them.
    let figures = v["figures"].as_array().unwrap();
    assert_eq!(figures.len(), 10);
    assert_eq!(figures.iter().filter(|f| f["pass"] == false).count(), 1);
    assert_eq!(v["scorecard"]["cases"][0]["case"], "case1-midrange");
    assert_eq!(v["scorecard"]["overall"]["outside_tolerance"], 1);
    assert_scorecard_matches_figures(&v);
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
        .stdout(predicate::str::contains("1 figures: 0 within tolerance, 1 outside"))
        .stderr(predicate::str::contains(
            "1 of 1 reference figures outside tolerance",
        ));
    // An unknown metric is bad input: exit 2, naming the file and the key.
    validate("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"speed\"\npublished = 1\ntolerance_pct = 30\n")
        .code(2)
        .stderr(predicate::str::contains(
            "t.toml: metric: unknown metric \"speed\"",
        ));
    // A one-word note names a shared analysis in [analyses]; a name with no entry (a typo)
    // is bad input, found before anything runs.
    validate("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"iops\"\npublished = 26000\ntolerance_pct = 30\nnote = \"fsat\"\n[analyses]\nfast = \"the model is faster\"\n")
        .code(2)
        .stdout(predicate::str::contains("IO/s").not())
        .stderr(predicate::str::contains(
            "t.toml: x: note: no [analyses] entry named \"fsat\"",
        ));
    // There is no way to excuse a figure: a `gap` mark is an unknown key.
    validate("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"iops\"\npublished = 26000\ntolerance_pct = 30\ngap = \"the model is faster\"\n")
        .code(2)
        .stderr(predicate::str::contains("t.toml").and(predicate::str::contains("unknown field `gap`")));
    // A published figure of 0 leaves no relative error to compute.
    validate("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"iops\"\npublished = 0\ntolerance_pct = 30\n")
        .code(2)
        .stderr(predicate::str::contains(
            "t.toml: x: published must be a finite number other than 0",
        ));
}

/// A case of three figures on one short database run: `rows` outside its tolerance with a
/// shared analysis, `log` and `log again` within theirs, `log again` with a note.
const NOTED_CASE: &str = "name = \"t\"\nsource = \"test\"\n[run]\nduration = \"3s\"\nwarmup = \"1s\"\nseed = 1\n\
     [arrays]\nraid5 = \"examples/arrays/midrange-raid5.toml\"\n\
     [workloads.upd]\nwarmup = \"2s\"\n[workloads.upd.database]\ntest = \"dpaws/update-row\"\n\
     data = \"datavol\"\nlog = \"datavol\"\nsessions = 8\nrows = 100000\n\
     [[figures]]\nname = \"rows\"\narray = \"raid5\"\nprofile = \"upd\"\nmetric = \"rows_per_s\"\n\
     published = 1\ntolerance_pct = 30\nnote = \"faster\"\n\
     [[figures]]\nname = \"log\"\narray = \"raid5\"\nprofile = \"upd\"\nmetric = \"log.iops\"\n\
     published = 1\ntolerance_pct = 1000000000\n\
     [[figures]]\nname = \"log again\"\narray = \"raid5\"\nprofile = \"upd\"\nmetric = \"log.iops\"\n\
     published = 1\ntolerance_pct = 1000000000\nnote = \"an old analysis\"\n\
     [analyses]\nfaster = \"the model is faster\"\n";

#[test]
fn a_note_explains_a_figure_and_never_changes_pass_or_fail() {
    let dir = raid5_tree();
    let root = dir.path();
    std::fs::write(root.join("references/t.toml"), NOTED_CASE).unwrap();
    let validate = |explain: bool| {
        let mut cmd = storlab();
        cmd.args(["validate", "--references"])
            .arg(root.join("references"));
        if explain {
            cmd.arg("--explain");
        }
        cmd.assert()
    };
    // The noted figure outside its tolerance fails like any other.
    validate(false)
        .code(1)
        .stdout(predicate::str::is_match(r"  rows  .*within 30%  FAIL\n").unwrap())
        .stdout(predicate::str::contains(
            "3 figures: 2 within tolerance, 1 outside",
        ))
        .stdout(predicate::str::contains("the model is faster").not())
        .stdout(predicate::str::contains("storlab validate --explain"))
        .stderr(predicate::str::contains(
            "1 of 3 reference figures outside tolerance",
        ));
    // --explain prints the notes under the table, each with the figures it covers.
    let out = validate(true).code(1).get_output().stdout.clone();
    let out = String::from_utf8(out).unwrap();
    let table = out.find("  rows  ").expect("the table");
    let analysis = out
        .find("  analysis: the model is faster\n    FAIL  rows (+")
        .expect("the shared analysis under the table, with its figure");
    assert!(table < analysis, "{out}");
    assert!(
        out.contains("  analysis: an old analysis\n    pass  log again (+"),
        "a note on a figure within tolerance is printed, and it still passes: {out}"
    );
    // Without the failing figure the same notes leave the exit status 0.
    let passing = NOTED_CASE.replace(
        "published = 1\ntolerance_pct = 30\n",
        "published = 1\ntolerance_pct = 1000000000\n",
    );
    std::fs::write(root.join("references/t.toml"), passing).unwrap();
    validate(true).success().stdout(predicate::str::contains(
        "3 figures: 3 within tolerance, 0 outside",
    ));
}

#[test]
fn the_scorecard_is_written_as_markdown_and_checked_first() {
    let dir = raid5_tree();
    let root = dir.path();
    std::fs::write(root.join("references/t.toml"), NOTED_CASE).unwrap();
    // A --markdown path that cannot be written is bad input before anything runs.
    storlab()
        .args(["validate", "--references"])
        .arg(root.join("references"))
        .arg("--markdown")
        .arg(root)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(
            predicate::str::contains("--markdown").and(predicate::str::contains("is a directory")),
        );
    let md = root.join("scorecard.md");
    let json = root.join("v.json");
    storlab()
        .args(["validate", "--references"])
        .arg(root.join("references"))
        .arg("--markdown")
        .arg(&md)
        .arg("--json")
        .arg(&json)
        .assert()
        .code(1);
    let md = std::fs::read_to_string(&md).unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_scorecard_matches_figures(&v);
    assert!(
        md.contains("checks 3 figures of the published studies: 2 within tolerance, 1 outside."),
        "{md}"
    );
    // One row per case and one for all, each the scorecard of --json.
    let t = &v["scorecard"]["cases"][0]["absolute"];
    let row = format!(
        "| t | 2 of 3 | 2 of 3 | {:.1}% | +{:.1}% | 0 of 0 | - | - |",
        t["median_error_pct"].as_f64().unwrap(),
        t["worst_error_pct"].as_f64().unwrap()
    );
    assert!(md.replace(',', "").contains(&row), "{row} in\n{md}");
    assert!(md.contains("| all | 2 of 3 | 2 of 3 |"), "{md}");
}

/// The scorecard of a `validate --json` file, recomputed from its figures: counts, median of
/// the absolute errors and worst signed error, per case and overall, absolute figures and
/// ratios apart.
pub fn assert_scorecard_matches_figures(v: &serde_json::Value) {
    let all = v["figures"].as_array().expect("figures");
    // The scorecard counts predictions; the figures used for calibration are scored apart.
    let (calibration, figures): (Vec<&serde_json::Value>, Vec<&serde_json::Value>) =
        all.iter().partition(|f| f["calibration"] == true);
    let card = &v["scorecard"];
    let c = &card["calibration"];
    assert_eq!(c["figures"], calibration.len());
    let calibrated = calibration.iter().filter(|f| f["pass"] == true).count();
    assert_eq!(c["within_tolerance"], calibrated);
    let mut scores: Vec<&serde_json::Value> = card["cases"].as_array().unwrap().iter().collect();
    scores.push(&card["overall"]);
    for score in scores {
        let case = score["case"].as_str().unwrap();
        let of_case: Vec<&serde_json::Value> = figures
            .iter()
            .copied()
            .filter(|f| case == "all" || f["case"] == case)
            .collect();
        let pass = |fs: &[&serde_json::Value]| fs.iter().filter(|f| f["pass"] == true).count();
        assert_eq!(score["figures"], of_case.len(), "{case}");
        assert_eq!(score["within_tolerance"], pass(&of_case), "{case}");
        assert_eq!(
            score["outside_tolerance"],
            of_case.len() - pass(&of_case),
            "{case}"
        );
        for (kind, key) in [("absolute", "absolute"), ("ratio", "ratios")] {
            let of_kind: Vec<&serde_json::Value> = of_case
                .iter()
                .copied()
                .filter(|f| f["kind"] == kind)
                .collect();
            let e = &score[key];
            assert_eq!(e["figures"], of_kind.len(), "{case} {key}");
            assert_eq!(e["within_tolerance"], pass(&of_kind), "{case} {key}");
            let errors: Vec<f64> = of_kind
                .iter()
                .filter_map(|f| f["error_pct"].as_f64())
                .collect();
            assert_eq!(
                e["without_value"],
                of_kind.len() - errors.len(),
                "{case} {key}"
            );
            let mut abs: Vec<f64> = errors.iter().map(|x| x.abs()).collect();
            abs.sort_by(f64::total_cmp);
            let n = abs.len();
            let median = match n {
                0 => None,
                _ if n % 2 == 1 => Some(abs[n / 2]),
                _ => Some((abs[n / 2 - 1] + abs[n / 2]) / 2.0),
            };
            let worst = errors
                .iter()
                .copied()
                .fold(None, |w: Option<f64>, x| match w {
                    Some(b) if b.abs() >= x.abs() => Some(b),
                    _ => Some(x),
                });
            let close = |json: &serde_json::Value, want: Option<f64>| match want {
                None => json.is_null(),
                Some(w) => json
                    .as_f64()
                    .is_some_and(|j| (j - w).abs() <= 1e-9 * w.abs().max(1.0)),
            };
            assert!(
                close(&e["median_error_pct"], median),
                "{case} {key}: median {:?} vs {median:?}",
                e["median_error_pct"]
            );
            assert!(
                close(&e["worst_error_pct"], worst),
                "{case} {key}: worst {:?} vs {worst:?}",
                e["worst_error_pct"]
            );
            if let Some(w) = worst {
                let named = of_kind
                    .iter()
                    .find(|f| f["figure"] == e["worst_figure"] && f["case"] == e["worst_case"])
                    .expect("worst_case and worst_figure name a figure");
                assert!(close(&named["error_pct"], Some(w)), "{case} {key}");
            }
        }
    }
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
    let md = root.join("scorecard.md");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .args(["validate", "--references"])
        .arg(root.join("references"))
        .arg("--json")
        .arg(&out)
        .arg("--markdown")
        .arg(&md)
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
    // A partial scorecard would understate the model: the README block is not written.
    assert!(
        !md.exists(),
        "{} written by an interrupted run",
        md.display()
    );
}
