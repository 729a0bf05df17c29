use super::super::mounts::{family, family_in, parse_mountinfo, split_dev, uses, Mount, Use};
use super::*;

#[test]
fn error_messages_name_the_path_and_the_fix() {
    let p = PathBuf::from;
    let mounted = SafetyError::Mounted {
        device: p("/dev/sdb"),
        mount_point: Some(p("/data")),
        via: Some(p("/dev/sdb1")),
    };
    let msg = "/dev/sdb is mounted at /data (via /dev/sdb1); storlab will not write to it";
    assert_eq!(mounted.to_string(), msg);
    let held = SafetyError::Mounted {
        device: p("/dev/sdb"),
        mount_point: None,
        via: Some(p("/dev/mapper/vg-lv")),
    };
    let msg = concat!(
        "/dev/sdb is in use by /dev/mapper/vg-lv, a device built on it; ",
        "storlab will not write to it"
    );
    assert_eq!(held.to_string(), msg);
    let signature = SafetyError::Signature {
        device: p("/dev/sdb"),
        kind: "ext2/3/4",
    };
    let msg = "/dev/sdb holds an ext2/3/4 file system; to destroy it pass --force-destroy /dev/sdb";
    assert_eq!(signature.to_string(), msg);
    let not_ours = SafetyError::NotOurs {
        path: p("/data/f"),
        changed: false,
    };
    let msg = "/data/f exists and was not created by storlab; storlab will not write to it (pass --overwrite /data/f to write it anyway)";
    assert_eq!(not_ours.to_string(), msg);
    let source = io::Error::from_raw_os_error(libc::EACCES);
    let io_err = SafetyError::Io {
        path: p("/dev/sdb"),
        source,
    };
    assert_eq!(
        io_err.to_string(),
        "cannot inspect /dev/sdb: permission denied"
    );
}

#[test]
fn split_dev_decodes_linux_device_numbers() {
    assert_eq!(split_dev(0xfe00), (254, 0));
    assert_eq!(split_dev(0x811), (8, 17));
    assert_eq!(split_dev(libc::makedev(259, 1_000_000)), (259, 1_000_000));
    assert_eq!(split_dev(libc::makedev(4000, 7)), (4000, 7));
}

#[test]
fn parses_mountinfo_with_escapes_and_optional_fields() {
    let data = b"36 35 98:0 /mnt1 /mnt\\040two rw,noatime master:1 - ext3 /dev/root rw\n\
                 27 1 254:0 / / rw - ext4 /dev/vda rw\n\
                 not a mountinfo line\n\
                 40 1 0:45 / /b rw shared:3 master:2 - btrfs /dev/sdc2 rw\n";
    let mount = |num, mp: &str, src: &str| Mount {
        num,
        mount_point: mp.into(),
        source: src.into(),
    };
    let expected = vec![
        mount((98, 0), "/mnt two", "/dev/root"),
        mount((254, 0), "/", "/dev/vda"),
        mount((0, 45), "/b", "/dev/sdc2"),
    ];
    assert_eq!(parse_mountinfo(data), expected);
}

fn root_dev() -> (u32, u32) {
    split_dev(fs::metadata("/").expect("stat /").dev())
}

#[test]
fn mounts_of_root_device_include_root() {
    let (major, minor) = root_dev();
    let mounts = mounts_of_device(major, minor).expect("reading mountinfo");
    assert!(
        mounts.contains(&PathBuf::from("/")),
        "{major}:{minor} -> {mounts:?}"
    );
}

#[test]
fn missing_device_has_no_mounts_and_no_family() {
    assert_eq!(
        mounts_of_device(4095, 1_048_575).expect("reading mountinfo"),
        Vec::<PathBuf>::new()
    );
    let fam = family((4095, 1_048_575)).expect("reading /sys");
    assert!(!fam.in_sysfs);
    assert_eq!(fam.members.len(), 1);
}

