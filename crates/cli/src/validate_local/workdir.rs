//! The work directory of `storlab validate --local`: a fresh directory storlab creates for the
//! calibration file and the database cluster, and removes with everything in it when dropped
//! (at the end, on error, after Ctrl-C, and while unwinding from a panic).

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::CliError;

/// `statfs` magic of tmpfs, where O_DIRECT does not work.
const TMPFS_MAGIC: i64 = 0x0102_1994;

/// A directory storlab created; removed (recursively) on drop.
#[derive(Debug)]
pub struct WorkDir {
    path: PathBuf,
}

impl WorkDir {
    /// Creates `storlab-local.PID.N` under `parent`, or, without one, under the current
    /// directory when the database server (another OS user when storlab is root) can reach it
    /// and O_DIRECT works there, else under `/var/tmp`. A `parent` that does not exist, is on
    /// tmpfs or is not writable is bad input.
    pub fn create(parent: Option<&Path>) -> Result<WorkDir, CliError> {
        let parent = match parent {
            Some(p) => {
                check_parent(p)?;
                p.to_path_buf()
            }
            None => default_parent(),
        };
        let pid = std::process::id();
        for n in 0..100 {
            let path = parent.join(format!("storlab-local.{pid}.{n}"));
            match std::fs::DirBuilder::new().mode(0o755).create(&path) {
                Ok(()) => {
                    // The umask may have taken bits away; the server user must traverse it.
                    let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755));
                    return Ok(WorkDir { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(CliError::BadInput(format!(
                        "--dir {}: cannot create a work directory there: {e}",
                        parent.display()
                    )))
                }
            }
        }
        Err(CliError::Failed(format!(
            "{}: no free work directory name",
            parent.display()
        )))
    }

    /// Where the work happens.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                eprintln!(
                    "storlab: warning: could not remove {}: {e}; remove it by hand",
                    self.path.display()
                );
            }
        }
    }
}

fn check_parent(p: &Path) -> Result<(), CliError> {
    if !p.is_dir() {
        return Err(CliError::BadInput(format!(
            "--dir {}: not an existing directory",
            p.display()
        )));
    }
    if on_tmpfs(p) {
        return Err(CliError::BadInput(format!(
            "--dir {}: on tmpfs, where O_DIRECT does not work; use a directory on a disk",
            p.display()
        )));
    }
    Ok(())
}

/// The current directory if usable, else `/var/tmp`.
fn default_parent() -> PathBuf {
    match std::env::current_dir() {
        Ok(cwd) if !on_tmpfs(&cwd) && reachable_by_others(&cwd) => cwd,
        _ => PathBuf::from("/var/tmp"),
    }
}

/// Every directory from `/` down to `dir` can be searched by other users (the server runs as
/// `postgres` when storlab is root).
fn reachable_by_others(dir: &Path) -> bool {
    dir.ancestors()
        .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

fn on_tmpfs(p: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: statfs fills the struct for a valid C string.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c.as_ptr(), &mut s) } != 0 {
        return false;
    }
    s.f_type as i64 == TMPFS_MAGIC
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_directory_is_fresh_searchable_and_removed_on_drop() {
        // Beside the sources: on a disk (a tmpfs /tmp would be refused).
        let parent = tempfile::Builder::new()
            .prefix(".workdir-test")
            .tempdir_in(env!("CARGO_MANIFEST_DIR"))
            .unwrap();
        let wd = WorkDir::create(Some(parent.path())).unwrap();
        let path = wd.path().to_path_buf();
        assert!(path.starts_with(parent.path()));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
        std::fs::write(path.join("f"), b"x").unwrap();
        drop(wd);
        assert!(!path.exists());
        let missing = parent.path().join("missing");
        assert!(matches!(
            WorkDir::create(Some(&missing)),
            Err(CliError::BadInput(_))
        ));
    }
}
