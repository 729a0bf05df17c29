//! `storlab validate`: runs the reference cases (published figures of the classic studies,
//! with tolerances and the assumptions behind each configuration) on the simulator, prints
//! published against simulated with the error and pass or FAIL for every figure, then the
//! scorecard, and exits 0 only when every figure is within tolerance (1 otherwise). A case's
//! notes explain where the model stands (`--explain`); they never change pass or fail.

pub mod case;
mod check;
pub mod drives;
mod metric;
mod report;
mod scorecard;

use std::collections::BTreeMap;

use storlab_core::result::Run;
use storlab_sim::{profile_workload, RunOptions, SystemSpec};

use crate::cli::ValidateArgs;
use crate::error::CliError;
use crate::output::{json_output, Format, Output};
use crate::sim_cmd::timed;
use case::{case_workload, load_array, load_cases, Case, CaseFile};
use check::Check;
use metric::metric;
use scorecard::Scorecard;

/// The output files of `storlab validate`, each with what storlab writes there.
pub fn outputs(a: &ValidateArgs) -> Vec<Output> {
    let mut out = Vec::new();
    if let Some(path) = &a.json {
        out.push(match &a.drives {
            Some(_) => Output::new("--json", path, Format::Json(drives::is_drive_results)),
            None => json_output(path),
        });
        if a.local {
            out.push(crate::validate_local::fitted_array_output(path));
        }
    }
    if let Some(path) = &a.markdown {
        out.push(Output::new("--markdown", path, Format::Markdown));
    }
    if let Some(path) = &a.html {
        out.push(Output::new("--html", path, Format::Html));
    }
    out
}

pub fn run(a: ValidateArgs) -> Result<(), CliError> {
    crate::output::check_all(&outputs(&a), &[])?;
    if let Some(dir) = &a.drives {
        return drives::run(dir, a.json.as_ref(), a.html.as_ref());
    }
    if a.local {
        return crate::validate_local::run(&crate::validate_local::LocalOptions {
            dir: a.dir,
            duration_ns: a.duration.0,
            json: a.json,
        });
    }
    let files = load_cases(&a.references)?;
    // Every case is parsed before anything runs: bad input is found at once.
    let cases = files
        .iter()
        .map(|f| Case::parse(&f.text, &f.file))
        .collect::<Result<Vec<_>, _>>()?;
    // Ctrl-C stops the running simulation within a second; the figures checked so far and
    // the runs (the last marked partial) are kept.
    storlab_io::signal::install();
    let stopped = storlab_io::signal::stop_requested;
    let mut checks = Vec::new();
    let mut runs = Vec::new();
    for (file, case) in files.iter().zip(&cases) {
        if stopped() {
            break;
        }
        println!("{}: {}", case.name, case.source);
        runs.extend(CaseRun::new(file, case)?.check_all(&mut checks)?);
    }
    let scorecard = Scorecard::new(&checks);
    report::print(&checks, &scorecard, &cases, a.explain);
    let interrupted = stopped();
    report::write_outputs(&a, runs, &checks, &scorecard, interrupted)?;
    if interrupted {
        return Err(CliError::Failed(format!(
            "interrupted after {} figures; the runs so far are kept (the last marked partial)",
            checks.len()
        )));
    }
    let outside = scorecard.outside_tolerance();
    if outside > 0 {
        return Err(CliError::Failed(format!(
            "{outside} of {} reference figures outside tolerance",
            checks.len()
        )));
    }
    Ok(())
}

/// The simulations of one case: each (array, profile) runs once, whatever number of
/// figures use it.
struct CaseRun<'a> {
    file: &'a str,
    /// The case file's directory (None for a built-in case).
    dir: Option<&'a std::path::Path>,
    case: &'a Case,
    opts: RunOptions,
    arrays: BTreeMap<String, SystemSpec>,
    runs: BTreeMap<(String, String), Run>,
}

impl<'a> CaseRun<'a> {
    fn new(file: &'a CaseFile, case: &'a Case) -> Result<CaseRun<'a>, CliError> {
        let mut arrays = BTreeMap::new();
        for (name, path) in &case.arrays {
            arrays.insert(name.clone(), load_array(file.root.as_deref(), path)?);
        }
        Ok(CaseRun {
            file: &file.file,
            dir: file
                .root
                .as_ref()
                .and_then(|_| std::path::Path::new(&file.file).parent()),
            case,
            opts: RunOptions {
                duration_ns: case.run.duration.0,
                warmup_ns: case.run.warmup.0,
                seed: case.run.seed,
                warmup_auto: false,
                stop: Some(storlab_io::signal::flag()),
            },
            arrays,
            runs: BTreeMap::new(),
        })
    }

    /// The run of `profile` on `array`, simulated on first use.
    fn get(&mut self, array: &str, profile: &str) -> Result<&Run, CliError> {
        let key = (array.to_string(), profile.to_string());
        if !self.runs.contains_key(&key) {
            let file = self.file;
            let sys = self.arrays.get(array).ok_or_else(|| {
                CliError::BadInput(format!(
                    "{file}: array: no array named {array:?} in [arrays]"
                ))
            })?;
            let (workload, run_opts) = match self.case.workloads.get(profile) {
                Some(table) => case_workload(table, profile, (file, self.dir), sys, self.opts)?,
                None => (profile_workload(profile, sys)?, self.opts),
            };
            let run = timed(sys, &workload, run_opts)?;
            self.runs.insert(key.clone(), run);
        }
        self.runs
            .get(&key)
            .ok_or_else(|| CliError::Failed(format!("{}: run {key:?} missing", self.file)))
    }

    /// Checks every figure, then every ratio, appending to `checks`; stops at the first
    /// interrupted run. Returns the runs.
    fn check_all(mut self, checks: &mut Vec<Check>) -> Result<Vec<Run>, CliError> {
        let (case, file) = (self.case, self.file);
        for f in &case.figures {
            let run = self.get(&f.array, &f.profile)?;
            if run.partial {
                return Ok(self.runs.into_values().collect());
            }
            let sim = metric(run, &f.metric, file)?;
            checks.push(
                Check::absolute(&case.name, &f.name, f.published, sim, f.tolerance_pct)
                    .calibration(f.calibration)
                    .with_note(f.note.as_deref()),
            );
        }
        for r in &case.ratios {
            if storlab_io::signal::stop_requested() {
                break;
            }
            let num_run = self.get(&r.numerator, &r.profile)?.clone();
            let den_run = self.get(&r.denominator, &r.profile)?;
            if num_run.partial || den_run.partial {
                break;
            }
            let n = metric(&num_run, &r.metric, file)?;
            let d = metric(den_run, &r.metric, file)?;
            checks.push(
                Check::ratio(&case.name, &r.name, r.published, (n, d), (r.min, r.max))
                    .calibration(r.calibration)
                    .with_note(r.note.as_deref()),
            );
        }
        Ok(self.runs.into_values().collect())
    }
}
