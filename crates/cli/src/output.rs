//! Reading input files and writing result files, with messages that name the path.

use std::path::Path;

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
    let results: Results = serde_json::from_str(&text).map_err(|e| {
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
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::Failed(format!("{}: cannot create: {e}", dir.display())))?;
    }
    std::fs::write(path, text)
        .map_err(|e| CliError::Failed(format!("{}: cannot write: {e}", path.display())))
}
