//! `storlab compare PLAN --out DIR`: runs a plan of configurations x workloads (simulated
//! arrays and real storage), stores each finished unit at once (Ctrl-C or a crash loses
//! nothing measured; a re-run resumes), then writes DIR/results.json (the common schema),
//! DIR/study.json, one CSV per table and DIR/report.html.
//!
//! Every unit carries its subcommand's options, typed, and runs through the same code as the
//! command; the equivalent command line is shown in the report, so a cell can be reproduced
//! by hand.

pub mod command;
mod options;
pub mod plan;
mod progress;
mod store;
#[cfg(test)]
mod vocabulary_tests;

use std::path::Path;

use storlab_core::result::{Run, TargetKind};
use storlab_report::{Cell, Configuration, Meta, Study, UsersSweepCell};

use crate::cli::CompareArgs;
use crate::error::CliError;
use crate::output::{
    check_all, check_output, json_text, read_input, Format, Kind, Output, GIT_COMMIT,
};
use options::Options;
use plan::{parse_plan, Plan, TargetKind as PlanTarget, Unit};
use progress::Progress;
pub(crate) use store::claim;
use store::{Earlier, Store};

/// Runs one unit through the same code as its subcommand and returns its runs.
fn execute(u: &Unit) -> Result<Vec<Run>, CliError> {
    match options::options(&u.invocation)? {
        Options::Sim(a, database) => crate::sim_cmd::runs_with(&a, &database),
        Options::Io(a) => crate::io_cmd::runs(&a),
        Options::Db(a) => crate::db_cmd::runs(&a),
    }
}

/// One line about a finished unit, marked when a run of it was not at steady state (a job:
/// when it did not run to completion; steady state does not apply to it).
fn summary(cells: &[Cell]) -> String {
    let unsteady = cells.iter().any(|c| c.run.as_ref().is_some_and(unsteady));
    let incomplete = cells.iter().any(|c| c.run.as_ref().is_some_and(incomplete));
    let line = summary_figures(cells);
    if unsteady {
        format!("{line} (NOT STEADY)")
    } else if incomplete {
        format!("{line} (INCOMPLETE)")
    } else {
        line
    }
}

/// The run measured a load outside steady state (a job never does: it runs to completion).
fn unsteady(r: &Run) -> bool {
    !r.steady && r.metrics.job.is_none()
}

/// The run is a job its time limit stopped.
fn incomplete(r: &Run) -> bool {
    r.metrics.job.as_ref().is_some_and(|j| !j.complete)
}

fn summary_figures(cells: &[Cell]) -> String {
    let n = crate::table::num;
    if let Some(Cell { run: Some(r), .. }) = cells.last() {
        if let (Some(job), Some(elapsed)) = (r.metrics.job.as_ref(), r.metrics.elapsed_s) {
            return if job.complete {
                format!("elapsed {} s, run to completion", n(elapsed, 1))
            } else {
                format!("{}% done in {} s", n(job.done_pct, 1), n(elapsed, 1))
            };
        }
    }
    match cells.last() {
        Some(Cell { run: Some(r), .. }) => match r.metrics.rows_per_s {
            Some(rows) => format!("{} rows/s", n(rows, 0)),
            None => format!(
                "{} IO/s, {} MB/s{}",
                n(r.metrics.iops, 0),
                n(r.metrics.mbps, 1),
                if cells.len() > 1 {
                    format!(" (last of {} load points)", cells.len())
                } else {
                    String::new()
                }
            ),
        },
        Some(Cell { error: Some(e), .. }) => format!("FAILED: {e}"),
        _ => String::new(),
    }
}

/// Why a cell cut short by Ctrl-C or SIGTERM has no full result (shown in the report).
const PARTIAL: &str = "partial: interrupted during this cell; it runs again on resume";

/// What running a unit gave.
enum Outcome {
    /// It ran to its end (its cells may hold a failure).
    Finished(Vec<Cell>),
    /// A stop was requested while it ran: what it measured, the unfinished run marked
    /// partial (kept in the study, never stored as finished).
    Interrupted(Vec<Cell>),
}

