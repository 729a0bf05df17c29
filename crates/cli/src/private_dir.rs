//! Private directories of one process under a parent (the temporary directory):
//! `<prefix>-<pid>-<n>`, mode 0700, holding the files a call writes for the command line's
//! loaders, removed when the call ends. A process killed during a call (a Ray worker
//! cancelled or shut down) cannot remove its directory; [`remove_stale`] removes such
//! leftovers later, and only while they are provably storlab's: named by the pattern, owned
//! by this user, mode 0700, left by a process that no longer runs, and holding nothing but
//! regular files storlab writes there.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A new directory `<prefix>-<pid>-<n>` of this process in `parent`, mode 0700, created
/// here (never one that exists: its owner removes it whole).
pub fn create(parent: &Path, prefix: &str) -> std::io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let d = parent.join(format!("{prefix}-{}-{n}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&d) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => continue,
            other => return other.map(|()| d),
        }
    }
}

/// Removes the directories `<prefix>-<pid>-<n>` in `parent` that a process no longer running
/// left, each only when it is a directory (not a link) of this user with mode 0700 holding
/// only regular files whose names `written_here` accepts. Those files go one by one and the
/// directory last, by a removal that fails if it is not empty, so nothing else is ever
/// removed. A directory of this process, or of a process that runs, is kept. Returns the
/// directories removed.
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
