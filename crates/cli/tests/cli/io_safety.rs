//! `storlab io` never writes what it did not create, whatever flags are given: real files,
//! real loop devices with a real ext4 file system, unmounted and mounted.

use std::path::{Path, PathBuf};
use std::process::Command as Std;

use predicates::prelude::*;

use super::{scratch_dir, storlab};

/// A loop device over an image file, with an ext4 file system; detached (and unmounted) on
/// drop. `None` where the machine cannot create loop devices (not root, no loop driver).
struct LoopDevice {
    device: PathBuf,
    mount_point: Option<PathBuf>,
    _image_dir: tempfile::TempDir,
}

fn run(cmd: &mut Std) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

impl LoopDevice {
    fn with_ext4() -> Option<LoopDevice> {
        let dev = LoopDevice::blank()?;
        run(Std::new("mkfs.ext4").args(["-q", "-F"]).arg(&dev.device)).expect("mkfs.ext4");
        Some(dev)
    }

    /// A loop device over a fresh 64 MiB image: zeros throughout.
    fn blank() -> Option<LoopDevice> {
        let dir = scratch_dir();
        let image = dir.path().join("disk.img");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(64 << 20))
            .expect("image file");
        let device = match run(Std::new("losetup").args(["--find", "--show"]).arg(&image)) {
            Ok(dev) => PathBuf::from(dev),
            Err(e) => {
                eprintln!("skipped: this machine cannot create a loop device ({e})");
                return None;
            }
        };
        Some(LoopDevice {
            device,
            mount_point: None,
            _image_dir: dir,
        })
    }

    /// Writes `bytes` at byte `at` of the device, as a user's program would.
    fn write_at(&self, at: u64, bytes: &[u8]) {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.device)
            .expect("open the device");
        f.write_all_at(bytes, at).expect("write the device");
        f.sync_all().expect("sync the device");
    }

    /// `len` bytes of the device from byte `at`.
    fn read_at(&self, at: u64, len: usize) -> Vec<u8> {
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0u8; len];
        std::fs::File::open(&self.device)
            .and_then(|f| f.read_exact_at(&mut buf, at))
            .expect("read the device");
        buf
    }

    fn mount(&mut self) {
        self.mount_point = Some(mount_in(self._image_dir.path(), &self.device));
    }

    /// The first 64 KiB of the device: the ext4 superblock and group descriptors.
    fn head(&self) -> Vec<u8> {
        use std::io::Read;
        let mut buf = vec![0u8; 64 << 10];
        std::fs::File::open(&self.device)
            .and_then(|mut f| f.read_exact(&mut buf))
            .expect("read the device");
        buf
    }
}

/// Mounts `device` on a new directory `mnt` in `dir`; returns the mount point.
fn mount_in(dir: &Path, device: &Path) -> PathBuf {
    let mp = dir.join("mnt");
    std::fs::create_dir(&mp).expect("mount point");
    run(Std::new("mount").arg(device).arg(&mp)).expect("mount");
    mp
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        if let Some(mp) = &self.mount_point {
            let _ = run(Std::new("umount").arg(mp));
        }
        let _ = run(Std::new("losetup").arg("-d").arg(&self.device));
    }
}

/// `storlab io` on `target` for a short run, with `extra` flags.
fn io(target: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    storlab()
        .args(["io", "--target"])
        .arg(target)
        .args(["--size", "4m", "--duration", "1s", "--warmup", "0"])
        .args(extra)
        .assert()
}

fn user_data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

#[test]
fn precondition_never_writes_a_file_storlab_did_not_create() {
    let dir = scratch_dir();
    let f = dir.path().join("users.dat");
    let data = user_data(4 << 20);
    std::fs::write(&f, &data).unwrap();
    io(&f, &["--rw", "randread", "--precondition"])
        .code(2)
        .stderr(predicate::str::contains("was not created by storlab"));
    assert!(
        std::fs::read(&f).unwrap() == data,
        "the user's file changed"
    );
    // Reading it is fine, and leaves it as it was.
    io(&f, &["--rw", "randread"]).success();
    assert!(
        std::fs::read(&f).unwrap() == data,
        "a read-only run changed it"
    );
    // --overwrite must name the target: naming something else allows nothing.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::write(&elsewhere, b"x").unwrap();
    io(&f, &["--rw", "randwrite", "--overwrite"])
        .code(2)
        .stderr(predicate::str::contains("a value is required"));
    let mut args = vec!["--rw", "randwrite", "--overwrite"];
    let elsewhere_arg = elsewhere.display().to_string();
    args.push(&elsewhere_arg);
    io(&f, &args).code(2);
    assert!(std::fs::read(&f).unwrap() == data);
    let named = f.display().to_string();
    io(&f, &["--rw", "randwrite", "--overwrite", &named]).success();
    assert!(f.exists(), "a file storlab did not create is never removed");
}

