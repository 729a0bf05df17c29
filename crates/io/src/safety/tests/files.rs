use super::super::marker::{has_xattr_mark, mark_sidecar, sidecar_marks, sidecar_path};
use super::*;

#[test]
fn created_file_is_marked_outside_its_data_and_removed_with_its_marker() {
    let dir = scratch_dir();
    let f = dir.path().join("bench.dat");
    assert!(!check_file_writable(&f, false).expect("missing file is fine"));
    assert!(!is_ours(&f));
    fs::write(&f, [7u8; 4096]).expect("write");
    mark_ours(&f).expect("mark");
    assert!(is_ours(&f));
    assert!(check_file_writable(&f, false).expect("ours"));
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
    match check_file_writable(&f, false) {
        Err(e @ SafetyError::NotOurs { .. }) => assert!(e.to_string().contains("--overwrite")),
        other => panic!("expected NotOurs, got {other:?}"),
    }
    assert!(check_file_writable(&f, true).expect("overwrite allows it"));
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
    assert!(check_file_writable(&f, false).expect("ours"));
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
        check_file_writable(&f, false),
        Err(SafetyError::NotOurs { .. })
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
    let msg = io_message(check_file_writable(dir.path(), true));
    assert!(msg.contains("a directory"), "{msg}");
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).expect("symlink");
    let msg = io_message(check_file_writable(&dangling, true));
    assert!(msg.contains("symbolic link to a missing file"), "{msg}");
    let fifo = dir.path().join("fifo");
    let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("no NUL");
    // SAFETY: c_path is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0, "mkfifo");
    let msg = io_message(check_file_writable(&fifo, true));
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
    assert!(check_file_writable(&link, false).expect("follows the link to our file"));
    assert!(!remove_ours(&link).expect("refuses links"));
    assert!(link.exists() && is_ours(&f));
}
