//! Safety checks that keep `storlab io` from destroying data it did not create.
//!
//! Reads of an existing file or device are always allowed; these checks guard writes.
//!
//! **Block devices** ([`check_device_writable`]). storlab never writes to a device
//! that is in use: mounted itself, through one of its partitions, or through a
//! device-mapper / md device built on it (`/proc/self/mountinfo` major:minor,
//! `/sys/.../holders`, recursively), active as swap (`/proc/swaps`), or refused
//! an exclusive open by the kernel (`O_EXCL` on a block device fails with EBUSY
//! while anything holds it). No flag overrides this. A device that is not in use
//! but holds a file system, RAID, LVM, LUKS, swap or partition-table signature
//! ([`detect_signature`]) is refused unless the user passed `--force-destroy`
//! naming exactly that device (paths compared after canonicalization, so
//! `/dev/disk/by-id/...` and `/dev/sdb` are the same device); so is one holding any other
//! data, unless it is exactly what a storlab run left there (`contents`): without
//! `--force-destroy`, storlab writes only blank devices and its own. The checks fail
//! closed: whatever cannot be inspected is refused with [`SafetyError::Io`].
//!
//! **Regular files**. storlab overwrites only files it created and nobody changed
//! since, recognised by a marker outside the data area (see [`mark_ours`]: an
//! xattr `user.storlab`, or a `<name>.storlab` sidecar where xattrs are
//! unsupported, recording the file's identity, size and modification time).
//! Any other existing file needs `--overwrite` naming it.
//!
//! **The gate** ([`admit`]). Every write to a target goes through a
//! [`WriteGrant`], which only [`admit`] hands out after the checks above.
//!
//! Linux only in substance: elsewhere `/proc` and `/sys` are missing, so device
//! checks refuse, and markers always use the sidecar.

mod contents;
mod gate;
mod marker;
mod mounts;
mod signature;

use std::fs::{self, OpenOptions};
use std::io::{self, ErrorKind, Seek, SeekFrom};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

pub use contents::state_dir;
pub use gate::{admit, Admitted, FileId, WriteGrant};
pub use marker::{is_ours, mark_ours, remove_ours};
pub use mounts::mounts_of_device;
pub use signature::detect_signature;

/// Why storlab refuses to write somewhere. Every variant is fatal for the run
/// that asked; the message names the path and, where there is one, the fix.
#[derive(Debug, thiserror::Error)]
pub enum SafetyError {
    /// The device, one of its partitions, or a device built on it is in use.
    #[error(
        "{}; storlab will not write to it",
        in_use(.device, .mount_point.as_deref(), .via.as_deref())
    )]
    Mounted {
        device: PathBuf,
        /// Mount point ("[SWAP]" for active swap); `None` when a stacked
        /// device or the kernel holds it.
        mount_point: Option<PathBuf>,
        /// The partition or stacked device in use; `None` when it is the device itself.
        via: Option<PathBuf>,
    },
    /// The device holds data storlab recognises; `--force-destroy DEVICE` overrides.
    #[error(
        "{} holds {}; to destroy it pass --force-destroy {}",
        .device.display(),
        signature::describe(.kind),
        .device.display()
    )]
    Signature { device: PathBuf, kind: &'static str },
    /// The device holds data no probe recognises and no storlab run left there.
    #[error(
        "{} holds data storlab did not write (a non-zero byte at offset {}, and no record of a storlab run leaving it so); to destroy it pass --force-destroy {}",
        .device.display(),
        .offset,
        .device.display()
    )]
    Unrecognised { device: PathBuf, offset: u64 },
    /// An existing regular file without storlab's marker, or whose marker no longer matches
    /// it; `--overwrite` naming the target overrides.
    #[error(
        "{} exists and {}; storlab will not write to it (pass --overwrite {} to write it anyway)",
        .path.display(),
        if *.changed {
            "changed since storlab last wrote it (other content put there, or a storlab run killed while writing it)"
        } else {
            "was not created by storlab"
        },
        .path.display()
    )]
    NotOurs { path: PathBuf, changed: bool },
    /// The path could not be inspected, or is not the kind of thing asked for.
    #[error("cannot inspect {}: {}", .path.display(), reason(.source))]
    Io { path: PathBuf, source: io::Error },
}

