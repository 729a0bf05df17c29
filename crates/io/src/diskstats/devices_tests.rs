//! Finding devices: on this machine (checked against stat(2) and /sys), on a fixture sysfs
//! tree with partitions, md and device-mapper, and on fixture mountinfo text.

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use super::devices::{devices_in_sysfs, mount_containing, Mount};
use super::*;

/// (major, minor) of st_dev, from libc::stat itself.
fn stat_device(path: &Path) -> (u32, u32) {
    let c_path = CString::new(path.as_os_str().as_bytes()).expect("path without NUL");
    // SAFETY: an all-zero `stat` is a valid value for the kernel to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: c_path is NUL-terminated and st is a valid, writable stat.
    let rc = unsafe { libc::stat(c_path.as_ptr(), &mut st) };
    assert_eq!(rc, 0, "stat {}", path.display());
    (libc::major(st.st_dev), libc::minor(st.st_dev))
}

/// Checks `devices_for_path(path)` against stat(2) and against /sys read here.
fn check_against_stat_and_sysfs(path: &Path) {
    let (major, minor) = stat_device(path);
    let devices = devices_for_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let first = &devices[0];
    assert_eq!((first.major, first.minor), (major, minor), "{devices:?}");
    for (i, device) in devices.iter().enumerate() {
        assert!(!devices[..i].contains(device), "duplicate in {devices:?}");
    }
    let sys_dir = fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).expect("in /sys");
    let name = sys_dir.file_name().expect("device directory name");
    assert_eq!(first.name, name.to_string_lossy().replace('!', "/"));
    assert!(read_diskstats()
        .expect("diskstats")
        .contains_key(&first.name));
    if sys_dir.join("partition").exists() {
        let disk_dir = sys_dir.parent().expect("partition inside its disk");
        let disk_dev = fs::read_to_string(disk_dir.join("dev")).expect("disk dev file");
        let disk_name = disk_dir.file_name().expect("disk name").to_string_lossy();
        let whole_disk = devices.iter().find(|d| d.name == disk_name);
        let whole_disk = whole_disk.unwrap_or_else(|| panic!("no {disk_name} in {devices:?}"));
        let number = format!("{}:{}", whole_disk.major, whole_disk.minor);
        assert_eq!(number, disk_dev.trim());
    }
}

#[test]
fn a_file_in_the_current_directory_is_on_the_device_stat_reports() {
    let cwd = std::env::current_dir().expect("current dir");
    let file = cwd.join(format!(".diskstats-test-{}-stat", std::process::id()));
    fs::write(&file, b"x").expect("write temp file");
    let result = std::panic::catch_unwind(|| check_against_stat_and_sysfs(&file));
    let _ = fs::remove_file(&file);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn the_root_directory_is_on_the_device_stat_reports() {
    check_against_stat_and_sysfs(Path::new("/"));
}

#[test]
fn paths_without_a_block_device_are_refused() {
    // /proc exists on every Linux this runs on; /dev/shm (tmpfs) on most.
    let mut candidates = vec![Path::new("/proc/self/status")];
    if Path::new("/dev/shm").is_dir() {
        candidates.push(Path::new("/dev/shm"));
    }
    for path in candidates {
        let err = devices_for_path(path).expect_err("no block device");
        assert!(matches!(err, DiskstatsError::NoBlockDevice { .. }), "{err}");
        let message = err.to_string();
        assert!(message.contains("without a block device"), "{message}");
        assert!(message.contains(&path.display().to_string()), "{message}");
    }
}

#[test]
fn a_missing_path_is_an_io_error_naming_it() {
    let path = Path::new("/nonexistent/diskstats-test");
    let err = devices_for_path(path).expect_err("missing path");
    assert!(matches!(err, DiskstatsError::Io { .. }), "{err}");
    assert!(
        err.to_string().contains("/nonexistent/diskstats-test"),
        "{err}"
    );
}

/// A fake sysfs tree in a temp directory, removed when dropped.
struct FakeSysfs(PathBuf);

impl FakeSysfs {
    fn new(tag: &str) -> FakeSysfs {
        let name = format!("diskstats-sysfs-{}-{tag}", std::process::id());
        let root = std::env::temp_dir().join(name);
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("dev/block")).expect("create fake sysfs");
        FakeSysfs(root)
    }

    /// A device directory at `dir` (relative to the root) numbered `dev`, linked from dev/block.
    fn device(&self, dir: &str, dev: &str) -> &FakeSysfs {
        fs::create_dir_all(self.0.join(dir)).expect("device dir");
        fs::write(self.0.join(dir).join("dev"), format!("{dev}\n")).expect("dev file");
        symlink(format!("../../{dir}"), self.0.join("dev/block").join(dev)).expect("dev link");
        self
    }

    fn partition(&self, dir: &str, dev: &str) -> &FakeSysfs {
        self.device(dir, dev);
        fs::write(self.0.join(dir).join("partition"), "2\n").expect("partition file");
        self
    }

    /// Lists `slave_dir` in `dir/slaves`, by a relative link as the kernel makes it.
    fn slave(&self, dir: &str, slave_dir: &str) -> &FakeSysfs {
        let slaves = self.0.join(dir).join("slaves");
        fs::create_dir_all(&slaves).expect("slaves dir");
        let name = Path::new(slave_dir).file_name().expect("slave name");
        let up = "../".repeat(Path::new(dir).components().count() + 1);
        symlink(format!("{up}{slave_dir}"), slaves.join(name)).expect("slave link");
        self
    }

    fn names(&self, major: u32, minor: u32) -> Vec<String> {
        let devices = devices_in_sysfs(&self.0, major, minor).expect("resolves");
        devices.into_iter().map(|d| d.name).collect()
    }
}

