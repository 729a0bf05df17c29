//! Reference case files: their schema, where they are read from (a checkout's `references/`
//! or the built-in copies), the arrays and workloads they name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use storlab_core::keys::find;
use storlab_core::TimeSpan;
use storlab_sim::config::database::DATABASE_KEYS;
use storlab_sim::{parse_array, parse_workload, RunOptions, SystemSpec, WorkloadSpec};

use crate::error::CliError;
use crate::output::read_input;

/// The built-in reference cases, for runs outside a checkout (file name, text).
const BUILTIN: &[(&str, &str)] = &[
    (
        "references/case1-midrange.toml",
        include_str!("../../../../references/case1-midrange.toml"),
    ),
    (
        "references/case2-enterprise.toml",
        include_str!("../../../../references/case2-enterprise.toml"),
    ),
];
/// The arrays they name, likewise.
const BUILTIN_ARRAYS: &[(&str, &str)] = &[
    (
        "examples/arrays/midrange-raid5.toml",
        include_str!("../../../../examples/arrays/midrange-raid5.toml"),
    ),
    (
        "examples/arrays/midrange-raid10.toml",
        include_str!("../../../../examples/arrays/midrange-raid10.toml"),
    ),
    (
        "examples/arrays/enterprise-raid5.toml",
        include_str!("../../../../examples/arrays/enterprise-raid5.toml"),
    ),
    (
        "examples/arrays/enterprise-raid10.toml",
        include_str!("../../../../examples/arrays/enterprise-raid10.toml"),
    ),
];

/// One reference case file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    pub source: String,
    /// The assumptions behind the configuration and the analysis of the figures, printed
    /// with `--explain`.
    #[serde(default)]
    pub notes: Vec<String>,
    pub run: RunSpec,
    pub arrays: BTreeMap<String, String>,
    /// Workloads the figures name besides built-in profiles: name -> a workload file's
    /// content (streams or a `[database]` section).
    #[serde(default)]
    pub workloads: BTreeMap<String, toml::Table>,
    #[serde(default)]
    pub figures: Vec<Figure>,
    #[serde(default)]
    pub ratios: Vec<Ratio>,
    /// Analyses shared by several figures: a figure's `note` that is one word names one.
    #[serde(default)]
    pub analyses: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    pub duration: TimeSpan,
    pub warmup: TimeSpan,
    pub seed: u64,
}

/// A published absolute figure, checked within `tolerance_pct` of `published`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    pub name: String,
    pub array: String,
    /// A built-in profile or a name in `[workloads]`.
    pub profile: String,
    pub metric: String,
    pub published: f64,
    pub tolerance_pct: f64,
    /// The figure went into the workload's characterization (calibrate-then-predict): it is
    /// printed among the figures used for calibration and not counted as a prediction.
    #[serde(default)]
    pub calibration: bool,
    /// Why the model stands where it does against this figure (printed with `--explain`;
    /// it never changes pass or fail).
    #[serde(default)]
    pub note: Option<String>,
}

/// A published ratio of one metric on two arrays, checked within `min`..`max`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ratio {
    pub name: String,
    pub profile: String,
    pub metric: String,
    pub numerator: String,
    pub denominator: String,
    pub published: f64,
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
    /// As [`Figure::calibration`].
    #[serde(default)]
    pub calibration: bool,
    #[serde(default)]
    pub note: Option<String>,
}

impl Case {
    /// Parses a case file and resolves its notes; every mistake is bad input naming `file`.
    pub fn parse(text: &str, file: &str) -> Result<Case, CliError> {
        let mut case: Case =
            toml::from_str(text).map_err(|e| CliError::BadInput(format!("{file}: {e}")))?;
        case.check_figures(file)?;
        case.resolve_notes(file)?;
        Ok(case)
    }

    /// Published values a relative error can be computed against: finite and not zero.
    fn check_figures(&self, file: &str) -> Result<(), CliError> {
        let published = self
            .figures
            .iter()
            .map(|f| (&f.name, f.published))
            .chain(self.ratios.iter().map(|r| (&r.name, r.published)));
        for (name, value) in published {
            if !value.is_finite() || value == 0.0 {
                return Err(CliError::BadInput(format!(
                    "{file}: {name}: published must be a finite number other than 0 (the \
                     error is relative to it); got {value}"
                )));
            }
        }
        Ok(())
    }

    /// Replaces each one-word note with the `[analyses]` entry it names (an unknown name is
    /// bad input, so a typo cannot pass as an analysis); a note of several words is the
    /// analysis itself.
    fn resolve_notes(&mut self, file: &str) -> Result<(), CliError> {
        let shared = &self.analyses;
        let notes = self
            .figures
            .iter_mut()
            .map(|f| (&f.name, &mut f.note))
            .chain(self.ratios.iter_mut().map(|r| (&r.name, &mut r.note)));
        for (figure, note) in notes {
            let Some(name) = note
                .as_deref()
                .filter(|m| m.split_whitespace().count() <= 1)
            else {
                continue;
            };
            let text = shared.get(name).ok_or_else(|| {
                CliError::BadInput(format!(
                    "{file}: {figure}: note: no [analyses] entry named {name:?} (a one-word \
                     note names one; write the analysis itself otherwise)"
                ))
            })?;
            *note = Some(text.clone());
        }
        Ok(())
    }
}

/// A case file as read: its name, its text, and the checkout root its array paths are
/// relative to (None for the built-in cases).
pub struct CaseFile {
    pub file: String,
    pub text: String,
    pub root: Option<PathBuf>,
}

