//! `--users-sweep` of `storlab sim` and `storlab db`: the points, the answer, the knee, the
//! result file and the HTML page; bad combinations are bad input.

use predicates::prelude::*;

use super::{example, scratch_dir, storlab};

/// Sessions that think 9 ms, then burn 1 ms of CPU on one host CPU, both exponential, on a
/// table the buffer cache holds: a closed network whose knee is N* = (1 + 9) / 1 = 10.
const ANALYTIC: &str = r#"name = "analytic"
[database]
test = "dpaws/select-row"
data = "datavol"
log = "logvol"
rows = 1000
buffer = "64MiB"
think = "9ms"
client_cpu = "1ms"
cpu_per_block = "0"
cpu_per_row = "0"
cpu_per_statement = "0"
cpu_per_commit = "0"
cpus = 1
variability = "exponential"
"#;

fn read_json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("result file")).expect("JSON")
}

#[test]
fn the_sweep_finds_the_knee_of_a_known_closed_network() {
    let dir = scratch_dir();
    let workload = dir.path().join("analytic.toml");
    std::fs::write(&workload, ANALYTIC).expect("write workload");
    let (json, html) = (dir.path().join("s.json"), dir.path().join("s.html"));
    storlab()
        .args([
            "sim",
            "--array",
            &example("enterprise-raid5.toml"),
            "--workload",
        ])
        .arg(&workload)
        .args(["--users-sweep", "--users", "1,2,4,6,8,10,12,14,16,20"])
        .args(["--max-response-ms", "5", "--response", "mean"])
        .args(["--duration", "60s", "--warmup", "5s", "--json"])
        .arg(&json)
        .arg("--users-html")
        .arg(&html)
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"(?m)^  users\s+tx/s").unwrap())
        .stdout(predicate::str::contains("under mean 5 ms; knee at"));
    let v = read_json(&json);
    let s = &v["users_sweep"];
    let points = s["points"].as_array().expect("points");
    let users: Vec<u64> = points
        .iter()
        .map(|p| p["users"].as_u64().unwrap())
        .collect();
    assert_eq!(users, [1, 2, 4, 6, 8, 10, 12, 14, 16, 20]);
    assert_eq!(v["runs"].as_array().unwrap().len(), points.len());
    // The knee of the analytic case, within one step of the grid (2 users).
    let knee = s["knee_users"].as_u64().expect("knee_users");
    assert!((8..=12).contains(&knee), "knee at {knee}, not about 10");
    let n_star = s["knee"]["n_star"].as_f64().unwrap();
    assert!((n_star - 10.0).abs() < 0.5, "N* = {n_star}, not 10");
    assert_eq!(s["knee"]["bottleneck"], "cpu");
    // The answer: the last count of the passing run from 1 user up, and the CPU saturated
    // beyond the knee.
    let passing: Vec<bool> = points
        .iter()
        .map(|p| p["passes"].as_bool().unwrap())
        .collect();
    let max = s["max_users"].as_u64().expect("max_users");
    let last_pass = passing.iter().take_while(|&&p| p).count();
    assert_eq!(max, users[last_pass - 1]);
    assert!(max > knee && max < 20, "carries {max}");
    assert!(points[9]["cpu_util_pct"].as_f64().unwrap() > 97.0);
    assert_eq!(s["statistic"], "mean");
    assert_eq!(s["think_ms"], 9.0);
    let page = std::fs::read_to_string(&html).expect("HTML page");
    assert!(page.contains("<svg") && page.contains(&format!("knee {knee}")));
    assert!(page.contains(&format!("Carries {max} users under mean 5 ms")));
}

/// One controller whose one processor spends 2 ms on every host I/O: the array's
/// processors, not its disks, are the bottleneck.
const ONE_PROCESSOR: &str = r#"name = "one-processor"
[controllers]
count = 1
cache = "1g"
write_cache = "256m"
mirror_writes = false
processors = 1
read_hit_cost = "2ms"
read_miss_cost = "2ms"
write_cost = "2ms"
[[raid_groups]]
name = "data"
level = "raid10"
disks = 8
disk_model = "hdd-15k"
stripe_unit = "256k"
[[raid_groups]]
name = "log"
level = "raid1"
disks = 2
disk_model = "hdd-15k"
stripe_unit = "256k"
"#;

/// Sessions that think 20 ms and read rows the buffer cache mostly misses.
const PROCESSOR_BOUND: &str = r#"name = "processor-bound"
[database]
test = "dpaws/select-row"
data = "data"
log = "log"
rows = 100000
tables = 1
row_bytes = 100
buffer = "1MiB"
think = "20ms"
client_cpu = "0"
cpu_per_block = "0"
cpu_per_row = "0"
cpu_per_statement = "0"
cpu_per_commit = "0"
cpus = 64
variability = "exponential"
"#;

