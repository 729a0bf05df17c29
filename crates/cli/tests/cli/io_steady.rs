//! `storlab io`'s verdict on a short measured window of a real file that stalls before its
//! end: real runs count a second with nothing completed as a stall. (How often flat noise
//! is called a trend under Student's t is checked on seeded windows in core's steady
//! tests: a real file's latency on a shared machine is not flat enough to test it here.)

use std::process::{Command, Stdio};
use std::time::Duration;

use super::io_warmup::{read_runs, STEADY as FLAT};
use super::scratch_dir;

/// A rate-limited run stopped (SIGSTOP) for the last seconds of its window: nothing completes
/// then, and the verdict says it stalled (its catch-up burst before the stop hid any trend
/// in the noise: [814, 650, 791, 1879, 875, 0, 0, 0] IO/s was judged steady).
#[test]
fn a_real_run_that_stalls_is_judged_unsteady() {
    let dir = scratch_dir();
    let out = dir.path().join("stall.json");
    let child = Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .args(["io", "--target"])
        .arg(dir.path().join("f.dat"))
        .args(FLAT)
        .args(["--duration", "8s", "--warmup", "0", "--json"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn storlab");
    let pid = child.id() as i32;
    std::thread::sleep(Duration::from_secs(5));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    std::thread::sleep(Duration::from_secs(5));
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let status = child.wait_with_output().expect("wait");
    assert!(status.status.success(), "{status:?}");
    let run = read_runs(&out)[0].clone();
    let iops: Vec<f64> = (run["series"].as_array().unwrap().iter())
        .map(|p| p["iops"].as_f64().unwrap())
        .collect();
    assert_eq!(iops.last(), Some(&0.0), "stalled to the end: {iops:?}");
    assert_eq!(run["steady"], false, "{iops:?}");
    let reason = run["steady_reason"].as_str().unwrap();
    assert!(
        reason.starts_with("IOPS stalled: nothing completed in"),
        "{reason}: {iops:?}"
    );
}