/// Reference cases: the files in `dir`, or the built-in ones when it does not exist.
pub fn load_cases(dir: &Path) -> Result<Vec<CaseFile>, CliError> {
    if dir.exists() && !dir.is_dir() {
        return Err(CliError::BadInput(format!(
            "--references {}: not a directory (give the directory of *.toml reference cases)",
            dir.display()
        )));
    }
    if !dir.is_dir() {
        return Ok(BUILTIN
            .iter()
            .map(|(f, t)| CaseFile {
                file: f.to_string(),
                text: t.to_string(),
                root: None,
            })
            .collect());
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| CliError::BadInput(format!("{}: cannot read: {e}", dir.display())))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        // floor.toml lists the figures that pass; it is not a case.
        .filter(|p| p.file_name().is_some_and(|n| n != FLOOR_FILE))
        .collect();
    if files.is_empty() {
        return Err(CliError::BadInput(format!(
            "--references {}: no reference case (*.toml) in this directory",
            dir.display()
        )));
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            Ok(CaseFile {
                file: p.display().to_string(),
                text: read_input(&p)?,
                root: p.parent().and_then(Path::parent).map(Path::to_path_buf),
            })
        })
        .collect()
}

/// The file beside the cases that lists the figures within tolerance today (read by the
/// tests, never by `storlab validate`).
pub const FLOOR_FILE: &str = "floor.toml";

/// A workload of a case's `[workloads]`: a workload file's keys, or `workload_from`, a
/// characterization (or an AWR/Statspack report, or a `storlab db` result) relative to the
/// case file's directory `dir`, with an optional `[database]` table of placement and engine
/// keys; plus optional `duration` and `warmup` that override the case's `[run]` for it
/// (databases need longer warm-ups).
pub fn case_workload(
    table: &toml::Table,
    name: &str,
    (file, dir): (&str, Option<&Path>),
    sys: &SystemSpec,
    opts: RunOptions,
) -> Result<(WorkloadSpec, RunOptions), CliError> {
    let mut table = table.clone();
    let mut span = |key: &str, default: u64| -> Result<u64, CliError> {
        match table.remove(key) {
            None => Ok(default),
            Some(v) => {
                let t: TimeSpan = v.try_into().map_err(|e: toml::de::Error| {
                    CliError::BadInput(format!("{file}: workloads.{name}.{key}: {}", e.message()))
                })?;
                Ok(t.0)
            }
        }
    };
    let run = RunOptions {
        duration_ns: span("duration", opts.duration_ns)?,
        warmup_ns: span("warmup", opts.warmup_ns)?,
        seed: opts.seed,
        warmup_auto: opts.warmup_auto,
        stop: opts.stop,
    };
    let where_ = format!("{file}: workloads.{name}");
    if let Some(from) = table.remove("workload_from") {
        return Ok((characterized(table, from, &where_, dir, sys)?, run));
    }
    table
        .entry("name")
        .or_insert_with(|| toml::Value::String(name.to_string()));
    Ok((parse_workload(&table.to_string(), &where_, sys)?, run))
}

/// The workload of `workload_from = "FILE"` (`from`), with the `[database]` keys of the rest
/// of `table`.
fn characterized(
    mut table: toml::Table,
    from: toml::Value,
    where_: &str,
    dir: Option<&Path>,
    sys: &SystemSpec,
) -> Result<WorkloadSpec, CliError> {
    let bad = |reason: String| CliError::BadInput(format!("{where_}.workload_from: {reason}"));
    let toml::Value::String(from) = from else {
        return Err(bad(format!(
            "give a file name relative to the case file; got {from}"
        )));
    };
    let dir = dir.ok_or_else(|| {
        bad("a built-in case cannot read files; run from a checkout (--references DIR)".into())
    })?;
    let path = dir.join(&from);
    let mut c = crate::sim_cmd::workload_from::read_characterization(&path)?;
    let source = path.display().to_string();
    if let Some(n) = table
        .get_mut("database")
        .and_then(|d| d.as_table_mut())
        .and_then(|d| d.remove("sessions"))
    {
        let key = find(DATABASE_KEYS, "sessions").expect("[database] declares sessions");
        key.check(&n)
            .map_err(|reason| bad(format!("database.sessions {reason}")))?;
        // Within its declared bounds, so a u32.
        c.sessions = n
            .as_integer()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(1);
    }
    c.validate(&source)
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let database = match table.remove("database") {
        None => toml::Table::new(),
        Some(toml::Value::Table(t)) => t,
        Some(other) => return Err(bad(format!("database must be a table; got {other}"))),
    };
    if let Some(key) = table.keys().next() {
        return Err(CliError::BadInput(format!(
            "{where_}.{key}: unknown beside workload_from (give duration, warmup and a \
             [database] table of placement and engine keys)"
        )));
    }
    Ok(storlab_sim::config::character_workload(
        &c,
        database,
        &source,
        sys,
        storlab_sim::config::DEFAULT_MULTIBLOCK_READ_COUNT,
    )?)
}

/// An array a case names: relative to the checkout root, or a built-in copy.
pub fn load_array(root: Option<&Path>, file: &str) -> Result<SystemSpec, CliError> {
    let text = match root {
        Some(r) => read_input(&r.join(file))?,
        None => BUILTIN_ARRAYS
            .iter()
            .find(|(f, _)| *f == file)
            .map(|(_, t)| t.to_string())
            .ok_or_else(|| {
                CliError::BadInput(format!("{file}: not a built-in array; run from a checkout"))
            })?,
    };
    Ok(parse_array(&text, file)?)
}