#[test]
fn precondition_never_writes_user_files_in_a_directory_target() {
    let dir = scratch_dir();
    let users = dir.path().join("storlab-io.0.dat");
    let data = user_data(2 << 20);
    std::fs::write(&users, &data).unwrap();
    io(
        dir.path(),
        &["--rw", "randread", "--precondition", "--jobs", "2"],
    )
    .code(2)
    .stderr(predicate::str::contains("storlab-io.0.dat"));
    assert!(std::fs::read(&users).unwrap() == data);
    assert!(
        !dir.path().join("storlab-io.1.dat").exists(),
        "nothing left behind"
    );
}

#[test]
fn a_kept_file_is_not_written_after_other_content_is_copied_onto_it() {
    let dir = scratch_dir();
    let f = dir.path().join("kept.dat");
    io(&f, &["--rw", "randwrite", "--keep"]).success();
    // storlab's own kept file: written again without any flag.
    io(&f, &["--rw", "randwrite", "--keep"]).success();
    io(&f, &["--rw", "randread", "--precondition", "--keep"]).success();
    // The user copies their own data onto it (cp keeps the inode and its xattrs).
    let theirs = dir.path().join("theirs.dat");
    std::fs::write(&theirs, user_data(4 << 20)).unwrap();
    let status = Std::new("cp").arg(&theirs).arg(&f).status().unwrap();
    assert!(status.success());
    io(&f, &["--rw", "randwrite"])
        .code(2)
        .stderr(predicate::str::contains(
            "changed since storlab last wrote it",
        ));
    assert!(std::fs::read(&f).unwrap() == std::fs::read(&theirs).unwrap());
}

#[test]
fn a_device_with_a_file_system_is_written_only_when_named() {
    let Some(dev) = LoopDevice::with_ext4() else {
        return;
    };
    let before = dev.head();
    for flags in [
        &["--rw", "randread", "--precondition"][..],
        &["--rw", "randwrite"][..],
        &["--rw", "randread", "--group-commit", "2"][..],
    ] {
        io(&dev.device, flags)
            .code(2)
            .stderr(predicate::str::contains("ext2/3/4 file system"))
            .stderr(predicate::str::contains("--force-destroy"));
        assert!(dev.head() == before, "{flags:?} changed the device");
    }
    // Reads only: allowed, nothing written.
    io(&dev.device, &["--rw", "randread"]).success();
    assert!(dev.head() == before);
    // --force-destroy naming another device allows nothing.
    io(
        &dev.device,
        &["--rw", "randwrite", "--force-destroy", "/dev/null"],
    )
    .code(2);
    assert!(dev.head() == before);
    // Named: the user asked for it.
    let name = dev.device.display().to_string();
    io(
        &dev.device,
        &[
            "--rw",
            "randread",
            "--precondition",
            "--force-destroy",
            &name,
        ],
    )
    .success();
    assert!(
        dev.head() != before,
        "preconditioning wrote the named device"
    );
}

