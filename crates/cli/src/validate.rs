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
use storlab_sim::{profile_workload, RunOptions, SystemSpec, WorkloadSpec};

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
    // the runs (those it stopped marked partial) are kept.
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
            "interrupted after {} figures; the runs so far are kept (those it stopped marked \
             partial)",
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

/// Simulations of one case that run at once, at most (each holds its own model in memory).
const MAX_PARALLEL_RUNS: usize = 4;

/// One simulation a case needs: `key` is (array, profile), `sys` that array.
struct Job<'s> {
    key: (String, String),
    sys: &'s SystemSpec,
    workload: WorkloadSpec,
    opts: RunOptions,
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

    /// The (array, profile) pairs the case's figures and ratios use, each once, in the
    /// order of first use.
    fn needed(&self) -> Vec<(String, String)> {
        let mut keys: Vec<(String, String)> = Vec::new();
        let figures = self.case.figures.iter().map(|f| (&f.array, &f.profile));
        let ratios = self
            .case
            .ratios
            .iter()
            .flat_map(|r| [(&r.numerator, &r.profile), (&r.denominator, &r.profile)]);
        for (array, profile) in figures.chain(ratios) {
            let key = (array.clone(), profile.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }

    /// The system and workload of `profile` on `array`.
    fn inputs(&self, array: &str, profile: &str) -> Result<Job<'_>, CliError> {
        let file = self.file;
        let sys = self.arrays.get(array).ok_or_else(|| {
            CliError::BadInput(format!(
                "{file}: array: no array named {array:?} in [arrays]"
            ))
        })?;
        let (workload, opts) = match self.case.workloads.get(profile) {
            Some(table) => case_workload(table, profile, (file, self.dir), sys, self.opts)?,
            None => (profile_workload(profile, sys)?, self.opts),
        };
        Ok(Job {
            key: (array.to_string(), profile.to_string()),
            sys,
            workload,
            opts,
        })
    }

    /// Simulates every run the case needs, up to one per CPU at a time (each run is
    /// independent and seeded, so the figures are those of one run after another). Every
    /// workload is built first, so bad input is found before anything runs. After Ctrl-C no
    /// run starts, and the running ones end within a second, marked partial.
    fn run_all(&mut self) -> Result<(), CliError> {
        let jobs = self
            .needed()
            .iter()
            .map(|(array, profile)| self.inputs(array, profile))
            .collect::<Result<Vec<_>, _>>()?;
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_PARALLEL_RUNS)
            .min(jobs.len());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let done: Vec<std::sync::OnceLock<Result<Run, CliError>>> =
            jobs.iter().map(|_| std::sync::OnceLock::new()).collect();
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    if storlab_io::signal::stop_requested() {
                        break;
                    }
                    // Each job is taken once, so its slot is empty.
                    let _ = done[i].set(timed(job.sys, &job.workload, job.opts));
                });
            }
        });
        let keys: Vec<_> = jobs.into_iter().map(|job| job.key).collect();
        for (key, slot) in keys.into_iter().zip(done) {
            if let Some(run) = slot.into_inner() {
                self.runs.insert(key, run?);
            }
        }
        Ok(())
    }

    /// The whole run of `profile` on `array` (None when Ctrl-C stopped it or came before it
    /// started).
    fn complete(&self, array: &str, profile: &str) -> Option<&Run> {
        self.runs
            .get(&(array.to_string(), profile.to_string()))
            .filter(|r| !r.partial)
    }

    /// Checks every figure, then every ratio, appending to `checks`; stops at the first
    /// interrupted run. Returns the runs.
    fn check_all(mut self, checks: &mut Vec<Check>) -> Result<Vec<Run>, CliError> {
        self.run_all()?;
        let (case, file) = (self.case, self.file);
        for f in &case.figures {
            let Some(run) = self.complete(&f.array, &f.profile) else {
                return Ok(self.runs.into_values().collect());
            };
            let sim = metric(run, &f.metric, file)?;
            checks.push(
                Check::absolute(&case.name, &f.name, f.published, sim, f.tolerance_pct)
                    .calibration(f.calibration)
                    .with_note(f.note.as_deref()),
            );
        }
        for r in &case.ratios {
            let (Some(num_run), Some(den_run)) = (
                self.complete(&r.numerator, &r.profile),
                self.complete(&r.denominator, &r.profile),
            ) else {
                break;
            };
            let n = metric(num_run, &r.metric, file)?;
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
