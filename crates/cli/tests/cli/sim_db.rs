//! `storlab sim` with a simulated database: workload files, --db-test, --profile-from.

use predicates::prelude::*;

use super::{sim, storlab};

#[test]
fn sim_runs_a_simulated_database_workload() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.json");
    let workload = format!(
        "{}/../../examples/workloads/dpaws-update-row.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    sim("enterprise-raid5.toml")
        .args(["--workload", &workload])
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
    sim("enterprise-raid5.toml")
        .args(["--db-test", "dpaws/update-row"])
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
    sim("enterprise-raid5.toml")
        .args(["--db-test", "dpaws/drop-table"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--db-test: database.test: unknown test",
        ));
    sim("enterprise-raid5.toml")
        .args(["--profile", "randread-8k", "--sessions", "4"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--sessions needs --db-test"));
}

/// --sessions, --rows and --db-set change a workload file's [database] section; a workload
/// without one is refused naming the file.
#[test]
fn database_options_apply_over_a_workload_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.json");
    let workload = format!(
        "{}/../../examples/workloads/dpaws-update-row.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    sim("enterprise-raid5.toml")
        .args([
            "--workload",
            &workload,
            "--sessions",
            "8",
            "--rows",
            "200000",
        ])
        .args(["--db-set", "buffer=64MiB"])
        .args(["--duration", "2s", "--warmup", "1s", "--json"])
        .arg(&out)
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let p = &v["runs"][0]["workload"]["parameters"];
    assert_eq!(p["sessions"], 8, "{p}");
    assert_eq!(p["rows"], 200_000, "{p}");
    assert_eq!(p["buffer_blocks"], 8192, "{p}");
    // The file's own data and log placement stay.
    assert_eq!(p["data"]["names"], serde_json::json!(["datavol"]), "{p}");
    let streams = format!(
        "{}/../../examples/workloads/asm-randread.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    sim("asm-prfg.toml")
        .args(["--workload", &streams, "--sessions", "8"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "asm-randread.toml has no [database] section",
        ));
}

#[test]
fn sim_prints_each_transaction_types_response_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let a = sim("enterprise-raid5.toml")
        .args(["--db-test", "oltp/medium", "--rows", "200000"])
        .args(["--duration", "3s", "--warmup", "1s", "--json"])
        .arg(&out)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    let header = "  transactions  ";
    assert!(text.contains(header) && text.contains("mean ms"), "{text}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let m = &v["runs"][0]["metrics"];
    assert!(m["tx_latency_ms"]["p99"].as_f64().unwrap() > 0.0, "{m}");
    // One line per type, then all of them, each with its mean as the JSON has it.
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with(header))
        .skip(1)
        .take(3)
        .collect();
    let types = m["transactions"].as_array().unwrap();
    let means = types
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), &t["latency_ms"]))
        .chain([("all", &m["tx_latency_ms"])]);
    for (line, (name, latency)) in table.iter().zip(means) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells[0], name, "{text}");
        let mean: f64 = cells[2].parse().unwrap();
        assert!(
            (mean - latency["mean"].as_f64().unwrap()).abs() < 6e-4,
            "{line}"
        );
    }
    assert_eq!(types.len(), 2, "{m}");
}

/// Per-call mean of a statement counter over a run's statements, weighted by calls.
fn weighted(run: &serde_json::Value, key: &str) -> f64 {
    let stmts = run["db"]["statements"].as_array().expect("statements");
    let calls: f64 = stmts.iter().map(|s| s["calls"].as_f64().unwrap()).sum();
    stmts
        .iter()
        .map(|s| s["calls"].as_f64().unwrap() * s[key].as_f64().unwrap())
        .sum::<f64>()
        / calls
}

