//! Inputs that once broke a parser under the fuzz target `plan` (fuzz/fuzz_targets/plan.rs),
//! kept in tests/fixtures/fuzz/plan/ and fed through the same calls as the target: the plan
//! parsed and, when accepted, every unit's command line made. None may panic, hang or make
//! more units than a plan may have.

use std::path::{Path, PathBuf};

use storlab_cli::plan::{parse_plan, MAX_CELLS};

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    files.sort();
    files
}

#[test]
fn every_plan_regression_is_read_without_panic() {
    let files = inputs("plan");
    assert!(!files.is_empty(), "no regression inputs");
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable input");
        let Ok(mut plan) = parse_plan(&text, Path::new("plans/fuzz.toml")) else {
            continue;
        };
        let mut skipped = Vec::new();
        let units = plan.units(&mut skipped);
        assert!(
            units.len() as u64 <= MAX_CELLS,
            "{}: {} units",
            file.display(),
            units.len()
        );
        for unit in &units {
            assert!(unit.command().starts_with("storlab "));
        }
        plan.simulated_only();
        assert!(plan.units(&mut skipped).len() <= units.len());
    }
}

#[test]
fn a_plan_of_more_units_than_the_bound_is_bad_input() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz/plan/repeats-4e9.toml");
    let text = std::fs::read_to_string(&file).expect("readable input");
    let err = parse_plan(&text, Path::new("plans/big.toml")).expect_err("refused");
    assert_eq!(err.exit_code(), 2);
    assert_eq!(
        err.to_string(),
        "plans/big.toml: repeats: must be at least 1 and at most 1000; got 4000000000"
    );
}

/// A configuration, report or drive file larger than anything such a file holds (64 MiB) is
/// refused as bad input naming the file and the bound, read no further: a device or a pipe
/// that never ends cannot take the machine's memory.
#[test]
fn a_file_beyond_the_input_bound_is_bad_input_naming_the_bound() {
    let dir = super::scratch_dir();
    let big = dir.path().join("array.toml");
    let mut text = "# padding\n".repeat(((64 << 20) / 10) + 1);
    text.push_str("name = \"x\"\n");
    std::fs::write(&big, &text).expect("write");
    let cases: [&[&str]; 3] = [
        &["sim", "--profile", "randread-8k", "--array"],
        &["drive", "import"],
        &[
            "sim",
            "--array",
            "../../examples/arrays/midrange-raid5.toml",
            "--workload-from",
        ],
    ];
    for args in cases {
        let out = super::storlab()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .arg(&big)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("{}: cannot read", big.display()))
                && err.contains("larger than 64 MiB, the most storlab reads of such a file"),
            "{args:?}: {err}"
        );
    }
}
