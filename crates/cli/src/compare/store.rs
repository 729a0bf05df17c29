//! The output directory of `storlab compare`: one JSON file per finished unit under
//! `cells/`, written the moment it finishes (write to a temporary name, then rename, so a
//! crash never leaves half a file), read back on a re-run so finished units are skipped.

use std::path::{Path, PathBuf};

use storlab_report::Cell;

use super::plan::Unit;
use crate::error::CliError;

/// The cells directory of an output directory.
pub struct Store {
    dir: PathBuf,
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

impl Store {
    /// Opens (creates) `out/cells`; with `fresh`, earlier cells are removed first.
    pub fn open(out: &Path, fresh: bool) -> Result<Store, CliError> {
        let dir = out.join("cells");
        let fail =
            |e: std::io::Error| CliError::Failed(format!("{}: cannot prepare: {e}", dir.display()));
        if fresh && dir.exists() {
            for e in std::fs::read_dir(&dir).map_err(fail)?.flatten() {
                if e.path().extension().is_some_and(|x| x == "json") {
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

    /// The cells of a finished unit, when an earlier run stored them with the same command.
    pub fn load(&self, u: &Unit) -> Option<Vec<Cell>> {
        let text = std::fs::read_to_string(self.path(u)).ok()?;
        let cells: Vec<Cell> = serde_json::from_str(&text).ok()?;
        let command = u.command();
        cells.iter().all(|c| c.command == command).then_some(cells)
    }

    /// Stores a finished unit's cells.
    pub fn save(&self, u: &Unit, cells: &[Cell]) -> Result<(), CliError> {
        let path = self.path(u);
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(cells)
            .map_err(|e| CliError::Failed(format!("cannot encode a cell: {e}")))?;
        std::fs::write(&tmp, text + "\n")
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| CliError::Failed(format!("{}: cannot write: {e}", path.display())))
    }
}