#[test]
fn a_mounted_file_system_is_never_written_whatever_the_flags() {
    let Some(mut dev) = LoopDevice::with_ext4() else {
        return;
    };
    dev.mount();
    let mp = dev.mount_point.clone().unwrap();
    std::fs::write(mp.join("users-file"), b"precious").unwrap();
    // What a mounted ext4 never rewrites itself: the boot block, the superblock's magic
    // number and the file system's UUID.
    let fixed = |head: Vec<u8>| [&head[..1024], &head[1080..1082], &head[1128..1144]].concat();
    let before = fixed(dev.head());
    let name = dev.device.display().to_string();
    for flags in [
        &[
            "--rw",
            "randread",
            "--precondition",
            "--force-destroy",
            &name,
        ][..],
        &["--rw", "randwrite", "--force-destroy", &name][..],
        &[
            "--rw",
            "write",
            "--force-destroy",
            &name,
            "--overwrite",
            &name,
        ][..],
    ] {
        io(&dev.device, flags)
            .code(2)
            .stderr(predicate::str::contains("is mounted at"));
    }
    assert!(
        fixed(dev.head()) == before,
        "the mounted file system's superblock changed"
    );
    // Still a healthy, writable file system.
    std::fs::write(mp.join("after"), b"ok").unwrap();
    assert_eq!(std::fs::read(mp.join("users-file")).unwrap(), b"precious");
}

/// The less common file systems util-linux makes (each where its mkfs is installed): refused
/// like ext4, never written without `--force-destroy` naming the device.
#[test]
fn a_device_with_a_less_common_file_system_is_not_written() {
    for (mkfs, kind) in [
        ("mkfs.minix", "minix"),
        ("mkfs.bfs", "bfs"),
        ("mkfs.cramfs", "cramfs"),
    ] {
        let Some(dev) = LoopDevice::blank() else {
            return;
        };
        let mut cmd = Std::new(mkfs);
        if mkfs == "mkfs.cramfs" {
            let src = dev._image_dir.path().join("src");
            std::fs::create_dir(&src).unwrap();
            std::fs::write(src.join("f"), b"users").unwrap();
            cmd.arg(src);
        }
        if let Err(e) = run(cmd.arg(&dev.device)) {
            eprintln!("skipped {kind}: {e}");
            continue;
        }
        let before = dev.head();
        for flags in [
            &["--rw", "randwrite"][..],
            &["--rw", "randread", "--precondition"][..],
        ] {
            io(&dev.device, flags)
                .code(2)
                .stderr(predicate::str::contains(format!("a {kind} file system")))
                .stderr(predicate::str::contains("--force-destroy"));
            assert!(dev.head() == before, "{kind}: {flags:?} changed the device");
        }
        io(&dev.device, &["--rw", "randread"]).success();
        assert!(dev.head() == before, "{kind}: a read-only run changed it");
    }
}

/// A device no probe recognises is written only while it is blank or as a storlab run left
/// it: a user's bytes anywhere storlab looks (here its first and its last MiB) make it the
/// user's until `--force-destroy` names it.
#[test]
fn a_device_with_data_storlab_did_not_write_is_written_only_when_named() {
    let Some(dev) = LoopDevice::blank() else {
        return;
    };
    // Blank: written; then as storlab left it: written again.
    io(&dev.device, &["--rw", "randwrite"]).success();
    io(&dev.device, &["--rw", "randwrite"]).success();
    let name = dev.device.display().to_string();
    let size = 64u64 << 20;
    for at in [0, size - 4096] {
        let theirs = user_data(4096);
        dev.write_at(at, &theirs);
        for flags in [
            &["--rw", "randwrite"][..],
            &["--rw", "randread", "--precondition"][..],
        ] {
            io(&dev.device, flags)
                .code(2)
                .stderr(predicate::str::contains("holds data storlab did not write"))
                .stderr(predicate::str::contains(format!("--force-destroy {name}")));
            assert!(
                dev.read_at(at, 4096) == theirs,
                "{flags:?} wrote the user's data"
            );
        }
        // Reads only: allowed.
        io(&dev.device, &["--rw", "randread"]).success();
        // Named: the user asked for it; afterwards the device is storlab's again.
        io(
            &dev.device,
            &["--rw", "randwrite", "--force-destroy", &name],
        )
        .success();
        io(&dev.device, &["--rw", "randwrite"]).success();
    }
}

/// A loop device with an MBR partition table and one partition (1 MiB to 33 MiB), its
/// partition device made by the kernel (`partx -a`); on drop the partition is unmounted and
/// removed before the device is detached.
struct Partitioned {
    dev: LoopDevice,
    part: PathBuf,
    mounted: Option<PathBuf>,
}