#[test]
fn the_knee_of_a_bottleneck_that_is_not_a_disk_names_it() {
    let dir = scratch_dir();
    let (array, workload) = (dir.path().join("a.toml"), dir.path().join("w.toml"));
    std::fs::write(&array, ONE_PROCESSOR).expect("write array");
    std::fs::write(&workload, PROCESSOR_BOUND).expect("write workload");
    let json = dir.path().join("s.json");
    storlab()
        .args(["sim", "--array"])
        .arg(&array)
        .arg("--workload")
        .arg(&workload)
        .args(["--users-sweep", "--users", "1,2,3,4,5,6,7,8"])
        .args(["--max-response-ms", "50", "--response", "mean"])
        .args(["--duration", "30s", "--warmup", "5s", "--json"])
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::contains("of controller 0 processors)"))
        .stdout(predicate::str::contains("busiest station"));
    let v = read_json(&json);
    let s = &v["users_sweep"];
    assert_eq!(s["knee"]["bottleneck"], "controller 0 processors");
    // The analytic knee: D_max = the host I/Os of a transaction x 2 ms on one processor, D
    // the response time of a lone user, Z = 20 ms.
    let one = &v["runs"][0]["metrics"];
    let tx_per_s = one["transactions"][0]["tx_per_s"].as_f64().expect("tx/s");
    let d_max_ms = one["iops"].as_f64().expect("iops") / tx_per_s * 2.0;
    let d_ms = one["tx_latency_ms"]["mean"].as_f64().expect("mean");
    let analytic = (d_ms + 20.0) / d_max_ms;
    let knee = s["knee_users"].as_u64().expect("knee_users") as f64;
    assert!(
        (knee - analytic).abs() <= 1.0,
        "knee at {knee}, analytic {analytic:.2} (one grid step: 1 user)"
    );
    // The disks were nearly idle: without the processors the knee was far off.
    let top = &s["points"][7];
    assert!(
        top["devices"][0]["util_pct"].as_f64().unwrap() < 10.0,
        "{top}"
    );
    assert!(
        top["stations"][0]["util_pct"].as_f64().unwrap() > 85.0,
        "{top}"
    );
}

#[test]
fn without_users_the_sweep_brackets_the_answer() {
    let dir = scratch_dir();
    let workload = dir.path().join("analytic.toml");
    std::fs::write(&workload, ANALYTIC).expect("write workload");
    let json = dir.path().join("s.json");
    storlab()
        .args([
            "sim",
            "--array",
            &example("enterprise-raid5.toml"),
            "--workload",
        ])
        .arg(&workload)
        .args([
            "--users-sweep",
            "--max-response-ms",
            "10",
            "--duration",
            "30s",
        ])
        .args(["--warmup", "2s", "--json"])
        .arg(&json)
        .assert()
        .success();
    let v = read_json(&json);
    let s = &v["users_sweep"];
    let max = s["max_users"].as_u64().expect("max_users");
    let points = s["points"].as_array().unwrap();
    // The next count measured above the answer misses the target and is at most 5% (or
    // 1 user) above it.
    let next = points
        .iter()
        .map(|p| p["users"].as_u64().unwrap())
        .find(|&n| n > max)
        .expect("a count above the answer");
    assert_eq!(next, max + 1, "{points:?}");
    assert_eq!(s["statistic"], "p95");
    // 1, 2, 4 ... are all there up to the first miss.
    for n in [1, 2, 4, 8] {
        assert!(points.iter().any(|p| p["users"] == n), "{n} missing");
    }
}

