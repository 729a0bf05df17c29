//! End-to-end tests of the `storlab` binary: exit codes, messages, tables and result files,
//! one module per subcommand.

/// The `(name, body)` pairs [`one_after_the_other`] runs, from test bodies named by module
/// and function (`db_dsn::a_case`): each case's name is that path, written once.
macro_rules! cases {
    ($($module:ident::$case:ident),* $(,)?) => {
        [$((
            concat!(stringify!($module), "::", stringify!($case)),
            super::$module::$case as fn(),
        )),*]
    };
}

mod compare;
mod compare_jobs;
mod compare_safety;
mod compare_users;
mod db;
mod db_capture;
mod db_capture_own;
mod db_capture_temp;
mod db_dsn;
mod db_interrupt;
mod drive_copies;
mod drives;
mod drives_g2;
mod drives_g4;
mod fuzz_regressions;
mod heap;
mod io;
mod io_bounds;
mod io_safety;
mod io_steady;
mod io_warmup;
mod outputs;
mod outputs_owner;
mod outputs_streams;
mod sim;
mod sim_character;
mod sim_db;
mod sim_db_sizing;
mod sim_interrupt;
mod sim_jobs;
mod sim_show_character;
mod sim_steady;
mod sim_temp;
mod trace;
mod unprivileged;
mod users_sweep;
mod validate;
mod validate_calibration;
mod validate_floor;
mod validate_local;

use assert_cmd::Command;

fn storlab() -> Command {
    Command::cargo_bin("storlab").expect("binary built")
}

fn example(name: &str) -> String {
    format!(
        "{}/../../examples/arrays/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `storlab sim --array` on the example array `name` (`enterprise-raid5.toml`).
fn sim(name: &str) -> Command {
    let mut cmd = storlab();
    cmd.args(["sim", "--array", &example(name)]);
    cmd
}

/// A temporary directory on the build's disk (O_DIRECT works there, unlike tmpfs).
fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir")
}

/// Everything in `dir`, by name, sorted.
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Sends `signal` and waits for the exit: (exit code, stderr, seconds from signal to exit).
#[allow(clippy::disallowed_methods)] // the time from the signal to the exit
fn signal_and_wait(child: std::process::Child, signal: i32) -> (Option<i32>, String, f64) {
    let at = std::time::Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, signal) };
    let out = child.wait_with_output().expect("wait");
    let secs = at.elapsed().as_secs_f64();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        secs,
    )
}

/// Runs `cases` (each a name and a test body) in order, each to its end whatever the others
/// did, printing each name with its outcome and seconds (shown on failure, or with
/// `--nocapture`), then fails naming every case that failed.
#[allow(clippy::disallowed_methods)] // each case's seconds, for the log only
fn one_after_the_other(cases: &[(&str, fn())]) {
    let mut failed = Vec::new();
    for &(name, case) in cases {
        let at = std::time::Instant::now();
        let passed = std::panic::catch_unwind(case).is_ok();
        let outcome = if passed { "ok" } else { "FAILED" };
        eprintln!("{name} ... {outcome} ({:.1} s)", at.elapsed().as_secs_f64());
        if !passed {
            failed.push(name);
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} cases failed: {}",
        failed.len(),
        cases.len(),
        failed.join(", ")
    );
}

#[test]
fn one_after_the_other_runs_every_case_and_names_those_that_failed() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RAN: AtomicUsize = AtomicUsize::new(0);
    fn passes() {
        RAN.fetch_add(1, Ordering::SeqCst);
    }
    fn fails() {
        RAN.fetch_add(1, Ordering::SeqCst);
        panic!("as it should");
    }
    let outcome = std::panic::catch_unwind(|| {
        one_after_the_other(&[("first", fails), ("second", passes), ("third", fails)])
    });
    assert_eq!(
        RAN.load(Ordering::SeqCst),
        3,
        "a failed case stopped the rest"
    );
    let message = outcome.expect_err("two cases failed");
    let message = message
        .downcast_ref::<String>()
        .expect("a formatted message");
    assert_eq!(message, "2 of 3 cases failed: first, third");
    one_after_the_other(&[("passes", passes)]);
    assert_eq!(RAN.load(Ordering::SeqCst), 4);
}