fn run_unit(u: &Unit) -> Outcome {
    let command = u.command();
    let cell = |run: Option<Run>, error: Option<String>| Cell {
        configuration: u.target.clone(),
        workload: u.workload.clone(),
        repeat: u.repeat,
        run,
        error,
        command: command.clone(),
    };
    let stopped = storlab_io::signal::stop_requested;
    match execute(u) {
        Ok(mut runs) if stopped() || runs.iter().any(|r| r.partial) => {
            // A unit that returned without flagging a run was still cut short (a sweep
            // stops between load points): its last run is the partial one.
            let flagged = runs.iter().any(|r| r.partial);
            if let Some(last) = runs.last_mut().filter(|_| !flagged) {
                last.partial = true;
            }
            if runs.is_empty() {
                return Outcome::Interrupted(vec![cell(None, Some(PARTIAL.into()))]);
            }
            let cells = runs.into_iter().map(|r| {
                let error = r.partial.then(|| PARTIAL.to_string());
                cell(Some(r), error)
            });
            Outcome::Interrupted(cells.collect())
        }
        Ok(runs) => Outcome::Finished(runs.into_iter().map(|r| cell(Some(r), None)).collect()),
        Err(e) if stopped() => {
            Outcome::Interrupted(vec![cell(None, Some(format!("{PARTIAL} ({e})")))])
        }
        Err(e) => Outcome::Finished(vec![cell(None, Some(e.to_string()))]),
    }
}

/// The configurations of the plan, described from their array files or directories.
fn configurations(plan: &Plan) -> Vec<Configuration> {
    plan.targets
        .iter()
        .map(|t| {
            let mut c = Configuration {
                name: t.name.clone(),
                kind: TargetKind::Real,
                description: None,
                disks: None,
                usable_gb: None,
                price_per_disk: t.price_per_disk,
                price_per_gb: t.price_per_gb,
            };
            match &t.kind {
                PlanTarget::Sim { array, .. } => describe_sim(&mut c, array),
                PlanTarget::Real { dir, wal_dir, .. } => {
                    let wal = wal_dir
                        .as_ref()
                        .map_or(String::new(), |w| format!(", WAL in {}", w.display()));
                    c.description = Some(format!("this machine: files in {}{wal}", dir.display()));
                }
            }
            c
        })
        .collect()
}

/// A simulated configuration's description, physical disks and usable capacity (what its
/// price is computed from), read from its array file; left as they are when the file
/// cannot be read (the cell itself then fails with the reason).
pub fn describe_sim(c: &mut Configuration, array: &std::path::Path) {
    c.kind = TargetKind::Sim;
    let Ok(sys) = crate::sim_cmd::load_array(array) else {
        return;
    };
    c.description = Some(if sys.description.is_empty() {
        sys.name.clone()
    } else {
        sys.description.clone()
    });
    let raid: u32 = sys
        .groups
        .iter()
        .filter(|g| g.disk_group.is_none())
        .map(|g| g.layout.disks() + g.spares)
        .sum();
    let pooled: u32 = sys.disk_groups.iter().map(|g| g.disks + g.spares).sum();
    c.disks = Some(raid + pooled);
    let sectors: u64 = sys.luns.iter().map(|l| l.sectors).sum();
    c.usable_gb = Some((sectors as f64 * 512.0 / 1e9 * 10.0).round() / 10.0);
}

/// CPUs, memory and kernel of this machine.
fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mem_gib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemTotal:"))?.to_string();
            let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb / 1024.0 / 1024.0)
        })
        .unwrap_or(0.0);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!("{cpus} CPUs, {mem_gib:.0} GiB, Linux {}", kernel.trim())
}

/// The files a study writes in its output directory (results.json, study.json, the CSVs and
/// report.html), each with its content: every one goes through the output gate, which
/// replaces only what storlab wrote.
fn study_files(out: &Path, study: &Study) -> Result<Vec<(Output, String)>, CliError> {
    let runs: Vec<Run> = study.cells.iter().filter_map(|c| c.run.clone()).collect();
    let file = |name: &str, format| Output::new("--out", &out.join(name), format);
    let is_study = |v: &serde_json::Value| serde_json::from_value::<Study>(v.clone()).is_ok();
    let mut files = vec![
        (
            file("results.json", Format::Results),
            json_text(&storlab_core::result::Results::new(GIT_COMMIT, runs))?,
        ),
        (
            file("study.json", Format::Json(is_study)),
            json_text(study)?,
        ),
    ];
    for (name, text) in storlab_report::csv::files(study) {
        let header = text.lines().next().unwrap_or_default().to_string();
        files.push((file(name, Format::Csv(header)), text));
    }
    let html = storlab_report::render_html(study);
    files.push((file("report.html", Format::Html), html));
    Ok(files)
}

