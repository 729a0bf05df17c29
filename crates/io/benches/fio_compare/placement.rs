//! Which CPU a run's I/O threads ran on (fio_compare). On a small virtual machine a psync read
//! costs about a quarter less CPU on the CPU that takes the disk's interrupt than on another
//! one, and the scheduler picks the CPU afresh for each run: two runs of the same tool differ
//! by more than storlab and fio do. Each run's placement is recorded so the rounds where both
//! tools ran on the same CPU can be compared apart.
//!
//! The watcher is a separate process (this bench run again with STORLAB_PLACEMENT_WATCH set),
//! so neither tool's process holds it and neither tool's CPU figure counts it. Every 100 ms it
//! reads, for every I/O thread (fio: its job processes; storlab, which runs in the bench
//! process: every thread of it but the main one, which only monitors), the CPU time it used
//! since the last look (schedstat) and the CPU it is on (stat field 39), and credits the time
//! to that CPU, and notes the total so far with the time of the look: the timeline from which
//! the bench takes each tool's scheduler CPU rate in the middle of its measured window (the
//! same instrument for both tools; see main.rs). It stops when the bench closes its standard
//! input and prints what it saw.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

/// What to watch: the bench's own threads (storlab), or the child processes of a process
/// (fio's jobs).
#[derive(Clone, Copy)]
pub enum Whose {
    OwnThreads,
    ChildrenOf(u32),
}

const WATCH_ENV: &str = "STORLAB_PLACEMENT_WATCH";
/// Time between two looks at the watched threads.
const LOOK_MS: u64 = 100;

/// CPU time of the watched threads, per CPU.
#[derive(Clone, Debug, Default)]
pub struct Placement {
    pub ns_by_cpu: BTreeMap<u32, u64>,
    /// (time since the watcher started, run time of the watched threads since then), ns, one
    /// pair per look.
    pub timeline: Vec<(u64, u64)>,
    /// What the watcher process itself used (user + system).
    pub watcher_cpu_ns: u64,
}

impl Placement {
    /// The CPU with the most of the time, and its share of it.
    pub fn main_cpu(&self) -> Option<(u32, f64)> {
        let total: u64 = self.ns_by_cpu.values().sum();
        let (cpu, ns) = self.ns_by_cpu.iter().max_by_key(|(_, ns)| **ns)?;
        (total > 0).then(|| (*cpu, *ns as f64 / total as f64))
    }

    /// CPU the watched threads used per second of wall time between `from_s` and `to_s` after
    /// the watcher started (the looks nearest inside that span), in ns per second.
    pub fn cpu_rate(&self, from_s: f64, to_s: f64) -> Option<f64> {
        let (from, to) = ((from_s * 1e9) as u64, (to_s * 1e9) as u64);
        let first = self.timeline.iter().find(|(t, _)| *t >= from)?;
        let last = self.timeline.iter().rev().find(|(t, _)| *t <= to)?;
        (last.0 > first.0).then(|| (last.1 - first.1) as f64 / ((last.0 - first.0) as f64 / 1e9))
    }

    pub fn json(&self) -> Value {
        let total = self.ns_by_cpu.values().sum::<u64>().max(1) as f64;
        let share: BTreeMap<String, f64> = self
            .ns_by_cpu
            .iter()
            .map(|(cpu, ns)| {
                (
                    cpu.to_string(),
                    (*ns as f64 / total * 1000.0).round() / 1000.0,
                )
            })
            .collect();
        json!({
            "cpu_share": share, "main_cpu": self.main_cpu().map(|(c, _)| c),
            "watcher_cpu_ms": self.watcher_cpu_ns as f64 / 1e6,
        })
    }
}

/// A running watcher process; `finish` stops it and gives what it saw (nothing when it could
/// not be started).
pub struct Watcher(Option<Child>);

impl Watcher {
    pub fn start(whose: Whose) -> Watcher {
        let spec = match whose {
            Whose::OwnThreads => format!("threads:{}", std::process::id()),
            Whose::ChildrenOf(pid) => format!("children:{pid}"),
        };
        let child = std::env::current_exe().ok().and_then(|exe| {
            Command::new(exe)
                .env(WATCH_ENV, spec)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .ok()
        });
        Watcher(child)
    }

    pub fn finish(self) -> Placement {
        let Some(mut child) = self.0 else {
            return Placement::default();
        };
        drop(child.stdin.take());
        let Ok(out) = child.wait_with_output() else {
            return Placement::default();
        };
        let mut p = Placement::default();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let mut f = line.split_whitespace();
            match (f.next(), f.next().and_then(|x| x.parse::<u64>().ok())) {
                (Some("self"), Some(ns)) => p.watcher_cpu_ns = ns,
                (Some("t"), Some(t)) => {
                    if let Some(ns) = f.next().and_then(|x| x.parse().ok()) {
                        p.timeline.push((t, ns));
                    }
                }
                (Some(cpu), Some(ns)) => {
                    if let Ok(cpu) = cpu.parse() {
                        p.ns_by_cpu.insert(cpu, ns);
                    }
                }
                _ => {}
            }
        }
        p
    }
}

