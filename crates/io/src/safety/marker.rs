//! The "storlab made this file" marker.
//!
//! The data area of a storlab file is all benchmark data, so the marker lives
//! outside it: an extended attribute `user.storlab` on the file itself. Where
//! the file system refuses user xattrs (ENOTSUP/EOPNOTSUPP, or EPERM where
//! they are not permitted) the marker is a sidecar file `<name>.storlab`
//! beside it. An existing `<name>.storlab` that is not a storlab sidecar is
//! never overwritten.
//!
//! Either marker records the file as storlab left it: device, inode number,
//! size, modification time (to the nanosecond), in the sidecar the birth time,
//! and when it was marked. It vouches for the file only while all of them still
//! match and the inode has not changed since it was marked (its change time,
//! which nothing can set back, is no later than the mark), so it
//! does not survive other content put there: `cp` onto the file (same inode,
//! new size or modification time, and `cp -p` copies the source's time), a
//! rename over it (another inode), or a copy of the file elsewhere with its
//! xattrs (another inode). storlab records the marker again after each run
//! that wrote the file ([`mark_ours`]); a run killed before that leaves a
//! stale marker, and the next run refuses the file (fail closed).

use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

const SIDECAR_HEADER: &str = "storlab marker v3\n";
/// How every sidecar storlab ever wrote starts (older versions vouch for nothing now).
const SIDECAR_FAMILY: &str = "storlab marker v";
/// First word of the xattr marker's value (the older values "1" and "storlab-v2" vouch for
/// nothing now).
const XATTR_VERSION: &str = "storlab-v3";
/// How long after the mark was recorded the kernel may stamp the mark's own change time
/// (its clock is coarser than the one read for the record).
const MARK_CTIME_SLACK_NS: i128 = 1_000_000_000;
/// Largest sidecar read back; real ones are under 100 bytes.
const SIDECAR_MAX_BYTES: u64 = 4096;

fn not_regular() -> io::Error {
    io::Error::new(ErrorKind::InvalidInput, "not a regular file")
}

