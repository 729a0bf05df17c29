//! `storlab io`'s verdict on a short measured window of a real file: a flat window is
//! judged steady, one that stalls before its end is not. Real runs count a trend only when
//! Student's t for the window's samples puts it clear of the noise, and a second with
//! nothing completed as a stall.

use std::process::{Command, Stdio};
use std::time::Duration;

use super::io_warmup::{read_runs, STEADY as FLAT};
use super::{scratch_dir, storlab};

/// A flat 5 s window is steady. Each of its two figures is called a trend in about one
/// flat window in twenty (a 5% test), so of three runs at least one must be judged steady.
#[test]
fn a_short_flat_real_run_is_judged_steady() {
    let dir = scratch_dir();
    let mut verdicts = Vec::new();
    for i in 0..3 {
        let out = dir.path().join(format!("flat{i}.json"));
        storlab()
            .args(["io", "--target"])
            .arg(dir.path().join("f.dat"))
            .args(FLAT)
            .args(["--duration", "5s", "--warmup", "2s", "--json"])
            .arg(&out)
            .assert()
            .success();
        let run = read_runs(&out)[0].clone();
        assert_eq!(run["series"].as_array().unwrap().len(), 5);
        verdicts.push((run["steady"].clone(), run["steady_reason"].clone()));
    }
    assert!(
        verdicts.iter().any(|(steady, _)| steady == true),
        "{verdicts:?}"
    );
}

/// The same run stopped (SIGSTOP) for the last seconds of its window: nothing completes
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
