//! Targets: a regular file (created, preallocated and filled with non-zero data so reads never
//! hit holes), a directory (one such file per job), or a block device (guarded by the safety
//! checks). Opens them with O_DIRECT unless told otherwise, and checks alignment and space.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::diskstats::{devices_for_path, BlockDevice};
use crate::error::IoError;
use crate::options::{IoOptions, SyncMode};
use crate::safety::{self, WriteGrant};

/// What the target path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// One regular file.
    File,
    /// A directory: one file per job.
    Directory,
    /// A block device.
    BlockDevice,
}

/// One file or device of a target.
pub struct TargetFile {
    /// Path.
    pub path: PathBuf,
    /// Usable size in 512-byte sectors.
    pub sectors: u64,
    /// storlab created it (and removes it unless `--keep`).
    pub created: bool,
    /// Permission to write it, from the safety gate: present when the run writes it, or
    /// storlab created or extended it. Nothing opens a target for writing without one.
    pub grant: Option<WriteGrant>,
}

/// A target ready for I/O.
pub struct PreparedTarget {
    /// Kind.
    pub kind: TargetKind,
    /// Files (one, or one per job for a directory).
    pub files: Vec<TargetFile>,
    /// Block devices underneath, for the iostat view.
    pub devices: Vec<BlockDevice>,
    /// Logical block size of the device, bytes.
    pub logical_block: u64,
    /// Things the user should know ("no block device under /dev/shm: no device view").
    pub warnings: Vec<String>,
}

const DEFAULT_FILE_BYTES: u64 = 1 << 30;
/// Smallest file storlab makes (files are whole 4 KiB pages, for O_DIRECT).
const MIN_FILE_BYTES: u64 = 4096;
use crate::buffer::FILL_CHUNK;
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;

fn bad(msg: String) -> IoError {
    IoError::BadInput(msg)
}

/// What the classes aimed at one target need from it.
pub struct TargetNeeds<'a> {
    /// Some class writes.
    pub writes: bool,
    /// Files of a directory target (the most jobs of any class).
    pub jobs: u32,
    /// The profiles, to check block alignment and regions.
    pub profiles: Vec<&'a storlab_core::IoProfile>,
}

/// Prepares `path` for the run.
pub fn prepare(
    path: &Path,
    needs: &TargetNeeds,
    opts: &IoOptions,
) -> Result<PreparedTarget, IoError> {
    let writes = needs.writes;
    let kind = match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => TargetKind::File,
        Err(e) => return Err(bad(format!("{}: cannot inspect: {e}", path.display()))),
        Ok(m) if m.is_dir() => TargetKind::Directory,
        Ok(m) if m.file_type().is_block_device() => TargetKind::BlockDevice,
        Ok(m) if m.is_file() => TargetKind::File,
        Ok(_) => {
            return Err(bad(format!(
                "{}: not a regular file, directory or block device",
                path.display()
            )))
        }
    };
    let mut warnings = Vec::new();
    let mut files = Vec::new();
    let size = opts.size_bytes.unwrap_or(DEFAULT_FILE_BYTES);
    let jobs = match kind {
        TargetKind::Directory => needs.jobs.max(1) as u64,
        _ => 1,
    };
    if kind != TargetKind::BlockDevice && size / jobs < MIN_FILE_BYTES {
        let each = match jobs {
            1 => String::new(),
            _ => format!(
                " ({} bytes for each of {jobs} files, one per job)",
                size / jobs
            ),
        };
        return Err(bad(format!(
            "--size must give every file at least 4k ({MIN_FILE_BYTES} bytes); got {size} bytes{each}"
        )));
    }
    // `--overwrite` names the target (or one file of a directory target).
    let overwrite_target = safety::flag_names(path, opts.overwrite.as_deref());
    match kind {
        TargetKind::File => files.push(prepare_file(path, size, opts, writes, overwrite_target)?),
        TargetKind::Directory => {
            let each = size / jobs;
            for j in 0..jobs {
                let p = path.join(format!("storlab-io.{j}.dat"));
                let overwrite =
                    overwrite_target || safety::flag_names(&p, opts.overwrite.as_deref());
                match prepare_file(&p, each, opts, writes, overwrite) {
                    Ok(f) => files.push(f),
                    Err(e) => {
                        cleanup(&files, false);
                        return Err(e);
                    }
                }
            }
        }
        TargetKind::BlockDevice => files.push(prepare_device(path, opts, writes)?),
    }
    let devices = match devices_for_path(&files[0].path) {
        Ok(d) => d,
        Err(e) => {
            warnings.push(format!("no device view: {e}"));
            Vec::new()
        }
    };
    let logical_block = devices.first().map_or(512, logical_block_size);
    let target = PreparedTarget {
        kind,
        files,
        devices,
        logical_block,
        warnings,
    };
    for p in &needs.profiles {
        if let Err(e) = check_fit(&target, p, opts) {
            cleanup(&target.files, opts.keep);
            return Err(e);
        }
    }
    Ok(target)
}

