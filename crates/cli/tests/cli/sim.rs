//! `storlab sim`: tables, result files, determinism, bad input, failures.

use predicates::prelude::*;

use super::{example, sim, storlab};

#[test]
fn sim_prints_a_table_and_writes_the_result_schema() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    sim("midrange-raid5.toml")
        .args(["--profile", "randread-8k"])
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
fn a_workload_of_several_streams_prints_each_stream_under_the_total() {
    let workload = format!(
        "{}/../../examples/workloads/oltp-data-and-log.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = sim("enterprise-raid5.toml")
        .args([
            "--workload",
            &workload,
            "--duration",
            "3s",
            "--warmup",
            "1s",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].trim_start().starts_with("host"), "{text}");
    assert!(lines[2].trim_start().starts_with("all"), "{text}");
    let header: Vec<&str> = lines[3].split_whitespace().collect();
    assert_eq!(header[..3], ["class", "target", "IO/s"], "{text}");
    let data: Vec<&str> = lines[4].split_whitespace().collect();
    let redo: Vec<&str> = lines[5].split_whitespace().collect();
    assert_eq!(data[..2], ["oltp-60-40", "datavol"], "{text}");
    assert_eq!(redo[..2], ["redo", "logvol"], "{text}");
    assert_eq!(redo.len(), 12, "{text}");
}

#[test]
fn same_seed_same_bytes_apart_from_wall_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut texts = Vec::new();
    // The first run with the huge-page heap (crates/cli/src/heap.rs), the second with the
    // default heap: how the memory is backed changes no result.
    for (name, huge_heap) in [("a.json", Some("1")), ("b.json", None)] {
        let out = dir.path().join(name);
        let mut cmd = storlab();
        match huge_heap {
            Some(v) => cmd.env("STORLAB_HUGE_HEAP", v),
            None => cmd.env_remove("STORLAB_HUGE_HEAP"),
        };
        cmd.args([
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
    let assert = sim("midrange-raid10.toml")
        .args(["--matrix"])
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
    sim("midrange-raid5.toml")
        .args(["--profile", "randread-9k"])
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
    sim("midrange-raid5.toml")
        .args(["--profile", "randread-8k", "--duration", "-5s"])
        .assert()
        .code(2);
    sim("midrange-raid5.toml")
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
    sim("midrange-raid5.toml")
        .args(["--workload"])
        .arg(&w)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("streams[0].region_size"))
        .stderr(predicate::str::contains("beyond"));
}

#[test]
fn failures_on_the_command_line_are_reported_and_validated() {
    sim("midrange-raid5.toml")
        .args(["--profile", "randread-8k"])
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
    sim("midrange-raid5.toml")
        .args(["--profile", "randread-8k"])
        .args(["--fail", "r5-9.d2@2s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--fail"))
        .stderr(predicate::str::contains("r5-9.d2"));
    sim("midrange-raid5.toml")
        .args(["--profile", "randread-8k"])
        .args(["--fail", "controller:7@2s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no controller 7"));
}

#[test]
fn a_group_naming_an_unknown_array_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(example("two-arrays.toml")).unwrap();
    let bad = text.replacen(
        "array = \"west\"\ncount = 2",
        "array = \"north\"\ncount = 2",
        1,
    );
    assert_ne!(bad, text);
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, bad).unwrap();
    storlab()
        .args([
            "sim",
            "--array",
            file.to_str().unwrap(),
            "--profile",
            "randread-8k",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("raid_groups[1].array"))
        .stderr(predicate::str::contains(
            "unknown array \"north\"; arrays: east, west",
        ));
    sim("two-arrays.toml")
        .args(["--profile", "randread-8k"])
        .args(["--fail", "controller:north.1@2s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown array \"north\""));
}

#[test]
fn a_simulated_sweep_runs_one_point_per_load_and_marks_the_knee() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    sim("midrange-raid5.toml")
        .args(["--profile", "randread-8k", "--sweep", "--sweep-max", "16"])
        .args([
            "--max-p99-ms",
            "30",
            "--duration",
            "3s",
            "--warmup",
            "1s",
            "--json",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("<- knee"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let runs = v["runs"].as_array().unwrap();
    let points: Vec<u64> = runs
        .iter()
        .map(|r| r["workload"]["parameters"]["outstanding"].as_u64().unwrap())
        .collect();
    assert_eq!(points, [1, 2, 4, 8, 16]);
    let iops: Vec<f64> = runs
        .iter()
        .map(|r| r["metrics"]["iops"].as_f64().unwrap())
        .collect();
    assert!(
        iops.windows(2).all(|w| w[1] > w[0]),
        "more load, more IO/s: {iops:?}"
    );
    assert!(runs
        .iter()
        .all(|r| r["workload"]["parameters"]["max_p99_ms"] == 30.0));
}

/// An array file in a fresh directory, for inputs refused at validation.
fn refused(array: &str, workload: Option<&str>, wants: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.toml");
    std::fs::write(&path, array).unwrap();
    let mut cmd = storlab();
    cmd.args(["sim", "--array"]).arg(&path);
    if let Some(w) = workload {
        let wpath = dir.path().join("load.toml");
        std::fs::write(&wpath, w).unwrap();
        cmd.arg("--workload").arg(&wpath);
    } else {
        cmd.args(["--profile", "randwrite-8k"]);
    }
    let mut a = cmd
        .args(["--duration", "1s", "--warmup", "0"])
        .assert()
        .code(2);
    for w in wants {
        a = a.stderr(predicate::str::contains(*w));
    }
}

#[test]
fn sizes_that_panicked_or_exhausted_memory_exit_2_with_their_bound() {
    let group = |body: &str| format!("{GROUP}level = \"raid5\"\n{body}\n");
    // A group of 4000 disks and a 1 PB disk panicked in the write cache (exit 101).
    refused(
        &group("disks = 4000"),
        None,
        &["raid_groups[0].disks", "at most 1024"],
    );
    let petabyte = "name = \"x\"\n[disk_models.big]\nbase = \"hdd-15k\"\ncapacity_gb = 1e6\n\
                    [[raid_groups]]\nname = \"g\"\nlevel = \"raid5\"\ndisks = 8\ndisk_model = \"big\"\n";
    refused(petabyte, None, &["raid_groups.g", "1 PiB"]);
    // 4096 groups of 64 disks ran out of memory building the model.
    refused(
        &format!("{GROUP}level = \"raid0\"\ndisks = 64\ncount = 4096\n"),
        None,
        &["at most 16384"],
    );
    let small = group("disks = 5");
    refused(
        &small,
        Some("[[streams]]\nprofile = \"randread-8k\"\njobs = 1\nrate_iops = 1e15\n"),
        &["streams[0].rate_iops", "at most 10000000"],
    );
    refused(
        &small,
        Some("[[streams]]\nprofile = \"randread-8k\"\njobs = 4096\niodepth = 65536\n"),
        &["at most 1048576"],
    );
}

/// A virtual disk of `size` over five 1 PB SSDs, striped over all five (VRAID 0).
fn largest_virtual_disk(size: &str) -> String {
    format!(
        "name = \"x\"\n[disk_models.m]\nbase = \"ssd-nvme\"\ncapacity_gb = 1e6\n\
         [[disk_groups]]\nname = \"dg\"\ndisks = 5\ndisk_model = \"m\"\n\
         [[virtual_disks]]\nname = \"vd\"\ndisk_group = \"dg\"\nlevel = \"vraid0\"\n\
         size = \"{size}\"\n"
    )
}

/// The largest group there is (1 PiB less 256 KiB: the write cache's last 64-page word
/// stays clear of its map's empty key) runs; a byte more is refused with the bound.
#[test]
fn a_group_at_the_size_bound_runs_and_a_byte_more_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("largest.toml");
    std::fs::write(&path, largest_virtual_disk("1125899906580480b")).unwrap();
    storlab()
        .args(["sim", "--array"])
        .arg(&path)
        .args([
            "--profile",
            "randwrite-8k",
            "--duration",
            "100ms",
            "--warmup",
            "0",
        ])
        .assert()
        .success();
    refused(
        &largest_virtual_disk("1125899906580481b"),
        None,
        &["virtual_disks[0].size", "at most 1099511627520k"],
    );
}

#[test]
fn ambiguous_names_and_absurd_times_exit_2() {
    let small = format!("{GROUP}level = \"raid5\"\ndisks = 5\n");
    refused(
        &format!("{small}[host]\nlink_latency = \"1000000h\"\n"),
        None,
        &["host.link_latency", "at most 1 s"],
    );
    let luns = "[[luns]]\nname = \"l\"\ngroup = \"g\"\nsize = \"1g\"\n\
                [[luns]]\nname = \"l\"\ngroup = \"g\"\nsize = \"1g\"\n";
    refused(&format!("{small}{luns}"), None, &["luns[0] and luns[1]"]);
    let vols = "[[volumes]]\nname = \"v\"\nkind = \"concat\"\nluns = [\"g\"]\n\
                [[volumes]]\nname = \"v\"\nkind = \"concat\"\nluns = [\"g\"]\n";
    refused(
        &format!("{small}{vols}"),
        None,
        &["volumes[0] and volumes[1]"],
    );
    let shadow = "name = \"x\"\n[disk_models.hdd-10k]\nbase = \"hdd-15k\"\n\
                  [[raid_groups]]\nname = \"g\"\nlevel = \"raid5\"\ndisks = 5\ndisk_model = \"hdd-10k\"\n";
    refused(shadow, None, &["disk_models.hdd-10k", "built-in"]);
    sim("midrange-raid5.toml")
        .args(["--profile", "randread-8k", "--duration", "1000000h"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "must be at most 604800 s (7 days of simulated time)",
        ));
}
