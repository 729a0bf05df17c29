//! The one gate every write to a target passes.
//!
//! [`admit`] decides whether storlab may write a path and, if so, hands out a [`WriteGrant`],
//! the only value that can open the path for writing ([`WriteGrant::open`],
//! [`WriteGrant::create`]). The run asks once per file or device, from what it will actually
//! do (any class that writes, group commit, preconditioning, extending a file), before any
//! byte is written; the preparation, the fill, the preconditioning pass and every worker then
//! open through the grant. A grant remembers the identity (device and inode, or the device
//! number of a block device) of what it admitted, and every open checks that the path still
//! names the same thing, so a file swapped in between is refused rather than written.

use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::{check_device_writable, is_ours, marker, SafetyError};

/// Why a path was admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admitted {
    /// Nothing is there: storlab creates the file ([`WriteGrant::create`]).
    New,
    /// A regular file whose marker says storlab left it as it is now.
    Ours,
    /// A regular file storlab did not create, named by `--overwrite`.
    Overwrite,
    /// A block device that passed the device checks.
    Device,
}

/// Permission to write one path, from [`admit`] only.
#[derive(Debug)]
pub struct WriteGrant {
    path: PathBuf,
    admitted: Admitted,
    /// What the path named when admitted; `None` until a new file exists.
    identity: Option<Identity>,
}

/// Which file or directory a path named: device, inode number and birth time (nanoseconds
/// since the epoch, 0 where the file system keeps none). An inode number is reused once its
/// file is deleted; the birth time tells the two apart. Serializable, so a record can name
/// what storlab made (storlab db's leftover records).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
    pub birth_ns: u64,
}

impl FileId {
    /// The identity in `meta` (not following a symbolic link if `meta` did not).
    pub fn of(meta: &fs::Metadata) -> FileId {
        let birth_ns = meta
            .created()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
            birth_ns,
        }
    }
}

/// What a grant admitted: a file's identity, or a block device's device number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Identity {
    File(FileId),
    Device(u64),
}

fn identity_of(meta: &fs::Metadata) -> Identity {
    match meta.file_type().is_block_device() {
        true => Identity::Device(meta.rdev()),
        false => Identity::File(FileId::of(meta)),
    }
}

fn io_err(path: &Path) -> impl Fn(io::Error) -> SafetyError + '_ {
    move |source| SafetyError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Decides whether storlab may write `path`.
///
/// - Nothing there: admitted as [`Admitted::New`] (a dangling symbolic link is refused:
///   creating through it would write where the user did not look).
/// - A regular file: admitted when its marker says storlab created it and nobody changed it
///   since, or when `overwrite` (the user named this target with `--overwrite`); else
///   [`SafetyError::NotOurs`].
/// - A block device: [`check_device_writable`] (never when in use; a signature needs
///   `--force-destroy` naming it).
/// - Anything else is refused.
pub fn admit(
    path: &Path,
    overwrite: bool,
    force_destroy: Option<&Path>,
) -> Result<WriteGrant, SafetyError> {
    let err = io_err(path);
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Ok(WriteGrant {
                path: path.to_path_buf(),
                admitted: Admitted::New,
                identity: None,
            })
        }
        Err(e) => return Err(err(e)),
        Ok(m) if m.file_type().is_symlink() => fs::metadata(path).map_err(|e| match e.kind() {
            ErrorKind::NotFound => err(super::invalid("a symbolic link to a missing file")),
            _ => err(e),
        })?,
        Ok(m) => m,
    };
    let kind = meta.file_type();
    let admitted = if kind.is_block_device() {
        check_device_writable(path, force_destroy)?;
        Admitted::Device
    } else if kind.is_file() {
        if is_ours(path) {
            Admitted::Ours
        } else if overwrite {
            Admitted::Overwrite
        } else {
            return Err(SafetyError::NotOurs {
                path: path.to_path_buf(),
                changed: marker::has_stale_mark(path),
            });
        }
    } else if kind.is_dir() {
        return Err(err(super::invalid("a directory, not a regular file")));
    } else {
        return Err(err(super::invalid("not a regular file or block device")));
    };
    Ok(WriteGrant {
        path: path.to_path_buf(),
        admitted,
        identity: Some(identity_of(&meta)),
    })
}

impl WriteGrant {
    /// The admitted path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why it was admitted.
    pub fn admitted(&self) -> Admitted {
        self.admitted
    }

    /// True when storlab created the file or it carries storlab's marker: the file storlab
    /// marks again after writing it, and may remove.
    pub fn is_storlabs(&self) -> bool {
        matches!(self.admitted, Admitted::New | Admitted::Ours)
    }

    /// Creates the admitted file (which must still not exist: `O_EXCL`), marks it as
    /// storlab's, and returns it open for reading and writing.
    pub fn create(&mut self) -> io::Result<File> {
        if self.admitted != Admitted::New || self.identity.is_some() {
            return Err(io::Error::new(
                ErrorKind::AlreadyExists,
                "the grant is not for a new file",
            ));
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&self.path)?;
        self.identity = Some(identity_of(&file.metadata()?));
        marker::mark_ours(&self.path)?;
        Ok(file)
    }

    /// Opens the admitted path for writing with `options` (write is forced on), and checks
    /// that it is still what was admitted.
    pub fn open(&self, options: &mut OpenOptions) -> io::Result<File> {
        let Some(expected) = self.identity else {
            return Err(io::Error::new(
                ErrorKind::NotFound,
                "the file was admitted to be created, not opened",
            ));
        };
        let file = options.write(true).open(&self.path)?;
        if identity_of(&file.metadata()?) != expected {
            return Err(io::Error::new(
                ErrorKind::InvalidData,
                "it was replaced after storlab checked it; nothing written",
            ));
        }
        Ok(file)
    }

    /// Records storlab's marker again after a run wrote the file, so the next run knows the
    /// file as storlab left it; a device's content is recorded in storlab's state directory
    /// instead. Does nothing for a file storlab did not create.
    pub fn mark_written(&self) -> io::Result<()> {
        if self.admitted == Admitted::Device && self.still_admitted() {
            return super::record_device(&self.path);
        }
        if !self.is_storlabs() || !self.still_admitted() {
            return Ok(());
        }
        marker::mark_ours(&self.path)
    }

    /// Removes a file storlab created (with its sidecar), if the path still names it.
    /// Returns whether it removed anything.
    pub fn remove_created(&self) -> io::Result<bool> {
        if self.admitted != Admitted::New || !self.still_admitted() {
            return Ok(false);
        }
        let sidecar = marker::sidecar_path(&self.path);
        let had_sidecar = marker::sidecar_marks(&self.path);
        fs::remove_file(&self.path)?;
        if had_sidecar || marker::is_storlab_sidecar(&sidecar) {
            match fs::remove_file(&sidecar) {
                Err(e) if e.kind() != ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(true)
    }

    /// True when the path still names what was admitted (a file storlab created: the path
    /// itself, never a symbolic link put in its place).
    fn still_admitted(&self) -> bool {
        let meta = match self.admitted {
            Admitted::New => fs::symlink_metadata(&self.path),
            _ => fs::metadata(&self.path),
        };
        match (self.identity, meta) {
            (Some(id), Ok(meta)) => !meta.file_type().is_symlink() && identity_of(&meta) == id,
            _ => false,
        }
    }
}
