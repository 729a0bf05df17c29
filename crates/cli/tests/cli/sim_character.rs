//! `storlab sim --workload-from`: a workload characterization, or an AWR report turned into
//! one, run on the simulated database.

use predicates::prelude::*;

use super::{example, storlab};

fn fixture(name: &str) -> String {
    format!(
        "{}/../awr/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn run_json(args: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    storlab()
        .args(["sim", "--array", &example("enterprise-raid5.toml")])
        .args(args)
        .arg("--json")
        .arg(&out)
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    v["runs"][0].clone()
}

#[test]
fn the_example_characterization_runs_with_per_type_response_times() {
    let file = format!(
        "{}/../../examples/workloads/order-entry.char.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = run_json(&[
        "--workload-from",
        &file,
        "--sessions",
        "20",
        "--duration",
        "5s",
        "--warmup",
        "2s",
    ]);
    assert_eq!(run["workload"]["name"], "order entry");
    let p = &run["workload"]["parameters"];
    assert_eq!(p["test"], "characterization:order entry");
    assert_eq!(p["engine"], "oracle");
    assert_eq!(p["sessions"], 20);
    assert_eq!(p["character"]["workload"]["source"], "hand");
    let types = run["metrics"]["transactions"].as_array().unwrap();
    let names: Vec<&str> = types.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "new order",
            "payment",
            "order status",
            "delivery",
            "stock level"
        ]
    );
    for t in types {
        assert!(t["tx_per_s"].as_f64().unwrap() > 0.0, "{t}");
        assert!(t["latency_ms"]["p99"].as_f64().unwrap() > 0.0, "{t}");
    }
}

#[test]
fn bad_characterizations_exit_2_naming_the_file_key_and_bound() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    std::fs::write(
        &file,
        "name = \"x\"\nengine = \"oracle\"\nsessions = 1\n[[transactions]]\nname = \"t\"\n\
         weight = 1.0\nlogical_reads = 1.0\ncpu_ms = 1.0\nindex_share = 1.5\n[[segments]]\n\
         name = \"d\"\nkind = \"table\"\nsize = \"1g\"\nshare = 1.0\n[instance]\ncpus = 1\n\
         buffer_cache = \"1g\"\n",
    )
    .unwrap();
    storlab()
        .args(["sim", "--array", &example("enterprise-raid5.toml")])
        .arg("--workload-from")
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.toml"))
        .stderr(predicate::str::contains("transactions[0].index_share"))
        .stderr(predicate::str::contains("at most 1"));
    // A report leaves the segment sizes unknown: the first is named, with the fix.
    storlab()
        .args(["sim", "--array", &example("enterprise-raid5.toml")])
        .args(["--workload-from", &fixture("acme-awr.txt")])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("segments[0].size (USERS)"))
        .stderr(predicate::str::contains("--segment-size"));
    storlab()
        .args(["sim", "--array", &example("enterprise-raid5.toml")])
        .args(["--workload-from", &fixture("acme-awr.txt")])
        .args(["--segment-size", "NOSUCH=1g"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no segment named \"NOSUCH\""));
}

