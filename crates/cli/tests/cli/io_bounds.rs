//! `storlab io`: every number that drives memory or time is bounded, bad input names the
//! flag the user typed, and results are named after what ran.

use std::time::Duration;

use predicates::prelude::*;

use super::{example, scratch_dir, storlab};

fn io_refuses(args: &[&str], message: &str) {
    let dir = scratch_dir();
    storlab()
        .args(["io", "--target"])
        .arg(dir.path().join("f.dat"))
        .args(["--size", "4m", "--duration", "1s", "--warmup", "0"])
        .args(args)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(message));
    assert!(
        !dir.path().join("f.dat").exists(),
        "{args:?}: nothing left behind"
    );
}

#[test]
fn load_numbers_are_bounded_with_the_bound_in_the_message() {
    io_refuses(
        &["--sweep-rates", "0"],
        "--sweep-rates: each rate must be above 0 and at most 10000000 IO/s; got 0",
    );
    io_refuses(&["--sweep-rates", "1000,-5"], "got -5");
    io_refuses(
        &["--sweep-rates", "1000,1e15"],
        "--sweep-rates: each rate must be above 0 and at most 10000000 IO/s; got 1e15",
    );
    io_refuses(
        &["--sweep", "--sweep-max", "1000000000"],
        "--sweep-max must be at least 1 and at most 4096 outstanding I/Os; got 1000000000",
    );
    io_refuses(&["--rate-iops", "1e12"], "at most 10000000 IO/s");
    io_refuses(&["--rate-iops", "1e15"], "at most 10000000 IO/s");
    io_refuses(
        &["--engine", "io_uring", "--iodepth", "4096", "--jobs", "64"],
        "at most 4096",
    );
    io_refuses(&["--bs", "1t"], "at most 64m");
    io_refuses(
        &["--engine", "io_uring", "--iodepth", "512", "--bs", "64m"],
        "of I/O buffers",
    );
}

/// A sweep's latency ceiling is checked against its declaration, in `storlab io` as in
/// `storlab sim` (it used to take any number, 1e30 or -1 included).
#[test]
fn the_latency_ceiling_of_a_sweep_is_bounded_by_its_declaration() {
    let declared = "--max-p99-ms must be above 0 and at most 3600000 ms";
    io_refuses(
        &["--sweep", "--max-p99-ms", "1e30"],
        &format!("{declared}; got 1e30"),
    );
    io_refuses(
        &["--sweep", "--max-p99-ms", "0"],
        &format!("{declared}; got 0"),
    );
    storlab()
        .args(["sim", "--array", &example("midrange-raid5.toml")])
        .args([
            "--profile",
            "randread-8k",
            "--sweep",
            "--max-p99-ms",
            "1e30",
        ])
        .args(["--duration", "1s", "--warmup", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("{declared}; got 1e30")));
}

/// `--group-commit` and a workload file's `group_commit` are checked against one declaration
/// (the flag used to take any count above 0).
#[test]
fn group_commit_is_bounded_by_its_declaration_from_the_flag_and_the_file() {
    let declared = "must be at least 1 and at most 4096 committers";
    io_refuses(
        &["--group-commit", "5000"],
        &format!("--group-commit {declared}; got 5000"),
    );
    io_refuses(
        &["--group-commit", "0"],
        &format!("--group-commit {declared}; got 0"),
    );
    let dir = scratch_dir();
    let workload = dir.path().join("w.toml");
    for (n, got) in [("0", "got 0"), ("5000", "got 5000"), ("\"x\"", "got \"x\"")] {
        std::fs::write(
            &workload,
            format!("[[streams]]\nprofile = \"redo\"\ngroup_commit = {n}\n"),
        )
        .unwrap();
        let reason = match got {
            "got \"x\"" => "must be a whole number, 0 or more",
            _ => declared,
        };
        io_refuses(
            &["--workload", workload.to_str().unwrap()],
            &format!("w.toml: streams[0].group_commit: {reason}"),
        );
        io_refuses(&["--workload", workload.to_str().unwrap()], got);
    }
}

#[test]
fn an_arrival_rate_beyond_the_device_still_ends_on_time() {
    let dir = scratch_dir();
    // A behaviour bound, not a speed goal: the run used to never end (killed at the timeout).
    storlab()
        .args(["io", "--target"])
        .arg(dir.path().join("f.dat"))
        .args(["--size", "4m", "--duration", "1s", "--warmup", "0"])
        .args(["--rate-iops", "9000000"])
        .timeout(Duration::from_secs(60))
        .assert()
        .success()
        .stdout(predicate::str::contains("late"));
}

#[test]
fn messages_name_the_flag_and_the_value_given() {
    io_refuses(
        &["--bs", "3"],
        "--bs: size must be at least 512 and at most 64m; got 3",
    );
    io_refuses(
        &["--bs", "1000"],
        "--bs: size must be a multiple of 512 bytes; got 1000",
    );
    let dir = scratch_dir();
    storlab()
        .args(["io", "--target"])
        .arg(dir.path().join("f.dat"))
        .args(["--size", "1000", "--duration", "1s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("got 1000 bytes"));
    storlab()
        .args(["io", "--target"])
        .arg(dir.path())
        .args(["--size", "8k", "--jobs", "4", "--duration", "1s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("2048 bytes for each of 4 files"));
}

#[test]
fn results_are_named_after_the_overrides() {
    let dir = scratch_dir();
    for (args, name) in [
        (&["--rw", "randrw"][..], "randrw-8k"),
        (&["--rw", "write", "--bs", "16k"][..], "write-16k"),
        (&["--bs", "64k"][..], "randread-64k"),
        (&["--rw", "randwrite", "--bs", "16k"][..], "randwrite-16k"),
        // Group commit writes only: the default profile's reads are gone, and so is its name.
        (&["--group-commit", "2"][..], "randwrite-8k"),
        (&["--profile", "redo", "--group-commit", "2"][..], "redo"),
    ] {
        let out = dir.path().join("r.json");
        let assert = storlab()
            .args(["io", "--target"])
            .arg(dir.path().join("f.dat"))
            .args([
                "--size",
                "4m",
                "--duration",
                "1s",
                "--warmup",
                "0",
                "--json",
            ])
            .arg(&out)
            .args(args)
            .assert()
            .success();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(v["runs"][0]["workload"]["name"], name, "{args:?}");
        let title = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
        let title = title.lines().next().unwrap_or_default().to_string();
        assert!(title.contains(&format!("| {name} |")), "{args:?}: {title}");
    }
}
