//! storlab io against fio on the same file, on the same machine, in the same run
//! (`cargo bench -p storlab-io --bench fio_compare`). Writes target/bench/io.json.
//!
//! Both tools read one preallocated, filled 1 GiB file (created once by storlab under the
//! workspace's target/ directory and removed at the end) with 4 KiB uniformly random O_DIRECT
//! reads, one job, in two cases: psync at depth 1 and io_uring at depth 32. Per case the tools
//! take turns in short rounds (each run 4 s after a 1 s ramp); each round gives one IO/s ratio
//! and one CPU-per-I/O ratio, and the case is judged on the median of its rounds' ratios (min
//! and max beside it; see crates/bench-support for why). Which tool goes first in a round changes
//! every second round (storlab first in rounds 1-2, fio in 3-4, ...), so each CPU sees both
//! orders equally often and a drift of the shared disk within a round (a host cache warming,
//! a neighbour's burst) favours neither tool; the medians by order are reported beside.
//!
//! Reported per round and per case: IO/s of each tool and their ratio (storlab / fio; at least
//! 0.97, goal 1.0), CPU ns per I/O of each tool and their ratio (storlab / fio; goal at most
//! 1.0), storlab's I/Os per system call, mean latencies. Goals are printed as met or not met,
//! never asserted: a benchmark reports, it does not fail on noise.
//!
//! CPU per I/O, both over the measured window (after the ramp), divided by the I/Os completed
//! in it. fio: its job's `usr_cpu + sys_cpu` times `job_runtime`, the run time fio divided by to
//! get those percentages, which gives back the job thread's own CPU (fio takes
//! getrusage(RUSAGE_THREAD) when its ramp ends and when the job ends); fio's parent process
//! (start-up, status, reporting) is not in it. storlab: its process's user + system CPU from
//! the end of the warm-up to the end of the window (`tool.cpu_ns_per_io`), so its set-up,
//! thread start and warm-up are out as fio's are; its monitor thread (a few wake-ups a second,
//! /proc/diskstats once a second) is in, which fio's figure has no counterpart of: if anything
//! the comparison is tilted against storlab.
//!
//! A second CPU figure uses one instrument for both tools: the scheduler's run time of their
//! I/O threads (/proc schedstat, exact, not tick-sampled), read by the watcher process every
//! 100 ms, as a rate over the middle of the measured window divided by the tool's IO/s. It
//! checks the getrusage figures above, which come from each tool's own accounting and are
//! sampled at the scheduler tick; round by round the two have agreed within a few percent.
//!
//! Placement. On a small virtual machine the CPU a run lands on moves CPU per I/O by more
//! than the tools differ (the disk's interrupt goes to one CPU; a thread there pays less per
//! I/O). So both tools of a round are pinned to the same CPU (the bench's thread is pinned
//! before it starts storlab's threads and fio's process, which inherit it), and the rounds
//! take the CPUs in turn; each run still records where its I/O thread ran (placement.rs), and
//! the CPU ratio of the rounds where both ran on the same CPU is reported beside the median.
//!
//! Without fio on PATH the bench installs it with apt-get when it runs as root; if fio is still
//! missing it says so, writes `"fio": "not available"` and exits 0.

mod fio;
mod placement;
mod summary;
use storlab_bench_support as support;

use std::path::{Path, PathBuf};

use fio::{ensure_fio, fio_args, run_fio};
use placement::{Placement, Watcher, Whose};
use serde_json::{json, Value};
use storlab_core::{BlockSizeWeight, ByteSize, IoProfile};
use storlab_io::{run_io, signal, EngineKind, IoOptions};
use support::{opt, ratio, thousands};