/// Block sizes and region must suit O_DIRECT and fit the target.
fn check_fit(
    t: &PreparedTarget,
    p: &storlab_core::IoProfile,
    opts: &IoOptions,
) -> Result<(), IoError> {
    if opts.direct {
        let lbs = t.logical_block;
        for b in &p.block_sizes {
            if !b.size.0.is_multiple_of(lbs) {
                return Err(bad(format!(
                    "--bs {}: with O_DIRECT every block size must be a multiple of the device's logical block size ({lbs} bytes); use a multiple or --buffered",
                    b.size
                )));
            }
        }
        if !p.region_offset.0.is_multiple_of(lbs) {
            return Err(bad(format!(
                "region offset {} is not a multiple of the logical block size ({lbs})",
                p.region_offset
            )));
        }
    }
    let smallest = t.files.iter().map(|f| f.sectors * 512).min().unwrap_or(0);
    let end = p.region_offset.0 + p.region_size.map_or(p.max_block_bytes(), |r| r.0);
    if end > smallest {
        return Err(bad(format!(
            "the profile's region ends at byte {end}, beyond the target's {smallest} bytes; raise --size or shrink the region"
        )));
    }
    if smallest / (p.jobs as u64).max(1) < p.max_block_bytes() {
        return Err(bad(format!(
            "{} bytes leave less than one block per job; raise --size",
            smallest
        )));
    }
    Ok(())
}

fn open_flags(opts: &IoOptions, writes: bool, sync_writes: bool) -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true).write(writes);
    let mut flags = 0;
    if opts.direct {
        flags |= libc::O_DIRECT;
    }
    if writes && sync_writes && opts.sync == SyncMode::Dsync {
        flags |= libc::O_DSYNC;
    }
    o.custom_flags(flags);
    o
}

/// Opens a prepared file for one class: O_DIRECT unless buffered, O_DSYNC when the class's
/// writes are synchronous and the sync mode is dsync. Writing needs the file's grant.
pub fn open_target(
    tf: &TargetFile,
    opts: &IoOptions,
    writes: bool,
    sync_writes: bool,
) -> Result<File, IoError> {
    let path = &tf.path;
    let mut flags = open_flags(opts, writes, sync_writes);
    let opened = match (writes, &tf.grant) {
        (false, _) => flags.open(path),
        (true, Some(grant)) => grant.open(&mut flags),
        (true, None) => {
            return Err(IoError::Failed(format!(
                "{}: no write permission from the safety checks; nothing written",
                path.display()
            )))
        }
    };
    opened.map_err(|e| {
        if e.raw_os_error() == Some(libc::EINVAL) && opts.direct {
            bad(format!(
                "{}: the file system does not support O_DIRECT (tmpfs?); use --buffered",
                path.display()
            ))
        } else {
            bad(format!("{}: cannot open: {e}", path.display()))
        }
    })
}