/// Opens `path` for reading if it is a regular file (never blocks on a FIFO).
fn open_regular(path: &Path) -> io::Result<File> {
    if !fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

#[cfg(target_os = "linux")]
mod xattr {
    use std::ffi::CStr;
    use std::fs::File;
    use std::io;
    use std::os::fd::AsRawFd;

    const NAME: &CStr = c"user.storlab";

    pub fn set(file: &File, value: &[u8]) -> io::Result<()> {
        // SAFETY: the fd is open for the call; NAME is NUL-terminated and
        // value points to value.len() readable bytes.
        let rc = unsafe {
            libc::fsetxattr(
                file.as_raw_fd(),
                NAME.as_ptr(),
                value.as_ptr().cast(),
                value.len(),
                0,
            )
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// The attribute's value (at most 256 bytes), `None` when absent or longer.
    pub fn get(file: &File) -> io::Result<Option<Vec<u8>>> {
        let mut buf = [0u8; 256];
        // SAFETY: the fd is open for the call; buf is writable for buf.len() bytes.
        let len = unsafe {
            libc::fgetxattr(
                file.as_raw_fd(),
                NAME.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        };
        match usize::try_from(len) {
            Ok(len) => Ok(buf.get(..len).map(<[u8]>::to_vec)),
            Err(_) => {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::ENODATA) | Some(libc::ERANGE) => Ok(None),
                    _ => Err(e),
                }
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod xattr {
    use std::fs::File;
    use std::io;

    pub fn set(_: &File, _: &[u8]) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }

    pub fn get(_: &File) -> io::Result<Option<Vec<u8>>> {
        Err(io::ErrorKind::Unsupported.into())
    }
}

/// True if `e` means "this file system does not take user xattrs".
fn xattr_unsupported(e: &io::Error) -> bool {
    let code = e.raw_os_error();
    e.kind() == ErrorKind::Unsupported
        || code == Some(libc::ENOTSUP)
        || code == Some(libc::EOPNOTSUPP)
        || code == Some(libc::EPERM)
}

/// `<path>.storlab`.
pub(crate) fn sidecar_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".storlab");
    PathBuf::from(name)
}

/// The file as storlab left it: what the xattr marker records, but for the time of marking.
fn state(meta: &fs::Metadata) -> String {
    format!(
        "{XATTR_VERSION} dev={} ino={} size={} mtime={}.{:09}",
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec()
    )
}

/// What a sidecar records about the file it marks: its state and birth time.
fn identity(meta: &fs::Metadata) -> String {
    let born = meta
        .created()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok());
    let born = born.map_or_else(
        || "-".to_string(),
        |d| format!("{}.{:09}", d.as_secs(), d.subsec_nanos()),
    );
    format!("{SIDECAR_HEADER}{} born={born}", state(meta))
}

/// The wall-clock time now, in nanoseconds since the epoch, as a mark records it.
fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// `described` followed by the time of marking, as a mark records it.
fn with_time(described: String, marked_ns: i128) -> String {
    format!("{described} marked={marked_ns}\n")
}

/// Whether a recorded mark (`described` and the time of marking) vouches for the file as it
/// is: the same description, and no change to the inode since the mark was set (a change of
/// content, size, mode, owner or links stamps the change time, which nothing can set back;
/// so other content put there with its modification time restored is caught too).
fn vouches(recorded: &str, described: String, meta: &fs::Metadata) -> bool {
    let Some(rest) = recorded.strip_prefix(described.as_str()) else {
        return false;
    };
    let Some(marked) = rest
        .strip_prefix(" marked=")
        .and_then(|t| t.strip_suffix('\n'))
        .and_then(|t| t.parse::<i128>().ok())
    else {
        return false;
    };
    let ctime = meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128;
    ctime <= marked + MARK_CTIME_SLACK_NS
}

/// The contents of `side` if it is a storlab sidecar (a regular file starting with the header).
fn read_sidecar(side: &Path) -> Option<String> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(side)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(SIDECAR_MAX_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    text.starts_with(SIDECAR_FAMILY).then_some(text)
}

/// Marks `path` with a sidecar file (the fallback when xattrs are unsupported).
pub(crate) fn mark_sidecar(path: &Path) -> io::Result<()> {
    let meta = fs::metadata(path)?;
    let side = sidecar_path(path);
    if fs::symlink_metadata(&side).is_ok() && read_sidecar(&side).is_none() {
        let msg = format!(
            "{} exists and is not a storlab marker; not overwriting it",
            side.display()
        );
        return Err(io::Error::new(ErrorKind::AlreadyExists, msg));
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&side)?;
    file.write_all(with_time(identity(&meta), now_ns()).as_bytes())?;
    file.sync_all()
}

/// True if a sidecar marks `path` as it is now (same inode, same birth time).
pub(crate) fn sidecar_marks(path: &Path) -> bool {
    match fs::metadata(path) {
        Ok(meta) => {
            read_sidecar(&sidecar_path(path)).is_some_and(|t| vouches(&t, identity(&meta), &meta))
        }
        Err(_) => false,
    }
}

/// Marks a file storlab created, as it is now: xattr `user.storlab`, else a sidecar. Called
/// when storlab creates the file and again after every run that wrote it.
pub fn mark_ours(path: &Path) -> io::Result<()> {
    let file = open_regular(path)?;
    // Setting the xattr changes only the inode's change time, not what it records.
    let value = with_time(state(&file.metadata()?), now_ns());
    match xattr::set(&file, value.as_bytes()) {
        Err(e) if xattr_unsupported(&e) => mark_sidecar(path),
        other => other,
    }
}

/// True if the file carries an xattr marker that matches it as it is now (`false` if
/// unsupported or unreadable).
pub(crate) fn has_xattr_mark(path: &Path) -> bool {
    let Ok(file) = open_regular(path) else {
        return false;
    };
    match (xattr::get(&file), file.metadata()) {
        (Ok(Some(value)), Ok(meta)) => {
            std::str::from_utf8(&value).is_ok_and(|v| vouches(v, state(&meta), &meta))
        }
        _ => false,
    }
}

/// True if `side` is a storlab sidecar, whichever file state it records.
pub(crate) fn is_storlab_sidecar(side: &Path) -> bool {
    read_sidecar(side).is_some()
}

/// True if the file carries a storlab marker that no longer matches it: storlab made it, then
/// something else changed or replaced it (or a run that wrote it was killed).
pub(crate) fn has_stale_mark(path: &Path) -> bool {
    let xattr = open_regular(path)
        .ok()
        .and_then(|f| xattr::get(&f).ok().flatten())
        .is_some_and(|v| v.starts_with(b"storlab") || v == b"1");
    (xattr || is_storlab_sidecar(&sidecar_path(path))) && !is_ours(path)
}

/// True if storlab created the file and it is as storlab left it (marker matches).
pub fn is_ours(path: &Path) -> bool {
    has_xattr_mark(path) || sidecar_marks(path)
}

/// Removes a file storlab created and its marker (sidecar if any); refuses
/// (`Ok(false)`) if it is not ours. A symbolic link is never ours: storlab
/// does not create links, and removing one would leave its target behind.
pub fn remove_ours(path: &Path) -> io::Result<bool> {
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link || !is_ours(path) {
        return Ok(false);
    }
    let sidecar = sidecar_marks(path);
    fs::remove_file(path)?;
    if sidecar {
        match fs::remove_file(sidecar_path(path)) {
            Err(e) if e.kind() != ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(true)
}
