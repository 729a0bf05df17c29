//! `storlab demo`: the main job, what `make demo` runs. The plan `examples/plans/demo.toml`:
//! RAID 5 against RAID 10 on the mid-range array (the IOgen matrix and the DPAWS tests,
//! simulated), SSDs mirrored with HDDs with and without a preferred read failure group
//! (simulated), and this machine's disk for real (a short IOgen matrix and a small DPAWS run
//! on an ephemeral PostgreSQL, files under OUT/work). Writes the report, prints its path and
//! the findings. Re-running resumes from the cells already in OUT unless `--fresh`.

use std::path::Path;

use crate::cli::DemoArgs;
use crate::compare::{load_plan, print_findings, run_plan, write_outputs};
use crate::error::CliError;

/// Where the demo plan lives in a checkout.
const PLAN: &str = "examples/plans/demo.toml";

pub fn run(a: DemoArgs) -> Result<(), CliError> {
    let path = Path::new(PLAN);
    if !path.exists() {
        return Err(CliError::BadInput(format!(
            "{PLAN}: not found; run storlab demo from a storlab checkout (or storlab compare PLAN)"
        )));
    }
    let mut plan = load_plan(path)?;
    if a.sim_only {
        plan.simulated_only();
    }
    let work = a.out.join("work");
    std::fs::create_dir_all(&work)
        .map_err(|e| CliError::Failed(format!("{}: cannot create: {e}", work.display())))?;
    plan.place_real_targets(&work);
    let command = format!(
        "storlab demo --out {}{}{}",
        a.out.display(),
        if a.fresh { " --fresh" } else { "" },
        if a.sim_only { " --sim-only" } else { "" }
    );
    println!("{}", plan.title);
    let (study, complete) = run_plan(&plan, &a.out, a.fresh, &command)?;
    let report = write_outputs(&a.out, &study)?;
    let _ = std::fs::remove_dir(&work);
    print_findings(&study, &report);
    if !complete {
        return Err(CliError::Failed(
            "interrupted: run storlab demo again to resume".into(),
        ));
    }
    Ok(())
}
