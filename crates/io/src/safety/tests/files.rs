use super::super::marker::{has_xattr_mark, mark_sidecar, sidecar_marks, sidecar_path};
use super::*;

#[test]
fn created_file_is_marked_outside_its_data_and_removed_with_its_marker() {
    let dir = scratch_dir();
    let f = dir.path().join("bench.dat");
    let grant = admit(&f, false, None).expect("missing file is fine");
    assert_eq!(grant.admitted(), Admitted::New);
    assert!(!is_ours(&f));
    fs::write(&f, [7u8; 4096]).expect("write");
    mark_ours(&f).expect("mark");
    assert!(is_ours(&f));
    assert_eq!(
        admit(&f, false, None).expect("ours").admitted(),
        Admitted::Ours
    );
    assert_eq!(
        fs::read(&f).expect("read"),
        vec![7u8; 4096],
        "data area untouched"
    );
    let side = sidecar_path(&f);
    assert_ne!(
        has_xattr_mark(&f),
        side.exists(),
        "exactly one kind of marker"
    );
    assert!(remove_ours(&f).expect("remove"));
    assert!(!f.exists() && !side.exists());
    assert!(!remove_ours(&f).expect("nothing left"));
}

#[test]
fn foreign_file_needs_overwrite_and_is_never_removed() {
    let dir = scratch_dir();
    let f = dir.path().join("precious");
    fs::write(&f, b"user data").expect("write");
    match admit(&f, false, None) {
        Err(e @ SafetyError::NotOurs { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("was not created by storlab"), "{msg}");
            assert!(
                msg.contains(&format!("--overwrite {}", f.display())),
                "{msg}"
            );
        }
        other => panic!("expected NotOurs, got {other:?}"),
    }
    let grant = admit(&f, true, None).expect("overwrite allows it");
    assert_eq!(grant.admitted(), Admitted::Overwrite);
    assert!(!grant.is_storlabs());
    assert!(!grant.remove_created().expect("never removes it"));
    assert!(!remove_ours(&f).expect("refuses"));
    assert_eq!(fs::read(&f).expect("still there"), b"user data");
}

#[test]
fn sidecar_fallback_marks_checks_and_removes() {
    let dir = scratch_dir();
    let f = dir.path().join("on-nfs.dat");
    fs::write(&f, b"data").expect("write");
    mark_sidecar(&f).expect("sidecar");
    assert!(sidecar_marks(&f));
    assert!(!has_xattr_mark(&f));
    assert!(is_ours(&f));
    assert_eq!(
        admit(&f, false, None).expect("ours").admitted(),
        Admitted::Ours
    );
    assert!(remove_ours(&f).expect("remove"));
    assert!(!f.exists() && !sidecar_path(&f).exists());
}

#[test]
fn stale_sidecar_does_not_vouch_for_a_replacement() {
    let dir = scratch_dir();
    let (f, other) = (dir.path().join("f"), dir.path().join("other"));
    fs::write(&f, b"ours").expect("write");
    mark_sidecar(&f).expect("sidecar");
    fs::write(&other, b"user data").expect("write");
    fs::rename(&other, &f).expect("replace");
    assert!(!is_ours(&f));
    assert!(matches!(
        admit(&f, false, None),
        Err(SafetyError::NotOurs { changed: true, .. })
    ));
}

#[test]
fn foreign_file_in_the_sidecar_place_is_kept() {
    let dir = scratch_dir();
    let f = dir.path().join("f");
    fs::write(&f, b"data").expect("write");
    fs::write(sidecar_path(&f), b"my notes").expect("write");
    let err = mark_sidecar(&f).expect_err("must not clobber");
    assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
    assert_eq!(fs::read(sidecar_path(&f)).expect("read"), b"my notes");
    assert!(!is_ours(&f));
}

#[test]
fn non_regular_paths_are_refused() {
    let dir = scratch_dir();
    let msg = io_message(admit(dir.path(), true, None));
    assert!(msg.contains("a directory"), "{msg}");
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).expect("symlink");
    let msg = io_message(admit(&dangling, true, None));
    assert!(msg.contains("symbolic link to a missing file"), "{msg}");
    let fifo = dir.path().join("fifo");
    let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("no NUL");
    // SAFETY: c_path is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0, "mkfifo");
    let msg = io_message(admit(&fifo, true, None));
    assert!(msg.contains("not a regular file"), "{msg}");
    assert!(!is_ours(&fifo), "must not block or claim a FIFO");
    assert!(mark_ours(&fifo).is_err());
}

#[test]
fn symlink_to_our_file_is_not_removed() {
    let dir = scratch_dir();
    let (f, link) = (dir.path().join("f"), dir.path().join("link"));
    fs::write(&f, b"data").expect("write");
    mark_ours(&f).expect("mark");
    std::os::unix::fs::symlink(&f, &link).expect("symlink");
    let grant = admit(&link, false, None).expect("follows the link to our file");
    assert_eq!(grant.admitted(), Admitted::Ours);
    assert!(!remove_ours(&link).expect("refuses links"));
    assert!(link.exists() && is_ours(&f));
}

/// Sets a file's modification time (as `touch -d` or `cp -p` would).
fn set_mtime(path: &std::path::Path, secs: i64, nanos: i64) {
    let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("no NUL");
    let t = libc::timespec {
        tv_sec: secs,
        tv_nsec: nanos,
    };
    // SAFETY: a valid path and two valid timespecs.
    let rc = unsafe { libc::utimensat(libc::AT_FDCWD, c_path.as_ptr(), [t, t].as_ptr(), 0) };
    assert_eq!(rc, 0, "utimensat");
}

