//! `storlab validate`: runs the reference cases (published figures of the classic studies,
//! with tolerances and the assumptions behind each configuration) on the simulator, prints
//! published against simulated with the error and a pass/fail column, and exits 0 only when
//! every figure is within tolerance.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use storlab_core::result::Run;
use storlab_core::TimeSpan;
use storlab_sim::{
    parse_array, parse_workload, profile_workload, RunOptions, SystemSpec, WorkloadSpec,
};

use crate::cli::ValidateArgs;
use crate::error::CliError;
use crate::output::{check_json, read_input, write_results};
use crate::sim_cmd::timed;
use crate::table::{num, render_left};

/// The built-in reference cases, for runs outside a checkout (file name, text).
const BUILTIN: &[(&str, &str)] = &[
    (
        "references/case1-midrange.toml",
        include_str!("../../../references/case1-midrange.toml"),
    ),
    (
        "references/case2-enterprise.toml",
        include_str!("../../../references/case2-enterprise.toml"),
    ),
];
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
    (
        "examples/arrays/enterprise-raid5.toml",
        include_str!("../../../examples/arrays/enterprise-raid5.toml"),
    ),
    (
        "examples/arrays/enterprise-raid10.toml",
        include_str!("../../../examples/arrays/enterprise-raid10.toml"),
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
    /// Workloads the figures name besides built-in profiles: name -> a workload file's
    /// content (streams or a `[database]` section).
    #[serde(default)]
    workloads: BTreeMap<String, toml::Table>,
    #[serde(default)]
    figures: Vec<Figure>,
    #[serde(default)]
    ratios: Vec<Ratio>,
    /// Analyses shared by several figures: a figure's `gap` that is one word names one.
    #[serde(default)]
    gaps: BTreeMap<String, String>,
}

impl Case {
    /// Replaces each one-word gap mark with the `[gaps]` entry it names (an unknown name is
    /// bad input, so a typo cannot pass as an analysis); a mark of several words is the
    /// analysis itself.
    fn resolve_gaps(&mut self, file: &str) -> Result<(), CliError> {
        let shared = &self.gaps;
        let marks = self
            .figures
            .iter_mut()
            .map(|f| (&f.name, &mut f.gap))
            .chain(self.ratios.iter_mut().map(|r| (&r.name, &mut r.gap)));
        for (figure, mark) in marks {
            let Some(name) = mark
                .as_deref()
                .filter(|m| m.split_whitespace().count() <= 1)
            else {
                continue;
            };
            let text = shared.get(name).ok_or_else(|| {
                CliError::BadInput(format!(
                    "{file}: {figure}: gap: no [gaps] entry named {name:?} (a one-word gap \
                     names one; write the analysis itself otherwise)"
                ))
            })?;
            *mark = Some(text.clone());
        }
        Ok(())
    }
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
    /// A built-in profile or a name in `[workloads]`.
    profile: String,
    metric: String,
    published: f64,
    tolerance_pct: f64,
    /// A gap the model cannot close from mechanics, with the analysis: the figure is still
    /// simulated and printed with its error, marked GAP, and does not fail the run.
    #[serde(default)]
    gap: Option<String>,
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
    #[serde(default)]
    gap: Option<String>,
}

/// One checked figure.
struct Check {
    case: String,
    name: String,
    published: f64,
    simulated: f64,
    rule: String,
    pass: bool,
    gap: bool,
}

/// The metrics a figure can name.
const METRICS: &str = "iops, mbps, read_iops, write_iops, latency_ms_mean, rows_per_s, tx_per_min, \
    wal_mb_per_s, commit_ms_mean, ROLE.iops/mbps/read_mbps/write_mbps/read_iops/write_iops (ROLE: data or log), \
    disk_iops.GROUP, read_delay_ms.GROUP, destage_delay_ms.GROUP (GROUP: a RAID group name prefix)";

