//! Atomic replacement of a result file: the new content goes to a temporary file in the same
//! directory (a unique name, created with O_EXCL), is written and fsynced, then renamed over
//! the target, and the directory is fsynced. A reader (or a crash, or a full file system)
//! sees the old file or the new one, never half of either; on any error the temporary file
//! is removed and the old file is left as it was.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::CliError;

/// The end of every temporary file's name (`.NAME.PID-N.storlab-tmp`), for those that clear
/// what a killed run left.
pub const TEMP_SUFFIX: &str = ".storlab-tmp";

/// How many names to try when earlier temporary files (of a killed run) take the first ones.
const NAME_ATTEMPTS: u32 = 64;

/// Distinguishes the temporary files of one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Removes the temporary file unless it was renamed into place.
struct TempGuard {
    path: PathBuf,
    renamed: bool,
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Where writing `path` really goes: the file a symlink points at (so the link survives),
/// else `path` itself.
fn resolve(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// The directory holding `path` ("." for a bare file name).
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

fn failed(path: &Path, e: &std::io::Error) -> CliError {
    let full = e.raw_os_error() == Some(libc::ENOSPC) || e.raw_os_error() == Some(libc::EDQUOT);
    let kept = if full && path.exists() {
        "; the existing file was left as it was"
    } else {
        ""
    };
    CliError::Failed(format!("{}: cannot write: {e}{kept}", path.display()))
}

/// Creates a fresh temporary file beside `target` with O_EXCL.
fn create_temp(target: &Path, dir: &Path, mode: u32) -> std::io::Result<(File, TempGuard)> {
    let name = target
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let mut last = None;
    for _ in 0..NAME_ATTEMPTS {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}-{n}{TEMP_SUFFIX}", std::process::id()));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)
        {
            Ok(f) => {
                let guard = TempGuard {
                    path: tmp,
                    renamed: false,
                };
                return Ok((f, guard));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

/// Writes `bytes` to a device or a named pipe as it is (nothing created or truncated). A pipe
/// is opened without blocking: until a reader opens it, storlab waits, but stops at Ctrl-C.
fn write_in_place(path: &Path, fifo: bool, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true);
    if !fifo {
        return options.open(path)?.write_all(bytes);
    }
    let file = loop {
        match options.custom_flags(libc::O_NONBLOCK).open(path) {
            Ok(f) => break f,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if storlab_io::signal::stop_requested() {
                    return Err(std::io::Error::other(
                        "a named pipe nobody reads; interrupted while waiting for a reader",
                    ));
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(e) => return Err(e),
        }
    };
    // Blocking from here: the reader takes the bytes at its pace.
    // SAFETY: F_GETFL/F_SETFL on a descriptor the File owns; no memory is passed.
    unsafe {
        let flags = libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(&file), libc::F_GETFL);
        libc::fcntl(
            std::os::fd::AsRawFd::as_raw_fd(&file),
            libc::F_SETFL,
            flags & !libc::O_NONBLOCK,
        );
    }
    let mut file = file;
    file.write_all(bytes)
}

/// Replaces `path` with `bytes` atomically (see the module doc). A path naming a device or
/// a pipe (`/dev/stdout`) is written in place, as there is nothing to replace.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let target = resolve(path);
    let existing = std::fs::metadata(&target).ok();
    if let Some(m) = &existing {
        if m.is_dir() {
            return Err(CliError::Failed(format!(
                "{}: cannot write: it is a directory",
                path.display()
            )));
        }
        if !m.is_file() {
            return write_in_place(&target, m.file_type().is_fifo(), bytes)
                .map_err(|e| failed(path, &e));
        }
    }
    let dir = parent_dir(&target);
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::Failed(format!("{}: cannot create: {e}", dir.display())))?;
    // A replaced file keeps its permission bits; a new one gets 0666 less the umask.
    let mode = existing.map(|m| m.permissions().mode() & 0o7777);
    let (mut file, mut guard) =
        create_temp(&target, dir, mode.unwrap_or(0o666)).map_err(|e| failed(path, &e))?;
    if let Some(m) = mode {
        file.set_permissions(std::fs::Permissions::from_mode(m))
            .map_err(|e| failed(path, &e))?;
    }
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| failed(path, &e))?;
    drop(file);
    std::fs::rename(&guard.path, &target).map_err(|e| failed(path, &e))?;
    guard.renamed = true;
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| CliError::Failed(format!("{}: cannot sync: {e}", dir.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "permission bits kept");
        assert_eq!(names(dir.path()), ["r.json"]);
    }

    #[test]
    fn writes_through_a_symlink_and_creates_missing_directories() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        let deep = dir.path().join("a/b/c.json");
        write_atomic(&deep, b"x").unwrap();
        assert_eq!(std::fs::read_to_string(&deep).unwrap(), "x");
    }

    #[test]
    fn a_directory_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let e = write_atomic(dir.path(), b"x").unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        assert!(names(dir.path()).is_empty());
    }
}
