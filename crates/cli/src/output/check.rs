//! Output paths checked before a run starts: a result file named by a directory, a directory
//! that cannot be created or written, a read-only or (nearly) full file system are bad input
//! found in the first second, not after an hour of simulation. The check creates nothing.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::atomic::parent_dir;
use crate::error::CliError;

/// Free space below which a file system counts as full (a result file takes 20 KiB a run;
/// results that do not fit in what is left fail at the end, leaving any old file intact).
pub const MIN_FREE_BYTES: u64 = 64 << 10;

/// What an output path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A file written at the end (`--json FILE`).
    File,
    /// A directory the results go into (`--out DIR`).
    Dir,
}

/// Checks one output path; the message names the flag, the path and the reason.
pub fn check_output(flag: &str, path: &Path, kind: Kind) -> Result<(), CliError> {
    let bad = |reason: String| CliError::BadInput(format!("{flag} {}: {reason}", path.display()));
    let existing = std::fs::metadata(path).ok();
    let named_as_dir = path.as_os_str().as_bytes().ends_with(b"/");
    let dir: PathBuf = match (kind, &existing) {
        (Kind::File, Some(m)) if m.is_dir() => {
            return Err(bad(format!(
                "is a directory; name a file in it, e.g. {}",
                path.join("results.json").display()
            )))
        }
        (Kind::File, _) if named_as_dir => {
            return Err(bad("names a directory; name a file instead".into()))
        }
        // A device or a pipe (/dev/stdout) is written in place.
        (Kind::File, Some(m)) if !m.is_file() => return Ok(()),
        (Kind::File, _) => parent_dir(&std::fs::canonicalize(path).unwrap_or(path.into())).into(),
        (Kind::Dir, Some(m)) if !m.is_dir() => return Err(bad("is not a directory".into())),
        (Kind::Dir, _) => path.to_path_buf(),
    };
    let base = nearest_existing(&dir);
    if !base.is_dir() {
        return Err(bad(format!(
            "cannot create {}: {} is not a directory",
            dir.display(),
            base.display()
        )));
    }
    let fs = statvfs(&base).map_err(|e| bad(format!("{}: {e}", base.display())))?;
    if fs.read_only {
        return Err(bad(format!(
            "{} is on a read-only file system",
            base.display()
        )));
    }
    writable(&base).map_err(|e| bad(format!("cannot write in {}: {e}", base.display())))?;
    if fs.free_bytes < MIN_FREE_BYTES {
        return Err(bad(format!(
            "the file system of {} has {} KiB free; at least {} KiB are needed",
            base.display(),
            fs.free_bytes >> 10,
            MIN_FREE_BYTES >> 10
        )));
    }
    Ok(())
}

/// `dir` itself when it exists, else its nearest existing ancestor (where creating starts).
fn nearest_existing(dir: &Path) -> PathBuf {
    let mut d = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        Path::new(".").join(dir)
    };
    while std::fs::symlink_metadata(&d).is_err() {
        match d.parent() {
            Some(p) if !p.as_os_str().is_empty() => d = p.to_path_buf(),
            _ => return PathBuf::from("."),
        }
    }
    d
}

fn c_path(p: &Path) -> std::io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "NUL in the path"))
}

/// Whether files can be created in `dir` (permissions, an immutable directory).
fn writable(dir: &Path) -> std::io::Result<()> {
    let c = c_path(dir)?;
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    let rc = unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

struct FsFacts {
    read_only: bool,
    free_bytes: u64,
}

fn statvfs(dir: &Path) -> std::io::Result<FsFacts> {
    let c = c_path(dir)?;
    // SAFETY: zeroed is a valid statvfs; `c` outlives the call, which fills `s`.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut s) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: geteuid has no preconditions. Root may use the blocks reserved for it.
    let blocks = if unsafe { libc::geteuid() } == 0 {
        s.f_bfree
    } else {
        s.f_bavail
    };
    Ok(FsFacts {
        read_only: s.f_flag & libc::ST_RDONLY != 0,
        free_bytes: blocks.saturating_mul(s.f_frsize),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_or_a_path_through_a_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = check_output("--json", dir.path(), Kind::File)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--json ") && e.contains("is a directory"),
            "{e}"
        );
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let e = check_output("--json", &file.join("sub/r.json"), Kind::File)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a directory"), "{e}");
        let e = check_output("--out", &file, Kind::Dir)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a directory"), "{e}");
    }

    #[test]
    fn new_files_and_directories_under_a_writable_directory_pass() {
        let dir = tempfile::tempdir().unwrap();
        check_output("--json", &dir.path().join("a/b/r.json"), Kind::File).unwrap();
        check_output("--out", &dir.path().join("a/b"), Kind::Dir).unwrap();
        check_output("--json", Path::new("r.json"), Kind::File).unwrap();
        check_output("--json", Path::new("/dev/null"), Kind::File).unwrap();
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    }
}
