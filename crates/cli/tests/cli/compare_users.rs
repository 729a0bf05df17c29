//! `storlab compare` with a users-sweep cell: "how many users can this array carry" in the
//! study's JSON and the report.

use std::path::Path;

use predicates::prelude::*;

use super::{example, scratch_dir, storlab};

/// Sessions that think 9 ms, then burn 1 ms of CPU on one host CPU, both exponential, on a
/// table the buffer cache holds: a closed network whose knee is N* = (1 + 9) / 1 = 10.
fn plan(dir: &Path, sweep: &str) -> std::path::PathBuf {
    let text = format!(
        "title = \"users\"\nduration = \"60s\"\nwarmup = \"5s\"\n\
         [[targets]]\nname = \"raid5\"\narray = \"{}\"\ndb_data = \"datavol\"\ndb_log = \"logvol\"\n\
         [[workloads]]\nname = \"select-row-users\"\ndb_test = \"dpaws/select-row\"\n\
         database = {{ rows = 1000, buffer = \"64MiB\", think = \"9ms\", client_cpu = \"1ms\", \
         cpu_per_block = \"0\", cpu_per_row = \"0\", \
         cpu_per_statement = \"0\", cpu_per_commit = \"0\", cpus = 1, variability = \"exponential\" }}\n\
         users_sweep = {sweep}\n",
        example("enterprise-raid5.toml"),
    );
    let path = dir.join("plan.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_users_sweep_cell_puts_the_curve_and_its_knee_in_the_study_and_the_report() {
    let dir = scratch_dir();
    let sweep = "{ sessions = [1, 2, 4, 6, 8, 10, 12, 14, 16, 20], max_response_ms = 5, \
                 response = \"mean\" }";
    let plan = plan(dir.path(), sweep);
    let out = dir.path().join("out");
    storlab()
        .arg("compare")
        .arg(&plan)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let study: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("study.json")).unwrap()).unwrap();
    let sweeps = study["users_sweeps"].as_array().expect("users_sweeps");
    assert_eq!(sweeps.len(), 1);
    assert_eq!(sweeps[0]["configuration"], "raid5");
    assert_eq!(sweeps[0]["workload"], "select-row-users");
    let s = &sweeps[0]["sweep"];
    assert_eq!(s["points"].as_array().unwrap().len(), 10);
    let knee = s["knee_users"].as_u64().expect("knee_users");
    assert!((8..=12).contains(&knee), "knee at {knee}, not about 10");
    assert_eq!(s["knee"]["bottleneck"], "cpu");
    let max = s["max_users"].as_u64().expect("max_users");
    // Every point is a cell of the study, with its command line.
    let cells = study["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 10);
    let command = cells[0]["command"].as_str().unwrap();
    assert!(
        command.contains(
            "--users-sweep --users 1,2,4,6,8,10,12,14,16,20 --max-response-ms 5 \
                          --response mean"
        ),
        "{command}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<section id=\"users\">"), "no users section");
    assert!(html.contains(&format!(
        "Carries {max} users under mean 5 ms; knee at {knee} users"
    )));
    assert!(html.contains(&format!(">knee {knee}<")));
}

#[test]
fn bad_users_sweep_cells_exit_2_naming_the_key() {
    let dir = scratch_dir();
    for (sweep, needle) in [
        (
            "{ max_response_ms = -1 }",
            "workloads[0].users_sweep.max_response_ms: must be above 0 and at most 3600000 ms; \
             got -1",
        ),
        (
            "{ sessions = [0, 4] }",
            "workloads[0].users_sweep.sessions: each count must be at least 1 and at most 10000 \
             users; got 0",
        ),
        (
            "{ sessions = [4, 20000] }",
            "workloads[0].users_sweep.sessions: each count must be at least 1 and at most 10000 \
             users; got 20000",
        ),
        (
            "{ response = \"p50\" }",
            "workloads[0].users_sweep.response: must be \"mean\", \"p95\" or \"p99\"",
        ),
        ("{ users = [4] }", "unknown field `users`"),
    ] {
        let plan = plan(dir.path(), sweep);
        storlab()
            .arg("compare")
            .arg(&plan)
            .arg("--out")
            .arg(dir.path().join("out"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle));
    }
}