const GIB: u64 = 1 << 30;
const BLOCK: u64 = 4096;
const RAMP_S: u64 = 1;
const RUNTIME_S: u64 = 4;
/// Rounds per case: a multiple of 4, so that on 2 CPUs every CPU sees each order twice.
const ROUNDS: u32 = 8;
const NS_PER_S: u64 = 1_000_000_000;
/// A run "ran on" a CPU when its I/O thread spent at least this share of its time there.
const SAME_CPU_SHARE: f64 = 0.8;
/// One comparison: 4 KiB random reads, O_DIRECT, one job.
struct Case {
    name: &'static str,
    engine: EngineKind,
    /// fio's name of the same engine.
    fio_engine: &'static str,
    iodepth: u32,
}

const CASES: [Case; 2] = [
    Case {
        name: "randread 4k psync qd1",
        engine: EngineKind::Psync,
        fio_engine: "psync",
        iodepth: 1,
    },
    Case {
        name: "randread 4k io_uring qd32",
        engine: EngineKind::IoUring,
        fio_engine: "io_uring",
        iodepth: 32,
    },
];

/// What one run of either tool measured.
#[derive(Clone, Debug)]
struct Measured {
    iops: f64,
    cpu_ns_per_io: f64,
    lat_mean_ms: f64,
    /// Which CPU its I/O thread ran on, and its scheduler CPU timeline.
    placement: Placement,
    /// Everything else the tool reported that is worth keeping.
    detail: Value,
}

impl Measured {
    /// CPU per I/O of the I/O threads by the scheduler's count (/proc schedstat, read by the
    /// watcher for both tools alike) over the middle of the measured window, ns.
    fn sched_cpu_ns_per_io(&self) -> Option<f64> {
        let (from, to) = (RAMP_S as f64 + 0.5, (RAMP_S + RUNTIME_S) as f64 - 0.5);
        let rate = self.placement.cpu_rate(from, to)?;
        (self.iops > 0.0).then(|| rate / self.iops)
    }

    fn json(&self) -> Value {
        let mut v = json!({
            "iops": self.iops, "cpu_ns_per_io": self.cpu_ns_per_io,
            "sched_cpu_ns_per_io": self.sched_cpu_ns_per_io(),
            "lat_mean_ms": self.lat_mean_ms, "placement": self.placement.json(),
        });
        if let (Some(v), Some(d)) = (v.as_object_mut(), self.detail.as_object()) {
            v.extend(d.clone());
        }
        v
    }
}

/// One round: storlab's run and fio's, in the order `fio_first` says.
struct Round {
    storlab: Result<Measured, String>,
    fio: Result<Measured, String>,
    fio_first: bool,
}

impl Round {
    fn iops_ratio(&self) -> Option<f64> {
        let (s, f) = (self.storlab.as_ref().ok()?, self.fio.as_ref().ok()?);
        ratio(Some(s.iops), Some(f.iops))
    }

    fn cpu_ratio(&self) -> Option<f64> {
        let (s, f) = (self.storlab.as_ref().ok()?, self.fio.as_ref().ok()?);
        ratio(Some(s.cpu_ns_per_io), Some(f.cpu_ns_per_io))
    }

    fn sched_cpu_ratio(&self) -> Option<f64> {
        let (s, f) = (self.storlab.as_ref().ok()?, self.fio.as_ref().ok()?);
        ratio(s.sched_cpu_ns_per_io(), f.sched_cpu_ns_per_io())
    }

    /// True when both tools' I/O threads spent most of their time on the same CPU.
    fn same_cpu(&self) -> bool {
        let main = |m: &Result<Measured, String>| {
            m.as_ref()
                .ok()
                .and_then(|m| m.placement.main_cpu())
                .filter(|(_, share)| *share >= SAME_CPU_SHARE)
                .map(|(cpu, _)| cpu)
        };
        main(&self.storlab).is_some_and(|s| main(&self.fio) == Some(s))
    }
}

/// The scratch directory under target/; removed (with the 1 GiB file) when dropped, also when
/// the bench panics.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.0.exists() {
            if let Err(e) = std::fs::remove_dir_all(&self.0) {
                eprintln!("could not remove {}: {e}", self.0.display());
            }
        }
    }
}

