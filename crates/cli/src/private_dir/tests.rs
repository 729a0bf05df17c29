use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};

use std::time::{Duration, SystemTime};

use super::{create, open_dir, remove_stale, try_lock, MIN_AGE};

/// What the sweep may remove: the files storlab writes in such a directory.
fn written_here(name: &str) -> bool {
    ["array.toml", "workload.toml"].contains(&name)
}

/// The pid of a process that has exited (and was waited for).
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("true runs");
    let pid = child.id();
    child.wait().expect("true exits");
    pid
}

/// A directory `name` in `parent` with `mode` holding `files` (a trailing `/` makes a
/// subdirectory).
fn left(parent: &Path, name: &str, mode: u32, files: &[&str]) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).unwrap();
    for f in files {
        match f.strip_suffix('/') {
            Some(sub) => std::fs::create_dir(dir.join(sub)).unwrap(),
            None => std::fs::write(dir.join(f), "name = \"x\"\n").unwrap(),
        }
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).unwrap();
    age(&dir, MIN_AGE + Duration::from_secs(5));
    dir
}

/// Sets `dir`'s modification time `ago` in the past (the wall clock: a file's age).
#[allow(clippy::disallowed_methods)]
fn age(dir: &Path, ago: Duration) {
    let t = SystemTime::now() - ago;
    let f = open_dir(dir).unwrap();
    f.set_times(std::fs::FileTimes::new().set_modified(t).set_accessed(t))
        .unwrap();
}

#[test]
fn a_dead_process_s_directory_of_known_files_is_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let pid = dead_pid();
    let stale = left(
        tmp.path(),
        &format!("storlab-py-{pid}-3"),
        0o700,
        &["array.toml", "workload.toml"],
    );
    let empty = left(tmp.path(), &format!("storlab-py-{pid}-4"), 0o700, &[]);
    let mut removed = remove_stale(tmp.path(), "storlab-py", written_here);
    removed.sort();
    assert_eq!(removed, [stale.clone(), empty.clone()]);
    assert!(!stale.exists() && !empty.exists());
}

#[test]
fn a_directory_with_anything_else_or_of_a_live_process_is_kept_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dead = dead_pid();
    let name = |pid: u32, n: u32| format!("storlab-py-{pid}-{n}");
    let kept = [
        // A file storlab does not write there.
        left(
            tmp.path(),
            &name(dead, 0),
            0o700,
            &["array.toml", "notes.txt"],
        ),
        // A subdirectory.
        left(tmp.path(), &name(dead, 1), 0o700, &["array.toml", "sub/"]),
        // Not private.
        left(tmp.path(), &name(dead, 2), 0o755, &["array.toml"]),
        // This process's own (a call still running in another thread).
        left(
            tmp.path(),
            &name(std::process::id(), 3),
            0o700,
            &["array.toml"],
        ),
        // The parent process, alive.
        left(
            tmp.path(),
            &name(std::os::unix::process::parent_id(), 4),
            0o700,
            &["array.toml"],
        ),
        // Not the pattern.
        left(
            tmp.path(),
            &format!("storlab-py-{dead}-x"),
            0o700,
            &["array.toml"],
        ),
        left(
            tmp.path(),
            &format!("storlab-pyx-{dead}-5"),
            0o700,
            &["array.toml"],
        ),
    ];
    // A link in place of a file, and a link in place of the directory.
    let linked = left(tmp.path(), &name(dead, 6), 0o700, &[]);
    symlink("/etc/hostname", linked.join("array.toml")).unwrap();
    let target = left(tmp.path(), "elsewhere", 0o700, &["array.toml"]);
    let link = tmp.path().join(name(dead, 7));
    symlink(&target, &link).unwrap();
    let dirs: Vec<&PathBuf> = kept.iter().chain([&linked, &link]).collect();
    let listing = |d: &PathBuf| {
        let mut names: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let before: Vec<_> = dirs.iter().map(|d| listing(d)).collect();
    assert_eq!(
        remove_stale(tmp.path(), "storlab-py", written_here),
        Vec::<PathBuf>::new()
    );
    let after: Vec<_> = dirs.iter().map(|d| listing(d)).collect();
    assert_eq!(before, after);
}

#[test]
fn a_locked_or_recently_changed_directory_is_kept_though_its_pid_looks_dead() {
    // An owner in another PID namespace: its pid does not run here, but it holds the lock.
    let tmp = tempfile::tempdir().unwrap();
    let dead = dead_pid();
    let owned = left(
        tmp.path(),
        &format!("storlab-py-{dead}-0"),
        0o700,
        &["array.toml"],
    );
    let owner = open_dir(&owned).unwrap();
    assert!(try_lock(&owner).unwrap());
    // Unlocked but changed a moment ago (as between its creation and its owner's lock).
    let fresh = left(
        tmp.path(),
        &format!("storlab-py-{dead}-1"),
        0o700,
        &["workload.toml"],
    );
    age(&fresh, MIN_AGE - Duration::from_secs(5));
    assert!(remove_stale(tmp.path(), "storlab-py", written_here).is_empty());
    assert!(owned.join("array.toml").exists() && fresh.join("workload.toml").exists());
    // The owner's process ends: its lock goes, and its directory with it.
    drop(owner);
    let removed = remove_stale(tmp.path(), "storlab-py", written_here);
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0], owned);
    assert!(!owned.exists() && fresh.exists());
}

#[test]
fn created_directories_are_private_distinct_and_locked() {
    let tmp = tempfile::tempdir().unwrap();
    let (da, db) = (
        create(tmp.path(), "storlab-py").unwrap(),
        create(tmp.path(), "storlab-py").unwrap(),
    );
    let (a, b) = (&da.path, &db.path);
    // Another open of the directory cannot take its lock while its owner holds it.
    assert!(!try_lock(&open_dir(a).unwrap()).unwrap());
    assert_ne!(a, b);
    let mode = std::fs::metadata(a).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    let name = a.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(&format!("storlab-py-{}-", std::process::id())),
        "{name}"
    );
    // This process's own directories are never swept.
    assert!(remove_stale(tmp.path(), "storlab-py", written_here).is_empty());
    assert!(a.exists() && b.exists());
}
