//! Simulator benchmark (`make bench`): simulated host I/Os per wall-clock second on one
//! thread, events per second, scaling with simulated duration, and peak memory for one
//! simulated hour of `oltp-60-40`. Writes target/bench/sim.json.
//!
//! Goals: at least 1,000,000 host I/Os per second (goal 3,000,000) for randread-8k and
//! randwrite-8k on midrange-raid5.toml, and with the host layer (a stripe over the 7 arrays of
//! enterprise-raid5.toml); doubling the simulated duration at most doubles the wall time
//! (+10%); peak memory for one simulated hour of oltp-60-40 under 200 MiB; trace parsing at
//! least 2,000,000 lines per second; one simulated hour of dpaws/update-row with 80 sessions
//! on enterprise-raid5.toml in under 60 s, measured with the example workload
//! (examples/workloads/dpaws-update-row.toml: one table the array's cache holds) and with case
//! 2's own database (15 tables of 31.9 million rows, mostly read from the disks); a users
//! sweep of 8 points on case 2's database in under 2 minutes and the six drive traces
//! validated in under 5 s, both by the `storlab` binary (`binary_goals`).
//!
//! Each throughput case runs three alternating rounds of 600 and 1,200 simulated seconds and
//! reports medians with min and max: on a shared machine single runs move by a third.

#![allow(clippy::disallowed_methods)] // a benchmark measures wall time by definition

// The machine facts, round statistics and report writing the comparison benches use.
use storlab_bench_support as support;

mod binary_goals;

use std::time::Instant;

use serde_json::json;
use storlab_sim::trace::{TraceFormat, TraceReader};
use storlab_sim::{
    parse_array, parse_workload, profile_workload, simulate, RunOptions, SystemSpec,
};
use support::Spread;

const RAID5: &str = include_str!("../../../../examples/arrays/midrange-raid5.toml");
const ENTERPRISE: &str = include_str!("../../../../examples/arrays/enterprise-raid5.toml");
const UPDATE_ROW: &str = include_str!("../../../../examples/workloads/dpaws-update-row.toml");

/// Case 2's own update-row database (references/case2-enterprise.toml): 15 tables of 31.9
/// million rows (229 GB in PostgreSQL's layout), a 512 MiB buffer, so most operations read
/// from the disks.
const CASE2_UPDATE_ROW: &str =
    "name = \"dpaws/update-row\"\n[database]\ntest = \"dpaws/update-row\"\n\
    sessions = 80\ndata = \"datavol\"\nlog = \"logvol\"\ntables = 15\nrows = 31900000\n\
    row_bytes = [14, 805]\nrange_rows = 10000\nbuffer = \"512MiB\"\n";

/// One simulated hour of the simulated database's update-row test: the example workload
/// (one table the array's cache holds) or case 2's database. Run by the `storlab` binary
/// `make build` made (`STORLAB_BIN`: the plain release build, or the profile-guided one when
/// `make build-pgo` wrote it), the one users run, else in this process.
fn database_hour(label: &str, workload: &str) -> serde_json::Value {
    let (wall, cpu, host_ios, events, rows_per_s, binary) = match std::env::var("STORLAB_BIN") {
        Ok(bin) if !bin.is_empty() => {
            let (wall, cpu, run) = hour_by_binary(&bin, workload);
            let sim = &run["sim"];
            (
                wall,
                cpu,
                sim["host_ios"]
                    .as_u64()
                    .expect("sim.host_ios in the result"),
                sim["events"].as_u64().expect("sim.events in the result"),
                run["metrics"]["rows_per_s"].as_f64(),
                Some(bin),
            )
        }
        _ => {
            let system = parse_array(ENTERPRISE, "enterprise-raid5.toml").expect("example array");
            let w = parse_workload(workload, label, &system).expect("workload");
            let opts = RunOptions {
                duration_ns: 3_600_000_000_000,
                warmup_ns: 0,
                seed: 1,
                warmup_auto: false,
                stop: None,
            };
            let (t, cpu) = (Instant::now(), cpu_s(libc::RUSAGE_SELF));
            let run = simulate(&system, &w, opts).expect("simulate");
            let wall = t.elapsed().as_secs_f64();
            let cpu = cpu_s(libc::RUSAGE_SELF) - cpu;
            let sim = run.sim.expect("sim info");
            (
                wall,
                cpu,
                sim.host_ios,
                sim.events,
                run.metrics.rows_per_s,
                None,
            )
        }
    };
    println!(
        "   dpaws/update-row, 80 sessions, {label}: one simulated hour in {wall:.1} s, {cpu:.1} s of CPU ({host_ios} host I/Os, {:.0} rows/s simulated; goal under 60 s; {})",
        rows_per_s.unwrap_or(0.0),
        binary.as_deref().unwrap_or("in the bench process")
    );
    json!({"test": "dpaws/update-row", "workload": label, "sessions": 80, "array": "enterprise-raid5.toml",
           "simulated_s": 3600, "wall_s": wall, "cpu_s": cpu, "host_ios": host_ios, "events": events,
           "rows_per_s": rows_per_s, "goal_wall_s": 60, "binary": binary})
}

