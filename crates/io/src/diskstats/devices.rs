//! The block devices under a path.
//!
//! stat(2) gives the device number of the path's file system (or of the device node itself);
//! `/sys/dev/block/MAJ:MIN` links to the device's directory in sysfs. There a `partition` file
//! marks a partition, whose whole disk is the parent directory, and `slaves/` lists the devices
//! under a device-mapper (LVM, dm-crypt, multipath) or md RAID device.
//!
//! File systems with an anonymous device number (major 0: btrfs, tmpfs, overlay, NFS, FUSE...)
//! are looked up in `/proc/self/mountinfo`: when the mount's source is a block device node
//! (btrfs mounts `/dev/sdb2`), that device is used; otherwise there is no block device.
//!
//! Not followed: a loop device's backing file, btrfs devices other than the one mounted, the
//! paths under an NVMe multipath namespace.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::{BlockDevice, DiskstatsError};

const SYSFS: &str = "/sys";
const MOUNTINFO: &str = "/proc/self/mountinfo";
/// Deepest stack followed (dm over md over partitions is 3); guards against odd sysfs trees.
const MAX_STACK_DEPTH: usize = 16;

/// The block devices that hold `path` (a file, directory or block device node): the device of
/// the file system (from stat(2) st_dev, or st_rdev for a block device node), plus, when it is a
/// partition, its whole disk (via /sys/dev/block/MAJ:MIN/partition and the parent directory),
/// plus, for device-mapper / md devices, the underlying devices listed in
/// /sys/block/<name>/slaves (recursively, with their whole disks). Order: the device itself
/// first, then parents/slaves (depth first, slaves by name). No duplicates.
pub fn devices_for_path(path: &Path) -> Result<Vec<BlockDevice>, DiskstatsError> {
    let meta = fs::metadata(path).map_err(io_error(path))?;
    let (major, minor) = if meta.file_type().is_block_device() {
        split_dev(meta.rdev())
    } else {
        split_dev(meta.dev())
    };
    let (major, minor) = match major {
        0 => mount_source_device(path)?,
        _ => (major, minor),
    };
    devices_in_sysfs(Path::new(SYSFS), major, minor)
}

