//! The output directory of `storlab compare`: one JSON file per finished unit under
//! `cells/`, written the moment it finishes (atomically, so a crash never leaves half a
//! file), read back on a re-run so finished units are skipped. Only units that finished and
//! succeeded are taken back: a unit that failed runs again, and a unit cut short by Ctrl-C
//! (kept in the study, marked partial) is never stored here.

use std::path::{Path, PathBuf};

use storlab_report::Cell;

use super::plan::Unit;
use crate::error::CliError;
use crate::output::write_atomic;

/// The cells directory of an output directory.
pub struct Store {
    dir: PathBuf,
}

/// What an earlier run left for a unit.
pub enum Earlier {
    /// Nothing usable: the unit runs.
    Nothing,
    /// It finished and succeeded: its cells are taken as they are.
    Finished(Vec<Cell>),
    /// It failed (the reason): the unit runs again.
    Failed(String),
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A temporary file of an interrupted write (this store's or an older version's).
fn is_temporary(name: &str) -> bool {
    name.ends_with(crate::output::TEMP_SUFFIX) || name.ends_with(".json.tmp")
}

impl Store {
    /// Opens (creates) `out/cells`, removing temporary files a killed run left; with
    /// `fresh`, earlier cells are removed first.
    pub fn open(out: &Path, fresh: bool) -> Result<Store, CliError> {
        claim(out)?;
        let dir = out.join("cells");
        let fail =
            |e: std::io::Error| CliError::Failed(format!("{}: cannot prepare: {e}", dir.display()));
        if dir.exists() {
            for e in std::fs::read_dir(&dir).map_err(fail)?.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let cell = e.path().extension().is_some_and(|x| x == "json");
                if is_temporary(&name) || (fresh && cell) {
                    std::fs::remove_file(e.path()).map_err(fail)?;
                }
            }
        }
        std::fs::create_dir_all(&dir).map_err(fail)?;
        Ok(Store { dir })
    }

    fn path(&self, u: &Unit) -> PathBuf {
        self.dir.join(format!(
            "{}__{}__{}.json",
            slug(&u.target),
            slug(&u.workload),
            u.repeat
        ))
    }

    /// What an earlier run stored for `u` with the same command.
    pub fn load(&self, u: &Unit) -> Earlier {
        let Ok(text) = std::fs::read_to_string(self.path(u)) else {
            return Earlier::Nothing;
        };
        let Ok(cells) = serde_json::from_str::<Vec<Cell>>(&text) else {
            return Earlier::Nothing;
        };
        let command = u.command();
        if cells.is_empty() || cells.iter().any(|c| c.command != command) {
            return Earlier::Nothing;
        }
        let unfinished = |c: &Cell| c.failed() || c.run.as_ref().is_some_and(|r| r.partial);
        match cells.iter().find(|c| unfinished(c)) {
            Some(c) => Earlier::Failed(
                c.error
                    .clone()
                    .unwrap_or_else(|| "partial result".to_string()),
            ),
            None => Earlier::Finished(cells),
        }
    }

    /// Stores a finished unit's cells.
    pub fn save(&self, u: &Unit, cells: &[Cell]) -> Result<(), CliError> {
        let text = serde_json::to_string_pretty(cells)
            .map_err(|e| CliError::Failed(format!("cannot encode a cell: {e}")))?;
        write_atomic(&self.path(u), (text + "\n").as_bytes())
    }
}

/// Marks an output directory as a storlab study's; its content is storlab's to replace.
const STUDY_MARK: &str = ".storlab-study";

/// Makes sure the output directory is storlab's before anything is written there: one that
/// does not exist or is empty is created and marked; one that a study marked before (or laid
/// out: a `cells/` directory) is used; any other directory with content is refused, since a
/// study writes report.html, results.json and CSVs there and would replace the user's files.
pub(crate) fn claim(out: &Path) -> Result<(), CliError> {
    let mark = out.join(STUDY_MARK);
    let ours = mark.is_file() || out.join("cells").is_dir();
    let empty = match std::fs::read_dir(out) {
        Ok(mut entries) => entries.next().is_none(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(e) => {
            return Err(CliError::BadInput(format!(
                "--out {}: cannot read: {e}",
                out.display()
            )))
        }
    };
    if !ours && !empty {
        return Err(CliError::BadInput(format!(
            "--out {}: the directory holds files that are not a storlab study's; storlab will not write there (name a new or empty directory)",
            out.display()
        )));
    }
    std::fs::create_dir_all(out)
        .and_then(|()| match mark.is_file() {
            true => Ok(()),
            false => std::fs::write(
                &mark,
                "a storlab study: storlab compare may replace its files\n",
            ),
        })
        .map_err(|e| CliError::Failed(format!("{}: cannot prepare: {e}", out.display())))
}
