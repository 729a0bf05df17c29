//! End-to-end tests of the `storlab` binary: exit codes, messages, tables and result files.

use assert_cmd::Command;
use predicates::prelude::*;

fn storlab() -> Command {
    Command::cargo_bin("storlab").expect("binary built")
}

fn example(name: &str) -> String {
    format!(
        "{}/../../examples/arrays/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn sim_prints_a_table_and_writes_the_result_schema() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    storlab()
        .args([
            "sim",
            "--array",
            &example("midrange-raid5.toml"),
            "--profile",
            "randread-8k",
        ])
        .args([
            "--duration",
            "5s",
            "--warmup",
            "1s",
            "--seed",
            "7",
            "--json",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("midrange-raid5 | randread-8k"))
        .stdout(predicate::str::contains("r5-3"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["schema"], "storlab.results/1");
    let run = &v["runs"][0];
    assert_eq!(run["target"]["kind"], "sim");
    assert_eq!(run["workload"]["name"], "randread-8k");
    assert_eq!(run["sim"]["seed"], 7);
    assert!(run["metrics"]["iops"].as_f64().unwrap() > 1000.0);
    assert_eq!(run["devices"].as_array().unwrap().len(), 20);
    assert_eq!(run["arrays"].as_array().unwrap().len(), 4);
    assert_eq!(run["series"].as_array().unwrap().len(), 5);
    for key in ["mean", "p50", "p95", "p99", "p999", "max"] {
        assert!(
            run["metrics"]["latency_ms"][key].as_f64().is_some(),
            "{key}"
        );
    }
}

#[test]
fn same_seed_same_bytes_apart_from_wall_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut texts = Vec::new();
    for name in ["a.json", "b.json"] {
        let out = dir.path().join(name);
        storlab()
            .args([
                "sim",
                "--array",
                &example("midrange-raid10.toml"),
                "--profile",
                "oltp-60-40",
            ])
            .args(["--duration", "3s", "--warmup", "1s", "--json"])
            .arg(&out)
            .assert()
            .success();
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        v["runs"][0]["sim"]["wall_s"] = serde_json::Value::from(0.0);
        texts.push(v.to_string());
    }
    assert_eq!(texts[0], texts[1]);
}

#[test]
fn matrix_runs_every_iogen_profile() {
    let assert = storlab()
        .args([
            "sim",
            "--array",
            &example("midrange-raid10.toml"),
            "--matrix",
        ])
        .args(["--duration", "2s", "--warmup", "1s"])
        .assert()
        .success();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    for p in storlab_core_profiles() {
        assert!(out.contains(p), "matrix lacks {p}:\n{out}");
    }
}

fn storlab_core_profiles() -> [&'static str; 10] {
    [
        "randread-1k",
        "randread-8k",
        "randwrite-1k",
        "randwrite-8k",
        "seqread-1k",
        "seqread-8k",
        "seqread-1m",
        "seqwrite-1k",
        "seqwrite-8k",
        "seqwrite-1m",
    ]
}

fn bad_array(text: &str) -> assert_cmd::assert::Assert {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, text).unwrap();
    storlab()
        .args(["sim", "--array"])
        .arg(&path)
        .args(["--profile", "randread-8k", "--duration", "1s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.toml"))
}

const GROUP: &str = "name = \"x\"\n[[raid_groups]]\nname = \"g\"\ndisk_model = \"hdd-10k\"\n";

#[test]
fn bad_config_files_exit_2_naming_the_key() {
    bad_array(&format!("{GROUP}level = \"raid5\"\ndisks = 2\n"))
        .stderr(predicate::str::contains("raid_groups[0].disks"))
        .stderr(predicate::str::contains("at least 3"));
    bad_array(&format!("{GROUP}level = \"raid10\"\ndisks = 3\n"))
        .stderr(predicate::str::contains("raid_groups[0].disks"));
    bad_array(&format!("{GROUP}level = \"raid6\"\ndisks = 3\n"))
        .stderr(predicate::str::contains("raid6"));
    bad_array(&format!(
        "{GROUP}level = \"raid5\"\ndisks = 5\nstripe_unit = \"96k\"\n"
    ))
    .stderr(predicate::str::contains("raid_groups[0].stripe_unit"));
    bad_array(&format!("{GROUP}level = \"raid5\"\ndisks = 5\nspeed = 3\n"))
        .stderr(predicate::str::contains("speed"));
    bad_array(&format!(
        "{}level = \"raid5\"\ndisks = 5\n",
        GROUP.replace("hdd-10k", "hdd-99k")
    ))
    .stderr(predicate::str::contains("unknown disk model"));
    bad_array("name = \"x\"\nraid_groups = []\n").stderr(predicate::str::contains("raid_groups"));
    bad_array("this is not toml").stderr(predicate::str::contains("bad.toml"));
}

#[test]
fn bad_flags_and_missing_files_exit_2() {
    storlab()
        .args([
            "sim",
            "--array",
            &example("midrange-raid5.toml"),
            "--profile",
            "randread-9k",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown profile"));
    storlab()
        .args([
            "sim",
            "--array",
            "/nonexistent/array.toml",
            "--profile",
            "randread-8k",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/nonexistent/array.toml"));
    storlab()
        .args([
            "sim",
            "--array",
            &example("midrange-raid5.toml"),
            "--profile",
            "randread-8k",
            "--duration",
            "-5s",
        ])
        .assert()
        .code(2);
    storlab()
        .args(["sim", "--array", &example("midrange-raid5.toml")])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--profile"));
}

#[test]
fn workload_region_beyond_the_lun_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w.toml");
    std::fs::write(
        &w,
        "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"r5-0\"\nregion_offset = \"2t\"\n",
    )
    .unwrap();
    storlab()
        .args([
            "sim",
            "--array",
            &example("midrange-raid5.toml"),
            "--workload",
        ])
        .arg(&w)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("streams[0].region_size"))
        .stderr(predicate::str::contains("beyond"));
}

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

#[test]
fn failures_on_the_command_line_are_reported_and_validated() {
    storlab()
        .args([
            "sim",
            "--array",
            &example("midrange-raid5.toml"),
            "--profile",
            "randread-8k",
        ])
        .args([
            "--duration",
            "5s",
            "--warmup",
            "0",
            "--fail",
            "r5-1.d2@2s",
            "--fail",
            "path:p0@3s",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("failure r5-1.d2"))
        .stdout(predicate::str::contains("failure path:p0"));
    storlab()
        .args([
            "sim",
            "--array",
            &example("midrange-raid5.toml"),
            "--profile",
            "randread-8k",
        ])
        .args(["--fail", "r5-9.d2@2s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--fail"))
        .stderr(predicate::str::contains("r5-9.d2"));
    storlab()
        .args([
            "sim",
            "--array",
            &example("midrange-raid5.toml"),
            "--profile",
            "randread-8k",
        ])
        .args(["--fail", "controller:7@2s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no controller 7"));
}

fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir")
}

#[test]
fn io_runs_a_profile_and_writes_the_schema() {
    let dir = scratch_dir();
    let out = dir.path().join("io.json");
    storlab()
        .args(["io", "--target"])
        .arg(dir.path().join("f.dat"))
        .args([
            "--profile",
            "randread-8k",
            "--size",
            "16m",
            "--jobs",
            "2",
            "--iodepth",
            "2",
            "--duration",
            "1s",
            "--warmup",
            "0",
            "--json",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("randread-8k"))
        .stdout(predicate::str::contains("ns CPU per I/O"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["target"]["kind"], "real");
    assert!(run["metrics"]["iops"].as_f64().unwrap() > 0.0);
    assert!(run["tool"]["cpu_ns_per_io"].as_f64().unwrap() > 0.0);
    assert!(
        !dir.path().join("f.dat").exists(),
        "the created file is removed"
    );
}

#[test]
fn io_refuses_bad_input_with_exit_2() {
    let dir = scratch_dir();
    let f = dir.path().join("f.dat");
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--profile", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown profile"));
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--bs", "1000"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("512"));
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--iodepth", "0"])
        .assert()
        .code(2);
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--size", "1000t", "--profile", "randwrite-8k"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("free space"));
    std::fs::write(&f, b"somebody's data").unwrap();
    storlab()
        .args(["io", "--target"])
        .arg(&f)
        .args(["--profile", "randwrite-8k", "--duration", "1s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--overwrite"));
    assert_eq!(std::fs::read(&f).unwrap(), b"somebody's data");
    // The root file system's device is mounted: never written, even when named.
    if let Some(dev) = ["/dev/vda", "/dev/sda", "/dev/nvme0n1"]
        .iter()
        .find(|d| std::path::Path::new(d).exists())
    {
        storlab()
            .args([
                "io",
                "--target",
                dev,
                "--profile",
                "randwrite-8k",
                "--force-destroy",
                dev,
                "--duration",
                "1s",
            ])
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains("mounted")
                    .or(predicate::str::contains("in use"))
                    .or(predicate::str::contains("cannot")),
            );
    }
}

#[test]
fn io_stops_on_sigint_keeps_partial_results_and_cleans_up() {
    let dir = scratch_dir();
    let out = dir.path().join("partial.json");
    let target = dir.path().join("f.dat");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .args(["io", "--target"])
        .arg(&target)
        .args([
            "--profile",
            "randwrite-8k",
            "--size",
            "16m",
            "--jobs",
            "1",
            "--iodepth",
            "1",
            "--duration",
            "60s",
            "--warmup",
            "0",
            "--json",
        ])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn storlab");
    std::thread::sleep(std::time::Duration::from_millis(2500));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(1), "interrupted runs exit 1");
    assert!(String::from_utf8_lossy(&output.stdout).contains("PARTIAL"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["runs"][0]["partial"], true);
    assert!(v["runs"][0]["metrics"]["ios"].as_u64().unwrap() > 0);
    let window = v["runs"][0]["workload"]["duration_s"].as_f64().unwrap();
    assert!(
        window < 10.0,
        "the window is what ran before the stop: {window}"
    );
    assert!(!target.exists(), "the file storlab created is gone");
}

fn postgres_running_on(dir: &std::path::Path) -> bool {
    let needle = dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        let cmd = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd);
        cmd.contains(&needle) && cmd.contains("postgres")
    })
}