#[test]
fn a_real_db_result_drives_the_simulated_database() {
    let dir = tempfile::Builder::new()
        .prefix("storlab-cli-profile")
        .tempdir_in("/tmp")
        .unwrap();
    let real = dir.path().join("real.json");
    storlab()
        .args(["db", "--test", "update-row", "--data-dir"])
        .arg(dir.path().join("data"))
        .args(["--scale", "2000", "--clients", "4"])
        .args(["--duration", "2s", "--warmup", "0", "--json"])
        .arg(&real)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("server CPU: ")
                .and(predicate::str::contains(
                    "us per transaction (its processes",
                ))
                .and(predicate::str::contains("storlab's monitoring")),
        );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    let wal = weighted(&r["runs"][0], "wal_bytes");
    let blocks =
        weighted(&r["runs"][0], "shared_blks_hit") + weighted(&r["runs"][0], "shared_blks_read");
    assert!(wal > 0.0 && blocks >= 2.0, "wal {wal} blocks {blocks}");
    // The server storlab started: its processes' CPU over the window, per operation too.
    let db = &r["runs"][0]["db"];
    let server_cpu = db["server_cpu_ns_per_op"]
        .as_f64()
        .expect("server CPU per op");
    assert!(db["server_cpu_s"].as_f64().unwrap() > 0.0, "{db}");
    // The backends of storlab's own monitoring (a wait sample every 10 ms) were measured
    // apart and left out.
    let monitor = db["monitor_cpu_s"].as_f64().expect("monitoring CPU");
    assert!((0.0..2.0).contains(&monitor), "{db}");
    assert!(
        (1_000.0..100_000_000.0).contains(&server_cpu),
        "{server_cpu} ns of server CPU per update"
    );

    let run_sim = |profile: bool, out: &std::path::Path| {
        let mut cmd = sim("enterprise-raid5.toml");
        cmd.args(["--db-test", "dpaws/update-row", "--db-data", "datavol"])
            .args(["--db-log", "logvol", "--sessions", "16", "--rows", "200000"])
            .args(["--duration", "5s", "--warmup", "2s", "--json"])
            .arg(out);
        if profile {
            cmd.arg("--profile-from").arg(&real);
        }
        let text = if profile {
            "measured in"
        } else {
            "schema arithmetic"
        };
        cmd.assert()
            .success()
            .stdout(predicate::str::contains(format!("block profile: {text}")));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
        v["runs"][0].clone()
    };
    let schema = run_sim(false, &dir.path().join("schema.json"));
    let measured = run_sim(true, &dir.path().join("measured.json"));
    let p = &measured["workload"]["parameters"]["profile"];
    assert!((p["wal_bytes_per_op"].as_f64().unwrap() - wal).abs() < 0.01);
    assert!((p["blocks_per_op"].as_f64().unwrap() - blocks).abs() < 0.01);

    // Log volume per transaction: the measured WAL per call plus the commit record, rounded
    // up to whole log blocks (at most one block per write more).
    let m = &measured["metrics"];
    let per_tx =
        m["wal_mb_per_s"].as_f64().unwrap() * 1e6 / (m["tx_per_min"].as_f64().unwrap() / 60.0);
    assert!(
        per_tx >= wal + 50.0 - 1.0 && per_tx <= wal + 50.0 + 8192.0,
        "{per_tx} bytes per transaction for {wal} measured"
    );
    // CPU per operation: the server's, measured, versus the schema's 5 us per block of the
    // descent plus heap block, 2 us per row, 10 us for its statement and 6 us for its commit.
    let cpu = |run: &serde_json::Value| {
        run["metrics"]["waits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["event"] == "CPU")
            .map(|w| w["avg_ms"].as_f64().unwrap())
            .unwrap()
    };
    let expect = server_cpu / 1e6;
    assert!(
        (cpu(&measured) - expect).abs() < 0.0011,
        "{} vs {expect}",
        cpu(&measured)
    );
    let levels = schema["workload"]["parameters"]["index_levels"]
        .as_f64()
        .unwrap();
    let want = (5.0 * (levels + 1.0) + 2.0 + 10.0 + 6.0) / 1000.0;
    assert!(
        (cpu(&schema) - want).abs() < 0.0011,
        "{} vs {want}",
        cpu(&schema)
    );

    // The same result is a characterization for --workload-from: its segment's size is not
    // in a result, so it must be given; then the simulated transaction writes the measured WAL.
    sim("enterprise-raid5.toml")
        .args(["--workload-from"])
        .arg(&real)
        .args(["--duration", "2s", "--warmup", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--segment-size NAME=SIZE"));
    let from = dir.path().join("from.json");
    sim("enterprise-raid5.toml")
        .args(["--workload-from"])
        .arg(&real)
        .args(["--segment-size", "data=2GiB", "--sessions", "4"])
        .args(["--duration", "5s", "--warmup", "2s", "--json"])
        .arg(&from)
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&from).unwrap()).unwrap();
    let run = &v["runs"][0];
    let tx = &run["workload"]["parameters"]["character"]["workload"]["transactions"][0];
    // The characterization's redo: all the WAL of the real window per transaction
    // (pg_stat_wal's bytes over the operations)...
    let redo = tx["redo_bytes"].as_f64().expect("redo_bytes");
    let real_run = &r["runs"][0];
    let window_wal = real_run["db"]["wal"]["bytes"].as_f64().expect("WAL bytes");
    let ops = real_run["metrics"]["ios"].as_f64().expect("operations");
    assert!(
        ops > 0.0 && (redo - window_wal / ops).abs() < 0.001,
        "{redo} bytes of redo for {window_wal} WAL bytes over {ops} operations"
    );
    // ...which holds what the statements themselves logged: the WAL of every statement the
    // result lists (calls times WAL per call) is part of the window's.
    let listed: f64 = real_run["db"]["statements"]
        .as_array()
        .expect("statements")
        .iter()
        .map(|s| s["calls"].as_f64().unwrap() * s["wal_bytes"].as_f64().unwrap())
        .sum();
    assert!(
        listed > 0.0 && window_wal >= 0.9 * listed,
        "the window's {window_wal} WAL bytes, its statements' {listed}"
    );
    let m = &run["metrics"];
    let tx_s = m["tx_per_min"].as_f64().unwrap() / 60.0;
    let log_per_tx = m["wal_mb_per_s"].as_f64().unwrap() * 1e6 / tx_s;
    // Each log write rounds up to whole log blocks: at most one block per transaction more.
    assert!(
        tx_s > 0.0 && log_per_tx >= 0.95 * redo && log_per_tx <= redo + 8192.0 + 100.0,
        "{log_per_tx} bytes of log per transaction for {redo} of redo"
    );

    // A file without the test is bad input naming the file and what it has.
    sim("enterprise-raid5.toml")
        .args(["--db-test", "dpaws/select-row", "--profile-from"])
        .arg(&real)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "real.json: has no run of dpaws/select-row",
        ))
        .stderr(predicate::str::contains("dpaws/update-row"));
    sim("enterprise-raid5.toml")
        .args(["--profile", "randread-8k", "--profile-from"])
        .arg(&real)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--profile-from needs"));
}