impl Drop for FakeSysfs {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

const SDA: &str = "devices/pci0/block/sda";
const SDB: &str = "devices/pci0/block/sdb";
const MD0: &str = "devices/virtual/block/md0";
const DM0: &str = "devices/virtual/block/dm-0";
const DM1: &str = "devices/virtual/block/dm-1";

/// dm-1 over (dm-0, md0); dm-0 over md0; md0 over sda2 and sdb2.
fn stacked_sysfs(tag: &str) -> FakeSysfs {
    let sysfs = FakeSysfs::new(tag);
    sysfs
        .device(SDA, "8:0")
        .partition(&format!("{SDA}/sda2"), "8:2")
        .device(SDB, "8:16")
        .partition(&format!("{SDB}/sdb2"), "8:18")
        .device(MD0, "9:0")
        .slave(MD0, &format!("{SDB}/sdb2"))
        .slave(MD0, &format!("{SDA}/sda2"))
        .device(DM0, "253:0")
        .slave(DM0, MD0)
        .device(DM1, "253:1")
        .slave(DM1, MD0)
        .slave(DM1, DM0);
    sysfs
}

#[test]
fn whole_disks_slaves_and_no_duplicates() {
    let sysfs = stacked_sysfs("stack");
    assert_eq!(sysfs.names(8, 0), ["sda"]);
    assert_eq!(sysfs.names(8, 2), ["sda2", "sda"]);
    assert_eq!(sysfs.names(9, 0), ["md0", "sda2", "sda", "sdb2", "sdb"]);
    let under_dm1 = ["dm-1", "dm-0", "md0", "sda2", "sda", "sdb2", "sdb"];
    assert_eq!(sysfs.names(253, 1), under_dm1);
    let devices = devices_in_sysfs(&sysfs.0, 253, 1).expect("resolves");
    let numbers: Vec<_> = devices.iter().map(|d| (d.major, d.minor)).collect();
    let expected = [(253, 1), (253, 0), (9, 0), (8, 2), (8, 0), (8, 18), (8, 16)];
    assert_eq!(numbers, expected);
}

#[test]
fn sysfs_names_with_bang_are_diskstats_names_with_slash() {
    let sysfs = FakeSysfs::new("bang");
    sysfs.device("devices/pci0/cciss0/block/cciss!c0d0", "104:0");
    assert_eq!(sysfs.names(104, 0), ["cciss/c0d0"]);
}

#[test]
fn sysfs_errors_name_the_file() {
    let sysfs = stacked_sysfs("errors");
    let err = devices_in_sysfs(&sysfs.0, 8, 99).expect_err("unknown number");
    assert!(err.to_string().contains("dev/block/8:99"), "{err}");
    fs::write(sysfs.0.join(SDB).join("dev"), "garbage\n").expect("overwrite dev");
    let err = devices_in_sysfs(&sysfs.0, 9, 0).expect_err("malformed dev file");
    assert!(matches!(err, DiskstatsError::SysfsValue { .. }), "{err}");
    assert!(err.to_string().contains("sdb/dev"), "{err}");
}

const MOUNTINFO: &str = "\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
30 22 0:26 / /dev/shm rw,nosuid shared:3 - tmpfs tmpfs rw
40 22 0:40 / /data rw,relatime shared:5 - btrfs /dev/sdb2 rw,subvol=/
41 40 0:41 /home /data/my\\040files rw master:2 - btrfs /dev/sdc1 rw
42 22 0:42 / /mnt rw - tmpfs tmpfs rw
43 42 0:43 / /mnt rw - overlay overlay rw,lowerdir=/a,upperdir=/b,workdir=/c
bad line
";

fn mount_of(path: &str) -> (String, String) {
    let found = mount_containing(MOUNTINFO, Path::new(path));
    let Mount {
        fs_type, source, ..
    } = found.unwrap_or_else(|| panic!("no mount for {path}"));
    (fs_type, source)
}

#[test]
fn the_deepest_last_mount_holds_a_path() {
    let pair = |fs_type: &str, source: &str| (fs_type.to_string(), source.to_string());
    assert_eq!(mount_of("/data/x/y"), pair("btrfs", "/dev/sdb2"));
    assert_eq!(mount_of("/data/my files/z"), pair("btrfs", "/dev/sdc1"));
    assert_eq!(mount_of("/dataset"), pair("ext4", "/dev/vda"));
    assert_eq!(mount_of("/dev/shm/f"), pair("tmpfs", "tmpfs"));
    assert_eq!(mount_of("/mnt/a"), pair("overlay", "overlay"));
    assert_eq!(mount_of("/"), pair("ext4", "/dev/vda"));
    assert_eq!(mount_containing("bad line\n", Path::new("/")), None);
}
