//! Goals measured on the `storlab` binary users run (`STORLAB_BIN`, which `make bench` sets
//! to the plain release build): a users sweep of 8 points on case 2's update-row database
//! (goal under 2 minutes) and the validation of the six shipped drive traces (goal under
//! 5 s). Both need the command line's own code, so without a binary they are reported as not
//! measured.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::json;
use storlab_bench_support::Spread;

/// The user counts of the sweep: 8 points, 1 to 128 users, each a run with the automatic
/// warm-up and the default 60 s measured window, measured on while it is not steady (what
/// `--users-sweep` runs by default).
const SWEEP_USERS: &str = "1,2,4,8,16,32,64,128";

/// Rounds of the drive validation (a fraction of a second each): the figure is their median.
const DRIVE_ROUNDS: usize = 5;

/// The repository's root (the benchmark runs from the crate's directory).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `bin` with `args`, its output discarded; returns the wall and CPU seconds it took and
/// its exit code. `ok` lists the exit codes that mean it ran (validate exits 1 when a figure
/// misses, which is a result, not a failure to run).
fn timed_run(bin: &str, args: &[&std::ffi::OsStr], ok: &[i32]) -> (f64, f64, i32) {
    let (t, cpu) = (Instant::now(), super::cpu_s(libc::RUSAGE_CHILDREN));
    let status = Command::new(bin)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("{bin}: {e}"));
    let wall = t.elapsed().as_secs_f64();
    let cpu = super::cpu_s(libc::RUSAGE_CHILDREN) - cpu;
    let code = status.code().unwrap_or(-1);
    assert!(ok.contains(&code), "{bin} {args:?}: exit {status}");
    (wall, cpu, code)
}

/// A users sweep of 8 points on case 2's update-row database (enterprise-raid5.toml):
/// wall and CPU seconds, the points measured and the users the storage carries.
pub fn users_sweep(bin: Option<&str>, workload: &str) -> serde_json::Value {
    let Some(bin) = bin else {
        println!("   users sweep, 8 points of case 2: not measured (STORLAB_BIN not set)");
        return json!({"measured": false, "reason": "STORLAB_BIN not set", "goal_wall_s": 120});
    };
    let dir = std::env::temp_dir().join(format!("storlab-bench-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let (wl, out) = (dir.join("workload.toml"), dir.join("sweep.json"));
    std::fs::write(&wl, workload).expect("workload file");
    let array = repo().join("examples/arrays/enterprise-raid5.toml");
    let args: Vec<&std::ffi::OsStr> = vec![
        "sim".as_ref(),
        "--array".as_ref(),
        array.as_os_str(),
        "--workload".as_ref(),
        wl.as_os_str(),
        "--users-sweep".as_ref(),
        "--users".as_ref(),
        SWEEP_USERS.as_ref(),
        "--json".as_ref(),
        out.as_os_str(),
    ];
    let (wall, cpu, _) = timed_run(bin, &args, &[0, 1]);
    let text = std::fs::read_to_string(&out);
    let _ = std::fs::remove_dir_all(&dir);
    let doc: serde_json::Value =
        serde_json::from_str(&text.expect("sweep result file")).expect("sweep result JSON");
    let sweep = &doc["users_sweep"];
    let points = sweep["points"].as_array().map_or(0, Vec::len);
    assert_eq!(points, 8, "the sweep measured every count of {SWEEP_USERS}");
    let steady = doc["runs"]
        .as_array()
        .map_or(0, |r| r.iter().filter(|r| r["steady"] == true).count());
    println!(
        "   users sweep, {points} points of case 2 ({SWEEP_USERS} users): {wall:.1} s, {cpu:.1} s of CPU; {steady} of {points} runs steady (goal under 120 s)"
    );
    json!({"measured": true, "users": SWEEP_USERS, "points": points, "wall_s": wall, "cpu_s": cpu,
           "steady_runs": steady, "max_users": sweep["max_users"], "knee_users": sweep["knee_users"],
           "goal_wall_s": 120, "binary": bin})
}

/// `storlab validate --drives` over the six shipped drive traces (references/drives):
/// the median wall time of a few rounds, and the drives and requests replayed.
pub fn drive_validation(bin: Option<&str>) -> serde_json::Value {
    let Some(bin) = bin else {
        println!("   drive validation, six traces: not measured (STORLAB_BIN not set)");
        return json!({"measured": false, "reason": "STORLAB_BIN not set", "goal_wall_s": 5});
    };
    let dir = std::env::temp_dir().join(format!("storlab-bench-drives-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let out = dir.join("drives.json");
    let drives = repo().join("references/drives");
    let args: Vec<&std::ffi::OsStr> = vec![
        "validate".as_ref(),
        "--drives".as_ref(),
        drives.as_os_str(),
        "--json".as_ref(),
        out.as_os_str(),
    ];
    let rounds: Vec<(f64, f64, i32)> = (0..DRIVE_ROUNDS)
        .map(|_| timed_run(bin, &args, &[0, 1]))
        .collect();
    let text = std::fs::read_to_string(&out);
    let _ = std::fs::remove_dir_all(&dir);
    let doc: serde_json::Value =
        serde_json::from_str(&text.expect("drive result file")).expect("drive result JSON");
    let list = doc.as_array().cloned().unwrap_or_default();
    let requests: u64 = list.iter().filter_map(|d| d["requests"].as_u64()).sum();
    assert_eq!(list.len(), 6, "six shipped drives validated");
    let wall = Spread::of(rounds.iter().map(|r| r.0)).expect("rounds ran");
    println!(
        "   drive validation, {} traces ({requests} requests): {:.2} s ({:.2}-{:.2}) (goal under 5 s)",
        list.len(),
        wall.median,
        wall.min,
        wall.max
    );
    json!({"measured": true, "drives": list.len(), "requests": requests, "rounds": DRIVE_ROUNDS,
           "wall_s": wall.median, "wall_s_min_max": [wall.min, wall.max],
           "cpu_s": rounds.iter().map(|r| r.1).collect::<Vec<_>>(),
           "all_within_disksim": rounds[0].2 == 0, "goal_wall_s": 5, "binary": bin})
}
