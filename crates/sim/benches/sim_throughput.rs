//! Simulator benchmark (`make bench`): simulated host I/Os per wall-clock second on one
//! thread, events per second, scaling with simulated duration, and peak memory for one
//! simulated hour of `oltp-60-40`. Writes target/bench/sim.json.
//!
//! Goals (issue 2): at least 1,000,000 host I/Os per second (goal 3,000,000) for randread-8k
//! and randwrite-8k on midrange-raid5.toml; doubling the simulated duration at most doubles
//! the wall time (+10%); peak memory for one simulated hour of oltp-60-40 under 200 MiB.

#![allow(clippy::disallowed_methods)] // a benchmark measures wall time by definition

use std::time::Instant;

use serde_json::json;
use storlab_sim::{parse_array, profile_workload, simulate, RunOptions, SystemSpec};

const RAID5: &str = include_str!("../../../examples/arrays/midrange-raid5.toml");

fn timed(system: &SystemSpec, profile: &str, secs: u64) -> (f64, u64, u64) {
    let w = profile_workload(profile, system).expect("profile");
    let opts = RunOptions {
        duration_ns: secs * 1_000_000_000,
        warmup_ns: 0,
        seed: 1,
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

fn main() {
    let system = parse_array(RAID5, "midrange-raid5.toml").expect("example array");
    if std::env::args().any(|a| a == "--memory-child") {
        let (wall, ios, _) = timed(&system, "oltp-60-40", 3600);
        println!("{} {} {}", peak_rss_kib().unwrap_or(0), wall, ios);
        return;
    }
    let mut profiles = Vec::new();
    for profile in ["randread-8k", "randwrite-8k"] {
        // Warm the allocator and caches once, then measure D and 2D.
        timed(&system, profile, 10);
        let (w1, ios1, ev1) = timed(&system, profile, 600);
        let (w2, ios2, _) = timed(&system, profile, 1200);
        let ios_per_s = ios1 as f64 / w1;
        println!(
            "{profile:>13}: {:>10.0} host I/Os/s, {:>11.0} events/s, {:.2} events per I/O; 2x duration -> {:.2}x wall",
            ios_per_s,
            ev1 as f64 / w1,
            ev1 as f64 / ios1 as f64,
            w2 / w1
        );
        profiles.push(json!({
            "profile": profile,
            "simulated_s": 600,
            "host_ios": ios1,
            "events": ev1,
            "wall_s": w1,
            "host_ios_per_wall_s": ios_per_s,
            "events_per_wall_s": ev1 as f64 / w1,
            "doubled": {"simulated_s": 1200, "host_ios": ios2, "wall_s": w2, "wall_ratio": w2 / w1},
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
    let report = json!({
        "benchmark": "storlab-sim throughput",
        "array": "examples/arrays/midrange-raid5.toml",
        "storlab_version": env!("CARGO_PKG_VERSION"),
        "profiles": profiles,
        "memory": {"profile": "oltp-60-40", "simulated_s": 3600, "host_ios": ios, "wall_s": wall,
                   "peak_rss_mib": rss_kib as f64 / 1024.0, "limit_mib": 200},
    });
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/bench");
    std::fs::create_dir_all(dir).expect("bench dir");
    let path = format!("{dir}/sim.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&report).expect("json") + "\n",
    )
    .expect("write");
    println!("wrote {path}");
}
