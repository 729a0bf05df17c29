//! Who is using a block device: mounts (`/proc/self/mountinfo`), active swap
//! (`/proc/swaps`) and devices stacked on it (`holders/` in `/sys`), for the
//! device itself and everything built on it (partitions, device-mapper, md).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs;
use std::io::{self, ErrorKind};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// A device number as `(major, minor)`.
pub(crate) type DevNum = (u32, u32);

/// Splits a Linux `dev_t` (glibc's 64-bit encoding) into major and minor.
pub(crate) fn split_dev(dev: u64) -> DevNum {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major as u32, minor as u32)
}

fn parse_devnum(text: &str) -> Option<DevNum> {
    let (major, minor) = text.trim().split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// Reads the `dev` file ("8:17") of a `/sys` block device directory.
fn read_devnum(sys_dir: &Path) -> io::Result<Option<DevNum>> {
    Ok(parse_devnum(&fs::read_to_string(sys_dir.join("dev"))?))
}

/// One device of a family: the device itself, a partition, or a holder.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub num: DevNum,
    /// Kernel name ("sdb1", "dm-0"); `None` when `/sys` does not know it.
    pub name: Option<String>,
    pub holder: bool,
    sys_dir: Option<PathBuf>,
}

impl Member {
    /// The node a user knows: `/dev/mapper/<name>` for device-mapper, else `/dev/<name>`.
    pub fn dev_path(&self) -> PathBuf {
        let name = self.name.as_deref().unwrap_or("?");
        let dm_name = self
            .sys_dir
            .as_ref()
            .and_then(|d| fs::read_to_string(d.join("dm/name")).ok());
        match dm_name {
            Some(dm) if !dm.trim().is_empty() => Path::new("/dev/mapper").join(dm.trim()),
            _ => Path::new("/dev").join(name),
        }
    }
}

/// A device and everything built on it; the first member is the device.
#[derive(Debug)]
pub(crate) struct Family {
    pub members: Vec<Member>,
    /// False when `/sys/dev/block/MAJ:MIN` does not exist (no such device, or no /sys).
    pub in_sysfs: bool,
    /// Where sysfs is (`/sys`; a fake tree in tests).
    sys: PathBuf,
}

impl Family {
    fn position(&self, num: DevNum) -> Option<usize> {
        self.members.iter().position(|m| m.num == num)
    }
}

fn ignore_missing<T: Default>(r: io::Result<T>) -> io::Result<T> {
    match r {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(T::default()),
        other => other,
    }
}

fn dir_names(dir: &Path) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in ignore_missing(fs::read_dir(dir).map(Some))?
        .into_iter()
        .flatten()
    {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    Ok(names)
}

/// Collects the device `root`, its partitions and (recursively) its holders.
pub(crate) fn family(root: DevNum) -> io::Result<Family> {
    family_in(Path::new("/sys"), root)
}

/// [`family`] with sysfs mounted at `sys`.
pub(crate) fn family_in(sys: &Path, root: DevNum) -> io::Result<Family> {
    let link = sys.join(format!("dev/block/{}:{}", root.0, root.1));
    let mut fam = Family {
        members: vec![Member {
            num: root,
            name: None,
            holder: false,
            sys_dir: None,
        }],
        in_sysfs: false,
        sys: sys.to_path_buf(),
    };
    let Some(dir) = ignore_missing(fs::canonicalize(&link).map(Some))? else {
        return Ok(fam);
    };
    fam.in_sysfs = true;
    fam.members[0].name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    fam.members[0].sys_dir = Some(dir.clone());
    let mut queue = vec![dir];
    while let Some(dir) = queue.pop() {
        let mut found = Vec::new();
        for name in dir_names(&dir)? {
            let sub = dir.join(&name);
            if sub.join("partition").is_file() {
                found.push((name, sub, false));
            }
        }
        for name in dir_names(&dir.join("holders"))? {
            let sub =
                ignore_missing(fs::canonicalize(sys.join("class/block").join(&name)).map(Some))?;
            found.extend(sub.map(|sub| (name, sub, true)));
        }
        for (name, sub, holder) in found {
            let Some(num) = ignore_missing(read_devnum(&sub))? else {
                continue;
            };
            if fam.position(num).is_none() {
                fam.members.push(Member {
                    num,
                    name: Some(name),
                    holder,
                    sys_dir: Some(sub.clone()),
                });
                queue.push(sub);
            }
        }
    }
    Ok(fam)
}