fn prepare_file(
    path: &Path,
    size: u64,
    opts: &IoOptions,
    writes: bool,
    overwrite: bool,
) -> Result<TargetFile, IoError> {
    let size = size / 4096 * 4096;
    if !path.exists() && std::fs::symlink_metadata(path).is_err() {
        return create_file(path, size, opts, writes);
    }
    let have = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let ours = safety::is_ours(path);
    let extend = ours && have < size;
    if !(writes || extend) {
        // Only reads, and nothing to extend: use the file as it is (all of it, unless ours).
        let read = TargetFile {
            path: path.to_path_buf(),
            sectors: if ours { size / 512 } else { have / 512 },
            created: false,
            grant: None,
        };
        open_target(&read, opts, false, false)?;
        return Ok(read);
    }
    let grant = safety::admit(path, overwrite, None)?;
    if have < size {
        check_free_space(path, size - have)?;
        let f = grant
            .open(OpenOptions::new().read(true))
            .map_err(|e| bad(format!("{}: cannot open: {e}", path.display())))?;
        fill(&grant, &f, have, size, opts.direct, true)?;
        mark(&grant)?;
    }
    let tf = TargetFile {
        path: path.to_path_buf(),
        sectors: size / 512,
        created: false,
        grant: Some(grant),
    };
    // Checks the flags work here (O_DIRECT on this file system) before any worker starts.
    open_target(&tf, opts, writes, false)?;
    Ok(tf)
}

/// Creates a file (admitted as new by the safety gate), marks it as storlab's and fills it.
fn create_file(
    path: &Path,
    size: u64,
    opts: &IoOptions,
    writes: bool,
) -> Result<TargetFile, IoError> {
    let mut grant = safety::admit(path, false, None)?;
    check_free_space(path, size)?;
    let f = grant
        .create()
        .map_err(|e| bad(format!("{}: cannot create: {e}", path.display())))?;
    let tf = TargetFile {
        path: path.to_path_buf(),
        sectors: size / 512,
        created: true,
        grant: Some(grant),
    };
    let ready = fill(
        tf.grant.as_ref().expect("just made"),
        &f,
        0,
        size,
        opts.direct,
        true,
    )
    .and_then(|()| mark(tf.grant.as_ref().expect("just made")))
    // Checks the flags work here (O_DIRECT on this file system) before any worker starts.
    .and_then(|()| open_target(&tf, opts, writes, false).map(drop));
    if let Err(e) = ready {
        cleanup(std::slice::from_ref(&tf), false);
        return Err(e);
    }
    Ok(tf)
}

/// Records storlab's marker on a file it wrote.
fn mark(grant: &WriteGrant) -> Result<(), IoError> {
    grant.mark_written().map_err(|e| {
        IoError::Failed(format!(
            "{}: cannot mark as storlab's: {e}",
            grant.path().display()
        ))
    })
}

/// Writes every file of a target sequentially once (SSD preconditioning: every flash page
/// written before measuring, so a fresh drive's empty-page speed does not flatter it).
pub fn precondition(t: &PreparedTarget, opts: &IoOptions) -> Result<(), IoError> {
    for tf in &t.files {
        let f = open_target(tf, opts, true, false)?;
        let grant = tf.grant.as_ref().expect("open_target checked the grant");
        fill(grant, &f, 0, tf.sectors * 512, opts.direct, false)?;
    }
    Ok(())
}

