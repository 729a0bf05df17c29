//! Reading input files and writing result files, with messages that name the path. Every
//! result or report file goes through [`write_atomic`]; every output path is checked by
//! [`check_output`] before a run starts.

mod atomic;
mod check;

use std::path::Path;

pub use atomic::{write_atomic, TEMP_SUFFIX};
pub use check::{check_json, check_output, Kind};

use storlab_core::result::{Results, Run};

use crate::error::CliError;

/// Git commit of this build.
pub const GIT_COMMIT: &str = env!("STORLAB_GIT_COMMIT");

/// Reads a text input file; a missing or unreadable file is bad input.
pub fn read_input(path: &Path) -> Result<String, CliError> {
    std::fs::read_to_string(path)
        .map_err(|e| CliError::BadInput(format!("{}: cannot read: {e}", path.display())))
}

/// Reads a `storlab.results/1` file; anything else is bad input naming the file.
pub fn read_results(path: &Path) -> Result<Results, CliError> {
    let text = read_input(path)?;
    checked_results(serde_json::from_str(&text), path)
}

/// The `storlab.results/1` file `path` from its JSON, already parsed; `text` (the file's
/// bytes) is parsed again only when the JSON is not a result, for a message naming the line
/// and column of the mistake.
pub fn results_from_json(
    json: serde_json::Value,
    text: &[u8],
    path: &Path,
) -> Result<Results, CliError> {
    let results = serde_json::from_value(json).or_else(|_| serde_json::from_slice(text));
    checked_results(results, path)
}

/// A result file's contents, or bad input naming the file: not one, or another schema.
fn checked_results(
    results: Result<Results, serde_json::Error>,
    path: &Path,
) -> Result<Results, CliError> {
    let results = results.map_err(|e| {
        CliError::BadInput(format!(
            "{}: not a storlab result file: {e}",
            path.display()
        ))
    })?;
    if results.schema != storlab_core::result::SCHEMA {
        return Err(CliError::BadInput(format!(
            "{}: schema {:?}, expected {:?}",
            path.display(),
            results.schema,
            storlab_core::result::SCHEMA
        )));
    }
    Ok(results)
}

/// Writes `runs` as a `storlab.results/1` file (pretty JSON, trailing newline).
pub fn write_results(path: &Path, runs: Vec<Run>) -> Result<(), CliError> {
    let results = Results::new(GIT_COMMIT, runs);
    let mut text = serde_json::to_string_pretty(&results)
        .map_err(|e| CliError::Failed(format!("cannot encode results: {e}")))?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}