/// Undoes the kernel's octal escapes (`\040` for a space) in `/proc` fields.
fn unescape(field: &[u8]) -> PathBuf {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        let oct = field
            .get(i + 1..i + 4)
            .filter(|d| field[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match oct {
            Some(d) => {
                out.push(
                    d.iter()
                        .fold(0u8, |acc, c| acc.wrapping_mul(8).wrapping_add(c - b'0')),
                );
                i += 4;
            }
            None => {
                out.push(field[i]);
                i += 1;
            }
        }
    }
    PathBuf::from(OsString::from_vec(out))
}

/// One line of mountinfo: device number, mount point, mount source.
#[derive(Debug, PartialEq)]
pub(crate) struct Mount {
    pub num: DevNum,
    pub mount_point: PathBuf,
    pub source: PathBuf,
}

/// Parses `/proc/self/mountinfo`; malformed lines are skipped.
pub(crate) fn parse_mountinfo(data: &[u8]) -> Vec<Mount> {
    let parse_line = |line: &[u8]| {
        let f: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
        let num = parse_devnum(std::str::from_utf8(f.get(2)?).ok()?)?;
        // Optional fields (field 6 on) end with a lone "-"; fs type and source follow.
        let dash = 6 + f.iter().skip(6).position(|x| *x == b"-")?;
        Some(Mount {
            num,
            mount_point: unescape(f.get(4)?),
            source: unescape(f.get(dash + 2)?),
        })
    };
    data.split(|&b| b == b'\n').filter_map(parse_line).collect()
}

/// The device number of a block device node, if `path` is one.
fn node_devnum(path: &Path) -> Option<DevNum> {
    if !path.is_absolute() {
        return None;
    }
    let meta = fs::metadata(path).ok()?;
    meta.file_type()
        .is_block_device()
        .then(|| split_dev(meta.rdev()))
}

/// Device numbers of every member of a multi-device btrfs that any family
/// member belongs to (btrfs mounts show an anonymous 0:N in mountinfo).
fn btrfs_siblings(fam: &Family) -> io::Result<BTreeSet<DevNum>> {
    let ours: BTreeSet<&str> = fam
        .members
        .iter()
        .filter_map(|m| m.name.as_deref())
        .collect();
    let mut nums = BTreeSet::new();
    let btrfs = fam.sys.join("fs/btrfs");
    for fsid in dir_names(&btrfs)? {
        let names = dir_names(&btrfs.join(fsid).join("devices"))?;
        if names.iter().any(|n| ours.contains(n.as_str())) {
            for n in names {
                let dir = fam.sys.join("class/block").join(n);
                nums.extend(ignore_missing(read_devnum(&dir))?);
            }
        }
    }
    Ok(nums)
}

/// Something that keeps a device busy.
#[derive(Debug, PartialEq)]
pub(crate) struct Use {
    /// Where it is mounted; "[SWAP]" for active swap; `None` for a holder.
    pub mount_point: Option<PathBuf>,
    /// The partition or stacked device that is in use; `None` for the device itself.
    pub via: Option<PathBuf>,
}

/// Mounts using a family member, in mountinfo order.
fn mount_uses(fam: &Family) -> io::Result<Vec<Use>> {
    let mounts = parse_mountinfo(&fs::read("/proc/self/mountinfo")?);
    let btrfs = if mounts.iter().any(|m| m.num.0 == 0) {
        btrfs_siblings(fam)?
    } else {
        BTreeSet::new()
    };
    let mut uses = Vec::new();
    for m in mounts {
        let via_node =
            || node_devnum(&m.source).filter(|n| fam.position(*n).is_some() || btrfs.contains(n));
        let hit = match fam.position(m.num) {
            Some(i) => Some(i == 0),
            None if m.num.0 == 0 => via_node().map(|n| fam.position(n) == Some(0)),
            None => None,
        };
        if let Some(is_root) = hit {
            let via = (!is_root).then(|| m.source.clone());
            uses.push(Use {
                mount_point: Some(m.mount_point),
                via,
            });
        }
    }
    Ok(uses)
}

/// Active swap areas on a family member.
fn swap_uses(fam: &Family) -> io::Result<Vec<Use>> {
    let data = ignore_missing(fs::read("/proc/swaps"))?;
    let mut uses = Vec::new();
    for line in data.split(|&b| b == b'\n').skip(1) {
        let Some(field) = line
            .split(|b| b.is_ascii_whitespace())
            .find(|f| !f.is_empty())
        else {
            continue;
        };
        let source = unescape(field);
        if let Some(i) = node_devnum(&source).and_then(|n| fam.position(n)) {
            uses.push(Use {
                mount_point: Some("[SWAP]".into()),
                via: (i != 0).then_some(source),
            });
        }
    }
    Ok(uses)
}

/// Everything that uses the family: mounts, then swap, then holders.
pub(crate) fn uses(fam: &Family) -> io::Result<Vec<Use>> {
    let mut all = mount_uses(fam)?;
    all.extend(swap_uses(fam)?);
    all.extend(fam.members.iter().filter(|m| m.holder).map(|m| Use {
        mount_point: None,
        via: Some(m.dev_path()),
    }));
    Ok(all)
}

/// Mount points using device `major:minor` or any of its partitions/holders
/// (reads /proc/self/mountinfo and /sys). A device that does not exist has none.
pub fn mounts_of_device(major: u32, minor: u32) -> io::Result<Vec<PathBuf>> {
    let fam = family((major, minor))?;
    let mut seen = BTreeSet::new();
    Ok(mount_uses(&fam)?
        .into_iter()
        .filter_map(|u| u.mount_point)
        .filter(|p| seen.insert(p.clone()))
        .collect())
}