/// The target's help states the bounds and the default its declaration gives, in both
/// commands that sweep users.
#[test]
fn the_response_target_help_is_its_declaration() {
    use storlab_cli::flags::{DEFAULT_MAX_RESPONSE_MS, MAX_RESPONSE_MS};
    let said = format!(
        "Response-time target of a users sweep, ms ({}) [default: {}]",
        MAX_RESPONSE_MS.bounds_in_words(),
        storlab_core::keys::number(DEFAULT_MAX_RESPONSE_MS)
    );
    assert!(
        said.contains("(above 0, at most 3600000) [default: 100]"),
        "{said}"
    );
    for sub in ["sim", "db"] {
        let out = storlab().args([sub, "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(&said), "{sub} --help: {text}");
    }
}

#[test]
fn users_sweep_options_that_do_not_fit_are_bad_input() {
    let array = example("enterprise-raid5.toml");
    let sim = |args: &[&str]| {
        let mut c = storlab();
        c.args(["sim", "--array", &array]).args(args);
        c
    };
    for (args, says) in [
        (
            &[
                "--db-test",
                "dpaws/select-row",
                "--users-sweep",
                "--users",
                "0,4",
            ][..],
            "--users: each count must be at least 1 and at most 10000 users; got 0",
        ),
        (
            &[
                "--db-test",
                "dpaws/select-row",
                "--users-sweep",
                "--sessions",
                "4",
            ],
            "--users-sweep cannot go with --sessions",
        ),
        (
            &["--db-test", "dpaws/select-row", "--max-response-ms", "50"],
            "--max-response-ms needs --users-sweep",
        ),
        (
            &["--profile", "randread-8k", "--users-sweep"],
            "--users-sweep cannot go with --profile",
        ),
        (
            &[
                "--db-test",
                "dpaws/select-row",
                "--users-sweep",
                "--max-response-ms=-1",
            ],
            "--max-response-ms must be above 0 and at most 3600000 ms; got -1",
        ),
        (
            &[
                "--db-test",
                "dpaws/select-row",
                "--users-sweep",
                "--think-ms",
                "1e9",
            ],
            "--think-ms must be at least 0 and at most 3600000 ms; got 1000000000",
        ),
        (
            &[
                "--db-test",
                "dpaws/select-row",
                "--users-sweep",
                "--think-ms",
                "5",
                "--think-variability",
                "exponential",
            ],
            "--users-sweep cannot go with --think-variability",
        ),
    ] {
        sim(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    }
    storlab()
        .args([
            "db",
            "--data-dir",
            "/nonexistent/x",
            "--users-sweep",
            "--clients",
            "3",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--users-sweep cannot go with --clients",
        ));
}

pub(super) fn a_real_server_is_swept_one_user_count_after_the_other() {
    let dir = super::db::scratch_tmp();
    let data = dir.path().join("data");
    let (json, html) = (dir.path().join("db.json"), dir.path().join("db.html"));
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
        .args(["--scale", "500", "--users-sweep", "--users", "1,2,4"])
        .args([
            "--max-response-ms",
            "500",
            "--duration",
            "2s",
            "--warmup",
            "0",
        ])
        .arg("--json")
        .arg(&json)
        .arg("--users-html")
        .arg(&html)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "carries at least 4 users under p95 500 ms",
        ));
    let v = read_json(&json);
    let s = &v["users_sweep"];
    let users: Vec<u64> = s["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["users"].as_u64().unwrap())
        .collect();
    assert_eq!(users, [1, 2, 4]);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    for (run, n) in runs.iter().zip([1, 2, 4]) {
        assert_eq!(run["workload"]["parameters"]["users"], n);
        assert!(run["metrics"]["tx_latency_ms"]["p95"].as_f64().unwrap() > 0.0);
    }
    assert_eq!(s["max_users"], 4);
    assert!(s["knee_users"].as_u64().is_some_and(|k| k >= 1));
    assert!(std::fs::read_to_string(&html).unwrap().contains("<svg"));
    assert!(!super::db::postgres_running_on(&data.join("users-4")));
    assert!(!data.exists(), "the sweep's directories are removed");
}

pub(super) fn real_clients_think_between_transactions() {
    let dir = super::db::scratch_tmp();
    for variability in ["fixed", "exponential"] {
        let data = dir.path().join(format!("data-{variability}"));
        let json = dir.path().join(format!("{variability}.json"));
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
            .args(["--scale", "500", "--users-sweep", "--users", "1,4"])
            .args(["--think-ms", "100", "--think-variability", variability])
            .args([
                "--max-response-ms",
                "500",
                "--duration",
                "4s",
                "--warmup",
                "1s",
            ])
            .arg("--json")
            .arg(&json)
            .assert()
            .success();
        let v = read_json(&json);
        assert_eq!(v["users_sweep"]["think_ms"], 100.0);
        for run in v["runs"].as_array().expect("runs") {
            let p = &run["workload"]["parameters"];
            assert_eq!(p["think_ms"], 100.0);
            assert_eq!(p["think_variability"], variability);
            // The response time law of a closed system: N = X (R + Z). Without the think
            // time a lone client runs hundreds of transactions a second.
            let m = &run["metrics"];
            let x_per_ms = m["tx_per_min"].as_f64().expect("tx/min") / 60e3;
            let r_ms = m["tx_latency_ms"]["mean"].as_f64().expect("mean");
            let n = p["users"].as_f64().expect("users");
            let law = x_per_ms * (r_ms + 100.0);
            assert!(
                (law / n - 1.0).abs() < 0.2,
                "{variability}, {n} users: X (R + Z) = {law:.2}"
            );
        }
    }
}