fn in_use(device: &Path, mount_point: Option<&Path>, via: Option<&Path>) -> String {
    let device = device.display();
    match (mount_point, via) {
        (Some(mp), Some(via)) => format!(
            "{device} is mounted at {} (via {})",
            mp.display(),
            via.display()
        ),
        (Some(mp), None) => format!("{device} is mounted at {}", mp.display()),
        (None, Some(via)) => format!(
            "{device} is in use by {}, a device built on it",
            via.display()
        ),
        (None, None) => format!("{device} is in use (the kernel refused exclusive access)"),
    }
}

/// An io::Error as a lower-case phrase: "permission denied", not
/// "Permission denied (os error 13)".
fn reason(e: &io::Error) -> String {
    let text = e.to_string();
    let text = match text.find(" (os error ") {
        Some(i) if e.raw_os_error().is_some() => &text[..i],
        _ => &text,
    };
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
}

pub(crate) fn invalid(what: &str) -> io::Error {
    io::Error::new(ErrorKind::InvalidInput, what)
}

/// True if `named` (a flag's value: `--force-destroy`, `--overwrite`) names the same path as
/// `path` once both are canonicalized.
pub fn flag_names(path: &Path, named: Option<&Path>) -> bool {
    match (named.map(fs::canonicalize), fs::canonicalize(path)) {
        (Some(Ok(named)), Ok(path)) => named == path,
        _ => false,
    }
}

/// Decides whether storlab may write to a block device at `path`.
///
/// In order: `path` must be a block device; nothing may use it (mounts, swap,
/// holders, exclusive open; never overridable); then it must hold no known
/// signature unless `force_destroy` names it.
pub fn check_device_writable(path: &Path, force_destroy: Option<&Path>) -> Result<(), SafetyError> {
    let io_err = |source: io::Error| SafetyError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = fs::metadata(path).map_err(io_err)?;
    if !meta.file_type().is_block_device() {
        let what = if meta.is_file() {
            "a regular file, not a block device (files are checked with --overwrite instead)"
        } else {
            "not a block device"
        };
        return Err(io_err(invalid(what)));
    }
    let num = mounts::split_dev(meta.rdev());
    let family = mounts::family(num).map_err(io_err)?;
    if !family.in_sysfs {
        let msg = format!(
            "/sys/dev/block/{}:{} is missing, so its partitions and holders cannot be checked",
            num.0, num.1
        );
        return Err(io_err(io::Error::new(ErrorKind::NotFound, msg)));
    }
    if let Some(u) = mounts::uses(&family).map_err(io_err)?.into_iter().next() {
        return Err(SafetyError::Mounted {
            device: path.to_path_buf(),
            mount_point: u.mount_point,
            via: u.via,
        });
    }
    // O_EXCL without O_CREAT on a block device: EBUSY while the kernel holds it.
    let mut dev = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(path)
    {
        Ok(dev) => dev,
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
            return Err(SafetyError::Mounted {
                device: path.to_path_buf(),
                mount_point: None,
                via: None,
            })
        }
        Err(e) => return Err(io_err(e)),
    };
    if flag_names(path, force_destroy) {
        return Ok(());
    }
    if let Some(kind) = detect_signature(&mut dev).map_err(io_err)? {
        return Err(SafetyError::Signature {
            device: path.to_path_buf(),
            kind,
        });
    }
    // No format storlab knows: still only a blank device, or one as a storlab run left it.
    let size = dev.seek(SeekFrom::End(0)).map_err(io_err)?;
    let look = contents::look(&mut dev, size).map_err(io_err)?;
    match look.first_nonzero {
        None => Ok(()),
        Some(_) if contents::left_by_storlab(&look) => Ok(()),
        Some(offset) => Err(SafetyError::Unrecognised {
            device: path.to_path_buf(),
            offset,
        }),
    }
}

/// Records a block device as a storlab run leaves it, so the next run may write it again
/// (see `contents`).
pub(crate) fn record_device(path: &Path) -> io::Result<()> {
    contents::record(path)
}

#[cfg(test)]
mod tests;
