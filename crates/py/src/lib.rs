//! `storlab._native`: the extension module of the `storlab` Python package. It parses the
//! same command lines as the `storlab` binary (crates/cli, through its library) and runs the
//! same code, so a call from Python and the command with the same options give the same
//! results. The Python layer (python/storlab) turns keyword arguments into those options.

mod arrow;
mod capsule;
mod cluster;
mod result;
mod signals;
mod source;
mod tables;

use clap::Parser;
use pyo3::prelude::*;
use storlab_cli::cli::{Cli, Command};
use storlab_cli::error::CliError;

pyo3::create_exception!(
    _native,
    BadInput,
    pyo3::exceptions::PyValueError,
    "The input cannot be used: the message names the file, key or option, the reason and the bound."
);
pyo3::create_exception!(
    _native,
    RunFailed,
    pyo3::exceptions::PyRuntimeError,
    "The run itself failed (an I/O error, a database that would not start, ...)."
);

/// A command-line error as the Python exception of its kind, files named as the user gave them.
fn py_err(e: &CliError, inputs: &source::Inputs) -> PyErr {
    let message = inputs.relabel(&e.to_string());
    match e {
        CliError::BadInput(_) | CliError::Config(_) => BadInput::new_err(message),
        CliError::Failed(_) => RunFailed::new_err(message),
    }
}

/// Parses `argv` (without the program name) as the `storlab` command line does.
fn parse(argv: Vec<String>, inputs: &source::Inputs) -> PyResult<Cli> {
    let argv = std::iter::once("storlab".to_string()).chain(argv);
    Cli::try_parse_from(argv).map_err(|e| {
        let text = e.render().to_string();
        BadInput::new_err(inputs.relabel(text.trim_end()))
    })
}

/// Runs `storlab sim` with `argv` (options after `sim`, without --array and --workload),
/// the array and the workload given as paths, TOML text or dicts. Returns the results and
/// whether a signal stopped the run.
#[pyfunction]
#[pyo3(signature = (argv, array, workload=None))]
fn sim(
    py: Python<'_>,
    argv: Vec<String>,
    array: &Bound<'_, PyAny>,
    workload: Option<&Bound<'_, PyAny>>,
) -> PyResult<(result::Result, bool)> {
    let mut inputs = source::Inputs::default();
    let mut full = vec!["sim".to_string(), "--array".to_string()];
    full.push(inputs.path("array", array)?.display().to_string());
    if let Some(w) = workload {
        full.push("--workload".to_string());
        full.push(inputs.path("workload", w)?.display().to_string());
    }
    full.extend(argv);
    let Command::Sim(args) = parse(full, &inputs)?.command else {
        return Err(RunFailed::new_err("not a sim command line"));
    };
    storlab_cli::output::check_json(
        args.run.json.as_deref(),
        &storlab_cli::sim_cmd::inputs(&args),
    )
    .map_err(|e| py_err(&e, &inputs))?;
    let saved = signals::Saved::new();
    let runs = py.detach(|| storlab_cli::sim_cmd::runs(&args));
    let stopped = saved.stopped();
    drop(saved);
    let mut runs = runs.map_err(|e| py_err(&e, &inputs))?;
    // An array given as text or a dict has no file: its runs say what it was.
    for run in &mut runs {
        if let Some(label) = run.target.config.as_deref().and_then(|c| inputs.label(c)) {
            run.target.config = Some(label.to_string());
        }
    }
    if let Some(path) = &args.run.json {
        let output = storlab_cli::output::json_output(path);
        storlab_cli::output::write_results(&output, runs.clone())
            .map_err(|e| py_err(&e, &inputs))?;
    }
    Ok((result::Result::new(runs), stopped))
}

/// Runs any other `storlab` command line (`validate ...`, `compare PLAN ...`, `io ...`,
/// `db ...`) as the binary does, its tables printed to the process's standard output.
/// `files` maps a placeholder in `argv` ("{plan}") to a path, TOML text or dict. Returns
/// whether a signal stopped the run.
#[pyfunction]
#[pyo3(signature = (argv, files=None))]
fn command(
    py: Python<'_>,
    argv: Vec<String>,
    files: Option<&Bound<'_, pyo3::types::PyDict>>,
) -> PyResult<bool> {
    let mut inputs = source::Inputs::default();
    let mut argv = argv;
    if let Some(files) = files {
        for (k, v) in files.iter() {
            let role: String = k.extract()?;
            let path = inputs.path(&role, &v)?.display().to_string();
            let placeholder = format!("{{{role}}}");
            for a in argv.iter_mut().filter(|a| **a == placeholder) {
                a.clone_from(&path);
            }
        }
    }
    let cli = parse(argv, &inputs)?;
    match cli.command {
        Command::Demo(_) => {
            return Err(BadInput::new_err(
                "storlab demo runs from the command line only",
            ))
        }
        Command::Sweep(_) => {
            return Err(BadInput::new_err(
                "storlab sweep is storlab.sweep(...) from Python",
            ))
        }
        _ => {}
    }
    let saved = signals::Saved::new();
    let outcome = py.detach(|| storlab_cli::cli::run(cli));
    let stopped = saved.stopped();
    drop(saved);
    match outcome {
        Err(e) if !stopped => Err(py_err(&e, &inputs)),
        _ => Ok(stopped),
    }
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("BadInput", m.py().get_type::<BadInput>())?;
    m.add("RunFailed", m.py().get_type::<RunFailed>())?;
    m.add("VERSION", storlab_core::VERSION)?;
    m.add("GIT_COMMIT", storlab_cli::output::GIT_COMMIT)?;
    m.add_function(wrap_pyfunction!(sim, m)?)?;
    m.add_function(wrap_pyfunction!(command, m)?)?;
    m.add_class::<result::Result>()?;
    m.add_class::<capsule::ArrowTable>()?;
    m.add_class::<cluster::Histogram>()?;
    m.add_function(wrap_pyfunction!(cluster::io_run, m)?)?;
    m.add_function(wrap_pyfunction!(cluster::array_cost, m)?)?;
    m.add_function(wrap_pyfunction!(cluster::request_stop, m)?)?;
    Ok(())
}