/// Refuses, before a study runs, an output directory holding a file of a study's name
/// (report.html, results.json, ...) that storlab did not write.
pub fn check_study_files(out: &Path) -> Result<(), CliError> {
    let empty = Study {
        title: String::new(),
        configurations: Vec::new(),
        workloads: Vec::new(),
        cells: Vec::new(),
        meta: storlab_report::Meta {
            command: String::new(),
            storlab_version: String::new(),
            git_commit: String::new(),
            machine: String::new(),
            seed: 0,
        },
        questions: Vec::new(),
        users_sweeps: Vec::new(),
    };
    let outputs: Vec<Output> = study_files(out, &empty)?
        .into_iter()
        .map(|(o, _)| o)
        .collect();
    check_all(&outputs, &[])
}

/// Writes results.json, study.json, the CSVs and report.html (each replaced atomically);
/// returns the report's path.
pub fn write_outputs(out: &Path, study: &Study) -> Result<std::path::PathBuf, CliError> {
    for (output, text) in study_files(out, study)? {
        output.write(text.as_bytes())?;
    }
    Ok(out.join("report.html"))
}

/// Runs `plan` into `out`; returns the study and whether every unit finished.
pub fn run_plan(
    plan: &Plan,
    out: &Path,
    fresh: bool,
    command: &str,
) -> Result<(Study, bool), CliError> {
    storlab_io::signal::install();
    let mut skipped = Vec::new();
    let units = plan.units(&mut skipped);
    for s in &skipped {
        eprintln!(
            "storlab compare: {s}: not applicable (traces and users sweeps run on simulated \
             targets)"
        );
    }
    let store = Store::open(out, fresh)?;
    let progress = Progress::new(units.len());
    let mut cells = Vec::new();
    let mut complete = true;
    for u in &units {
        if storlab_io::signal::stop_requested() {
            complete = false;
            break;
        }
        let label = format!("{} x {}", u.target, u.workload);
        progress.start(&label, u.real_secs);
        match store.load(u) {
            Earlier::Finished(done) => {
                progress.finish(&format!("{} (from an earlier run)", summary(&done)), false);
                cells.extend(done);
                continue;
            }
            Earlier::Failed(reason) => progress.note(&format!(
                "{label}: failed on an earlier run ({reason}); running it again"
            )),
            Earlier::Nothing => {}
        }
        match run_unit(u) {
            Outcome::Finished(done) => {
                store.save(u, &done)?;
                progress.finish(&summary(&done), true);
                cells.extend(done);
            }
            Outcome::Interrupted(done) => {
                progress.finish("interrupted: kept in the report, marked partial", false);
                cells.extend(done);
                complete = false;
                break;
            }
        }
    }
    progress.close();
    let study = Study {
        title: plan.title.clone(),
        configurations: configurations(plan),
        workloads: plan.workloads.iter().map(|w| w.name.clone()).collect(),
        cells,
        meta: Meta {
            command: command.to_string(),
            storlab_version: storlab_core::VERSION.to_string(),
            git_commit: GIT_COMMIT.to_string(),
            machine: machine(),
            seed: plan.seed,
        },
        questions: plan
            .questions
            .iter()
            .map(|q| storlab_report::Question {
                title: q.title.clone(),
                configurations: q.targets.clone(),
            })
            .collect(),
        users_sweeps: Vec::new(),
    };
    let study = Study {
        users_sweeps: users_sweeps(&units, &study.cells)?,
        ..study
    };
    Ok((study, complete))
}