fn scratch_dir() -> PathBuf {
    let base = option_env!("CARGO_TARGET_TMPDIR").unwrap_or(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../target/bench-tmp"
    ));
    Path::new(base).join("storlab-fio-compare")
}

fn storlab_options(file: &Path, profile: IoProfile, engine: EngineKind) -> IoOptions {
    let mut o = IoOptions::single(file.to_path_buf(), profile);
    o.engine = engine;
    o.size_bytes = Some(GIB);
    o.direct = true;
    // The file outlives every run; the scratch guard removes it at the end.
    o.keep = true;
    o
}

/// Creates and fills the 1 GiB file with storlab: a short sequential-write run that keeps it.
fn create_file(file: &Path) {
    let mut profile = IoProfile::builtin("seqwrite-1m").expect("built-in profile");
    profile.jobs = 1;
    profile.iodepth = 1;
    let mut o = storlab_options(file, profile, EngineKind::Psync);
    o.warmup_ns = 0;
    o.duration_ns = NS_PER_S;
    run_io(&o).unwrap_or_else(|e| panic!("storlab could not create {}: {e}", file.display()));
    let len = std::fs::metadata(file).map_or(0, |m| m.len());
    assert!(
        len >= GIB,
        "{}: {len} bytes after creation, expected {GIB}",
        file.display()
    );
}

fn run_storlab(file: &Path, case: &Case, seed: u64) -> Result<Measured, String> {
    let mut profile = IoProfile::builtin("randread-8k").expect("built-in profile");
    profile.name = "randread-4k".into();
    profile.block_sizes = vec![BlockSizeWeight {
        size: ByteSize(BLOCK),
        weight: 1.0,
    }];
    profile.jobs = 1;
    profile.iodepth = case.iodepth;
    let mut o = storlab_options(file, profile, case.engine);
    o.warmup_ns = RAMP_S * NS_PER_S;
    o.duration_ns = RUNTIME_S * NS_PER_S;
    o.seed = seed;
    let watcher = Watcher::start(Whose::OwnThreads);
    let run = run_io(&o);
    let placement = watcher.finish();
    let run = run.map_err(|e| e.to_string())?;
    let tool = run.tool.as_ref().ok_or("storlab reported no tool cost")?;
    let device = run.devices.first().map_or(
        Value::Null,
        |d| json!({"name": d.name, "util_pct": d.util_pct, "queue_len": d.queue_len}),
    );
    Ok(Measured {
        iops: run.metrics.iops,
        cpu_ns_per_io: tool.cpu_ns_per_io,
        lat_mean_ms: run.metrics.latency_ms.mean,
        placement,
        detail: json!({
            "cpu_s": tool.cpu_s, "ios_per_syscall": tool.ios_per_syscall,
            "lat_p99_ms": run.metrics.latency_ms.p99, "partial": run.partial,
            "device": device, "warnings": run.warnings, "load_after": support::load_average(),
        }),
    })
}

fn print_run(case: &Case, round: u32, tool: &str, r: &Result<Measured, String>) {
    match r {
        Ok(m) => println!(
            "{:<26} round {round}: {tool:<7} {:>9} IO/s, {:>7} CPU ns/IO, {:.3} ms, {}",
            case.name,
            thousands(m.iops),
            thousands(m.cpu_ns_per_io),
            m.lat_mean_ms,
            m.placement
                .main_cpu()
                .map_or("CPU unknown".into(), |(cpu, share)| format!(
                    "CPU {cpu} ({:.0}%)",
                    share * 100.0
                ))
        ),
        Err(e) => println!("{:<26} round {round}: {tool} failed: {e}", case.name),
    }
}

/// Which tool runs first in a round (1-based): storlab in the first `cpus` rounds, fio in the
/// next `cpus`, and so on, so that with rounds alternating over the CPUs every CPU sees both
/// orders.
fn fio_first(round: u32, cpus: usize) -> bool {
    ((round as usize - 1) / cpus.max(1)) % 2 == 1
}

