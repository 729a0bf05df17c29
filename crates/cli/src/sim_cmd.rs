//! `storlab sim`: load the array, build the workload, simulate, print, write JSON.

use std::time::Instant;

use storlab_core::result::Run;
use storlab_sim::{
    parse_array, parse_failure_arg, parse_workload, profile_workload, FailureSpec, RunOptions,
    SystemSpec, TraceSource, WorkloadSpec,
};

use crate::cli::SimArgs;
use crate::error::CliError;
use crate::output::{read_input, write_results};
use crate::table;

/// Runs one simulation with wall time measured outside the simulator.
pub fn timed(
    system: &SystemSpec,
    workload: &WorkloadSpec,
    opts: RunOptions,
) -> Result<Run, CliError> {
    timed_with(system, workload, &system.failures, None, opts)
}

fn timed_with(
    system: &SystemSpec,
    workload: &WorkloadSpec,
    failures: &[FailureSpec],
    trace: Option<TraceSource>,
    opts: RunOptions,
) -> Result<Run, CliError> {
    // The simulator never reads a clock; the CLI measures sim.wall_s around it.
    #[allow(clippy::disallowed_methods)]
    let started = Instant::now();
    let mut run = storlab_sim::simulate_with(system, workload, failures, trace, opts)?;
    if let Some(sim) = run.sim.as_mut() {
        sim.wall_s = (started.elapsed().as_secs_f64() * 1e3).round() / 1e3;
    }
    Ok(run)
}

/// Loads an array file.
pub fn load_array(path: &std::path::Path) -> Result<SystemSpec, CliError> {
    let text = read_input(path)?;
    Ok(parse_array(&text, &path.display().to_string())?)
}

pub fn run(a: SimArgs) -> Result<(), CliError> {
    let system = load_array(&a.array)?;
    let opts = RunOptions {
        duration_ns: a.duration.0,
        warmup_ns: a.warmup.0,
        seed: a.seed,
    };
    let runs = if a.matrix {
        let runs = storlab_core::profile::IOGEN_MATRIX
            .iter()
            .map(|p| timed(&system, &profile_workload(p, &system)?, opts))
            .collect::<Result<Vec<_>, _>>()?;
        print!("{}", table::matrix(&system.name, &runs));
        runs
    } else {
        let workload = match (&a.profile, &a.workload, &a.trace) {
            (Some(p), None, None) => profile_workload(p, &system)?,
            (None, Some(path), _) => {
                let text = read_input(path)?;
                parse_workload(&text, &path.display().to_string(), &system)?
            }
            (None, None, Some(path)) => WorkloadSpec {
                name: format!("trace:{}", path.display()),
                streams: Vec::new(),
                database: None,
            },
            _ => {
                return Err(CliError::BadInput(
                    "storlab sim needs one of --profile NAME, --workload FILE, --trace TRACE or --matrix".into(),
                ))
            }
        };
        let mut failures = system.failures.clone();
        for f in &a.fail {
            failures.push(parse_failure_arg(f, &system)?);
        }
        let trace = crate::trace_cmd::open(&a)?;
        let run = timed_with(&system, &workload, &failures, trace, opts)?;
        print!("{}", table::single(&run));
        vec![run]
    };
    if let Some(path) = &a.json {
        write_results(path, runs)?;
        println!("results: {}", path.display());
    }
    Ok(())
}
