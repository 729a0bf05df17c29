//! What `storlab validate` prints and writes: the table of figures, the notes (`--explain`),
//! the scorecard and the headline; the result file (`--json`: the runs, every figure and
//! the scorecard) and the README's scorecard block (`--markdown`).

use std::path::Path;

use serde::Serialize;
use storlab_core::result::{Results, Run};

use super::case::Case;
use super::check::Check;
use super::scorecard::Scorecard;
use crate::cli::ValidateArgs;
use crate::error::CliError;
use crate::output::{json_output, json_text, Format, Output, GIT_COMMIT};
use crate::table::{num, render_left};

/// Prints the predicted figures, those used for calibration (when any) in their own group,
/// the notes when `explain`, the scorecard and the headline.
pub fn print(checks: &[Check], scorecard: &Scorecard, cases: &[Case], explain: bool) {
    let (calibration, predictions): (Vec<&Check>, Vec<&Check>) =
        checks.iter().partition(|c| c.calibration);
    print!("{}", figures_table(&predictions));
    if !calibration.is_empty() {
        println!(
            "used for calibration (these figures went into the workload's characterization; \
             not counted as predictions):"
        );
        print!("{}", figures_table(&calibration));
    }
    let noted =
        checks.iter().any(|c| c.note.is_some()) || cases.iter().any(|c| !c.notes.is_empty());
    if explain {
        print!("{}", notes(checks, cases));
    }
    print!("{}", scorecard.text());
    println!("{}", scorecard.headline());
    if noted && !explain {
        println!("the assumptions of each case and the analysis of its figures: storlab validate --explain");
    }
}

fn figures_table(checks: &[&Check]) -> String {
    let rows: Vec<Vec<String>> = checks
        .iter()
        .map(|c| {
            let dec = if c.published < 10.0 { 2 } else { 0 };
            vec![
                c.case.clone(),
                c.name.clone(),
                num(c.published, dec),
                c.simulated.map_or("no value".into(), |s| num(s, dec)),
                c.error(),
                c.tolerance(),
                c.verdict().into(),
            ]
        })
        .collect();
    render_left(
        &[
            "case",
            "figure",
            "published",
            "simulated",
            "error",
            "tolerance",
            "",
        ],
        &rows,
        2,
    )
}

/// The notes of each case, then its figures grouped by their analysis (a shared analysis
/// once, with every figure it covers), each with its verdict and error.
fn notes(checks: &[Check], cases: &[Case]) -> String {
    let mut out = String::from("notes:\n");
    for case in cases {
        let of_case: Vec<&Check> = checks.iter().filter(|c| c.case == case.name).collect();
        if of_case.is_empty() {
            continue;
        }
        out += &format!("{}: {}\n", case.name, case.source);
        for n in &case.notes {
            out += &format!("  note: {n}\n");
        }
        let mut analyses: Vec<&str> = Vec::new();
        for c in &of_case {
            if let Some(n) = c.note.as_deref().filter(|n| !analyses.contains(n)) {
                analyses.push(n);
            }
        }
        for a in analyses {
            out += &format!("  analysis: {a}\n");
            for c in of_case.iter().filter(|c| c.note.as_deref() == Some(a)) {
                out += &format!("    {}  {} ({})\n", c.verdict(), c.name, c.error());
            }
        }
    }
    out
}

/// A result file of `storlab validate`: a `storlab.results/1` file (the runs) with every
/// checked figure and the scorecard beside them.
#[derive(Serialize)]
struct ValidationResults<'a> {
    #[serde(flatten)]
    results: Results,
    figures: &'a [Check],
    scorecard: &'a Scorecard,
}

/// Writes `--json` and `--markdown` when given. An interrupted validation writes its runs
/// (those it stopped marked partial) but not the README block, which would understate the
/// model.
pub fn write_outputs(
    a: &ValidateArgs,
    runs: Vec<Run>,
    checks: &[Check],
    scorecard: &Scorecard,
    interrupted: bool,
) -> Result<(), CliError> {
    if let Some(path) = &a.json {
        let v = ValidationResults {
            results: Results::new(GIT_COMMIT, runs),
            figures: checks,
            scorecard,
        };
        json_output(path).write(json_text(&v)?.as_bytes())?;
        println!("results: {}", path.display());
    }
    if let Some(path) = &a.markdown {
        write_markdown(path, scorecard, interrupted)?;
    }
    Ok(())
}

fn write_markdown(path: &Path, scorecard: &Scorecard, interrupted: bool) -> Result<(), CliError> {
    if interrupted {
        println!(
            "--markdown {}: not written (the validation was interrupted)",
            path.display()
        );
        return Ok(());
    }
    Output::new("--markdown", path, Format::Markdown).write(scorecard.markdown().as_bytes())?;
    println!("scorecard: {}", path.display());
    Ok(())
}
