//! `storlab compare` under faults and misuse: failures are not reused on resume, a study
//! whose every cell failed exits 1, a cell killed or interrupted mid-run is never stored as
//! finished (Ctrl-C keeps the finished cells and the running one marked partial), and plans
//! too large to hold are refused before any cell is built.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use predicates::prelude::*;

use super::{example, storlab};

fn write_plan(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("plan.toml");
    std::fs::write(&path, format!("title = \"t\"\nseed = 5\n{body}")).unwrap();
    path
}

fn compare(plan: &Path, out: &Path) -> assert_cmd::assert::Assert {
    storlab()
        .arg("compare")
        .arg(plan)
        .arg("--out")
        .arg(out)
        .assert()
}

fn spawn_compare(plan: &Path, out: &Path) -> Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .arg("compare")
        .arg(plan)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Names of the stored cells (cells/*.json).
fn stored(out: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(out.join("cells")).map_or(Vec::new(), |d| {
        d.flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json"))
            .collect()
    });
    v.sort();
    v
}

/// Waits (up to a minute) until `n` cells are stored.
fn wait_for_cells(out: &Path, n: usize) {
    let mut waited_ms = 0;
    while stored(out).len() < n {
        assert!(waited_ms < 60_000, "{} cells stored", stored(out).len());
        std::thread::sleep(std::time::Duration::from_millis(20));
        waited_ms += 20;
    }
}

fn signal(child: &Child, sig: &str) {
    let status = std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits up to `secs` for `child` to end; kills it and fails otherwise.
fn wait_at_most(child: &mut Child, secs: u64) -> std::process::ExitStatus {
    for _ in 0..secs * 50 {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("compare still running {secs} s after the signal");
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_study_whose_every_cell_failed_exits_1_saying_how_many() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        &format!(
            "duration = \"1s\"\nwarmup = \"0s\"\n\
             [[targets]]\nname = \"a\"\narray = \"{0}\"\n[[targets]]\nname = \"b\"\narray = \"{0}\"\n\
             [[workloads]]\nprofile = \"randread-9k\"\n",
            example("midrange-raid5.toml")
        ),
    );
    let out = dir.path().join("out");
    compare(&plan, &out)
        .code(1)
        .stderr(predicate::str::contains("all 2 cells failed"));
    // The report is still written, with the reasons.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("unknown profile"));
}

#[test]
fn a_failure_of_an_earlier_run_is_run_again_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let array = dir.path().join("array.toml");
    std::fs::write(&array, "this is not an array").unwrap();
    let plan = write_plan(
        dir.path(),
        &format!(
            "duration = \"1s\"\nwarmup = \"0s\"\n\
             [[targets]]\nname = \"a\"\narray = \"{}\"\n[[workloads]]\nprofile = \"randread-8k\"\n",
            array.display()
        ),
    );
    let out = dir.path().join("out");
    compare(&plan, &out).code(1);
    // The cause goes away (here: the array file is fixed; for a real database, a server
    // left by a killed run is gone): the re-run measures the cell instead of reusing the
    // failure.
    std::fs::copy(example("midrange-raid5.toml"), &array).unwrap();
    compare(&plan, &out)
        .success()
        .stderr(predicate::str::contains("failed on an earlier run"))
        .stderr(predicate::str::contains("running it again"));
    let study = read_json(&out.join("study.json"));
    let cells = study["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1);
    assert!(cells[0]["error"].is_null(), "{}", cells[0]);
    assert!(cells[0]["run"]["metrics"]["iops"].as_f64().unwrap() > 0.0);
    // Now finished and successful, it is taken as it is.
    compare(&plan, &out)
        .success()
        .stderr(predicate::str::contains("from an earlier run"));
}

/// Two short simulated cells, then one long one.
fn short_short_long(dir: &Path, long: &str) -> PathBuf {
    write_plan(
        dir,
        &format!(
            "duration = \"2s\"\nwarmup = \"0s\"\n\
             [[targets]]\nname = \"a\"\narray = \"{}\"\n\
             [[workloads]]\nprofile = \"randread-8k\"\n[[workloads]]\nprofile = \"randwrite-8k\"\n\
             [[workloads]]\nprofile = \"oltp-60-40\"\nduration = \"{long}\"\n",
            example("midrange-raid5.toml")
        ),
    )
}

#[test]
fn a_cell_killed_mid_run_is_not_recorded_and_runs_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let plan = short_short_long(dir.path(), "900s");
    let out = dir.path().join("out");
    let mut child = spawn_compare(&plan, &out);
    wait_for_cells(&out, 2);
    signal(&child, "-KILL");
    child.wait().unwrap();
    assert_eq!(stored(&out).len(), 2, "the killed cell is not stored");
    compare(&plan, &out)
        .success()
        .stderr(predicate::str::contains("from an earlier run").count(2));
    let study = read_json(&out.join("study.json"));
    let cells = study["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 3);
    assert!(cells.iter().all(|c| c["error"].is_null()), "{study}");
    let names = std::fs::read_dir(out.join("cells")).unwrap().count();
    assert_eq!(names, 3, "no temporary file left in cells/");
}

#[test]
fn ctrl_c_keeps_the_finished_cells_and_the_running_one_marked_partial() {
    let dir = tempfile::tempdir().unwrap();
    // The long cell takes seconds of wall time, stopped by Ctrl-C (within a second where
    // the simulator polls the stop flag; else at its end, still kept marked partial).
    let plan = short_short_long(dir.path(), "1800s");
    let out = dir.path().join("out");
    let mut child = spawn_compare(&plan, &out);
    wait_for_cells(&out, 2);
    // Let the third cell start (the loop stops before a cell that has not started).
    std::thread::sleep(std::time::Duration::from_millis(300));
    let finished = stored(&out);
    signal(&child, "-INT");
    let status = wait_at_most(&mut child, 60);
    assert_eq!(status.code(), Some(1), "interrupted exits 1");
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("interrupted"), "{err}");
    assert_eq!(
        stored(&out),
        finished,
        "the finished cells kept, the partial not stored"
    );
    // The running cell is in the study and results.json, marked partial.
    let study = read_json(&out.join("study.json"));
    let cells = study["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 3, "{study}");
    let last = &cells[2];
    assert_eq!(last["workload"], "oltp-60-40");
    assert!(
        last["error"].as_str().unwrap().contains("partial"),
        "{last}"
    );
    let results = read_json(&out.join("results.json"));
    let partial: Vec<bool> = results["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["partial"].as_bool().unwrap_or(false))
        .collect();
    assert_eq!(partial.len(), 3);
    assert_eq!(partial.iter().filter(|&&p| p).count(), 1, "{partial:?}");
}

/// `storlab compare` with its address space bounded, so a plan that would allocate without
/// bound fails fast instead of exhausting the machine's memory.
fn compare_bounded(plan: &Path, out: &Path) -> assert_cmd::assert::Assert {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"));
    cmd.arg("compare").arg(plan).arg("--out").arg(out);
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 4 << 30,
                rlim_max: 4 << 30,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    assert_cmd::Command::from_std(cmd).assert()
}

#[test]
fn plans_too_large_to_run_are_refused_at_validation() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let array = example("midrange-raid5.toml");
    let target = |i: usize| format!("[[targets]]\nname = \"t{i}\"\narray = \"{array}\"\n");
    let cases = [
        (
            format!(
                "repeats = 100000000\n{}[[workloads]]\nprofile = \"randread-8k\"\n",
                target(0)
            ),
            "repeats: must be at least 1 and at most 1000; got 100000000",
        ),
        (
            format!(
                "{}[[workloads]]\nprofile = \"randread-8k\"\nrepeats = 5000\n",
                target(0)
            ),
            "workloads[0].repeats: must be at least 1 and at most 1000; got 5000",
        ),
        (
            format!(
                "repeats = 1000\n{}[[workloads]]\niogen = true\n",
                (0..20).map(target).collect::<String>()
            ),
            "repeats: the plan's cells (workloads x targets x repeats) must be at most 100000 cells; \
             got 200000",
        ),
        (
            format!(
                "{}[[workloads]]\nprofile = \"randread-8k\"\n",
                (0..300).map(target).collect::<String>()
            ),
            "targets: must be at least 1 and at most 256 targets; got 300",
        ),
        (
            "targets = []\n[[workloads]]\nprofile = \"randread-8k\"\n".to_string(),
            "targets: must be at least 1 and at most 256 targets; got 0",
        ),
    ];
    for (body, message) in cases {
        let plan = write_plan(dir.path(), &body);
        compare_bounded(&plan, &out)
            .code(2)
            .stderr(predicate::str::contains("plan.toml"))
            .stderr(predicate::str::contains(message));
    }
    assert!(!out.join("cells").exists(), "nothing ran");
}

#[test]
fn a_directory_holding_the_users_files_is_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        &format!(
            "duration = \"1s\"\nwarmup = \"0s\"\n\
             [[targets]]\nname = \"a\"\narray = \"{}\"\n[[workloads]]\nprofile = \"randread-8k\"\n",
            example("midrange-raid5.toml")
        ),
    );
    let theirs = dir.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("report.html"), b"my report").unwrap();
    compare(&plan, &theirs)
        .code(2)
        .stderr(predicate::str::contains("not a storlab study's"));
    assert_eq!(
        std::fs::read(theirs.join("report.html")).unwrap(),
        b"my report"
    );
    assert_eq!(
        std::fs::read_dir(&theirs).unwrap().count(),
        1,
        "nothing added"
    );
    // A new directory becomes a study's, and a second run may replace its files.
    let out = dir.path().join("study");
    compare(&plan, &out).success();
    compare(&plan, &out).success();
    // So may an empty one.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    compare(&plan, &empty).success();
    assert!(empty.join("report.html").exists());
}

#[test]
fn a_study_directory_keeps_every_file_storlab_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        &format!(
            "duration = \"1s\"\nwarmup = \"0s\"\n\
             [[targets]]\nname = \"a\"\narray = \"{}\"\n[[workloads]]\nprofile = \"randread-8k\"\n",
            example("midrange-raid5.toml")
        ),
    );
    let out = dir.path().join("study");
    compare(&plan, &out).success();
    // The user's files beside the study's, even with a temporary-looking name, survive a
    // fresh run.
    let notes = out.join("notes.txt");
    let tmp = out.join("cells/notes.json.tmp");
    std::fs::write(&notes, "mine\n").unwrap();
    std::fs::write(&tmp, "mine\n").unwrap();
    storlab()
        .arg("compare")
        .arg(&plan)
        .arg("--out")
        .arg(&out)
        .arg("--fresh")
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine\n");
    assert_eq!(std::fs::read_to_string(&tmp).unwrap(), "mine\n");
    // A file of the user's under one of the study's names is refused before anything runs.
    for (name, text) in [
        ("summary.csv", "my,table\r\n1,2\r\n"),
        ("report.html", "<html><head></head></html>\n"),
        ("study.json", "{\"title\": \"mine\"}\n"),
        ("cells/mine.json", "{\"mine\": 1}\n"),
    ] {
        let path = out.join(name);
        let before = std::fs::read(&path).ok();
        std::fs::write(&path, text).unwrap();
        let cells = stored(&out);
        storlab()
            .arg("compare")
            .arg(&plan)
            .arg("--out")
            .arg(&out)
            .arg("--fresh")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "--out {}",
                path.display()
            )))
            .stderr(predicate::str::contains("was not written by storlab"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{name}");
        assert_eq!(stored(&out), cells, "no cell removed");
        match before {
            Some(b) => std::fs::write(&path, b).unwrap(),
            None => std::fs::remove_file(&path).unwrap(),
        }
    }
    compare(&plan, &out).success();
}

fn one_cell_plan(dir: &Path) -> PathBuf {
    write_plan(
        dir,
        &format!(
            "duration = \"1s\"\nwarmup = \"0s\"\n\
             [[targets]]\nname = \"a\"\narray = \"{}\"\n[[workloads]]\nprofile = \"randread-8k\"\n",
            example("midrange-raid5.toml")
        ),
    )
}

/// A directory of the user's that happens to hold a `cells/` directory of theirs is not a
/// study: nothing is written into it or its `cells/`.
#[test]
fn a_users_directory_with_a_cells_directory_is_not_a_study() {
    let dir = tempfile::tempdir().unwrap();
    let plan = one_cell_plan(dir.path());
    let theirs = dir.path().join("lab");
    std::fs::create_dir_all(theirs.join("cells")).unwrap();
    std::fs::write(theirs.join("cells/sample.txt"), b"mine").unwrap();
    std::fs::write(theirs.join("readme.txt"), b"mine").unwrap();
    compare(&plan, &theirs)
        .code(2)
        .stderr(predicate::str::contains("not a storlab study's"));
    let names = |d: &Path| std::fs::read_dir(d).unwrap().count();
    assert_eq!(names(&theirs), 2, "nothing added");
    assert_eq!(names(&theirs.join("cells")), 1, "nothing added to cells/");
    // A study whose mark is gone is still known by its cells, and used.
    let out = dir.path().join("study");
    compare(&plan, &out).success();
    std::fs::remove_file(out.join(".storlab-study")).unwrap();
    compare(&plan, &out).success();
}

/// A study of one cell run once: its directory, plan and output directory.
fn a_study() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let plan = one_cell_plan(dir.path());
    let out = dir.path().join("study");
    compare(&plan, &out).success();
    (dir, plan, out)
}

/// A file of the user's under the name of the gate's temporary files, in a study's cells/,
/// is not a leftover of storlab's: it is kept.
#[test]
fn a_users_file_under_a_temporary_name_is_kept() {
    let (_dir, plan, out) = a_study();
    let theirs = out.join("cells/.a__b__0.json.4242-7.storlab-tmp");
    std::fs::write(&theirs, b"mine").unwrap();
    // What a killed write of storlab's left (a cell file's start) is removed.
    let left = out.join("cells/.a__b__0.json.4242-8.storlab-tmp");
    std::fs::write(&left, b"[\n  {").unwrap();
    compare(&plan, &out).success();
    assert_eq!(std::fs::read(&theirs).unwrap(), b"mine");
    assert!(!left.exists(), "storlab's own leftover is removed");
}

/// A study whose `cells/` or mark was replaced by a symbolic link (to a directory or file of
/// the user's) is refused: nothing is written, removed or added through the link, even with
/// `--fresh`.
#[test]
fn a_study_whose_cells_directory_is_a_link_is_not_written_through() {
    let (dir, plan, out) = a_study();
    let theirs = dir.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), b"mine").unwrap();
    // An empty file under the gate's temporary name, which a study's own cells/ would lose.
    std::fs::write(theirs.join(".a__b__0.json.4242-7.storlab-tmp"), b"").unwrap();
    std::fs::remove_dir_all(out.join("cells")).unwrap();
    std::os::unix::fs::symlink(&theirs, out.join("cells")).unwrap();
    for fresh in [false, true] {
        let mut cmd = storlab();
        cmd.arg("compare").arg(&plan).arg("--out").arg(&out);
        if fresh {
            cmd.arg("--fresh");
        }
        cmd.assert()
            .code(2)
            .stderr(predicate::str::contains("symbolic link"));
        assert_eq!(
            super::names_in(&theirs),
            [".a__b__0.json.4242-7.storlab-tmp", "notes.txt"],
            "nothing added or removed through the link"
        );
    }
    // A user's directory with a link named like the mark is not a study either.
    let lab = dir.path().join("lab");
    std::fs::create_dir(&lab).unwrap();
    std::fs::write(theirs.join("mark"), b"mine").unwrap();
    std::os::unix::fs::symlink(theirs.join("mark"), lab.join(".storlab-study")).unwrap();
    compare(&plan, &lab).code(2);
    assert_eq!(std::fs::read_dir(&lab).unwrap().count(), 1, "nothing added");
}

/// `storlab demo --out` goes through the same claim: a directory of the user's, or a study
/// whose `cells/` is a link, is refused before anything is written (nothing added to either).
#[test]
fn demo_never_writes_into_a_users_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let demo = |out: &Path| {
        storlab()
            .current_dir(root)
            .args(["demo", "--sim-only", "--out"])
            .arg(out)
            .assert()
    };
    let theirs = dir.path().join("lab");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("readme.txt"), b"mine").unwrap();
    let count = |d: &Path| std::fs::read_dir(d).unwrap().count();
    demo(&theirs)
        .code(2)
        .stderr(predicate::str::contains("not a storlab study's"));
    assert_eq!(count(&theirs), 1, "nothing added");
    // A marked study whose cells/ points at the user's directory.
    let study = dir.path().join("study");
    std::fs::create_dir(&study).unwrap();
    std::fs::write(study.join(".storlab-study"), b"a storlab study\n").unwrap();
    std::os::unix::fs::symlink(&theirs, study.join("cells")).unwrap();
    demo(&study)
        .code(2)
        .stderr(predicate::str::contains("symbolic link"));
    assert_eq!(count(&theirs), 1, "nothing added");
    assert_eq!(count(&study), 2, "nothing made in the study (no work/)");
}
