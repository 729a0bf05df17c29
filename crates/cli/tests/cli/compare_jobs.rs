//! `storlab compare` with a job: judged by whether it ran to completion, not by steady
//! state, and shown with its elapsed time.

use predicates::prelude::*;

use super::{example, scratch_dir, storlab};

/// A plan creating a 512 MiB tablespace on two simulated arrays, under `duration`.
fn plan(dir: &std::path::Path, duration: &str) -> std::path::PathBuf {
    let mut text =
        format!("title = \"job plan\"\nseed = 3\nduration = \"{duration}\"\nwarmup = \"0s\"\n");
    for (name, array) in [
        ("raid5", "midrange-raid5.toml"),
        ("raid10", "midrange-raid10.toml"),
    ] {
        text += &format!(
            "[[targets]]\nname = \"{name}\"\narray = \"{}\"\ndb_data = \"datavol\"\n",
            example(array)
        );
    }
    text += "[[workloads]]\ndb_test = \"job/create-tablespace\"\n\
             database = { size = \"512MiB\" }\n";
    let path = dir.join("plan.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_finished_job_is_reported_by_its_elapsed_time_not_as_unsteady() {
    let dir = scratch_dir();
    let out = dir.path().join("out");
    storlab()
        .arg("compare")
        .arg(plan(dir.path(), "600s"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("run to completion"))
        .stderr(predicate::str::contains("NOT STEADY").not())
        .stdout(predicate::str::contains("not at steady state").not())
        // The answer compares the two by the job's elapsed time (the write cache holds the
        // whole tablespace on both).
        .stdout(predicate::str::contains("ran no workload in common").not())
        .stdout(
            predicate::str::is_match(
                r"Job create-tablespace: raid10 and raid5 take the same elapsed time within \d+% \(\d",
            )
            .unwrap(),
        );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<th>elapsed s</th>"), "no elapsed column");
    // The finding says it too, with the figures.
    assert!(
        html.contains("job create-tablespace elapsed time within "),
        "no elapsed-time finding"
    );
    assert!(html.contains("% elapsed"), "jobs compared by elapsed time");
    assert!(
        !html.contains("class=\"badge-unsteady\""),
        "a finished job is not unsteady"
    );
}

#[test]
fn a_job_its_duration_stops_is_reported_incomplete() {
    let dir = scratch_dir();
    let out = dir.path().join("out");
    storlab()
        .arg("compare")
        .arg(plan(dir.path(), "1s"))
        .arg("--out")
        .arg(&out)
        .assert()
        .stderr(predicate::str::contains("(INCOMPLETE)"))
        .stderr(predicate::str::contains("NOT STEADY").not())
        .stdout(predicate::str::contains("did not run to completion"))
        .stdout(predicate::str::contains("not at steady state").not())
        // Neither finished in 1 s: the answer says so, with the share each did.
        .stdout(predicate::str::contains("ran no workload in common").not())
        .stdout(
            predicate::str::is_match(
                r"Job create-tablespace: neither raid10 \(\d+(\.\d+)?% done when its 1 s limit came\) nor raid5 \(",
            )
            .unwrap(),
        );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("INCOMPLETE"));
}
