//! Reading input files and writing result files, with messages that name the path. Every
//! output file goes through one gate, [`Output`]: checked before the run starts
//! ([`Output::check`]: writable, not an input, and not a file storlab did not write) and
//! written with [`Output::write`] (checked again, then replaced atomically). Nothing else in
//! storlab writes an output file.

mod atomic;
mod check;
mod gate;

use std::path::Path;

pub use atomic::TEMP_SUFFIX;
pub use check::{check_output, Kind};
pub use gate::{check_all, same_file, Format, Input, Output, HTML_MARK};

use storlab_core::result::{Results, Run};

use crate::error::CliError;

/// Git commit of this build.
pub const GIT_COMMIT: &str = env!("STORLAB_GIT_COMMIT");

/// Reads a text input file; a missing or unreadable file is bad input.
pub fn read_input(path: &Path) -> Result<String, CliError> {
    read_text(path, storlab_core::input::TEXT_MAX_BYTES)
}

/// The text of the file at `path`, at most `max` bytes, or bad input naming the file.
fn read_text(path: &Path, max: u64) -> Result<String, CliError> {
    storlab_core::input::read_text_bounded(path, max)
        .map_err(|e| CliError::BadInput(format!("{}: cannot read: {e}", path.display())))
}

/// Reads a `storlab.results/1` file; anything else is bad input naming the file.
pub fn read_results(path: &Path) -> Result<Results, CliError> {
    let text = read_text(path, storlab_core::input::DATA_MAX_BYTES)?;
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

/// The `--json` result file of a run.
pub fn json_output(path: &Path) -> Output {
    Output::new("--json", path, Format::Results)
}

/// Checks `--json`, when given, before a run that reads `inputs`.
pub fn check_json(path: Option<&Path>, inputs: &[Input]) -> Result<(), CliError> {
    match path {
        Some(p) => json_output(p).check(inputs),
        None => Ok(()),
    }
}

/// `value` as pretty JSON with a trailing newline.
pub fn json_text<T: serde::Serialize>(value: &T) -> Result<String, CliError> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::Failed(format!("cannot encode results: {e}")))?;
    text.push('\n');
    Ok(text)
}

/// Writes `runs` as a `storlab.results/1` file (pretty JSON, trailing newline).
pub fn write_results(output: &Output, runs: Vec<Run>) -> Result<(), CliError> {
    output.write(json_text(&Results::new(GIT_COMMIT, runs))?.as_bytes())
}

#[cfg(test)]
mod tests {
    /// The stamp follows HEAD: Cargo runs the build script again when HEAD moves, so a
    /// build made after a commit names that commit.
    #[test]
    fn the_commit_stamp_is_the_checkout_head() {
        let head = std::process::Command::new("git")
            .args(["rev-parse", "--short=12", "HEAD"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        assert_eq!(super::GIT_COMMIT, head.as_deref().unwrap_or("unknown"));
    }
}