#[test]
fn family_follows_partitions_and_holders_in_sysfs() {
    // A fake sysfs: disk vdx (4090:0) with partition vdx1; dm-9 sits on vdx,
    // md7 on vdx1 and on dm-9 (visited once); "gone" has no class entry.
    let dir = tempfile::tempdir().expect("temp dir");
    let sys = dir.path();
    let write = |rel: &str, text: &str| {
        let path = sys.join(rel);
        fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    };
    write("devices/vdx/dev", "4090:0\n");
    write("devices/vdx/queue/rotational", "0\n");
    write("devices/vdx/vdx1/partition", "1\n");
    write("devices/vdx/vdx1/dev", "4090:1\n");
    write("devices/vdx/holders/dm-9", "");
    write("devices/vdx/holders/gone", "");
    write("devices/vdx/vdx1/holders/md7", "");
    write("devices/virtual/dm-9/dev", "4091:9\n");
    write("devices/virtual/dm-9/dm/name", "vg-bench\n");
    write("devices/virtual/dm-9/holders/md7", "");
    write("devices/virtual/md7/dev", "4092:7\n");
    let link = |target: &str, rel: &str| {
        let path = sys.join(rel);
        fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::os::unix::fs::symlink(sys.join(target), path).expect("symlink");
    };
    link("devices/vdx", "dev/block/4090:0");
    link("devices/virtual/dm-9", "class/block/dm-9");
    link("devices/virtual/md7", "class/block/md7");

    let fam = family_in(sys, (4090, 0)).expect("fake sysfs");
    assert!(fam.in_sysfs);
    let mut found: Vec<_> = fam
        .members
        .iter()
        .map(|m| (m.num, m.holder, m.dev_path()))
        .collect();
    found.sort();
    let expected = [
        ((4090, 0), false, PathBuf::from("/dev/vdx")),
        ((4090, 1), false, PathBuf::from("/dev/vdx1")),
        ((4091, 9), true, PathBuf::from("/dev/mapper/vg-bench")),
        ((4092, 7), true, PathBuf::from("/dev/md7")),
    ];
    assert_eq!(found, expected);
    assert_eq!(fam.members[0].num, (4090, 0), "the device comes first");
    // Nothing real is mounted on these numbers, so the holders are the uses.
    let held: Vec<_> = uses(&fam).expect("reading mountinfo");
    assert_eq!(held.len(), 2, "{held:?}");
    assert!(held.contains(&Use {
        mount_point: None,
        via: Some("/dev/mapper/vg-bench".into())
    }));
}
#[test]
fn device_check_refuses_non_devices_and_missing_paths() {
    let dir = scratch_dir();
    let file = dir.path().join("plain");
    fs::write(&file, b"x").expect("write");
    let msg = io_message(check_device_writable(&file, Some(&file)));
    assert!(msg.contains("not a block device"), "{msg}");
    let missing = Path::new("/dev/storlab-no-such-device");
    let msg = io_message(check_device_writable(missing, None));
    assert_eq!(
        msg,
        "cannot inspect /dev/storlab-no-such-device: no such file or directory"
    );
}

#[test]
fn root_device_node_is_refused_as_mounted_even_when_forced() {
    let (major, minor) = root_dev();
    // "/" on overlayfs or tmpfs has an anonymous device (0:N) with no /sys entry: nothing to test.
    let Ok(uevent) = fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/uevent")) else {
        eprintln!("root file system {major}:{minor} is not a block device; skipped");
        return;
    };
    let name = uevent
        .lines()
        .find_map(|l| l.strip_prefix("DEVNAME="))
        .expect("DEVNAME in uevent");
    let node = Path::new("/dev").join(name);
    match check_device_writable(&node, Some(&node)) {
        Err(SafetyError::Mounted {
            device,
            mount_point,
            ..
        }) => {
            assert_eq!(device, node);
            assert!(mount_point.is_some(), "root is mounted directly");
        }
        // Containers often have no node for the root disk, and without permission
        // the check may fail to inspect it: then the error must be a clear Io one.
        Err(e @ SafetyError::Io { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("no such file or directory") || msg.contains("permission denied"),
                "{msg}"
            );
        }
        other => panic!("writing to the root device must be refused: {other:?}"),
    }
}

#[test]
fn force_destroy_compares_canonical_paths() {
    let dir = scratch_dir();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    fs::write(&a, b"").expect("write a");
    fs::write(&b, b"").expect("write b");
    let link = dir.path().join("link-to-a");
    std::os::unix::fs::symlink(&a, &link).expect("symlink");
    let dotted = dir.path().join(".").join("a");
    assert!(flag_names(&a, Some(&link)));
    assert!(flag_names(&link, Some(&dotted)));
    assert!(!flag_names(&a, Some(&b)));
    assert!(!flag_names(&a, None));
    assert!(!flag_names(&a, Some(&dir.path().join("missing"))));
}