fn split_dev(dev: u64) -> (u32, u32) {
    let dev = dev as libc::dev_t;
    (libc::major(dev), libc::minor(dev))
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> DiskstatsError + '_ {
    move |source| DiskstatsError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The device number of the block device node a file system with an anonymous device number
/// was mounted from.
fn mount_source_device(path: &Path) -> Result<(u32, u32), DiskstatsError> {
    let canonical = fs::canonicalize(path).map_err(io_error(path))?;
    let mountinfo = Path::new(MOUNTINFO);
    let bytes = fs::read(mountinfo).map_err(io_error(mountinfo))?;
    let no_device = |what: String| DiskstatsError::NoBlockDevice {
        path: path.to_path_buf(),
        what,
    };
    let Some(mount) = mount_containing(&String::from_utf8_lossy(&bytes), &canonical) else {
        return Err(no_device(format!("no mount holds it in {MOUNTINFO}")));
    };
    let what = format!("{} mounted from {}", mount.fs_type, mount.source);
    if !mount.source.starts_with('/') {
        return Err(no_device(what));
    }
    match fs::metadata(&mount.source) {
        Ok(meta) if meta.file_type().is_block_device() => Ok(split_dev(meta.rdev())),
        _ => Err(no_device(format!("{what}, not a block device node here"))),
    }
}

/// One line of `/proc/self/mountinfo`, the parts used here.
#[derive(Debug, PartialEq)]
pub(super) struct Mount {
    pub(super) mount_point: PathBuf,
    pub(super) fs_type: String,
    pub(super) source: String,
}

/// The mount holding `path` (canonical): the deepest mount point above it, the last listed
/// among equals (a later mount hides an earlier one at the same place).
pub(super) fn mount_containing(mountinfo: &str, path: &Path) -> Option<Mount> {
    let mut best: Option<Mount> = None;
    for mount in mountinfo.lines().filter_map(parse_mount) {
        let depth = mount.mount_point.components().count();
        let deeper = best
            .as_ref()
            .is_none_or(|b| depth >= b.mount_point.components().count());
        if path.starts_with(&mount.mount_point) && deeper {
            best = Some(mount);
        }
    }
    best
}

/// `id parent major:minor root mount_point options [optional fields...] - type source options`
fn parse_mount(line: &str) -> Option<Mount> {
    let fields: Vec<&str> = line.split(' ').collect();
    let separator = fields.iter().skip(6).position(|f| *f == "-")? + 6;
    let mount_point = unescape(fields.get(4)?);
    Some(Mount {
        mount_point: PathBuf::from(OsStr::from_bytes(&mount_point)),
        fs_type: fields.get(separator + 1)?.to_string(),
        source: String::from_utf8_lossy(&unescape(fields.get(separator + 2)?)).into_owned(),
    })
}

/// Undoes the kernel's octal escapes (`\040` for a space) in a mountinfo field.
fn unescape(field: &str) -> Vec<u8> {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let octal = bytes
            .get(i + 1..i + 4)
            .and_then(|digits| std::str::from_utf8(digits).ok())
            .and_then(|digits| u8::from_str_radix(digits, 8).ok());
        match (byte, octal) {
            (b'\\', Some(decoded)) => {
                out.push(decoded);
                i += 4;
            }
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

/// The device `major:minor` and the devices under it, from the sysfs tree at `sysfs`.
pub(super) fn devices_in_sysfs(
    sysfs: &Path,
    major: u32,
    minor: u32,
) -> Result<Vec<BlockDevice>, DiskstatsError> {
    let link = sysfs.join("dev/block").join(format!("{major}:{minor}"));
    let dir = fs::canonicalize(&link).map_err(io_error(&link))?;
    let mut found = Vec::new();
    visit(&dir, &mut found, 0)?;
    Ok(found)
}

fn visit(dir: &Path, found: &mut Vec<BlockDevice>, depth: usize) -> Result<(), DiskstatsError> {
    let device = read_device(dir)?;
    if found.contains(&device) {
        return Ok(());
    }
    found.push(device);
    if depth >= MAX_STACK_DEPTH {
        return Ok(());
    }
    if dir.join("partition").is_file() {
        if let Some(disk) = dir.parent() {
            visit(disk, found, depth + 1)?;
        }
    }
    for slave in slave_dirs(dir)? {
        visit(&slave, found, depth + 1)?;
    }
    Ok(())
}

/// The sysfs directories of the devices in `dir/slaves`, by name; none when it is absent.
fn slave_dirs(dir: &Path) -> Result<Vec<PathBuf>, DiskstatsError> {
    let slaves = dir.join("slaves");
    let entries = match fs::read_dir(&slaves) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(io_error(&slaves)(source)),
    };
    let mut links = Vec::new();
    for entry in entries {
        links.push(entry.map_err(io_error(&slaves))?.path());
    }
    links.sort();
    links
        .iter()
        .map(|link| fs::canonicalize(link).map_err(io_error(link)))
        .collect()
}

/// The device whose sysfs directory is `dir`: its name (`!` in sysfs names is `/` in
/// `/proc/diskstats`, as in `cciss/c0d0`) and its `dev` file, `MAJOR:MINOR`.
fn read_device(dir: &Path) -> Result<BlockDevice, DiskstatsError> {
    let dev_file = dir.join("dev");
    let content = fs::read_to_string(&dev_file).map_err(io_error(&dev_file))?;
    let malformed = || DiskstatsError::SysfsValue {
        path: dev_file.clone(),
        content: content.clone(),
    };
    let (major, minor) = content.trim().split_once(':').ok_or_else(malformed)?;
    let name = dir.file_name().ok_or_else(malformed)?;
    Ok(BlockDevice {
        name: name.to_string_lossy().replace('!', "/"),
        major: major.parse().map_err(|_| malformed())?,
        minor: minor.parse().map_err(|_| malformed())?,
    })
}
