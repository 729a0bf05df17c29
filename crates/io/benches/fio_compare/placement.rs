//! Which CPU a run's I/O threads ran on (fio_compare). On a small virtual machine a psync read
//! costs about a quarter less CPU on the CPU that takes the disk's interrupt than on another
//! one, and the scheduler picks the CPU afresh for each run: two runs of the same tool differ
//! by more than storlab and fio do. Each run's placement is recorded so the rounds where both
//! tools ran on the same CPU can be compared apart.
//!
//! A watcher thread reads /proc every 250 ms (about 0.1 ms of CPU each time; when storlab runs,
//! the watcher is in its process and its CPU in storlab's figure, so it looks rarely and
//! reports what it cost, `watcher_cpu_ms`): for every I/O thread (fio: its job processes;
//! storlab, which runs in this process: every thread but the main one, which only monitors,
//! and the watcher) the CPU time it used since the last look (schedstat) and the CPU it is on
//! (stat field 39); the time is credited to that CPU.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{json, Value};

/// What to watch: this process's threads, or the child processes of a process (fio's jobs).
#[derive(Clone, Copy)]
pub enum Whose {
    OwnThreads,
    ChildrenOf(u32),
}

/// CPU time of the watched threads, per CPU.
#[derive(Clone, Debug, Default)]
pub struct Placement {
    pub ns_by_cpu: BTreeMap<u32, u64>,
    /// What the watcher itself used (user + system).
    pub watcher_cpu_ns: u64,
}

impl Placement {
    /// The CPU with the most of the time, and its share of it.
    pub fn main_cpu(&self) -> Option<(u32, f64)> {
        let total: u64 = self.ns_by_cpu.values().sum();
        let (cpu, ns) = self.ns_by_cpu.iter().max_by_key(|(_, ns)| **ns)?;
        (total > 0).then(|| (*cpu, *ns as f64 / total as f64))
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

/// A running watcher; `finish` stops it and gives what it saw.
pub struct Watcher {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Placement>,
}

impl Watcher {
    pub fn start(whose: Whose) -> Watcher {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || watch(whose, &flag));
        Watcher { stop, handle }
    }

    pub fn finish(self) -> Placement {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap_or_default()
    }
}

fn watch(whose: Whose, stop: &AtomicBool) -> Placement {
    // SAFETY: gettid has no preconditions.
    let me = unsafe { libc::gettid() } as u32;
    let mut last: BTreeMap<u32, u64> = BTreeMap::new();
    let mut placement = Placement::default();
    while !stop.load(Ordering::Relaxed) {
        for (pid, tid) in threads(whose) {
            let monitor = matches!(whose, Whose::OwnThreads) && tid == pid;
            if monitor || tid == me {
                continue;
            }
            let Some((run_ns, cpu)) = thread_state(pid, tid) else {
                continue;
            };
            let before = last.insert(tid, run_ns).unwrap_or(run_ns);
            *placement.ns_by_cpu.entry(cpu).or_default() += run_ns.saturating_sub(before);
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    placement.watcher_cpu_ns = thread_cpu_ns();
    placement
}

/// User + system CPU of the calling thread so far.
fn thread_cpu_ns() -> u64 {
    // SAFETY: an all-zero rusage is a valid out parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is valid for writes for the duration of the call.
    if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) } != 0 {
        return 0;
    }
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    ns(ru.ru_utime) + ns(ru.ru_stime)
}

/// (process, thread) pairs of what is watched.
fn threads(whose: Whose) -> Vec<(u32, u32)> {
    let pids = match whose {
        Whose::OwnThreads => vec![std::process::id()],
        Whose::ChildrenOf(parent) => {
            std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        }
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
