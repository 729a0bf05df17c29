//! `storlab sim --trace`: formats detected, malformed lines reported.

use predicates::prelude::*;

use super::{example, storlab};

fn fixture(name: &str) -> String {
    format!(
        "{}/../sim/tests/fixtures/traces/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn traces_replay_with_detected_formats() {
    for (file, format) in [
        ("spc.csv", "spc"),
        ("msr.csv", "msr"),
        ("blkparse.txt", "blkparse"),
        ("fio-v3.log", "fio"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.json");
        storlab()
            .args([
                "sim",
                "--array",
                &example("midrange-raid5.toml"),
                "--trace",
                &fixture(file),
            ])
            .args([
                "--trace-outstanding",
                "4",
                "--duration",
                "30s",
                "--warmup",
                "0",
                "--json",
            ])
            .arg(&out)
            .assert()
            .success();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let ios = v["runs"][0]["sim"]["host_ios"].as_u64().unwrap();
        assert!(ios >= 20, "{file}: {ios} I/Os replayed");
        // Naming the format explicitly gives the same run.
        let out2 = dir.path().join("t2.json");
        storlab()
            .args([
                "sim",
                "--array",
                &example("midrange-raid5.toml"),
                "--trace",
                &fixture(file),
            ])
            .args([
                "--trace-format",
                format,
                "--trace-outstanding",
                "4",
                "--duration",
                "30s",
                "--warmup",
                "0",
                "--json",
            ])
            .arg(&out2)
            .assert()
            .success();
        let w: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out2).unwrap()).unwrap();
        assert_eq!(
            w["runs"][0]["sim"]["host_ios"],
            v["runs"][0]["sim"]["host_ios"]
        );
    }
}

#[test]
fn malformed_traces_exit_2_with_file_and_line() {
    for file in [
        "spc-bad.csv",
        "msr-bad.csv",
        "blkparse-bad.txt",
        "fio-bad.log",
    ] {
        let format = match file {
            "spc-bad.csv" => "spc",
            "msr-bad.csv" => "msr",
            "blkparse-bad.txt" => "blkparse",
            _ => "fio",
        };
        storlab()
            .args([
                "sim",
                "--array",
                &example("midrange-raid5.toml"),
                "--trace",
                &fixture(file),
            ])
            .args([
                "--trace-format",
                format,
                "--trace-outstanding",
                "1",
                "--duration",
                "60s",
            ])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(file))
            .stderr(predicate::str::contains("line "));
    }
}
