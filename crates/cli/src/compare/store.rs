//! The output directory of `storlab compare`: one JSON file per finished unit under
//! `cells/`, written the moment it finishes (atomically, so a crash never leaves half a
//! file), read back on a re-run so finished units are skipped. Only units that finished and
//! succeeded are taken back: a unit that failed runs again, and a unit cut short by Ctrl-C
//! (kept in the study, marked partial) is never stored here.

use std::io::Write;
use std::path::{Path, PathBuf};

use storlab_report::Cell;

use super::plan::Unit;
use crate::error::CliError;
use crate::output::{Format, Output};

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

/// A temporary file an interrupted write of storlab's left: `.NAME.PID-N.storlab-tmp`, the
/// name the output gate gives its temporary files (no other name is ever removed).
fn is_temporary(name: &str) -> bool {
    let Some(stem) = name
        .strip_prefix('.')
        .and_then(|n| n.strip_suffix(crate::output::TEMP_SUFFIX))
    else {
        return false;
    };
    let Some((file, tag)) = stem.rsplit_once('.') else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    !file.is_empty()
        && tag
            .split_once('-')
            .is_some_and(|(p, n)| digits(p) && digits(n))
}

/// Whether a temporary file holds what storlab writes there (a cell file starts `[`), or
/// nothing (killed before writing): a file of the user's under such a name is left alone.
fn holds_a_cell_or_nothing(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 1];
    std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .is_ok_and(|n| n == 0 || head[0] == b'[')
}

/// Whether `cells` is the cells directory of a study made before studies were marked: a
/// directory (not a link) holding cell files storlab wrote and nothing else.
fn an_unmarked_study(cells: &Path) -> bool {
    let is_dir = std::fs::symlink_metadata(cells).is_ok_and(|m| m.is_dir());
    let Ok(entries) = std::fs::read_dir(cells) else {
        return false;
    };
    let entries: Vec<_> = entries.flatten().collect();
    let cell = |e: &std::fs::DirEntry| {
        let name = e.file_name().to_string_lossy().into_owned();
        let file = e.file_type().is_ok_and(|t| t.is_file());
        let json = name.ends_with(".json") && cell_output(&e.path()).check(&[]).is_ok();
        file && (json || (is_temporary(&name) && holds_a_cell_or_nothing(&e.path())))
    };
    is_dir && !entries.is_empty() && entries.iter().all(cell)
}

/// Whether `v` is a cell file storlab wrote (the cells of one unit).
fn is_cells(v: &serde_json::Value) -> bool {
    serde_json::from_value::<Vec<Cell>>(v.clone()).is_ok()
}

/// A cell file of the store, through the output gate.
fn cell_output(path: &Path) -> Output {
    Output::new("--out", path, Format::Json(is_cells))
}

impl Store {
    /// Opens (creates) `out/cells`, removing temporary files a killed run left; with
    /// `fresh`, earlier cells are removed first. A `.json` file there that is not a cell
    /// file storlab wrote is refused (it would be replaced), and nothing else is removed.
    pub fn open(out: &Path, fresh: bool) -> Result<Store, CliError> {
        claim(out)?;
        let dir = out.join("cells");
        let fail =
            |e: std::io::Error| CliError::Failed(format!("{}: cannot prepare: {e}", dir.display()));
        if dir.exists() {
            let entries: Vec<_> = std::fs::read_dir(&dir).map_err(fail)?.flatten().collect();
            for e in &entries {
                let json = e.path().extension().is_some_and(|x| x == "json");
                if json && e.file_type().is_ok_and(|t| !t.is_dir()) {
                    cell_output(&e.path()).check(&[])?;
                }
            }
            for e in entries {
                let name = e.file_name().to_string_lossy().into_owned();
                let cell = e.path().extension().is_some_and(|x| x == "json");
                let file = e.file_type().is_ok_and(|t| t.is_file());
                let leftover = is_temporary(&name) && holds_a_cell_or_nothing(&e.path());
                if file && (leftover || (fresh && cell)) {
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
        cell_output(&self.path(u)).write((text + "\n").as_bytes())
    }
}

/// Marks an output directory as a storlab study's (the files in it are still replaced only
/// when the output gate finds storlab's mark in them).
const STUDY_MARK: &str = ".storlab-study";

/// Makes sure the output directory is storlab's before anything is written there: one that
/// does not exist or is empty is created and marked; one that a study marked before (or whose
/// `cells/` holds storlab's cell files and nothing else) is used; any other directory with content is refused, since a
/// study writes report.html, results.json and CSVs there. In a study's directory, a file of
/// one of those names that storlab did not write is refused too, before anything runs.
pub(crate) fn claim(out: &Path) -> Result<(), CliError> {
    let mark = out.join(STUDY_MARK);
    // The mark counts only as the regular file storlab writes (a link could name any file).
    let marked = std::fs::symlink_metadata(&mark).is_ok_and(|m| m.is_file());
    let ours = marked || an_unmarked_study(&out.join("cells"));
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
    let cells = out.join("cells");
    if std::fs::symlink_metadata(&cells).is_ok_and(|m| !m.is_dir()) {
        return Err(CliError::BadInput(format!(
            "--out {}: {} is a symbolic link or a file, not the cells directory storlab made; storlab will not write or remove anything through it (name a new or empty directory)",
            out.display(),
            cells.display()
        )));
    }
    super::check_study_files(out)?;
    std::fs::create_dir_all(out)
        .and_then(|()| match marked {
            true => Ok(()),
            false => std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&mark)
                .and_then(|mut f| {
                    f.write_all(
                        b"a storlab study: storlab compare may replace the files it wrote\n",
                    )
                }),
        })
        .map_err(|e| CliError::Failed(format!("{}: cannot prepare: {e}", out.display())))
}

#[cfg(test)]
mod tests {
    use super::is_temporary;

    #[test]
    fn only_the_gates_temporary_names_count_as_temporary() {
        assert!(is_temporary(".a__b__1.json.4242-7.storlab-tmp"));
        for name in [
            "a.json.tmp",
            "notes.storlab-tmp",
            ".notes.storlab-tmp",
            ".a.json.x-1.storlab-tmp",
            "..4242-7.storlab-tmp",
            ".a.json.4242-.storlab-tmp",
        ] {
            assert!(!is_temporary(name), "{name}");
        }
    }
}
