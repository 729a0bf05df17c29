//! Result files on misused and failing file systems: output paths checked before a run
//! starts (a directory, a path that cannot be created, an unwritable directory, a read-only
//! or full file system: exit 2 at once, even for an hour-long simulation), and results
//! replaced atomically (a full file system leaves the old file as it was, and no temporary
//! file behind). Real tmpfs mounts, made and removed by the tests (they need root).

use std::io::Write;
use std::path::{Path, PathBuf};

use predicates::prelude::*;

use super::{example, scratch_dir, storlab};

/// A tmpfs mounted on a temporary directory, unmounted when dropped (also when a test fails).
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs of `options` (e.g. "size=1m"); None, with the reason printed, when
    /// this machine does not allow it.
    fn mount(options: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(dir.path())
            .output();
        match out {
            Ok(o) if o.status.success() => Some(Tmpfs { dir }),
            Ok(o) => {
                eprintln!(
                    "skipped: cannot mount tmpfs (needs root): {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("skipped: cannot mount tmpfs (needs root): {e}");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// Fills the file system of `dir` up to `leave` bytes of free space (whole pages).
fn fill(dir: &Path, leave: u64) {
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).unwrap();
    let page = [0xa5u8; 4096];
    let mut written = 0u64;
    loop {
        match f.write(&page) {
            Ok(0) => break,
            Ok(n) => written += n as u64,
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
            Err(e) => panic!("filling {}: {e}", path.display()),
        }
    }
    f.set_len(written.saturating_sub(leave)).unwrap();
    f.sync_all().unwrap();
}

/// Names of the files in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `storlab sim` of an hour of simulated time writing `--json json`.
fn hour_long_sim(json: &Path) -> assert_cmd::assert::Assert {
    storlab()
        .args(["sim", "--array", &example("midrange-raid5.toml")])
        .args(["--profile", "randread-8k", "--duration", "3600s"])
        .arg("--json")
        .arg(json)
        .assert()
}

/// Expects bad input (exit 2) naming `--json`, the path and `reason`.
fn refused(json: &Path, reason: &str) {
    hour_long_sim(json)
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(format!(
            "--json {}",
            json.display()
        )))
        .stderr(predicate::str::contains(reason));
}

#[test]
fn a_directory_or_a_path_that_cannot_be_created_is_refused_before_the_run() {
    let dir = scratch_dir();
    refused(dir.path(), "is a directory");
    let file = dir.path().join("plain");
    std::fs::write(&file, "x").unwrap();
    refused(&file.join("r.json"), "is not a directory");
    for command in ["compare", "demo"] {
        let mut cmd = storlab();
        cmd.arg(command);
        if command == "compare" {
            cmd.arg("plan.toml");
        }
        cmd.arg("--out")
            .arg(&file)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "--out {}",
                file.display()
            )))
            .stderr(predicate::str::contains("is not a directory"));
    }
    assert_eq!(names(dir.path()), ["plain"], "nothing created");
}

/// Clears the immutable flag it set, also when the test fails.
struct Immutable(PathBuf);

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .status();
    }
}

#[test]
fn an_unwritable_directory_is_refused_before_the_run() {
    let dir = scratch_dir();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    // Root writes through permission bits; an immutable directory stops it too.
    let set = std::process::Command::new("chattr")
        .arg("+i")
        .arg(&locked)
        .output();
    if !set.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: cannot make a directory immutable (chattr +i needs root)");
        return;
    }
    let _guard = Immutable(locked.clone());
    refused(&locked.join("r.json"), "cannot write in");
    refused(&locked.join("new/r.json"), "cannot write in");
}

#[test]
fn a_read_only_or_full_file_system_is_refused_before_the_run() {
    let Some(ro) = Tmpfs::mount("ro,size=1m") else {
        return;
    };
    refused(&ro.path().join("r.json"), "read-only file system");
    let Some(full) = Tmpfs::mount("size=1m") else {
        return;
    };
    std::fs::write(full.path().join("old.json"), "{\"old\": true}\n").unwrap();
    fill(full.path(), 0);
    refused(&full.path().join("old.json"), "KiB free");
    assert_eq!(
        std::fs::read_to_string(full.path().join("old.json")).unwrap(),
        "{\"old\": true}\n"
    );
    // The other subcommands check theirs the same way.
    let json = full.path().join("r.json");
    let target = scratch_dir();
    storlab()
        .args(["io", "--duration", "3600s", "--size", "1MiB", "--target"])
        .arg(target.path().join("t.dat"))
        .arg("--json")
        .arg(&json)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--json").and(predicate::str::contains("KiB free")));
    assert!(names(target.path()).is_empty(), "io created nothing");
    storlab()
        .args(["db", "--duration", "3600s", "--data-dir"])
        .arg(target.path().join("pg"))
        .arg("--json")
        .arg(&json)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("KiB free"));
    assert!(names(target.path()).is_empty(), "db started nothing");
    storlab()
        .args(["validate", "--json"])
        .arg(&json)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("KiB free"));
    storlab()
        .args(["compare", "no-plan-needed.toml", "--out"])
        .arg(full.path().join("study"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--out").and(predicate::str::contains("KiB free")));
}

#[test]
fn a_full_file_system_leaves_the_old_result_intact_and_no_temporary_file() {
    let Some(fs) = Tmpfs::mount("size=1m") else {
        return;
    };
    let old = fs.path().join("old.json");
    let content = "{\"schema\": \"storlab.results/1\", \"runs\": []}\n";
    std::fs::write(&old, content).unwrap();
    // Room for the check before the run (64 KiB), not for the matrix's results (220 KB).
    fill(fs.path(), 128 << 10);
    storlab()
        .args([
            "sim",
            "--array",
            &example("enterprise-raid5.toml"),
            "--matrix",
        ])
        .args(["--duration", "1s", "--warmup", "0"])
        .arg("--json")
        .arg(&old)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot write"))
        .stderr(predicate::str::contains("left as it was"));
    assert_eq!(std::fs::read_to_string(&old).unwrap(), content);
    assert_eq!(
        names(fs.path()),
        ["filler", "old.json"],
        "no temporary file"
    );
}