fn metric(run: &Run, name: &str, file: &str) -> Result<f64, CliError> {
    let unknown = || {
        CliError::BadInput(format!(
            "{file}: metric: unknown metric {name:?}; use {METRICS}"
        ))
    };
    let m = &run.metrics;
    let basic = |m: &storlab_core::result::Metrics, k: &str| match k {
        "iops" => Some(m.iops),
        "mbps" => Some(m.mbps),
        "read_iops" => Some(m.read_iops),
        "write_iops" => Some(m.write_iops),
        "read_mbps" => Some(m.read_mbps),
        "write_mbps" => Some(m.write_mbps),
        "latency_ms_mean" => Some(m.latency_ms.mean),
        _ => None,
    };
    if let Some(v) = basic(m, name) {
        return Ok(v);
    }
    let db = |v: Option<f64>| v.unwrap_or(0.0);
    match name {
        "rows_per_s" => return Ok(db(m.rows_per_s)),
        "tx_per_min" => return Ok(db(m.tx_per_min)),
        "wal_mb_per_s" => return Ok(db(m.wal_mb_per_s)),
        "commit_ms_mean" => return Ok(m.commit_ms.map_or(0.0, |c| c.mean)),
        _ => {}
    }
    let (what, arg) = name.split_once('.').ok_or_else(unknown)?;
    let mean = |xs: Vec<f64>| {
        if xs.is_empty() {
            Err(CliError::BadInput(format!(
                "{file}: metric: {name:?} matches no RAID group or disk of the run"
            )))
        } else {
            Ok(xs.iter().sum::<f64>() / xs.len() as f64)
        }
    };
    let groups = |f: &dyn Fn(&storlab_core::result::ArrayMetrics) -> f64| {
        run.arrays
            .iter()
            .filter(|a| a.name.starts_with(arg))
            .map(f)
            .collect::<Vec<_>>()
    };
    match what {
        "data" | "log" => {
            let class = run.classes.iter().find(|c| c.name == what).ok_or_else(|| {
                CliError::BadInput(format!("{file}: metric: {name:?} needs a database run"))
            })?;
            basic(&class.metrics, arg).ok_or_else(unknown)
        }
        "disk_iops" => mean(
            run.devices
                .iter()
                .filter(|d| d.name.starts_with(arg))
                .map(|d| d.iops)
                .collect(),
        ),
        "read_delay_ms" => mean(groups(&|a| a.read_delay_ms)),
        "destage_delay_ms" => mean(groups(&|a| a.destage_delay_ms)),
        _ => Err(unknown()),
    }
}