#[test]
fn db_runs_a_test_and_refuses_bad_directories() {
    let dir = tempfile::Builder::new()
        .prefix("storlab-cli-db")
        .tempdir_in("/tmp")
        .unwrap();
    let data = dir.path().join("data");
    let out = dir.path().join("db.json");
    storlab()
        .args([
            "db",
            "--suite",
            "dpaws",
            "--test",
            "select-row",
            "--data-dir",
        ])
        .arg(&data)
        .args([
            "--scale",
            "500",
            "--clients",
            "2",
            "--duration",
            "1s",
            "--warmup",
            "0",
            "--json",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("dpaws/select-row"))
        .stdout(predicate::str::contains("top wait events"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["workload"]["kind"], "db");
    assert!(run["metrics"]["rows_per_s"].as_f64().unwrap() > 0.0);
    assert!(run["db"]["wal"].is_object());
    assert!(!data.exists());
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("x"), b"x").unwrap();
    storlab()
        .args(["db", "--data-dir"])
        .arg(&data)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(data.to_string_lossy().as_ref()));
    storlab()
        .args(["db", "--suite", "nope", "--data-dir"])
        .arg(dir.path().join("d2"))
        .assert()
        .code(2);
}

#[test]
fn db_stops_on_sigint_keeps_partial_results_and_removes_the_cluster() {
    let dir = tempfile::Builder::new()
        .prefix("storlab-cli-db")
        .tempdir_in("/tmp")
        .unwrap();
    let data = dir.path().join("data");
    let out = dir.path().join("partial.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .args([
            "db",
            "--suite",
            "dpaws",
            "--test",
            "update-row",
            "--data-dir",
        ])
        .arg(&data)
        .args([
            "--scale",
            "500",
            "--clients",
            "2",
            "--duration",
            "120s",
            "--warmup",
            "0",
            "--json",
        ])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn storlab");
    // Wait until the clients are running (the result file does not exist yet).
    std::thread::sleep(std::time::Duration::from_secs(8));
    assert!(postgres_running_on(&data), "the cluster is up");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().expect("wait");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["runs"][0]["partial"], true);
    assert!(v["runs"][0]["metrics"]["rows_per_s"].as_f64().unwrap() > 0.0);
    assert!(!postgres_running_on(&data), "the server is stopped");
    assert!(!data.exists(), "its directory is removed");
}