/// The users sweeps of the plan's users-sweep units, each summarized from its cells' runs
/// (so a resumed plan summarizes the stored ones the same way).
fn users_sweeps(units: &[Unit], cells: &[Cell]) -> Result<Vec<UsersSweepCell>, CliError> {
    let mut out = Vec::new();
    for u in units {
        let Options::Sim(a, _) = options::options(&u.invocation)? else {
            continue;
        };
        let runs: Vec<Run> = cells
            .iter()
            .filter(|c| {
                c.configuration == u.target && c.workload == u.workload && c.repeat == u.repeat
            })
            .filter_map(|c| c.run.clone())
            .collect();
        if let Some(sweep) = crate::users_sweep::sim_summary(&a, &runs)? {
            out.push(UsersSweepCell {
                configuration: u.target.clone(),
                workload: u.workload.clone(),
                sweep,
            });
        }
    }
    Ok(out)
}

/// The exit status of a written study: interrupted (1), every cell failed (1), else 0 with
/// a note when some cells failed. `again` is the command that resumes it.
pub fn verdict(study: &Study, complete: bool, out: &Path, again: &str) -> Result<(), CliError> {
    let failed = study.cells.iter().filter(|c| c.failed()).count();
    let total = study.cells.len();
    if !complete {
        return Err(CliError::Failed(format!(
            "interrupted: the finished cells are in {}, the running one is in the report \
             marked partial; {again} to resume",
            out.join("cells").display()
        )));
    }
    if total > 0 && failed == total {
        return Err(CliError::Failed(format!(
            "all {total} cells failed (the reasons are in {}); nothing was measured",
            out.join("report.html").display()
        )));
    }
    if failed > 0 {
        eprintln!("storlab: {failed} of {total} cells failed (the reasons are in the report)");
    }
    Ok(())
}

/// Loads a plan file.
pub fn load_plan(path: &Path) -> Result<Plan, CliError> {
    parse_plan(&read_input(path)?, path)
}

/// Prints the answer to each question of the study, the failures, and where the report is.
pub fn print_findings(study: &Study, report: &Path) {
    println!("{}", study.title);
    for a in storlab_report::answers(study) {
        println!("  {}", a.question);
        for s in &a.sentences {
            println!("    - {s}");
        }
    }
    for f in storlab_report::findings(study) {
        if f.metric.is_empty() {
            println!("  - {}", f.text);
        }
    }
    print_unsteady(study);
    println!("report: {}", report.display());
}

/// Every cell measured outside steady state, with the reason.
fn print_unsteady(study: &Study) {
    let jobs: Vec<_> = study
        .cells
        .iter()
        .filter_map(|c| c.run.as_ref().filter(|r| incomplete(r)).map(|r| (c, r)))
        .collect();
    if !jobs.is_empty() {
        println!(
            "warning: {} of {} cells are jobs that did not run to completion (their time limit \
             came first; a longer duration lets them finish):",
            jobs.len(),
            study.cells.len()
        );
        print_reasons(&jobs);
    }
    let unsteady: Vec<_> = study
        .cells
        .iter()
        .filter_map(|c| c.run.as_ref().filter(|r| unsteady(r)).map(|r| (c, r)))
        .collect();
    if unsteady.is_empty() {
        return;
    }
    println!(
        "warning: {} of {} cells were not at steady state; their figures may not hold in a \
         longer run (warmup = \"auto\" in the plan, or a longer warmup or duration):",
        unsteady.len(),
        study.cells.len()
    );
    print_reasons(&unsteady);
}

/// One line per cell: its configuration, workload and the reason its run was flagged.
fn print_reasons(cells: &[(&Cell, &Run)]) {
    for (c, r) in cells {
        println!(
            "  - {} x {}: {}",
            c.configuration,
            c.workload,
            r.steady_reason.as_deref().unwrap_or("no reason recorded")
        );
    }
}

pub fn run(a: CompareArgs) -> Result<(), CliError> {
    check_output("--out", &a.out, Kind::Dir)?;
    let plan = load_plan(&a.plan)?;
    let command = format!(
        "storlab compare {} --out {}{}",
        a.plan.display(),
        a.out.display(),
        if a.fresh { " --fresh" } else { "" }
    );
    let (study, complete) = run_plan(&plan, &a.out, a.fresh, &command)?;
    let report = write_outputs(&a.out, &study)?;
    print_findings(&study, &report);
    verdict(&study, complete, &a.out, "run the same command again")
}