/// Reference cases: the files in `dir`, or the built-in ones when it does not exist.
fn load_cases(dir: &Path) -> Result<Vec<(String, String, Option<PathBuf>)>, CliError> {
    if dir.exists() && !dir.is_dir() {
        return Err(CliError::BadInput(format!(
            "--references {}: not a directory (give the directory of *.toml reference cases)",
            dir.display()
        )));
    }
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
    if files.is_empty() {
        return Err(CliError::BadInput(format!(
            "--references {}: no reference case (*.toml) in this directory",
            dir.display()
        )));
    }
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

/// A workload of a case's `[workloads]`: a workload file's keys, plus optional `duration` and
/// `warmup` that override the case's `[run]` for it (databases need longer warm-ups).
fn case_workload(
    table: &toml::Table,
    name: &str,
    file: &str,
    sys: &SystemSpec,
    opts: RunOptions,
) -> Result<(WorkloadSpec, RunOptions), CliError> {
    let mut table = table.clone();
    let mut span = |key: &str, default: u64| -> Result<u64, CliError> {
        match table.remove(key) {
            None => Ok(default),
            Some(v) => {
                let t: TimeSpan = v.try_into().map_err(|e: toml::de::Error| {
                    CliError::BadInput(format!("{file}: workloads.{name}.{key}: {}", e.message()))
                })?;
                Ok(t.0)
            }
        }
    };
    let run = RunOptions {
        duration_ns: span("duration", opts.duration_ns)?,
        warmup_ns: span("warmup", opts.warmup_ns)?,
        seed: opts.seed,
        warmup_auto: false,
        stop: None,
    };
    table
        .entry("name")
        .or_insert_with(|| toml::Value::String(name.to_string()));
    let where_ = format!("{file}: workloads.{name}");
    Ok((parse_workload(&table.to_string(), &where_, sys)?, run))
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
    check_json(a.json.as_deref())?;
    if a.local {
        return crate::validate_local::run(&crate::validate_local::LocalOptions {
            dir: a.dir,
            duration_ns: a.duration.0,
            json: a.json,
        });
    }
    let mut checks = Vec::new();
    let mut all_runs = Vec::new();
    let mut gaps = Vec::new();
    let mut unneeded = Vec::new();
    // Ctrl-C stops the running simulation within a second; the figures checked so far and
    // the runs (the last marked partial) are kept.
    storlab_io::signal::install();
    let stopped = storlab_io::signal::stop_requested;
    for (file, text, root) in load_cases(&a.references)? {
        if stopped() {
            break;
        }
        let mut case: Case =
            toml::from_str(&text).map_err(|e| CliError::BadInput(format!("{file}: {e}")))?;
        // Before anything runs: a bad gap mark is bad input, found at once.
        case.resolve_gaps(&file)?;
        println!("{}: {}", case.name, case.source);
        let opts = RunOptions {
            duration_ns: case.run.duration.0,
            warmup_ns: case.run.warmup.0,
            seed: case.run.seed,
            warmup_auto: false,
            stop: Some(storlab_io::signal::flag()),
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
            let (workload, run_opts) = match case.workloads.get(profile) {
                Some(table) => case_workload(table, profile, &file, sys, opts)?,
                None => (profile_workload(profile, sys)?, opts),
            };
            let run = timed(sys, &workload, run_opts)?;
            runs.insert(key, run.clone());
            Ok(run)
        };
        for f in &case.figures {
            let run = get(&f.array, &f.profile)?;
            if run.partial {
                break;
            }
            let sim = metric(&run, &f.metric, &file)?;
            let err = (sim - f.published) / f.published * 100.0;
            checks.push(Check {
                case: case.name.clone(),
                name: f.name.clone(),
                published: f.published,
                simulated: sim,
                rule: format!("within {}% ({:+.1}%)", f.tolerance_pct, err),
                pass: err.abs() <= f.tolerance_pct,
                gap: f.gap.is_some(),
            });
            note_gap(&mut gaps, &mut unneeded, &checks, &f.name, f.gap.as_deref());
        }
        for r in &case.ratios {
            let (num_run, den_run) = match stopped() {
                true => break,
                false => (
                    get(&r.numerator, &r.profile)?,
                    get(&r.denominator, &r.profile)?,
                ),
            };
            if num_run.partial || den_run.partial {
                break;
            }
            let n = metric(&num_run, &r.metric, &file)?;
            let d = metric(&den_run, &r.metric, &file)?;
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
                gap: r.gap.is_some(),
            });
            note_gap(&mut gaps, &mut unneeded, &checks, &r.name, r.gap.as_deref());
        }
        for n in &case.notes {
            println!("  note: {n}");
        }
        for g in gaps.drain(..) {
            println!("  known gap: {g}");
        }
        for name in unneeded.drain(..) {
            println!("  marked as a gap but within tolerance (the mark can go): {name}");
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
                match (c.pass, c.gap) {
                    (true, _) => "pass",
                    (false, true) => "GAP",
                    (false, false) => "FAIL",
                }
                .into(),
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
    let failed = checks.iter().filter(|c| !c.pass && !c.gap).count();
    let gap = checks.iter().filter(|c| !c.pass && c.gap).count();
    println!(
        "{} figures, {} within tolerance, {failed} outside, {gap} known gaps outside (analysis above)",
        checks.len(),
        checks.len() - failed - gap
    );
    if let Some(path) = &a.json {
        write_results(path, all_runs)?;
        println!("results: {}", path.display());
    }
    if stopped() {
        return Err(CliError::Failed(format!(
            "interrupted after {} figures; the runs so far are kept (the last marked partial)",
            checks.len()
        )));
    }
    if failed > 0 {
        return Err(CliError::Failed(format!(
            "{failed} reference figures outside tolerance"
        )));
    }
    Ok(())
}

/// Files the gap mark of the check just pushed: its analysis when the figure is outside its
/// tolerance, its name when the figure is within it (a mark the model no longer needs).
fn note_gap(
    gaps: &mut Vec<String>,
    unneeded: &mut Vec<String>,
    checks: &[Check],
    name: &str,
    why: Option<&str>,
) {
    let (Some(why), Some(check)) = (why, checks.last()) else {
        return;
    };
    if check.pass {
        unneeded.push(name.to_string());
    } else {
        gaps.push(format!("{name}: {why}"));
    }
}
