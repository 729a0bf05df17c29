//! The floor of `storlab validate` and the README's scorecard: one run of every reference
//! case (the real binary on the checkout's `references/`), shared by the tests below.
//!
//! `make test` stays green while figures are outside their tolerance, without hiding them:
//! `references/floor.toml` lists every figure within tolerance today, and this test fails
//! when one of them leaves its tolerance, when the count drops, or when a figure not listed
//! comes within tolerance (the floor is raised in the same commit). The floor counts
//! predictions: a figure used for calibration (`calibration = true`, it went into the
//! workload's characterization) is no prediction, so marking a listed figure so drops it
//! from the floor and fails this test until the floor is lowered on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde_json::Value;

use super::storlab;

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// What one `storlab validate --json --markdown` of the checkout's cases gave.
struct Validation {
    exit_code: Option<i32>,
    json: Value,
    markdown: String,
}

fn validation() -> &'static Validation {
    static RUN: OnceLock<Validation> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let (json, md) = (dir.path().join("v.json"), dir.path().join("v.md"));
        let out = storlab()
            .args(["validate", "--references"])
            .arg(format!("{REPO}/references"))
            .arg("--json")
            .arg(&json)
            .arg("--markdown")
            .arg(&md)
            .output()
            .expect("run storlab validate");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let text = std::fs::read_to_string(&json)
            .unwrap_or_else(|e| panic!("{}: {e}; stderr: {stderr}", json.display()));
        Validation {
            exit_code: out.status.code(),
            json: serde_json::from_str(&text).expect("validate --json is JSON"),
            markdown: std::fs::read_to_string(&md).expect("validate --markdown wrote"),
        }
    })
}

/// references/floor.toml: the count and, per case, the figures within tolerance.
fn floor() -> (usize, BTreeMap<String, BTreeSet<String>>) {
    let path = format!("{REPO}/references/floor.toml");
    let text = std::fs::read_to_string(&path).expect("references/floor.toml");
    let t: toml::Table = toml::from_str(&text).expect("floor.toml is TOML");
    let count = t["within_tolerance"]
        .as_integer()
        .expect("within_tolerance") as usize;
    let within = t["within"]
        .as_table()
        .expect("[within]")
        .iter()
        .map(|(case, names)| {
            let names = names.as_array().expect("a list of figure names");
            let names = names
                .iter()
                .map(|n| n.as_str().expect("a name").to_string());
            (case.clone(), names.collect())
        })
        .collect();
    (count, within)
}

#[test]
fn validate_keeps_every_figure_of_the_floor_within_tolerance() {
    let (count, floor) = floor();
    let listed: usize = floor.values().map(BTreeSet::len).sum();
    assert_eq!(
        listed, count,
        "references/floor.toml: within_tolerance = {count} but {listed} figures are listed"
    );
    let v = validation();
    let figures = v.json["figures"].as_array().expect("figures");
    let predictions: Vec<&Value> = figures
        .iter()
        .filter(|f| f["calibration"] != true)
        .collect();
    let passing: BTreeSet<(String, String)> = predictions
        .iter()
        .filter(|f| f["pass"] == true)
        .map(|f| {
            (
                f["case"].as_str().unwrap().into(),
                f["figure"].as_str().unwrap().into(),
            )
        })
        .collect();
    let lost: Vec<String> = floor
        .iter()
        .flat_map(|(case, names)| names.iter().map(move |n| (case.clone(), n.clone())))
        .filter(|k| !passing.contains(k))
        .map(|(case, name)| format!("{case}: {name}"))
        .collect();
    assert!(
        lost.is_empty(),
        "figures of references/floor.toml no longer within tolerance (or no longer in their \
         case; a figure is never removed nor its tolerance loosened): {lost:#?}"
    );
    assert!(
        passing.len() >= count,
        "{} figures within tolerance, below the floor of {count} (references/floor.toml)",
        passing.len()
    );
    let gained: Vec<String> = passing
        .iter()
        .filter(|(case, name)| !floor.get(case).is_some_and(|n| n.contains(name)))
        .map(|(case, name)| format!("{case}: {name}"))
        .collect();
    assert!(
        gained.is_empty(),
        "more figures within tolerance than references/floor.toml lists: raise the floor in \
         the same commit (add these under [within] and set within_tolerance = {}): {gained:#?}",
        passing.len()
    );
    // The exit status tells the same: 0 only when every figure (predicted or used for
    // calibration) is within tolerance.
    let all_pass = figures.iter().all(|f| f["pass"] == true);
    assert_eq!(v.exit_code, Some(if all_pass { 0 } else { 1 }));
    assert_eq!(
        v.json["scorecard"]["overall"]["within_tolerance"],
        passing.len()
    );
}

#[test]
fn the_readme_scorecard_is_generated() {
    let readme = std::fs::read_to_string(format!("{REPO}/README.md")).expect("README.md");
    let (begin, end) = ("<!-- scorecard:begin -->\n", "<!-- scorecard:end -->");
    let block = readme
        .split_once(begin)
        .and_then(|(_, rest)| rest.split_once(end))
        .map(|(block, _)| block);
    let fix = "run scripts/gen-scorecard.sh (storlab validate --markdown) and commit README.md";
    let Some(block) = block else {
        panic!("README.md: no {begin:?} ... {end:?} block; add the markers and {fix}");
    };
    let md = &validation().markdown;
    assert!(
        block == md,
        "README.md's scorecard block is not what storlab validate gives now: {fix}\n\
         --- README.md\n{block}\n--- storlab validate --markdown\n{md}"
    );
    // The block is the scorecard of --json, rendered.
    let all = &validation().json["scorecard"]["overall"];
    let row = format!(
        "| all | {} of {} |",
        all["within_tolerance"], all["figures"]
    );
    assert!(md.contains(&row), "{row} in\n{md}");
}

#[test]
fn the_scorecard_agrees_with_the_figures() {
    super::validate::assert_scorecard_matches_figures(&validation().json);
}
