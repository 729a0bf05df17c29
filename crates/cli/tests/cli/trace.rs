//! `storlab sim --trace`: formats detected, malformed lines reported.

use predicates::prelude::*;

use super::{example, storlab};

fn fixture(name: &str) -> String {
    format!(
        "{}/../sim/tests/fixtures/traces/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A trace shorter than the default 10 s warm-up plus 60 s: the warm-up keeps a fifth of it,
/// the window ends with it, and the advice speaks of the trace, not of --duration.
#[test]
fn a_short_trace_is_measured_after_a_fifth_of_it_warms_up() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    // spc.csv spans 11.45 s (from its first record, at 0.55 s, to its last, at 12.000001 s).
    let assert = storlab()
        .args(["sim", "--array", &example("midrange-raid5.toml")])
        .args(["--trace", &fixture("spc.csv"), "--json"])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "the warm-up is cut from 10 s to 2.2 s (at most a fifth of the trace) and 9.8 s are \
             measured",
        ));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["workload"]["warmup_s"], 2.2, "{}", run["workload"]);
    assert_eq!(run["workload"]["duration_s"], 9.8, "{}", run["workload"]);
    // The I/Os after the first 2.2 s are measured (29 of the trace's 60; after a 10 s
    // warm-up, one was).
    let ios = run["metrics"]["ios"].as_u64().unwrap();
    assert!(ios >= 20, "{ios} I/Os measured");
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(!stdout.contains("raise --duration"), "{stdout}");
    for w in run["warnings"].as_array().unwrap() {
        assert!(!w.as_str().unwrap().contains("--duration"), "{w}");
    }
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

/// `storlab sim` replaying `text` (written to a file) with `extra` options must exit 2 with
/// every one of `wants` in its message.
fn trace_refused(text: &[u8], extra: &[&str], wants: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.trace");
    std::fs::write(&path, text).unwrap();
    let mut a = storlab()
        .args(["sim", "--array", &example("midrange-raid5.toml"), "--trace"])
        .arg(&path)
        .args(extra)
        .args(["--duration", "5s", "--warmup", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("t.trace"));
    for w in wants {
        a = a.stderr(predicate::str::contains(*w));
    }
}

#[test]
fn a_file_without_line_breaks_is_refused_at_its_first_line() {
    // A megabyte of zeros: read as one line before, and with --trace-format spc it ran and
    // exited 0 with "0 I/Os".
    let zeros = vec![0u8; 1 << 20];
    for extra in [&[][..], &["--trace-format", "spc"][..]] {
        trace_refused(&zeros, extra, &["line 1", "longer than 4096 bytes"]);
    }
}

#[test]
fn one_bad_line_is_reported_by_number_after_detecting_the_format() {
    let mut lines: Vec<String> = (0..20)
        .map(|i| format!("0,{},4096,r,0.{i:02}", i * 8))
        .collect();
    lines[10] = "0,abc,4096,r,0.10".into();
    trace_refused(
        lines.join("\n").as_bytes(),
        &[],
        &["line 11", r#"field 2 (LBA): "abc""#],
    );
}

#[test]
fn a_trace_without_io_records_is_not_a_successful_replay() {
    let header_only = b"ASU,LBA,Size,Opcode,Timestamp\n# no records\n";
    trace_refused(
        header_only,
        &["--trace-format", "spc"],
        &[
            "holds no read or write record",
            "2 lines read, 1 of them skipped",
        ],
    );
}

/// A closed-loop replay runs as fast as the array allows: spc.csv's 60 I/Os last a fraction
/// of a second. The advice says the trace ended and when, never to raise --duration (which
/// would add no I/O).
#[test]
fn a_closed_loop_trace_that_runs_out_says_so_not_raise_duration() {
    let replay = |warmup: &str| {
        let out = storlab()
            .args(["sim", "--array", &example("midrange-raid5.toml")])
            .args(["--trace", &fixture("spc.csv"), "--trace-outstanding", "4"])
            .args(["--warmup", warmup, "--duration", "60s"])
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    };
    let during_warmup = replay("10s");
    assert!(
        during_warmup.contains(
            "the trace ended during the 10 s warm-up, after 60 I/Os replayed closed loop; lower \
             --warmup"
        ),
        "{during_warmup}"
    );
    let in_window = replay("0");
    assert!(
        in_window.contains(
            "the trace ended about 1 s into the 60 s measured window (1 s into the run), after \
             60 I/Os replayed closed loop; set --duration 1s"
        ),
        "{in_window}"
    );
    for stdout in [during_warmup, in_window] {
        assert!(!stdout.contains("raise --duration"), "{stdout}");
    }
}