/// Preallocates (when `allocate`) and writes non-zero data over [from, to), so reads never
/// hit holes.
fn fill(
    grant: &WriteGrant,
    f: &File,
    from: u64,
    to: u64,
    direct: bool,
    allocate: bool,
) -> Result<(), IoError> {
    let path = grant.path();
    let fail =
        |what: &str, e: std::io::Error| IoError::Failed(format!("{}: {what}: {e}", path.display()));
    if allocate {
        // SAFETY: plain syscall on an open descriptor.
        let r = unsafe {
            libc::fallocate(
                f.as_raw_fd(),
                0,
                from as libc::off_t,
                (to - from) as libc::off_t,
            )
        };
        let e = std::io::Error::last_os_error();
        if r != 0 && e.raw_os_error() != Some(libc::EOPNOTSUPP) {
            return Err(fail("cannot preallocate", e));
        }
    }
    let writer = match direct {
        true => grant.open(OpenOptions::new().custom_flags(libc::O_DIRECT)),
        false => f.try_clone(),
    }
    .map_err(|e| fail("cannot reopen", e))?;
    let buf = crate::buffer::preparation_fill();
    let mut off = from;
    while off < to {
        if crate::signal::stop_requested() {
            return Err(IoError::Failed(
                "interrupted while filling the target".into(),
            ));
        }
        // The pattern is laid at absolute offsets (byte `o` of the file holds byte
        // `o % FILL_CHUNK` of it), so verification can tell a never-written sector; `from`
        // is a multiple of 4 KiB, so each piece stays aligned for O_DIRECT.
        let at = (off % FILL_CHUNK as u64) as usize;
        let n = ((to - off) as usize).min(FILL_CHUNK - at);
        // SAFETY: buf holds FILL_CHUNK bytes and at + n <= FILL_CHUNK.
        let w = unsafe {
            libc::pwrite(
                writer.as_raw_fd(),
                buf.as_slice()[at..].as_ptr() as *const libc::c_void,
                n,
                off as libc::off_t,
            )
        };
        if w != n as isize {
            return Err(fail("cannot fill", std::io::Error::last_os_error()));
        }
        off += n as u64;
    }
    writer.sync_data().map_err(|e| fail("cannot sync", e))?;
    // Drop the fill from the page cache so buffered runs start cold.
    // SAFETY: plain syscall on an open descriptor.
    unsafe { libc::posix_fadvise(writer.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    Ok(())
}

fn check_free_space(path: &Path, need: u64) -> Result<(), IoError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| bad(format!("{}: bad path", dir.display())))?;
    // SAFETY: statvfs fills the struct for a valid C string.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return Err(bad(format!(
            "{}: cannot check free space: {}",
            dir.display(),
            std::io::Error::last_os_error()
        )));
    }
    let free = s.f_bavail as u64 * s.f_frsize as u64;
    if free < need + need / 50 {
        return Err(bad(format!(
            "{}: not enough free space: need {} bytes, {} free; lower --size",
            dir.display(),
            need,
            free
        )));
    }
    Ok(())
}

fn prepare_device(path: &Path, opts: &IoOptions, writes: bool) -> Result<TargetFile, IoError> {
    let grant = match writes {
        true => Some(safety::admit(path, false, opts.force_destroy.as_deref())?),
        false => None,
    };
    let mut tf = TargetFile {
        path: path.to_path_buf(),
        sectors: 0,
        created: false,
        grant,
    };
    let file = open_target(&tf, opts, writes, false)?;
    let mut bytes: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64.
    if unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64 as _, &mut bytes) } != 0 {
        return Err(bad(format!(
            "{}: cannot read the device size: {}",
            path.display(),
            std::io::Error::last_os_error()
        )));
    }
    let usable = opts.size_bytes.map_or(bytes, |s| s.min(bytes));
    tf.sectors = usable / 512;
    Ok(tf)
}

/// Logical block size of a device (its whole disk's for a partition); 512 when unknown.
fn logical_block_size(dev: &BlockDevice) -> u64 {
    let base = PathBuf::from(format!("/sys/dev/block/{}:{}", dev.major, dev.minor));
    [
        base.join("queue/logical_block_size"),
        base.join("../queue/logical_block_size"),
    ]
    .iter()
    .find_map(|p| std::fs::read_to_string(p).ok()?.trim().parse().ok())
    .unwrap_or(512)
}

/// After a run: removes the files storlab created (unless `keep`) and marks the storlab files
/// it keeps as they are now; returns what could not be done.
pub fn cleanup(files: &[TargetFile], keep: bool) -> Vec<String> {
    let mut problems = Vec::new();
    for f in files {
        let Some(grant) = &f.grant else { continue };
        let done = if f.created && !keep {
            grant.remove_created().map(drop)
        } else {
            grant.mark_written()
        };
        if let Err(e) = done {
            let what = if f.created && !keep { "remove" } else { "mark" };
            problems.push(format!("{}: could not {what}: {e}", f.path.display()));
        }
    }
    problems
}