/// The help of `storlab sim --db-test` and `storlab db --test` lists every test, from the
/// lists the simulator and the suites run by.
#[test]
fn the_help_lists_every_database_test() {
    let help = |args: &[&str]| {
        let out = storlab().args(args).arg("--help").assert().success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    };
    let sim = help(&["sim"]);
    for name in storlab_sim::config::DbTest::NAMES {
        assert!(sim.contains(name), "storlab sim --help lacks {name}");
    }
    let db = help(&["db"]);
    for (suite, tests) in storlab_db::suites::all_tests() {
        assert!(
            db.contains(&format!("{suite}: ")),
            "storlab db --help lacks {suite}"
        );
        for t in tests {
            assert!(db.contains(t), "storlab db --help lacks {suite}/{t}");
        }
    }
}

#[test]
fn database_tests_warm_up_until_steady_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("auto.json");
    sim("enterprise-raid5.toml")
        .args(["--db-test", "dpaws/update-row", "--db-data", "datavol"])
        .args(["--sessions", "8", "--rows", "200000", "--duration", "5s"])
        .arg("--json")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("s warm-up (auto)"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["workload"]["warmup_auto"], true);
    assert!(run["workload"]["warmup_s"].as_f64().unwrap() >= 60.0);
    assert!(run["steady"].is_boolean());
}

#[test]
fn a_run_outside_steady_state_is_flagged() {
    sim("midrange-raid5.toml")
        .args(["--profile", "randwrite-8k", "--duration", "10s"])
        .args(["--warmup", "auto", "--warmup-max", "2s"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "warning: NOT STEADY: no steady state within the 2 s warm-up limit",
        ));
    sim("midrange-raid5.toml")
        .args(["--profile", "randwrite-8k", "--warmup", "soon"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("auto"));
}

#[test]
fn db_test_places_its_data_on_datavol_and_its_log_on_logvol_by_default() {
    // Without --db-data, a database on "every LUN" filled the first LUN only: on the
    // enterprise array one data rank did all the work while five stood idle, and the log
    // shared it. The default is now the array's own volumes, as for --workload-from.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.json");
    sim("enterprise-raid5.toml")
        .args(["--db-test", "dpaws/update-row", "--rows", "200000"])
        .args(["--db-set", "buffer=8MiB"])
        .args(["--duration", "5s", "--warmup", "1s", "--json"])
        .arg(&out)
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    let target = |class: &str| {
        run["classes"]
            .as_array()
            .expect("classes")
            .iter()
            .find(|c| c["name"] == class)
            .map(|c| c["target"].clone())
    };
    assert_eq!(target("data"), Some("datavol".into()));
    assert_eq!(target("log"), Some("logvol".into()));
    // Every data rank reads (the old default left data-1 to data-5 idle).
    let ranks = run["arrays"].as_array().expect("arrays");
    for rank in ranks.iter().filter(|a| a["name"] != "log") {
        let reads = rank["read_iops"].as_f64().expect("read_iops");
        assert!(reads > 100.0, "{}: {reads} reads a second", rank["name"]);
    }
}