/// CPU seconds (user and system) used so far by this process (`libc::RUSAGE_SELF`) or by its
/// finished children (`libc::RUSAGE_CHILDREN`). On a machine shared with other work the wall
/// time of a run grows with their load; its CPU time much less.
fn cpu_s(who: libc::c_int) -> f64 {
    // SAFETY: rusage is plain data (all zeros is a valid value), and getrusage only writes
    // the struct it is given.
    let (usage, rc) = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        let rc = libc::getrusage(who, &mut usage);
        (usage, rc)
    };
    if rc != 0 {
        return f64::NAN;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Runs one simulated hour of `workload` on the enterprise array with the binary `bin`;
/// returns the wall time, the CPU time and the run of its result file.
fn hour_by_binary(bin: &str, workload: &str) -> (f64, f64, serde_json::Value) {
    let dir = std::env::temp_dir().join(format!("storlab-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let (wl, out) = (dir.join("workload.toml"), dir.join("run.json"));
    std::fs::write(&wl, workload).expect("workload file");
    let array = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/arrays/enterprise-raid5.toml"
    );
    let (t, cpu) = (Instant::now(), cpu_s(libc::RUSAGE_CHILDREN));
    let status = std::process::Command::new(bin)
        .args(["sim", "--array", array, "--workload"])
        .arg(&wl)
        .args(["--duration", "3600s", "--warmup", "0", "--json"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status();
    let wall = t.elapsed().as_secs_f64();
    let cpu = cpu_s(libc::RUSAGE_CHILDREN) - cpu;
    // The directory goes before anything can fail.
    let text = std::fs::read_to_string(&out);
    let _ = std::fs::remove_dir_all(&dir);
    let status = status.unwrap_or_else(|e| panic!("{bin}: {e}"));
    assert!(status.success(), "{bin} sim failed: {status}");
    let text = text.expect("result file");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("result JSON");
    (wall, cpu, doc["runs"][0].clone())
}

/// The enterprise array with one host volume striped over all seven arrays.
fn spread_system() -> SystemSpec {
    let text = format!(
        "{ENTERPRISE}\n[[volumes]]\nname = \"all7\"\nkind = \"stripe\"\nstripe = \"1m\"\nluns = [\"data-0\", \"data-1\", \"data-2\", \"data-3\", \"data-4\", \"data-5\", \"log\"]\n"
    );
    parse_array(&text, "enterprise-raid5.toml + all7").expect("spread array")
}

fn timed(system: &SystemSpec, profile: &str, secs: u64) -> (f64, u64, u64) {
    let w = if system.volume_index("all7").is_some() {
        let text = format!("[[streams]]\nprofile = \"{profile}\"\ntarget = \"all7\"\n");
        parse_workload(&text, "bench", system).expect("workload")
    } else {
        profile_workload(profile, system).expect("profile")
    };
    let opts = RunOptions {
        duration_ns: secs * 1_000_000_000,
        warmup_ns: 0,
        seed: 1,
        warmup_auto: false,
        stop: None,
    };
    let t = Instant::now();
    let run = simulate(system, &w, opts).expect("simulate");
    let wall = t.elapsed().as_secs_f64();
    let sim = run.sim.expect("sim info");
    (wall, sim.host_ios, sim.events)
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Lines per second parsing generated SPC and MSR traces held in memory.
fn trace_speed() -> serde_json::Value {
    let n = 3_000_000u64;
    let mut spc = String::new();
    let mut msr = String::new();
    for i in 0..n {
        let lba = (i * 7919) % 100_000_000;
        spc.push_str(&format!(
            "{},{lba},8192,{},{}.{:06}\n",
            i % 4,
            if i % 3 == 0 { "w" } else { "r" },
            i / 1000,
            i % 1000
        ));
        msr.push_str(&format!(
            "{},hm,{},{},{},8192,1000\n",
            128_166_372_000_000_000u64 + i * 100,
            i % 2,
            if i % 3 == 0 { "Write" } else { "Read" },
            lba * 512
        ));
    }
    let mut out = serde_json::Map::new();
    for (name, text, format) in [
        ("spc", &spc, TraceFormat::Spc),
        ("msr", &msr, TraceFormat::Msr),
    ] {
        let t = Instant::now();
        let reader = TraceReader::new(text.as_bytes(), format, name);
        let records = reader.filter(|r| r.is_ok()).count() as u64;
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(records, n, "{name}: every generated line parses");
        let rate = n as f64 / secs;
        println!("{name:>38} trace parsing: {rate:>10.0} lines/s (goal 2,000,000)");
        out.insert(
            name.into(),
            json!({"lines": n, "wall_s": secs, "lines_per_s": rate, "goal_lines_per_s": 2_000_000}),
        );
    }
    serde_json::Value::Object(out)
}

/// Simulated seconds of the shorter run of each round, and rounds per case.
const SECS: u64 = 600;
const ROUNDS: usize = 3;

fn main() {
    let system = parse_array(RAID5, "midrange-raid5.toml").expect("example array");
    if std::env::args().any(|a| a == "--memory-child") {
        let (wall, ios, _) = timed(&system, "oltp-60-40", 3600);
        println!("{} {} {}", peak_rss_kib().unwrap_or(0), wall, ios);
        return;
    }
    let mut profiles = Vec::new();
    let spread = spread_system();
    let cases = [
        ("midrange-raid5", &system, "randread-8k"),
        ("midrange-raid5", &system, "randwrite-8k"),
        (
            "enterprise-raid5 stripe over 7 arrays",
            &spread,
            "randread-8k",
        ),
        (
            "enterprise-raid5 stripe over 7 arrays",
            &spread,
            "randwrite-8k",
        ),
    ];
    for (array, sys, profile) in cases {
        // Warm the allocator and caches once, then ROUNDS alternating rounds of D and 2D
        // simulated seconds: the figures are medians over the rounds (with min and max), so
        // one slow moment of a shared machine does not decide them.
        timed(sys, profile, 10);
        let mut rounds = Vec::new();
        for _ in 0..ROUNDS {
            let (w1, ios1, ev1) = timed(sys, profile, SECS);
            let (w2, ios2, _) = timed(sys, profile, 2 * SECS);
            rounds.push((w1, ios1, ev1, w2, ios2));
        }
        let rate = Spread::of(rounds.iter().map(|r| r.1 as f64 / r.0)).expect("rounds ran");
        let ratio = Spread::of(rounds.iter().map(|r| r.3 / r.0)).expect("rounds ran");
        let (ios1, ev1) = (rounds[0].1, rounds[0].2);
        let events_per_io = ev1 as f64 / ios1 as f64;
        println!(
            "{array:>38} {profile:>13}: {:>10.0} host I/Os/s ({:.0}-{:.0}), {:>11.0} events/s, {events_per_io:.2} events per I/O; 2x duration -> {:.2}x wall ({:.2}-{:.2})",
            rate.median,
            rate.min,
            rate.max,
            rate.median * events_per_io,
            ratio.median,
            ratio.min,
            ratio.max,
        );
        profiles.push(json!({
            "array": array,
            "profile": profile,
            "simulated_s": SECS,
            "rounds": ROUNDS,
            "host_ios": ios1,
            "events": ev1,
            "wall_s": rounds.iter().map(|r| r.0).collect::<Vec<_>>(),
            "host_ios_per_wall_s": rate.median,
            "host_ios_per_wall_s_min_max": [rate.min, rate.max],
            "events_per_wall_s": rate.median * events_per_io,
            "doubled": {
                "simulated_s": 2 * SECS,
                "host_ios": rounds[0].4,
                "wall_s": rounds.iter().map(|r| r.3).collect::<Vec<_>>(),
                "wall_ratio": ratio.median,
                "wall_ratio_min_max": [ratio.min, ratio.max],
            },
            "goal_host_ios_per_s": 3_000_000,
            "minimum_host_ios_per_s": 1_000_000,
        }));
    }
    let exe = std::env::current_exe().expect("own path");
    let child = std::process::Command::new(exe)
        .arg("--memory-child")
        .output()
        .expect("memory child runs");
    let text = String::from_utf8_lossy(&child.stdout);
    let mut parts = text.split_whitespace();
    let rss_kib: u64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let wall: f64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0.0);
    let ios: u64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    println!(
        "   oltp-60-40: one simulated hour, {ios} host I/Os in {wall:.1} s, peak RSS {:.1} MiB (limit 200)",
        rss_kib as f64 / 1024.0
    );
    let traces = trace_speed();
    let database = database_hour("dpaws-update-row.toml", UPDATE_ROW);
    let case2 = database_hour("case 2's database", CASE2_UPDATE_ROW);
    let bin = std::env::var("STORLAB_BIN").ok().filter(|b| !b.is_empty());
    let sweep = binary_goals::users_sweep(bin.as_deref(), CASE2_UPDATE_ROW);
    let drives = binary_goals::drive_validation(bin.as_deref());
    let report = json!({
        "database": database,
        "database_case2": case2,
        "users_sweep_case2": sweep,
        "drive_validation": drives,
        "trace_parsing": traces,
        "benchmark": "storlab-sim throughput",
        "array": "examples/arrays/midrange-raid5.toml",
        "storlab_version": env!("CARGO_PKG_VERSION"),
        "machine": support::machine(None),
        "profiles": profiles,
        "memory": {"profile": "oltp-60-40", "simulated_s": 3600, "host_ios": ios, "wall_s": wall,
                   "peak_rss_mib": rss_kib as f64 / 1024.0, "limit_mib": 200},
    });
    support::write_report("sim.json", &report);
}
