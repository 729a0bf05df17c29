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

#[test]
#[allow(clippy::disallowed_methods)]
// a deadline for a child that never gets going
// The child is reaped with wait4, which also gives the CPU it used (std's wait does not).
#[allow(clippy::zombie_processes)]
fn an_interrupted_simulation_exits_1_with_the_run_so_far_marked_partial() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let bin = assert_cmd::cargo::cargo_bin("storlab");
    let mut child = std::process::Command::new(bin)
        .args(["sim", "--array", &example("enterprise-raid5.toml")])
        .args(["--profile", "randwrite-8k", "--duration", "3600s", "--json"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn storlab");
    let pid = child.id();
    // Wait until the run handles Ctrl-C and has simulated well past its 10 s warm-up (which
    // takes about 0.2 s of CPU; the hour takes over a minute).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    let cpu_at_signal = loop {
        let cpu = cpu_s(pid).expect("the simulation runs");
        if catches_sigint(pid) && cpu >= 1.0 {
            break cpu;
        }
        assert!(std::time::Instant::now() < deadline, "never got going");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    // Reaped with its resource usage: the CPU it used in all.
    let mut status = 0;
    // SAFETY: waiting for our own child; both pointers are valid for the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid as i32, "wait4");
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu_total = tv(usage.ru_utime) + tv(usage.ru_stime);
    // The stop comes between events: a fraction of a CPU second, not the rest of the hour.
    assert!(
        cpu_total - cpu_at_signal < 2.0,
        "{:.2} CPU s after the signal (at {cpu_at_signal:.2} CPU s)",
        cpu_total - cpu_at_signal
    );
    assert!(libc::WIFEXITED(status), "exited, not killed: {status:#x}");
    assert_eq!(libc::WEXITSTATUS(status), 1, "interrupted runs exit 1");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("interrupted"), "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["partial"], true);
    let window = run["workload"]["duration_s"].as_f64().unwrap();
    assert!(window < 3600.0, "the window is what ran: {window}");
    assert!(run["metrics"]["ios"].as_u64().unwrap() > 0);
}