/// The acme report (16 CPUs, a 4 GiB buffer cache, 8 KiB blocks, 300 sessions) simulated on
/// a matching configuration. A report gives no segment sizes; the import derives them from the
/// report itself (`storlab_awr::size_estimates`, offered in its notes): with visits uniform
/// within each segment, the sizes that make each tablespace miss the simulated cache (a clock
/// sweep, its undo blocks among the data) as often as the report shows. Sized for an LRU
/// cache without the undo, they read 2,819 blocks a second for the report's 2,500.
///
/// Physical writes follow from where the changes fall and Oracle's checkpoint rule. The
/// report's 20 block changes a transaction are 9 table and index block changes, their 9 undo
/// records and 2 changes of the undo header, and its 7,500 redo bytes hold the undo records'
/// 1,080: the import keeps the 9 and 6,420 and the simulated undo adds the rest. (Taking all 20
/// as table and index changes, with the undo's 2,400 bytes of redo on top, the log ran at
/// 2.58 MB/s for the report's 1.875, a checkpoint lag of 181 s instead of 249, and 5,100
/// changes a second on INDX were written 1,473 blocks a second from the checkpoint queue and
/// 184 from the cold end: 1,656 for 750.) The 9 changes fall on each segment's change set,
/// derived from the tablespaces' writes (scaled from write requests to the Load Profile's
/// blocks), the checkpoint lag (0.9 × the 495 MiB log files the 13 log switches give, over the
/// redo rate) and the cold end, which writes a dirty block evicted before the lag. Measured
/// (seed 1): 256 tx/s, reads 2,652 blocks/s, writes 718 (checkpoint queue 218, cold end 502,
/// undo 37), redo 1.918 MB/s; without the cold end in the arithmetic, 830.
///
/// CPU: 24 ms a transaction (DB CPU 6.0 s a second over 250 transactions), and the log
/// writer's 400 µs a write (background CPU 288 s over 720,000 redo writes): the host's busy
/// share is the report's (DB CPU + background CPU) / (16 CPUs × 3,600 s) = 38.0%; measured
/// 38.9%. The users' think times are drawn (`variability = "exponential"`), as a population's
/// are: with the mean for every transaction, the sessions one group commit releases come back
/// together, and the log writer's bursts wait behind their convoy in the first-come
/// first-served run queue (188 tx/s).
#[test]
fn an_awr_report_imported_and_simulated_reproduces_its_load_profile() {
    let (c, notes) =
        storlab_awr::read_report(std::path::Path::new(&fixture("acme-awr.txt"))).unwrap();
    let mut args: Vec<String> = vec![
        "--workload-from".into(),
        fixture("acme-awr.txt"),
        "--duration".into(),
        "120s".into(),
        "--warmup".into(),
        "400s".into(),
        "--db-set".into(),
        "variability=exponential".into(),
    ];
    assert_eq!(notes.size_estimates.len(), 5, "{:?}", notes.size_estimates);
    for (name, bytes) in &notes.size_estimates {
        args.push("--segment-size".into());
        args.push(format!("{name}={bytes}"));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = run_json(&args);
    let m = &run["metrics"];
    let class = |name: &str| {
        run["classes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()["metrics"]
            .clone()
    };
    let (data, log) = (class("data"), class("log"));
    let per_s = |mb: &serde_json::Value| mb.as_f64().unwrap() * 1e6;
    let tps: f64 = m["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tx_per_s"].as_f64().unwrap())
        .sum();
    let p = &run["workload"]["parameters"];
    let reads = per_s(&data["read_mbps"]) / 8192.0;
    let writes = per_s(&data["write_mbps"]) / 8192.0;
    // The redo the log took: what it wrote less the unused ends of its log blocks (redo
    // wastage, which Oracle's redo size leaves out).
    let redo = per_s(&log["write_mbps"]) - p["redo_wastage_bytes_per_s"].as_f64().unwrap();
    let busy = p["host_cpu_busy_pct"].as_f64().unwrap();
    let o = c.observed.as_ref().unwrap();
    let want_busy = 100.0 * (o.db_cpu_per_s.unwrap() + o.background_cpu_per_s.unwrap())
        / f64::from(c.instance.cpus);
    let near = |got: f64, want: f64| (got - want).abs() <= 0.10 * want;
    let report = format!(
        "tx/s {tps:.0} (250), physical reads/s {reads:.0} (2500), writes/s {writes:.0} (750: \
         checkpoint queue {}, cold end {}, undo {}), redo/s {redo:.0} (1875000), host CPU \
         busy {busy}% ({want_busy:.1}%)",
        p["checkpoint_queue_blocks_per_s"],
        p["cold_end_blocks_per_s"],
        p["undo_blocks_written_per_s"]
    );
    eprintln!("{report}");
    assert!(near(tps, 250.0), "{report}");
    assert!(near(redo, 1_875_000.0), "{report}");
    assert!(near(reads, 2_500.0), "{report}");
    assert!(near(writes, 750.0), "{report}");
    assert!(near(busy, want_busy), "{report}");
}
