//! `storlab validate`: runs the reference cases (published figures of the classic studies,
//! with tolerances and the assumptions behind each configuration) on the simulator, prints
//! published against simulated with the error and a pass/fail column, and exits 0 only when
//! every figure is within tolerance.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use storlab_core::result::Run;
use storlab_core::TimeSpan;
use storlab_sim::{parse_array, profile_workload, RunOptions, SystemSpec};

use crate::cli::ValidateArgs;
use crate::error::CliError;
use crate::output::{read_input, write_results};
use crate::sim_cmd::timed;
use crate::table::{num, render_left};

/// The built-in reference cases, for runs outside a checkout (file name, text).
const BUILTIN: &[(&str, &str)] = &[(
    "references/case1-midrange.toml",
    include_str!("../../../references/case1-midrange.toml"),
)];
/// The arrays they name, likewise.
const BUILTIN_ARRAYS: &[(&str, &str)] = &[
    (
        "examples/arrays/midrange-raid5.toml",
        include_str!("../../../examples/arrays/midrange-raid5.toml"),
    ),
    (
        "examples/arrays/midrange-raid10.toml",
        include_str!("../../../examples/arrays/midrange-raid10.toml"),
    ),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    source: String,
    #[serde(default)]
    notes: Vec<String>,
    run: RunSpec,
    arrays: BTreeMap<String, String>,
    #[serde(default)]
    figures: Vec<Figure>,
    #[serde(default)]
    ratios: Vec<Ratio>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunSpec {
    duration: TimeSpan,
    warmup: TimeSpan,
    seed: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Figure {
    name: String,
    array: String,
    profile: String,
    metric: String,
    published: f64,
    tolerance_pct: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ratio {
    name: String,
    profile: String,
    metric: String,
    numerator: String,
    denominator: String,
    published: f64,
    #[serde(default)]
    min: Option<f64>,
    #[serde(default)]
    max: Option<f64>,
}

/// One checked figure.
struct Check {
    case: String,
    name: String,
    published: f64,
    simulated: f64,
    rule: String,
    pass: bool,
}

fn metric(run: &Run, name: &str, file: &str) -> Result<f64, CliError> {
    Ok(match name {
        "iops" => run.metrics.iops,
        "mbps" => run.metrics.mbps,
        "read_iops" => run.metrics.read_iops,
        "write_iops" => run.metrics.write_iops,
        "latency_ms_mean" => run.metrics.latency_ms.mean,
        other => {
            return Err(CliError::BadInput(format!(
                "{file}: metric: unknown metric {other:?}; use iops, mbps, read_iops, write_iops or latency_ms_mean"
            )))
        }
    })
}

/// Reference cases: the files in `dir`, or the built-in ones when it does not exist.
fn load_cases(dir: &Path) -> Result<Vec<(String, String, Option<PathBuf>)>, CliError> {
    if !dir.is_dir() {
        return Ok(BUILTIN
            .iter()
            .map(|(f, t)| (f.to_string(), t.to_string(), None))
            .collect());
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| CliError::BadInput(format!("{}: cannot read: {e}", dir.display())))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            Ok((
                p.display().to_string(),
                read_input(&p)?,
                p.parent().and_then(Path::parent).map(Path::to_path_buf),
            ))
        })
        .collect()
}

fn load_array(root: Option<&Path>, file: &str) -> Result<SystemSpec, CliError> {
    let text = match root {
        Some(r) => read_input(&r.join(file))?,
        None => BUILTIN_ARRAYS
            .iter()
            .find(|(f, _)| *f == file)
            .map(|(_, t)| t.to_string())
            .ok_or_else(|| {
                CliError::BadInput(format!("{file}: not a built-in array; run from a checkout"))
            })?,
    };
    Ok(parse_array(&text, file)?)
}

pub fn run(a: ValidateArgs) -> Result<(), CliError> {
    let mut checks = Vec::new();
    let mut all_runs = Vec::new();
    for (file, text, root) in load_cases(&a.references)? {
        let case: Case =
            toml::from_str(&text).map_err(|e| CliError::BadInput(format!("{file}: {e}")))?;
        println!("{}: {}", case.name, case.source);
        let opts = RunOptions {
            duration_ns: case.run.duration.0,
            warmup_ns: case.run.warmup.0,
            seed: case.run.seed,
        };
        let mut arrays = BTreeMap::new();
        for (name, path) in &case.arrays {
            arrays.insert(name.clone(), load_array(root.as_deref(), path)?);
        }
        // Each (array, profile) runs once, whatever number of figures use it.
        let mut runs: BTreeMap<(String, String), Run> = BTreeMap::new();
        let mut get = |array: &str, profile: &str| -> Result<Run, CliError> {
            let key = (array.to_string(), profile.to_string());
            if let Some(r) = runs.get(&key) {
                return Ok(r.clone());
            }
            let sys = arrays.get(array).ok_or_else(|| {
                CliError::BadInput(format!(
                    "{file}: array: no array named {array:?} in [arrays]"
                ))
            })?;
            let run = timed(sys, &profile_workload(profile, sys)?, opts)?;
            runs.insert(key, run.clone());
            Ok(run)
        };
        for f in &case.figures {
            let sim = metric(&get(&f.array, &f.profile)?, &f.metric, &file)?;
            let err = (sim - f.published) / f.published * 100.0;
            checks.push(Check {
                case: case.name.clone(),
                name: f.name.clone(),
                published: f.published,
                simulated: sim,
                rule: format!("within {}% ({:+.1}%)", f.tolerance_pct, err),
                pass: err.abs() <= f.tolerance_pct,
            });
        }
        for r in &case.ratios {
            let n = metric(&get(&r.numerator, &r.profile)?, &r.metric, &file)?;
            let d = metric(&get(&r.denominator, &r.profile)?, &r.metric, &file)?;
            let ratio = if d > 0.0 { n / d } else { f64::NAN };
            let rule = match (r.min, r.max) {
                (Some(lo), Some(hi)) => format!("{lo} to {hi}"),
                (Some(lo), None) => format!("at least {lo}"),
                (None, Some(hi)) => format!("at most {hi}"),
                (None, None) => "any".into(),
            };
            checks.push(Check {
                case: case.name.clone(),
                name: r.name.clone(),
                published: r.published,
                simulated: ratio,
                pass: r.min.is_none_or(|lo| ratio >= lo) && r.max.is_none_or(|hi| ratio <= hi),
                rule,
            });
        }
        for n in &case.notes {
            println!("  note: {n}");
        }
        all_runs.extend(runs.into_values());
    }
    let rows: Vec<Vec<String>> = checks
        .iter()
        .map(|c| {
            let dec = if c.published < 10.0 { 2 } else { 0 };
            vec![
                c.case.clone(),
                c.name.clone(),
                num(c.published, dec),
                num(c.simulated, dec),
                c.rule.clone(),
                if c.pass { "pass" } else { "FAIL" }.into(),
            ]
        })
        .collect();
    print!(
        "{}",
        render_left(
            &["case", "figure", "published", "simulated", "tolerance", ""],
            &rows,
            2
        )
    );
    let failed = checks.iter().filter(|c| !c.pass).count();
    println!(
        "{} figures, {} within tolerance, {failed} outside",
        checks.len(),
        checks.len() - failed
    );
    if let Some(path) = &a.json {
        write_results(path, all_runs)?;
        println!("results: {}", path.display());
    }
    if failed > 0 {
        return Err(CliError::Failed(format!(
            "{failed} reference figures outside tolerance"
        )));
    }
    Ok(())
}
