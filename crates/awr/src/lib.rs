//! storlab-awr: reads an Oracle AWR report (text or HTML) or a Statspack report (text) and
//! turns it into a workload characterization (`storlab_core::character`): one transaction
//! type `average` from the Load Profile (its block changes and redo without the undo's, which
//! the simulated Oracle adds), the instance and its CPU from the header, Cache Sizes, Host CPU,
//! Time Model and Operating System Statistics, segments per tablespace from the tablespace
//! I/O with where the changes fall calibrated to their writes, and what was observed (rates,
//! top timed events, I/O per tablespace and file) for calibrating and checking a model; and
//! the segment sizes the tablespaces' physical reads imply in its buffer cache, as an
//! estimate.
//!
//! It reads bytes it is given and nothing else: no files of its own, no database. It never
//! panics on any input: a report it cannot use is an [`Error`] naming the file; a section it
//! lacks is a warning in the [`ReadReport`].

mod build;
mod changes;
mod cpu;
mod detect;
mod grid;
mod html;
mod number;
mod sections;
mod sizing;
mod temp;

pub use changes::checkpoint_lag_s;
pub use sizing::size_estimates;
use storlab_core::character::{CharacterError, Characterization};

/// The kind of report a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    AwrText,
    AwrHtml,
    StatspackText,
}

impl Format {
    /// How results and messages name it.
    pub fn describe(self) -> &'static str {
        match self {
            Format::AwrText => "AWR text report",
            Format::AwrHtml => "AWR HTML report",
            Format::StatspackText => "Statspack text report",
        }
    }
}

/// What was read from a report and what was not.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadReport {
    pub format: Format,
    /// Sections read (`Load Profile`, `Tablespace IO Stats`).
    pub found: Vec<String>,
    /// Sections looked for and not found.
    pub missing: Vec<String>,
    /// What the user should know: missing sections and what they leave unknown, values that
    /// overflowed their column, estimates.
    pub warnings: Vec<String>,
    /// Keys the report left unknown that must be filled in before the workload is simulated
    /// (`segments[0].size (USERS)`).
    pub unknowns: Vec<String>,
    /// Segment sizes (bytes, by segment name) that reproduce the report's physical reads per
    /// tablespace in its buffer cache ([`size_estimates`]), for the sizes it left unknown.
    pub size_estimates: Vec<(String, u64)>,
}

impl std::fmt::Display for ReadReport {
    /// What a command prints after an import: the format, the sections read and missing, then
    /// one warning a line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "format: {}", self.format.describe())?;
        writeln!(f, "sections read: {}", self.found.join(", "))?;
        if !self.missing.is_empty() {
            writeln!(f, "sections missing: {}", self.missing.join(", "))?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        Ok(())
    }
}

/// A report that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Not a report, or one without what a characterization needs.
    #[error("{file}: {reason}")]
    BadInput { file: String, reason: String },
    /// The file could not be read.
    #[error("{file}: cannot read it: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    /// The values read break a characterization's rules (a value beyond its bound).
    #[error("{file}: the report's values do not make a valid characterization: {source}")]
    Invalid {
        file: String,
        source: CharacterError,
    },
}

/// Reads a report: AWR text, AWR HTML or Statspack text, told apart by their contents. `file`
/// names the report in errors and in the characterization's `source`.
pub fn parse_report(text: &[u8], file: &str) -> Result<(Characterization, ReadReport), Error> {
    let bad = |reason: String| Error::BadInput {
        file: file.to_string(),
        reason,
    };
    let (text, format) = detect::detect(text).map_err(bad)?;
    let mut tables = match format {
        Format::AwrHtml => html::html_tables(&text),
        Format::AwrText | Format::StatspackText => grid::text_tables(&text),
    };
    if format != Format::AwrHtml {
        for title in ["Cache Sizes", "Load Profile"] {
            if !tables.iter().any(|t| t.titled(title)) {
                tables.extend(detect::untabled(&text, title));
            }
        }
    }
    let mut facts = sections::read(&tables);
    if format != Format::AwrHtml {
        sections::cpus_from_lines(&mut facts, &text);
    }
    build::build(facts, format, file, text.contains("End of Report"))
}

/// Reads the report in the file at `path`.
pub fn read_report(path: &std::path::Path) -> Result<(Characterization, ReadReport), Error> {
    let file = path.display().to_string();
    let bytes = storlab_core::input::read_bounded(path, storlab_core::input::TEXT_MAX_BYTES)
        .map_err(|source| Error::Io {
            file: file.clone(),
            source,
        })?;
    parse_report(&bytes, &file)
}