impl Partitioned {
    fn new() -> Option<Partitioned> {
        let dev = LoopDevice::blank()?;
        let mut mbr = vec![0u8; 512];
        mbr[446 + 4] = 0x83; // Linux
        mbr[446 + 8..446 + 12].copy_from_slice(&2048u32.to_le_bytes());
        mbr[446 + 12..446 + 16].copy_from_slice(&65536u32.to_le_bytes());
        mbr[510] = 0x55;
        mbr[511] = 0xAA;
        dev.write_at(0, &mbr);
        let part = PathBuf::from(format!("{}p1", dev.device.display()));
        if let Err(e) = run(Std::new("partx").arg("-a").arg(&dev.device)) {
            eprintln!("skipped: no partitions on a loop device here ({e})");
            return None;
        }
        let p = Partitioned {
            dev,
            part,
            mounted: None,
        };
        // devtmpfs makes the node; without it, make it from what sysfs says.
        for _ in 0..100 {
            if p.part.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if !p.part.exists() {
            let name = p.part.file_name().unwrap().to_string_lossy().into_owned();
            let numbers = std::fs::read_to_string(format!("/sys/class/block/{name}/dev"))
                .expect("the partition in sysfs");
            let (major, minor) = numbers.trim().split_once(':').unwrap();
            run(Std::new("mknod").arg(&p.part).args(["b", major, minor])).expect("mknod");
        }
        run(Std::new("mkfs.ext4").args(["-q", "-F"]).arg(&p.part)).expect("mkfs.ext4");
        Some(p)
    }

    fn mount(&mut self) {
        self.mounted = Some(mount_in(self.dev._image_dir.path(), &self.part));
    }

    /// The partition's first 64 KiB (its ext4 superblock and group descriptors).
    fn part_head(&self) -> Vec<u8> {
        self.dev.read_at(1 << 20, 64 << 10)
    }
}

impl Drop for Partitioned {
    fn drop(&mut self) {
        if let Some(mp) = &self.mounted {
            let _ = run(Std::new("umount").arg(mp));
        }
        let _ = run(Std::new("partx").arg("-d").arg(&self.dev.device));
        if self.part.exists() {
            let _ = std::fs::remove_file(&self.part);
        }
    }
}

/// A partitioned device: the whole device (its partition table) and its partition (ext4)
/// are each written only when that very device is named; while the partition is mounted,
/// neither is written whatever the flags.
#[test]
fn a_partitioned_device_and_its_partition_are_written_only_when_named() {
    let Some(mut p) = Partitioned::new() else {
        return;
    };
    let whole = p.dev.device.clone();
    let (whole_name, part_name) = (whole.display().to_string(), p.part.display().to_string());
    let table = p.dev.read_at(0, 512);
    let mut fs = p.part_head();
    let unchanged = |p: &Partitioned, fs: &[u8], what: &str| {
        assert!(
            p.dev.read_at(0, 512) == table,
            "{what}: the partition table changed"
        );
        assert!(
            p.part_head() == fs,
            "{what}: the partition's file system changed"
        );
    };
    io(&whole, &["--rw", "randwrite"])
        .code(2)
        .stderr(predicate::str::contains("partition table"))
        .stderr(predicate::str::contains(format!(
            "--force-destroy {whole_name}"
        )));
    unchanged(&p, &fs, "the whole device");
    io(&p.part, &["--rw", "randwrite"])
        .code(2)
        .stderr(predicate::str::contains("ext2/3/4"));
    unchanged(&p, &fs, "the partition");
    // Naming one device allows nothing on the other.
    io(
        &whole,
        &["--rw", "randwrite", "--force-destroy", &part_name],
    )
    .code(2);
    io(
        &p.part,
        &["--rw", "randwrite", "--force-destroy", &whole_name],
    )
    .code(2);
    unchanged(&p, &fs, "a flag naming the other device");
    p.mount();
    // Mounting updates the superblock (mount count and time): compare from here.
    fs = p.part_head();
    for (target, name) in [(&whole, &whole_name), (&p.part, &part_name)] {
        io(target, &["--rw", "randwrite", "--force-destroy", name])
            .code(2)
            .stderr(predicate::str::contains("mounted"));
    }
    unchanged(&p, &fs, "the mounted partition");
}
