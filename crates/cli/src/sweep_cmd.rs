//! `storlab sweep SWEEP.toml`: a grid of simulated configurations, run by the Python
//! package's sweep engine (`python3 -m storlab.sweep_cli`, on Ray with `--ray` or with
//! `engine = "ray"` in the file). This command only finds the package and hands the file
//! over; the file's format is documented in docs/python.md and in `storlab/sweep_cli.py`.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use clap::Args;

use crate::error::CliError;

/// The interpreter that runs the package (`STORLAB_PYTHON`, else `python3` on the PATH).
const PYTHON_ENV: &str = "STORLAB_PYTHON";

/// Options of `storlab sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The sweep file: [base] (array, workload or profile, options of `storlab sim`), [grid]
    /// (key = [values]), repeats, engine ("local" or "ray"), out.
    #[arg(value_name = "SWEEP.toml")]
    pub file: PathBuf,
    /// Run the cells on this Ray cluster ("ray://head:10001", "auto", or "local" for Ray
    /// on this machine with all its cores); overrides the file's engine and address.
    #[arg(long, value_name = "ADDRESS")]
    pub ray: Option<String>,
    /// Directory of the finished cells (out/cells) and the table (out/sweep.csv); a re-run
    /// resumes. Overrides the file's `out` (default: "sweep" beside the file).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// What to tell a user whose Python cannot import the package.
fn install_hint(python: &str, why: &str) -> String {
    format!(
        "storlab sweep runs on the Python package `storlab`, which {python} cannot import \
         ({why}). Install it with `make wheel && {python} -m pip install target/wheels/storlab-*.whl \
         'ray[tune]' tqdm polars pyarrow`, or name the interpreter that has it in {PYTHON_ENV}"
    )
}

/// Checks that `python` imports the sweep front end; the reason when it does not.
fn probe(python: &str) -> Result<(), String> {
    let out = Command::new(python)
        .args(["-c", "import storlab.sweep_cli"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {python}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Err(err
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("import failed")
        .trim()
        .to_string())
}

/// Runs the sweep in the package and ends the process with its exit status (0 done, 1 a
/// failed or interrupted sweep, 2 bad input); the package prints its own messages.
pub fn run(a: SweepArgs) -> Result<(), CliError> {
    let python = std::env::var(PYTHON_ENV).unwrap_or_else(|_| "python3".to_string());
    probe(&python).map_err(|why| CliError::BadInput(install_hint(&python, &why)))?;
    let mut cmd = Command::new(&python);
    cmd.args(["-m", "storlab.sweep_cli"]).arg(&a.file);
    if let Some(address) = &a.ray {
        cmd.arg("--ray").arg(address);
    }
    if let Some(out) = &a.out {
        cmd.arg("--out").arg(out);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| CliError::Failed(format!("cannot start {python}: {e}")))?;
    // Ctrl-C reaches the whole process group: the engine stops its cells and keeps the
    // finished ones; this process waits for it rather than leaving it orphaned.
    // SAFETY: changing a signal disposition; no handler code runs.
    let previous = unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
    let status = child.wait();
    // SAFETY: restoring the disposition saved above.
    unsafe { libc::signal(libc::SIGINT, previous) };
    let status = status.map_err(|e| CliError::Failed(format!("waiting for {python}: {e}")))?;
    match status.code() {
        Some(0) => Ok(()),
        Some(code) => std::process::exit(code),
        None => Err(CliError::Failed(format!(
            "{python} -m storlab.sweep_cli was ended by a signal"
        ))),
    }
}
