//! storlab run by an unprivileged user, as most users run it: real I/O on its own files, a
//! PostgreSQL it starts, and the files and directories it may not write, which it leaves as
//! they were with a clear message and exit code 2. Run as root (as `make test` is), the
//! commands run as `nobody` (uid and gid 65534, no supplementary groups); run by anyone else,
//! as that user.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;

use super::db::postgres_running_on;
use super::names_in;

const NOBODY: u32 = 65_534;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The uid the commands run as.
fn runner_uid() -> u32 {
    if is_root() {
        NOBODY
    } else {
        // SAFETY: as above.
        unsafe { libc::geteuid() }
    }
}

/// The unprivileged user's side of a test: a home directory in /tmp (which every user can
/// traverse) that the user owns, and a copy of the binary it may run (the checkout's own
/// directories need not be open to that user). Both are removed at the end.
struct User {
    home: tempfile::TempDir,
    bin: tempfile::TempDir,
}

impl User {
    fn new() -> User {
        let dir = || {
            tempfile::Builder::new()
                .prefix("storlab-cli-unprivileged")
                .tempdir_in("/tmp")
                .expect("temp dir")
        };
        let (home, bin) = (dir(), dir());
        if is_root() {
            std::os::unix::fs::chown(home.path(), Some(NOBODY), Some(NOBODY)).expect("chown");
        }
        std::fs::set_permissions(bin.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::copy(
            assert_cmd::cargo::cargo_bin("storlab"),
            bin.path().join("storlab"),
        )
        .expect("copy the binary");
        User { home, bin }
    }

    fn home(&self) -> &Path {
        self.home.path()
    }

    /// `storlab io` on `target`, 8 KiB random writes for 1 s with no warm-up, with `more`
    /// arguments: (exit code, stderr).
    fn io(&self, target: &str, more: &[&str]) -> (Option<i32>, String) {
        let mut args = vec!["io", "--target", target, "--profile", "randwrite-8k"];
        args.extend(["--duration", "1s", "--warmup", "0"]);
        args.extend(more);
        let (code, _, err) = self.run(&args);
        (code, err)
    }

    /// `storlab` with `args`, as the user, in its home: (exit code, stdout, stderr).
    fn run(&self, args: &[&str]) -> (Option<i32>, String, String) {
        let mut cmd = std::process::Command::new(self.bin.path().join("storlab"));
        cmd.args(args)
            .env("HOME", self.home())
            .current_dir(self.home());
        if is_root() {
            // std drops the supplementary groups too when root changes its uid.
            cmd.uid(NOBODY).gid(NOBODY);
        }
        // A copy just written may be open for writing in a child another test forked and
        // has not exec'd yet (ETXTBSY) for a moment.
        let mut tries = 0;
        let out = loop {
            match cmd.output() {
                Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other.expect("run storlab"),
            }
        };
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

#[test]
fn an_unprivileged_user_runs_io_on_its_own_files_and_cannot_write_others() {
    let user = User::new();
    let home = user.home();
    let path = |name: &str| home.join(name).to_string_lossy().into_owned();

    // Its own file: created, measured, the result written and owned by the user, the data
    // file removed at the end.
    let (code, err) = user.io(
        &path("own.dat"),
        &["--size", "4m", "--json", &path("own.json")],
    );
    assert_eq!(code, Some(0), "{err}");
    let result = std::fs::metadata(home.join("own.json")).expect("result written");
    assert_eq!(result.uid(), runner_uid());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("own.json")).unwrap()).unwrap();
    assert!(v["runs"][0]["metrics"]["iops"].as_f64().unwrap() > 0.0);
    assert_eq!(names_in(home), ["own.json"]);

    // Another user's file, read-only to the user: even named with --overwrite, it cannot be
    // opened for writing, and it is left byte for byte as it was.
    let victim = home.join("victim.dat");
    let content: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    std::fs::write(&victim, &content).unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (code, err) = user.io(&path("victim.dat"), &["--overwrite", &path("victim.dat")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("victim.dat") && err.contains("Permission denied"),
        "{err}"
    );
    assert!(std::fs::read(&victim).unwrap() == content, "victim changed");

    // A directory the user may not write: refused before anything is created, for the data
    // file and for the result file alike.
    let closed = home.join("closed");
    std::fs::create_dir(&closed).unwrap();
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o555)).unwrap();
    let in_closed = |name: &str| closed.join(name).to_string_lossy().into_owned();
    for (target, more) in [
        (in_closed("new.dat"), vec!["--size", "1m"]),
        (
            path("new.dat"),
            vec!["--size", "1m", "--json", &in_closed("out.json")],
        ),
    ] {
        let args = (&target, &more);
        let (code, err) = user.io(&target, &more);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("Permission denied"), "{args:?}: {err}");
        assert!(err.contains(&*closed.to_string_lossy()), "{args:?}: {err}");
        assert!(names_in(&closed).is_empty(), "{args:?}");
        assert_eq!(
            names_in(home),
            ["closed", "own.json", "victim.dat"],
            "{args:?}"
        );
    }
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o755)).unwrap();
}

pub(super) fn an_unprivileged_user_starts_its_own_postgresql_and_leaves_nothing_behind() {
    let user = User::new();
    let home = user.home();
    let data = home.join("pg").join("data");
    let out = home.join("db.json");
    std::fs::create_dir(home.join("pg")).unwrap();
    if is_root() {
        std::os::unix::fs::chown(home.join("pg"), Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let (code, stdout, err) = user.run(&[
        "db",
        "--suite",
        "dpaws",
        "--test",
        "update-row",
        "--scale",
        "1",
        "--clients",
        "2",
        "--duration",
        "2s",
        "--warmup",
        "0",
        "--data-dir",
        &data.to_string_lossy(),
        "--json",
        &out.to_string_lossy(),
    ]);
    assert_eq!(code, Some(0), "{stdout}\n{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(v["runs"][0]["metrics"]["rows_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(std::fs::metadata(&out).unwrap().uid(), runner_uid());
    // The server it started is stopped and its cluster removed; the directory it was given
    // stays.
    assert!(!postgres_running_on(&data));
    assert!(!data.exists());
    assert!(names_in(&home.join("pg")).is_empty());
}
