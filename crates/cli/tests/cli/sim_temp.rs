//! Temp I/O on the command line: a characterization with `temp_bytes`, an AWR report with
//! temp events, and the built-in analytic query show the temp class and its wait events.

use predicates::prelude::*;

use super::{example, storlab};

const CHAR_WITH_TEMP: &str = "name = \"nightly report\"\nengine = \"oracle\"\nsessions = 4\n\
    [[transactions]]\nname = \"report\"\nweight = 1.0\nlogical_reads = 200.0\nscan_share = 1.0\n\
    cpu_ms = 5.0\nthink_ms = 50.0\ntemp_bytes = 4194304\n\
    [[segments]]\nname = \"sales\"\nkind = \"table\"\nsize = \"1g\"\nshare = 1.0\n\
    [[segments]]\nname = \"temp\"\nkind = \"temp\"\nsize = \"256m\"\nshare = 0.0\n\
    [instance]\ncpus = 8\nbuffer_cache = \"512m\"\n";

fn sim_json(args: &[&str]) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let assert = storlab()
        .args(["sim", "--array", &example("enterprise-raid5.toml")])
        .args(args)
        .arg("--json")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (stdout, v["runs"][0].clone())
}

fn class<'a>(run: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
    run["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
}

fn has_wait(run: &serde_json::Value, event: &str) -> bool {
    run["metrics"]["waits"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["event"] == event && w["avg_ms"].as_f64().unwrap_or(0.0) > 0.0)
}

#[test]
fn a_characterization_with_temp_bytes_shows_the_temp_stream_and_its_waits() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("char.toml");
    std::fs::write(&file, CHAR_WITH_TEMP).unwrap();
    let args = [
        "--workload-from",
        file.to_str().unwrap(),
        "--duration",
        "5s",
    ];
    let (stdout, run) = sim_json(&[&args[..], &["--warmup", "1s"]].concat());
    assert!(stdout.contains("direct path write temp"), "{stdout}");
    assert!(
        stdout.lines().any(|l| l.trim_start().starts_with("temp ")),
        "{stdout}"
    );
    let temp = class(&run, "temp").expect("a temp class");
    assert!(
        temp["metrics"]["write_mbps"].as_f64().unwrap() > 0.0,
        "{temp}"
    );
    assert!(
        temp["metrics"]["read_mbps"].as_f64().unwrap() > 0.0,
        "{temp}"
    );
    assert!(has_wait(&run, "direct path write temp"));
    assert!(has_wait(&run, "direct path read temp"));
    // On a target of its own: the class names it.
    let own = [
        "--db-data",
        "data-0,data-1",
        "--db-log",
        "log",
        "--db-set",
        "temp=data-5",
    ];
    let (_, run) = sim_json(&[&args[..], &["--warmup", "1s"], &own[..]].concat());
    assert_eq!(class(&run, "temp").unwrap()["target"], "data-5");
    // Not on LUNs of the data or the log.
    storlab()
        .args(["sim", "--array", &example("enterprise-raid5.toml")])
        .args(args)
        .args([
            "--db-data",
            "data-0,data-1",
            "--db-log",
            "log",
            "--db-set",
            "temp=data-1",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("database.temp"));
}

#[test]
fn an_awr_report_with_temp_events_runs_with_its_temp_io() {
    let file = format!(
        "{}/../awr/tests/fixtures/reporting-temp-awr.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let (_, run) = sim_json(&[
        "--workload-from",
        &file,
        "--segment-size",
        "SALES=4GiB",
        "--segment-size",
        "TEMP=1GiB",
        "--duration",
        "30s",
        "--warmup",
        "0s",
    ]);
    let tx = &run["workload"]["parameters"]["character"]["workload"]["transactions"][0];
    assert_eq!(tx["temp_bytes"], 4_194_304.0);
    assert!(class(&run, "temp").is_some());
    assert!(has_wait(&run, "direct path write temp"));
}

#[test]
fn the_analytic_query_reports_its_elapsed_time_and_temp_io() {
    let (stdout, run) = sim_json(&[
        "--db-test",
        "orabench/analytic-query",
        "--db-set",
        "engine=oracle",
        "--sessions",
        "1",
        "--duration",
        "20s",
        "--warmup",
        "0s",
    ]);
    assert!(stdout.contains("query"), "{stdout}");
    let tx = &run["metrics"]["transactions"][0];
    assert_eq!(tx["name"], "query");
    assert!(tx["count"].as_u64().unwrap() >= 1, "{tx}");
    assert!(tx["latency_ms"]["mean"].as_f64().unwrap() > 1000.0, "{tx}");
    assert!(class(&run, "temp").is_some());
    assert!(has_wait(&run, "direct path read temp"));
    assert!(has_wait(&run, "direct path read"));
    // A test storlab db does not run is named as the simulator's alone.
    let dir = tempfile::tempdir().unwrap();
    storlab()
        .args([
            "db",
            "--suite",
            "orabench",
            "--test",
            "analytic-query",
            "--data-dir",
        ])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no test \"analytic-query\""));
}