#[test]
fn marker_does_not_survive_other_content_copied_onto_the_file() {
    let dir = scratch_dir();
    let f = dir.path().join("kept.dat");
    fs::write(&f, [7u8; 8192]).expect("write");
    mark_ours(&f).expect("mark");
    assert!(is_ours(&f));
    // `cp other kept.dat`: same inode, new content (same size), new modification time.
    let before = fs::metadata(&f).expect("meta");
    fs::write(&f, [9u8; 8192]).expect("copy onto it");
    set_mtime(&f, before.mtime() + 10, 0);
    assert_eq!(fs::metadata(&f).expect("meta").ino(), before.ino());
    assert!(
        !is_ours(&f),
        "a marker must not vouch for copied-in content"
    );
    match admit(&f, false, None) {
        Err(e @ SafetyError::NotOurs { changed: true, .. }) => {
            assert!(
                e.to_string()
                    .contains("changed since storlab last wrote it"),
                "{e}"
            )
        }
        other => panic!("expected a changed file to be refused, got {other:?}"),
    }
    // `cp -p`: the source's older modification time comes along; still refused.
    set_mtime(&f, 1_000_000_000, 5);
    assert!(!is_ours(&f));
    // Marked again (what storlab does after its own run), it is storlab's again.
    mark_ours(&f).expect("mark");
    assert!(is_ours(&f));
}

#[test]
fn marker_copied_with_the_file_does_not_vouch_for_the_copy() {
    let dir = scratch_dir();
    let (f, copy) = (dir.path().join("ours"), dir.path().join("copy"));
    fs::write(&f, b"data").expect("write");
    mark_ours(&f).expect("mark");
    // The same xattr (or sidecar content) and modification time on another inode.
    let status = std::process::Command::new("cp")
        .arg("--preserve=all")
        .arg(&f)
        .arg(&copy)
        .status()
        .expect("cp");
    assert!(status.success());
    if sidecar_path(&f).exists() {
        fs::copy(sidecar_path(&f), sidecar_path(&copy)).expect("copy the sidecar");
    }
    assert!(is_ours(&f));
    assert!(!is_ours(&copy), "the copy is another file");
}

#[test]
fn grant_refuses_a_file_swapped_in_after_the_check() {
    let dir = scratch_dir();
    let (f, other) = (dir.path().join("f"), dir.path().join("other"));
    fs::write(&f, b"ours").expect("write");
    mark_ours(&f).expect("mark");
    let grant = admit(&f, false, None).expect("ours");
    fs::write(&other, b"user data").expect("write");
    fs::rename(&other, &f).expect("swap");
    let err = grant
        .open(fs::OpenOptions::new().read(true))
        .expect_err("must not open the swapped file");
    assert!(err.to_string().contains("replaced"), "{err}");
    assert_eq!(fs::read(&f).expect("read"), b"user data");
    assert!(!grant.remove_created().expect("not created"));
    assert!(f.exists());
}

#[test]
fn created_file_is_removed_only_while_it_is_the_one_created() {
    let dir = scratch_dir();
    let f = dir.path().join("new.dat");
    let mut grant = admit(&f, false, None).expect("new");
    let file = grant.create().expect("create");
    drop(file);
    assert!(is_ours(&f));
    fs::write(&f, b"written by the run").expect("write");
    assert!(grant.remove_created().expect("remove"));
    assert!(!f.exists() && !sidecar_path(&f).exists());
    // Created, then replaced by somebody else: left alone.
    let mut grant = admit(&f, false, None).expect("new");
    drop(grant.create().expect("create"));
    fs::remove_file(&f).expect("rm");
    fs::write(&f, b"user data").expect("write");
    assert!(!grant.remove_created().expect("not the created file"));
    assert_eq!(fs::read(&f).expect("read"), b"user data");
    // A grant for a new file never creates over something that appeared meanwhile.
    let g = dir.path().join("raced");
    let mut grant = admit(&g, false, None).expect("new");
    fs::write(&g, b"appeared").expect("write");
    assert_eq!(
        grant.create().expect_err("O_EXCL").kind(),
        io::ErrorKind::AlreadyExists
    );
    assert_eq!(fs::read(&g).expect("read"), b"appeared");
}

/// Other content of the same size written onto a marked file, its modification time then
/// set back: device, inode, size and modification time all match the mark, but the change
/// time (which nothing sets back) is later than the mark, so the file is not storlab's.
#[test]
fn a_marked_file_changed_and_its_time_set_back_is_not_ours() {
    for sidecar in [false, true] {
        let dir = scratch_dir();
        let f = dir.path().join("kept.dat");
        fs::write(&f, [7u8; 8192]).expect("write");
        match sidecar {
            true => mark_sidecar(&f).expect("sidecar"),
            false => mark_ours(&f).expect("mark"),
        }
        assert!(is_ours(&f), "sidecar {sidecar}");
        let before = fs::metadata(&f).expect("stat");
        std::thread::sleep(std::time::Duration::from_millis(1_100));
        // Reading and looking change nothing.
        assert_eq!(fs::read(&f).expect("read"), vec![7u8; 8192]);
        assert!(is_ours(&f), "sidecar {sidecar}: a read");
        let mut w = OpenOptions::new().write(true).open(&f).expect("open");
        io::Write::write_all(&mut w, &[9u8; 4096]).expect("write");
        drop(w);
        set_mtime(&f, before.mtime(), before.mtime_nsec());
        let after = fs::metadata(&f).expect("stat");
        assert_eq!(
            (after.len(), after.mtime(), after.mtime_nsec()),
            (before.len(), before.mtime(), before.mtime_nsec())
        );
        assert!(
            !is_ours(&f),
            "sidecar {sidecar}: changed content vouched for"
        );
        assert!(matches!(
            admit(&f, false, None),
            Err(SafetyError::NotOurs { changed: true, .. })
        ));
    }
}