/// Runs one case's rounds. Both tools of a round run on the same CPU, the next round on the
/// next CPU (see the module comment, Placement); the order within a round follows
/// `fio_first`.
fn run_case(file: &Path, case: &Case, args: &[String]) -> Vec<Round> {
    let mut rounds = Vec::new();
    let cpus = placement::online_cpus();
    for round in 1..=ROUNDS {
        if signal::stop_requested() {
            break;
        }
        placement::pin(Some((round as usize - 1) % cpus));
        let fio_first = fio_first(round, cpus);
        let run = |tool: &str| {
            if tool == "fio" {
                run_fio(args)
            } else {
                run_storlab(file, case, u64::from(round))
            }
        };
        let order = if fio_first {
            ["fio", "storlab"]
        } else {
            ["storlab", "fio"]
        };
        let first = run(order[0]);
        print_run(case, round, order[0], &first);
        let second = if signal::stop_requested() {
            Err("interrupted".to_string())
        } else {
            run(order[1])
        };
        placement::pin(None);
        if signal::stop_requested() {
            break;
        }
        print_run(case, round, order[1], &second);
        let (storlab, fio) = if fio_first {
            (second, first)
        } else {
            (first, second)
        };
        let r = Round {
            storlab,
            fio,
            fio_first,
        };
        println!(
            "{:<26} round {round}: IO/s ratio {}, CPU/IO ratio {}",
            case.name,
            opt(r.iops_ratio(), |x| format!("{x:.3}x")),
            opt(r.cpu_ratio(), |x| format!("{x:.3}x"))
        );
        rounds.push(r);
    }
    rounds
}

fn main() {
    if placement::run_watcher_if_asked() {
        return;
    }
    // Ctrl-C stops the current run (fio gets it too), then the bench cleans up and reports.
    signal::install();
    let dir = scratch_dir();
    let mut report = json!({
        "benchmark": "storlab io vs fio",
        "storlab_version": env!("CARGO_PKG_VERSION"),
        "machine": support::machine(dir.parent()),
    });
    let Some(fio) = ensure_fio() else {
        println!(
            "fio is not available (not on PATH and could not be installed): skipping the comparison"
        );
        report["fio"] = json!("not available");
        report["cases"] = json!([]);
        support::write_report("io.json", &report);
        return;
    };
    println!("{fio}; machine: {}", report["machine"]);
    report["fio"] = json!(fio);

    // A leftover from an interrupted earlier run is ours: start clean.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let scratch = Scratch(dir.clone());
    let file = dir.join("fio-compare.dat");
    println!("creating {} (1 GiB) with storlab", file.display());
    create_file(&file);
    report["machine"]["device"] = support::mount_of(&file);

    let mut summaries = Vec::new();
    let mut case_reports = Vec::new();
    for case in &CASES {
        let args = fio_args(&file, case);
        let rounds = run_case(&file, case, &args);
        let s = summary::summarize(&rounds);
        case_reports.push(summary::case_json(case, &args, &rounds, &s));
        summaries.push((case, s));
    }
    summary::print_table(&summaries);

    drop(scratch);
    let removed = !file.exists();
    if !removed {
        println!("warning: {} is still there", file.display());
    }
    report["file"] =
        json!({"path": file.display().to_string(), "size_bytes": GIB, "removed": removed});
    report["method"] = json!({
        "ramp_s": RAMP_S,
        "runtime_s": RUNTIME_S,
        "rounds": ROUNDS,
        "order": "per case: rounds alternate over the CPUs; storlab runs first in the first round on each CPU, fio in the next, and so on; each round's two runs give one ratio; a case is judged on the median of its rounds' ratios",
        "storlab_cpu": summary::STORLAB_CPU,
        "fio_cpu": summary::FIO_CPU,
    });
    report["interrupted"] = json!(signal::stop_requested());
    report["cases"] = json!(case_reports);
    support::write_report("io.json", &report);
}
