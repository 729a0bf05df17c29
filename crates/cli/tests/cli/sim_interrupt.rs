//! `storlab sim` stopped by Ctrl-C: exit 1, the run so far written and marked partial.
//!
//! The run's progress and its stop are judged by the CPU time it used, not by wall-clock
//! time, so a busy machine slows the test down but cannot fail it.

use super::example;

/// CPU seconds (user and system) process `pid` has used so far; None once it is gone.
fn cpu_s(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces) closing with ')'.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1);
    Some(ticks as f64 / hz as f64)
}

/// Process `pid` has its own SIGINT handler installed.
fn catches_sigint(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (libc::SIGINT - 1)) != 0)
}

/// What became of a `storlab sim` run interrupted once it had used `cpu` seconds of CPU.
struct Interrupted {
    /// CPU seconds it used after the signal.
    cpu_after: f64,
    /// Its exit status, if it exited (None: killed by a signal).
    code: Option<i32>,
    stderr: String,
    /// The run of its `--json` file.
    run: serde_json::Value,
}

/// Runs `storlab sim ARGS --json FILE`, sends SIGINT once the run handles Ctrl-C and has used
/// `cpu` seconds of CPU, and reaps it with the CPU it used in all (std's wait does not say).
#[allow(clippy::disallowed_methods)] // a deadline for a child that never gets going
#[allow(clippy::zombie_processes)] // reaped with wait4
fn interrupt_sim(args: &[&str], cpu: f64) -> Interrupted {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let bin = assert_cmd::cargo::cargo_bin("storlab");
    let mut child = std::process::Command::new(bin)
        .arg("sim")
        .args(args)
        .arg("--json")
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn storlab");
    let pid = child.id();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    let cpu_at_signal = loop {
        let used = cpu_s(pid).expect("the simulation runs");
        if catches_sigint(pid) && used >= cpu {
            break used;
        }
        assert!(std::time::Instant::now() < deadline, "never got going");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let mut status = 0;
    // SAFETY: waiting for our own child; both pointers are valid for the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid as i32, "wait4");
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu_total = tv(usage.ru_utime) + tv(usage.ru_stime);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    Interrupted {
        cpu_after: cpu_total - cpu_at_signal,
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stderr,
        run: v["runs"][0].clone(),
    }
}

#[test]
fn an_interrupted_simulation_exits_1_with_the_run_so_far_marked_partial() {
    // Well past its 10 s warm-up (about 0.2 s of CPU; the hour takes over a minute).
    let array = example("enterprise-raid5.toml");
    let args = ["--array", &array, "--profile", "randwrite-8k"];
    let i = interrupt_sim(&[&args[..], &["--duration", "3600s"]].concat(), 1.0);
    // The stop comes between events: a fraction of a CPU second, not the rest of the hour.
    assert!(
        i.cpu_after < 2.0,
        "{:.2} CPU s after the signal",
        i.cpu_after
    );
    assert_eq!(i.code, Some(1), "interrupted runs exit 1");
    assert!(i.stderr.contains("interrupted"), "{}", i.stderr);
    let run = &i.run;
    assert_eq!(run["partial"], true);
    let window = run["workload"]["duration_s"].as_f64().unwrap();
    assert!(window < 3600.0, "the window is what ran: {window}");
    assert!(run["metrics"]["ios"].as_u64().unwrap() > 0);
}

#[test]
fn a_simulation_interrupted_in_its_automatic_warmup_reports_the_warmup_so_far() {
    // Case 2's database at 64 sessions warms up for about 250 simulated seconds (some 6 s of
    // CPU); the signal comes after about 60 of them.
    let array = example("enterprise-raid5.toml");
    let args = [
        "--array",
        &array,
        "--db-test",
        "dpaws/update-row",
        "--sessions",
        "64",
        "--rows",
        "31900000",
        "--db-set",
        "tables=15",
        "--db-set",
        "row_bytes=[14,805]",
        "--db-set",
        "buffer=512MiB",
        "--warmup",
        "auto",
        "--warmup-max",
        "3600s",
        "--duration",
        "60s",
    ];
    let i = interrupt_sim(&args, 1.5);
    assert!(
        i.cpu_after < 2.0,
        "{:.2} CPU s after the signal",
        i.cpu_after
    );
    assert_eq!(i.code, Some(1), "{}", i.stderr);
    let run = &i.run;
    assert_eq!(run["partial"], true);
    assert_eq!(run["steady"], false);
    let reason = run["steady_reason"].as_str().unwrap();
    assert!(
        reason.starts_with("interrupted in the automatic warm-up after"),
        "{reason}"
    );
    let warnings = run["warnings"].to_string();
    assert!(
        warnings.contains("no measured window was reached"),
        "{warnings}"
    );
    // The figures are the warm-up's over its own length: every second of it in the series,
    // and rows/s their mean (not the warm-up's rows over the shorter window asked for).
    let window = run["workload"]["duration_s"].as_f64().unwrap();
    let series = run["series"].as_array().unwrap();
    assert!(window > 10.0 && window < 3600.0, "window {window} s");
    let points = series.len() as f64;
    assert!(
        points == window.floor() || points == window.ceil(),
        "{points} points for {window} s"
    );
    let mean = series
        .iter()
        .map(|p| p["rows_per_s"].as_f64().unwrap())
        .sum::<f64>()
        / series.len() as f64;
    let rows_per_s = run["metrics"]["rows_per_s"].as_f64().unwrap();
    assert!(
        (rows_per_s - mean).abs() < 0.05 * mean,
        "rows/s {rows_per_s} against the series' mean {mean}"
    );
}
