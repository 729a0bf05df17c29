//! Results written to streams and special files: a descriptor the shell opened (written
//! through it, only when open for writing), /dev/null and terminals, named pipes (waiting
//! for a reader, but stopping at Ctrl-C). Any other character device is refused before the
//! run: a write there reaches hardware or a driver, not a file.

use std::path::Path;
use std::process::{Command as Std, Stdio};

use predicates::prelude::*;

use super::{example, scratch_dir, signal_and_wait, storlab};

const SHORT_SIM: &str = "sim --profile randread-8k --duration 1s --warmup 0";

/// A short `storlab sim` run by `sh`, with `redirect` (e.g. `3<file`) and `--json json`.
fn sim_through_shell(json: &str, redirect: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("storlab");
    let script =
        format!("exec \"$0\" {SHORT_SIM} --array \"$1\" --json {json} {redirect} >/dev/null");
    Std::new("sh")
        .arg("-c")
        .arg(script)
        .arg(bin)
        .arg(example("midrange-raid5.toml"))
        .output()
        .expect("sh runs")
}

#[test]
fn a_descriptor_open_for_reading_only_is_never_written() {
    let dir = scratch_dir();
    let users = dir.path().join("users.txt");
    std::fs::write(&users, b"precious\n").unwrap();
    let at = users.display();
    for name in ["/dev/fd/3", "/proc/self/fd/3"] {
        let out = sim_through_shell(name, &format!("3<'{at}'"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains("open for reading only"), "{stderr}");
        assert_eq!(std::fs::read(&users).unwrap(), b"precious\n", "{name}");
    }
    // Open for reading and writing: the result goes after what the file holds.
    let out = sim_through_shell("/dev/fd/3", &format!("3<>'{at}'"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&users).unwrap();
    assert!(text.starts_with("precious\n{"), "{text:.40}");
    assert!(text.contains("storlab.results/"));
}

#[test]
fn a_character_device_other_than_null_or_a_terminal_is_refused_before_the_run() {
    let dir = scratch_dir();
    // The device numbers of /dev/zero under another name: a driver, not a stream.
    let node = dir.path().join("device");
    let made = Std::new("mknod").arg(&node).args(["c", "1", "5"]).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: cannot make a device node here (needs root)");
        return;
    }
    storlab()
        .args(SHORT_SIM.split(' '))
        .args(["--array", &example("midrange-raid5.toml"), "--json"])
        .arg(&node)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("is a character device"));
    storlab()
        .args(SHORT_SIM.split(' '))
        .args(["--array", &example("midrange-raid5.toml")])
        .args(["--json", "/dev/null"])
        .assert()
        .success();
}

fn mkfifo(path: &Path) {
    let status = Std::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

#[test]
fn a_named_pipe_gets_the_result_and_ctrl_c_stops_the_wait_for_a_reader() {
    let dir = scratch_dir();
    let fifo = dir.path().join("results.pipe");
    mkfifo(&fifo);
    let spawn = || {
        let mut cmd = Std::new(assert_cmd::cargo::cargo_bin("storlab"));
        cmd.args(SHORT_SIM.split(' '))
            .args(["--array", &example("midrange-raid5.toml"), "--json"])
            .arg(&fifo)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        cmd.spawn().expect("spawn")
    };
    // Nobody reads: storlab waits, and stops within a second of Ctrl-C.
    let child = spawn();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let (code, stderr, secs) = signal_and_wait(child, libc::SIGINT);
    assert!(secs < 1.0, "took {secs:.2} s to stop: {stderr}");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("waiting for a reader"), "{stderr}");
    // A reader: it gets the result.
    let child = spawn();
    let text = std::fs::read_to_string(&fifo).expect("read the pipe");
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("\"schema\": \"storlab.results/"),
        "{text:.80}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(left.len(), 1, "only the pipe: {left:?}");
}
