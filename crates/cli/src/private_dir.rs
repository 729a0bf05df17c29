//! Private directories of one process under a parent (the temporary directory):
//! `<prefix>-<pid>-<n>`, mode 0700, holding the files a call writes for the command line's
//! loaders, removed when the call ends. A process killed during a call (a Ray worker
//! cancelled or shut down) cannot remove its directory; [`remove_stale`] removes such
//! leftovers later, and only while they are provably storlab's: named by the pattern, owned
//! by this user, mode 0700, left by a process that no longer runs, not locked, and holding
//! nothing but regular files storlab writes there.
//!
//! Whether the owner still runs is decided twice, because a pid alone cannot tell: processes
//! in another PID namespace (another container sharing the temporary directory under the
//! same uid) have pids this process cannot see. The owner holds an exclusive `flock` on its
//! directory for as long as it uses it ([`PrivateDir`]); the lock belongs to the directory
//! itself, so it is seen from any namespace and goes when the owner's process ends, however
//! it ends. The sweep removes a directory only when its named pid does not run here, the
//! sweep can take the lock itself (and holds it while removing), and the directory was last
//! changed more than [`MIN_AGE`] ago (a directory between its creation and its owner's
//! lock, a few microseconds, is never that old).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Least time since a directory last changed for the sweep to remove it.
pub const MIN_AGE: Duration = Duration::from_secs(60);

/// A private directory in use: its path, and the open directory holding the owner's lock
/// (released when this is dropped; remove the directory before).
#[derive(Debug)]
pub struct PrivateDir {
    pub path: PathBuf,
    _lock: File,
}

/// A new directory `<prefix>-<pid>-<n>` of this process in `parent`, mode 0700, created
/// here (never one that exists: its owner removes it whole), locked by this process.
pub fn create(parent: &Path, prefix: &str) -> std::io::Result<PrivateDir> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let d = parent.join(format!("{prefix}-{}-{n}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&d) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => continue,
            Err(e) => return Err(e),
            Ok(()) => {
                let lock = open_dir(&d).and_then(|f| {
                    if try_lock(&f)? {
                        Ok(f)
                    } else {
                        Err(std::io::Error::other("locked by another process"))
                    }
                });
                return match lock {
                    Ok(lock) => Ok(PrivateDir {
                        path: d,
                        _lock: lock,
                    }),
                    Err(e) => {
                        let _ = std::fs::remove_dir(&d);
                        Err(e)
                    }
                };
            }
        }
    }
}

/// `dir` opened as a directory, never through a symbolic link.
fn open_dir(dir: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir)
}

/// Takes an exclusive `flock` on `f` without waiting: false when another open file holds it.
fn try_lock(f: &File) -> std::io::Result<bool> {
    // SAFETY: flock on a file descriptor this `File` owns; no memory is touched.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Removes the directories `<prefix>-<pid>-<n>` in `parent` that a process no longer running
/// left, each only when it is a directory (not a link) of this user with mode 0700, not
/// locked by its owner, unchanged for [`MIN_AGE`], holding only regular files whose names
/// `written_here` accepts. Those files go one by one and the directory last, by a removal
/// that fails if it is not empty, so nothing else is ever removed. A directory of this
/// process, of a process that runs, or locked (its owner runs, maybe in another PID
/// namespace) is kept. Returns the directories removed.
pub fn remove_stale(
    parent: &Path,
    prefix: &str,
    written_here: impl Fn(&str) -> bool,
) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| owner_pid(n, prefix)) else {
            continue;
        };
        let dir = entry.path();
        if pid == std::process::id() || runs(pid) {
            continue;
        }
        // The sweep's own lock: the owner, were it alive anywhere, would hold it.
        let Ok(lock) = open_dir(&dir) else {
            continue;
        };
        if !try_lock(&lock).unwrap_or(false) || !unchanged_for(&lock, MIN_AGE) {
            continue;
        }
        let Some(files) = files_if_only(&dir, &written_here) else {
            continue;
        };
        for f in files {
            let _ = std::fs::remove_file(f);
        }
        if std::fs::remove_dir(&dir).is_ok() {
            removed.push(dir);
        }
    }
    removed
}

/// Whether the open directory `f` last changed at least `age` ago (a modification time in
/// the future counts as just changed). The wall clock is right here: a file's age, not a
/// simulated time.
#[allow(clippy::disallowed_methods)]
fn unchanged_for(f: &File, age: Duration) -> bool {
    f.metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|d| d >= age)
}

/// The pid in a name `<prefix>-<pid>-<n>` (both numbers in decimal digits only).
fn owner_pid(name: &str, prefix: &str) -> Option<u32> {
    let (pid, n) = name
        .strip_prefix(prefix)?
        .strip_prefix('-')?
        .split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n)).then(|| pid.parse().ok())?
}

/// Whether process `pid` exists (signal 0 checks without sending; EPERM: it exists, as
/// another user's). A pid that does not fit a pid_t counts as running: nothing is removed.
fn runs(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if pid <= 0 {
        return true;
    }
    // SAFETY: kill with signal 0 sends nothing; it only reports whether the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// The files of `dir` when it is a directory (not a link) of this user, mode 0700, whose
/// entries are all regular files with names `written_here` accepts; None otherwise.
fn files_if_only(dir: &Path, written_here: &impl Fn(&str) -> bool) -> Option<Vec<PathBuf>> {
    let meta = std::fs::symlink_metadata(dir).ok()?;
    // SAFETY: geteuid cannot fail and touches no memory.
    let me = unsafe { libc::geteuid() };
    if !meta.is_dir() || meta.uid() != me || meta.permissions().mode() & 0o7777 != 0o700 {
        return None;
    }
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).ok()? {
        let e = e.ok()?;
        let ours = e.file_type().is_ok_and(|t| t.is_file())
            && e.file_name().to_str().is_some_and(&written_here);
        if !ours {
            return None;
        }
        files.push(e.path());
    }
    Some(files)
}

#[cfg(test)]
mod tests;