#[test]
fn validate_checks_the_reference_cases_and_writes_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.json");
    let refs = format!("{}/../../references", env!("CARGO_MANIFEST_DIR"));
    storlab()
        .args(["validate", "--references", &refs, "--json"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("case1-midrange"))
        .stdout(predicate::str::contains("within tolerance, 0 outside"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    // Two arrays x four profiles, each run once however many figures use it.
    assert_eq!(v["runs"].as_array().unwrap().len(), 8);
}

#[test]
fn validate_fails_a_figure_out_of_tolerance_and_rejects_bad_cases() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("references")).unwrap();
    std::fs::create_dir_all(root.join("examples/arrays")).unwrap();
    std::fs::copy(
        example("midrange-raid5.toml"),
        root.join("examples/arrays/midrange-raid5.toml"),
    )
    .unwrap();
    let case = |figure: &str| {
        format!(
            "name = \"t\"\nsource = \"test\"\n[run]\nduration = \"5s\"\nwarmup = \"1s\"\nseed = 1\n\
             [arrays]\nraid5 = \"examples/arrays/midrange-raid5.toml\"\n[[figures]]\n{figure}"
        )
    };
    // A published figure ten times what the array can do: exit 1, the figure marked FAIL.
    std::fs::write(
        root.join("references/t.toml"),
        case("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"iops\"\npublished = 26000\ntolerance_pct = 30\n"),
    )
    .unwrap();
    storlab()
        .args(["validate", "--references"])
        .arg(root.join("references"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL"))
        .stderr(predicate::str::contains(
            "1 reference figures outside tolerance",
        ));
    // An unknown metric is bad input: exit 2, naming the file and the key.
    std::fs::write(
        root.join("references/t.toml"),
        case("name = \"x\"\narray = \"raid5\"\nprofile = \"randwrite-8k\"\nmetric = \"speed\"\npublished = 1\ntolerance_pct = 30\n"),
    )
    .unwrap();
    storlab()
        .args(["validate", "--references"])
        .arg(root.join("references"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "t.toml: metric: unknown metric \"speed\"",
        ));
}

#[test]
fn sim_runs_a_simulated_database_workload() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.json");
    let workload = format!(
        "{}/../../examples/workloads/dpaws-update-row.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    storlab()
        .args([
            "sim",
            "--array",
            &example("enterprise-raid5.toml"),
            "--workload",
            &workload,
        ])
        .args(["--duration", "5s", "--warmup", "2s", "--json"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("rows/s"))
        .stdout(predicate::str::contains("IO:WALSync"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["workload"]["kind"], "db");
    assert!(run["metrics"]["rows_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(run["workload"]["parameters"]["index_levels"], 3);
}

#[test]
fn sim_db_test_from_the_command_line() {
    storlab()
        .args([
            "sim",
            "--array",
            &example("enterprise-raid5.toml"),
            "--db-test",
            "dpaws/update-row",
        ])
        .args([
            "--db-data",
            "datavol",
            "--db-log",
            "logvol",
            "--sessions",
            "8",
            "--rows",
            "200000",
        ])
        .args(["--duration", "3s", "--warmup", "1s"])
        .assert()
        .success()
        .stdout(predicate::str::contains("dpaws/update-row"))
        .stdout(predicate::str::contains("IO:WALSync"));
    storlab()
        .args([
            "sim",
            "--array",
            &example("enterprise-raid5.toml"),
            "--db-test",
            "dpaws/drop-table",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--db-test: database.test: unknown test",
        ));
    storlab()
        .args([
            "sim",
            "--array",
            &example("enterprise-raid5.toml"),
            "--profile",
            "randread-8k",
            "--sessions",
            "4",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--sessions needs --db-test"));
}