/// In the watcher process (STORLAB_PLACEMENT_WATCH set): watches until standard input closes,
/// prints `cpu ns` lines and its own CPU (`self ns`), and returns true. Otherwise false.
pub fn run_watcher_if_asked() -> bool {
    let Ok(spec) = std::env::var(WATCH_ENV) else {
        return false;
    };
    // Started by a thread pinned to the round's CPU: the watcher itself runs anywhere.
    pin(None);
    let whose = match spec.split_once(':') {
        Some(("threads", pid)) => pid.parse().ok().map(|p| (Whose::OwnThreads, p)),
        Some(("children", pid)) => pid.parse().ok().map(|p| (Whose::ChildrenOf(p), p)),
        _ => None,
    };
    let Some((whose, pid)) = whose else {
        return true;
    };
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let watcher = std::thread::spawn(move || watch(whose, pid, &flag));
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    stop.store(true, Ordering::Relaxed);
    let p = watcher.join().unwrap_or_default();
    let mut out = std::io::stdout().lock();
    for (cpu, ns) in &p.ns_by_cpu {
        let _ = writeln!(out, "{cpu} {ns}");
    }
    for (t, ns) in &p.timeline {
        let _ = writeln!(out, "t {t} {ns}");
    }
    let _ = writeln!(out, "self {}", process_cpu_ns());
    true
}

fn watch(whose: Whose, pid: u32, stop: &AtomicBool) -> Placement {
    let mut last: BTreeMap<u32, u64> = BTreeMap::new();
    let mut placement = Placement::default();
    #[allow(clippy::disallowed_methods)] // the timeline is wall time by definition
    let start = std::time::Instant::now();
    let mut used = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let now = start.elapsed().as_nanos() as u64;
        for (process, tid) in threads(whose, pid) {
            if matches!(whose, Whose::OwnThreads) && tid == process {
                continue;
            }
            let Some((run_ns, cpu)) = thread_state(process, tid) else {
                continue;
            };
            let before = last.insert(tid, run_ns).unwrap_or(run_ns);
            let delta = run_ns.saturating_sub(before);
            *placement.ns_by_cpu.entry(cpu).or_default() += delta;
            used += delta;
        }
        placement.timeline.push((now, used));
        std::thread::sleep(Duration::from_millis(LOOK_MS));
    }
    placement
}

/// User + system CPU of this process so far.
fn process_cpu_ns() -> u64 {
    // SAFETY: an all-zero rusage is a valid out parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is valid for writes for the duration of the call.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0;
    }
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    ns(ru.ru_utime) + ns(ru.ru_stime)
}

/// (process, thread) pairs of what is watched.
fn threads(whose: Whose, pid: u32) -> Vec<(u32, u32)> {
    let pids = match whose {
        Whose::OwnThreads => vec![pid],
        Whose::ChildrenOf(_) => std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect(),
    };
    let mut out = Vec::new();
    for pid in pids {
        let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for entry in dir.flatten() {
            if let Some(tid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) {
                out.push((pid, tid));
            }
        }
    }
    out
}

/// A thread's CPU time so far (ns) and the CPU it is on, or last ran on.
fn thread_state(pid: u32, tid: u32) -> Option<(u64, u32)> {
    let dir = format!("/proc/{pid}/task/{tid}");
    let schedstat = std::fs::read_to_string(format!("{dir}/schedstat")).ok()?;
    let run_ns = schedstat.split_whitespace().next()?.parse().ok()?;
    let stat = std::fs::read_to_string(format!("{dir}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at field 3; CPU is 39.
    let after_comm = stat.rsplit_once(')')?.1;
    let cpu = after_comm.split_whitespace().nth(36)?.parse().ok()?;
    Some((run_ns, cpu))
}

/// Restricts the calling thread, and the threads and processes it starts from then on, to
/// `cpu`; with None, lets it run on every online CPU again.
pub fn pin(cpu: Option<usize>) {
    let online = online_cpus();
    // SAFETY: cpu_set_t is plain data; all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for c in (0..online).filter(|&c| cpu.is_none_or(|p| p == c)) {
        // SAFETY: c < online <= CPU_SETSIZE for any machine this bench runs on.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `set` is a valid cpu_set_t of `size` bytes; 0 is the calling thread.
    if unsafe { libc::sched_setaffinity(0, size, &set) } != 0 {
        eprintln!("cannot pin to {cpu:?}: {}", std::io::Error::last_os_error());
    }
}

/// Online CPUs (not the calling thread's affinity, which a pin narrows).
pub fn online_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as usize
}
