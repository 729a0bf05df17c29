//! `storlab compare PLAN --out DIR`: runs a plan of configurations x workloads (simulated
//! arrays and real storage), stores each finished unit at once (Ctrl-C or a crash loses
//! nothing measured; a re-run resumes), then writes DIR/results.json (the common schema),
//! DIR/study.json, one CSV per table and DIR/report.html.
//!
//! Every unit is a storlab command line (shown in the report), parsed by the same parser as
//! the command itself and run through the same code, so a cell can be reproduced by hand.

mod progress;
mod store;

use std::path::Path;

use clap::Parser;
use storlab_cli::plan;
use storlab_core::result::{Run, TargetKind};
use storlab_report::{Cell, Configuration, Meta, Study};

use crate::cli::{Cli, Command, CompareArgs};
use crate::error::CliError;
use crate::output::{read_input, write_results, GIT_COMMIT};
use plan::{parse_plan, Plan, TargetKind as PlanTarget, Unit};
use progress::Progress;
use store::Store;

/// Runs one unit's command line and returns its runs.
fn execute(u: &Unit) -> Result<Vec<Run>, CliError> {
    let argv = std::iter::once("storlab".to_string()).chain(u.args.iter().cloned());
    let cli = Cli::try_parse_from(argv).map_err(|e| {
        let msg = e.to_string();
        CliError::BadInput(msg.lines().next().unwrap_or("bad arguments").to_string())
    })?;
    match cli.command {
        Command::Sim(a) => crate::sim_cmd::runs(&a),
        Command::Io(a) => crate::io_cmd::runs(&a),
        Command::Db(a) => crate::db_cmd::runs(&a),
        _ => Err(CliError::BadInput(
            "a plan unit must be sim, io or db".into(),
        )),
    }
}

/// One line about a finished unit.
fn summary(cells: &[Cell]) -> String {
    let n = crate::table::num;
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

/// What running a unit gave: its cells, or an interruption (nothing to keep).
enum Outcome {
    Cells(Vec<Cell>),
    Interrupted,
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
    match execute(u) {
        Ok(runs) if runs.iter().any(|r| r.partial) || storlab_io::signal::stop_requested() => {
            Outcome::Interrupted
        }
        Ok(runs) => Outcome::Cells(runs.into_iter().map(|r| cell(Some(r), None)).collect()),
        Err(_) if storlab_io::signal::stop_requested() => Outcome::Interrupted,
        Err(e) => Outcome::Cells(vec![cell(None, Some(e.to_string()))]),
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
                PlanTarget::Sim { array, .. } => {
                    c.kind = TargetKind::Sim;
                    if let Ok(sys) = crate::sim_cmd::load_array(array) {
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
                }
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

/// Writes results.json, study.json, the CSVs and report.html; returns the report's path.
pub fn write_outputs(out: &Path, study: &Study) -> Result<std::path::PathBuf, CliError> {
    let fail = |what: &str, e: std::io::Error| {
        CliError::Failed(format!("{}: cannot write {what}: {e}", out.display()))
    };
    let runs: Vec<Run> = study.cells.iter().filter_map(|c| c.run.clone()).collect();
    write_results(&out.join("results.json"), runs)?;
    let text = serde_json::to_string_pretty(study)
        .map_err(|e| CliError::Failed(format!("cannot encode the study: {e}")))?;
    std::fs::write(out.join("study.json"), text + "\n").map_err(|e| fail("study.json", e))?;
    storlab_report::write_csvs(study, out).map_err(|e| fail("the CSV files", e))?;
    let report = out.join("report.html");
    std::fs::write(&report, storlab_report::render_html(study))
        .map_err(|e| fail("report.html", e))?;
    Ok(report)
}

/// Runs `plan` into `out`; returns the study and whether every unit finished.
pub fn run_plan(
    plan: &Plan,
    out: &Path,
    fresh: bool,
    command: &str,
) -> Result<(Study, bool), CliError> {
    let mut skipped = Vec::new();
    let units = plan.units(&mut skipped);
    for s in &skipped {
        eprintln!("storlab compare: {s}: not applicable (traces replay on simulated targets)");
    }
    let store = Store::open(out, fresh)?;
    storlab_io::signal::install();
    let progress = Progress::new(units.len());
    let mut cells = Vec::new();
    let mut complete = true;
    for u in &units {
        if storlab_io::signal::stop_requested() {
            complete = false;
            break;
        }
        progress.start(&format!("{} x {}", u.target, u.workload), u.real_secs);
        if let Some(done) = store.load(u) {
            progress.finish(&format!("{} (from an earlier run)", summary(&done)), false);
            cells.extend(done);
            continue;
        }
        match run_unit(u) {
            Outcome::Cells(done) => {
                store.save(u, &done)?;
                progress.finish(&summary(&done), true);
                cells.extend(done);
            }
            Outcome::Interrupted => {
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
    };
    Ok((study, complete))
}

/// Loads a plan file.
pub fn load_plan(path: &Path) -> Result<Plan, CliError> {
    parse_plan(&read_input(path)?, path)
}

/// Prints the findings and where the report is.
pub fn print_findings(study: &Study, report: &Path) {
    println!("{}", study.title);
    for f in storlab_report::findings(study) {
        println!("  - {}", f.text);
    }
    println!("report: {}", report.display());
}

pub fn run(a: CompareArgs) -> Result<(), CliError> {
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
    if !complete {
        return Err(CliError::Failed(format!(
            "interrupted: the finished cells are in {}; run the same command again to resume",
            a.out.join("cells").display()
        )));
    }
    Ok(())
}
