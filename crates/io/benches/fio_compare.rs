//! storlab io against fio on the same file, on the same machine, in the same run
//! (`cargo bench -p storlab-io --bench fio_compare`). Writes target/bench/io.json.
//!
//! Both tools read one preallocated, filled 1 GiB file (created once by storlab under the
//! workspace's target/ directory and removed at the end) with 4 KiB uniformly random O_DIRECT
//! reads, one job, in two cases: psync at depth 1 and io_uring at depth 32. Every run measures
//! 10 s after a 2 s ramp. The tools take turns (fio, storlab, fio, storlab) and each keeps its
//! better run (higher IO/s), to soften the noise of a small shared machine.
//!
//! Reported per case: IO/s of each tool and their ratio (storlab / fio; at least 0.97, goal
//! 1.0), CPU ns per I/O of each tool and their ratio (storlab / fio; lower is better for
//! storlab), storlab's I/Os per system call, mean and p99 latency. The goals are printed as met
//! or not met, never asserted: a benchmark reports, it does not fail on noise.
//!
//! CPU per I/O. storlab: its process's user + system CPU over the whole run (warm-up included)
//! divided by every I/O it completed (warm-up included). fio: the job's `usr_cpu + sys_cpu`
//! (percent of one CPU; fio resets its counters after the ramp) times the measured runtime,
//! divided by the I/Os of the measured window; fio's parent process (status, reporting) is not
//! counted.
//!
//! Without fio on PATH the bench installs it with apt-get when it runs as root; if fio is still
//! missing it says so, writes `"fio": "not available"` and exits 0.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use storlab_core::{BlockSizeWeight, ByteSize, IoProfile};
use storlab_io::{run_io, signal, EngineKind, IoOptions};

const GIB: u64 = 1 << 30;
const BLOCK: u64 = 4096;
const RAMP_S: u64 = 2;
const RUNTIME_S: u64 = 10;
/// Each tool runs this many times per case, alternately; the better run counts.
const ROUNDS: u32 = 2;
/// storlab's IO/s over fio's: the minimum, and the goal.
const MINIMUM_RATIO: f64 = 0.97;
const GOAL_RATIO: f64 = 1.0;
const NS_PER_S: u64 = 1_000_000_000;

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

/// What one fio run measured.
#[derive(Clone, Debug)]
struct FioRun {
    iops: f64,
    cpu_ns_per_io: f64,
    usr_cpu_pct: f64,
    sys_cpu_pct: f64,
    runtime_s: f64,
    ios: f64,
    lat_mean_ms: f64,
    clat_p99_ms: Option<f64>,
    /// fio's distributions of I/Os in flight and of completions reaped per call (percent).
    iodepth_level: Value,
    iodepth_complete: Value,
    /// The 1-minute load average just after the run (noise from other work shows here).
    load_after: Option<f64>,
}

/// What one storlab run measured.
#[derive(Clone, Debug)]
struct StorlabRun {
    iops: f64,
    cpu_ns_per_io: f64,
    cpu_s: f64,
    ios_per_syscall: Option<f64>,
    lat_mean_ms: f64,
    lat_p99_ms: f64,
    partial: bool,
    /// iostat view of the first device under the file: utilisation and queue length.
    device: Value,
    load_after: Option<f64>,
    warnings: Vec<String>,
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

fn command_line(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn fio_version() -> Option<String> {
    command_line("fio", &["--version"])
}

fn apt_get(args: &[&str]) -> bool {
    println!("  apt-get {}", args.join(" "));
    Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// fio's version, installing fio with apt-get first when it is missing and this is root.
fn ensure_fio() -> Option<String> {
    if let Some(v) = fio_version() {
        return Some(v);
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        println!("fio is not on PATH and this process is not root: not installing it");
        return None;
    }
    println!("fio is not on PATH: installing it");
    let install = ["install", "-y", "-q", "fio"];
    if !apt_get(&install) {
        apt_get(&["update", "-q"]);
        apt_get(&install);
    }
    fio_version()
}

/// The mount that holds `path`, from /proc/self/mountinfo (longest matching mount point).
fn mount_of(path: &Path) -> Value {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let Ok(text) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return Value::Null;
    };
    let mut best: Option<(usize, Value)> = None;
    for line in text.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let Some(mount_point) = left.split(' ').nth(4) else {
            continue;
        };
        // Mount points escape spaces and the like as octal (\040).
        let mount_point = mount_point.replace("\\040", " ");
        if !path.starts_with(&mount_point) {
            continue;
        }
        let mut r = right.split(' ');
        let (fstype, source) = (r.next().unwrap_or(""), r.next().unwrap_or(""));
        if best
            .as_ref()
            .is_none_or(|(len, _)| mount_point.len() >= *len)
        {
            best = Some((
                mount_point.len(),
                json!({"mount_point": mount_point, "fstype": fstype, "source": source}),
            ));
        }
    }
    best.map_or(Value::Null, |(_, v)| v)
}

/// The 1-minute load average.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn machine(dir: &Path) -> Value {
    let nproc = command_line("nproc", &[])
        .and_then(|s| s.parse::<u64>().ok())
        .or_else(|| {
            std::thread::available_parallelism()
                .ok()
                .map(|n| n.get() as u64)
        });
    let kernel = command_line("uname", &["-r"]).or_else(|| {
        std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .ok()
            .map(|s| s.trim().to_string())
    });
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    json!({"nproc": nproc, "kernel": kernel, "cpu_model": cpu_model, "device": mount_of(dir)})
}

fn write_report(report: &Value) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/bench");
    std::fs::create_dir_all(dir).expect("create target/bench");
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| PathBuf::from(dir));
    let path = dir.join("io.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(report).expect("json") + "\n",
    )
    .expect("write io.json");
    println!("wrote {}", path.display());
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

fn run_storlab(file: &Path, case: &Case, seed: u64) -> Result<StorlabRun, String> {
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
    let run = run_io(&o).map_err(|e| e.to_string())?;
    let tool = run.tool.as_ref().ok_or("storlab reported no tool cost")?;
    Ok(StorlabRun {
        iops: run.metrics.iops,
        cpu_ns_per_io: tool.cpu_ns_per_io,
        cpu_s: tool.cpu_s,
        ios_per_syscall: tool.ios_per_syscall,
        lat_mean_ms: run.metrics.latency_ms.mean,
        lat_p99_ms: run.metrics.latency_ms.p99,
        partial: run.partial,
        device: run.devices.first().map_or(
            Value::Null,
            |d| json!({"name": d.name, "util_pct": d.util_pct, "queue_len": d.queue_len}),
        ),
        load_after: load_average(),
        warnings: run.warnings.clone(),
    })
}

fn fio_args(file: &Path, case: &Case) -> Vec<String> {
    // fio separates file names with ':'; a literal one is escaped.
    let name = file.display().to_string().replace(':', "\\:");
    [
        "--name=storlab-compare".to_string(),
        format!("--filename={name}"),
        "--size=1g".into(),
        "--allow_file_create=0".into(),
        "--readonly".into(),
        "--rw=randread".into(),
        format!("--bs={BLOCK}"),
        "--direct=1".into(),
        format!("--ioengine={}", case.fio_engine),
        format!("--iodepth={}", case.iodepth),
        "--numjobs=1".into(),
        "--time_based".into(),
        format!("--runtime={RUNTIME_S}"),
        format!("--ramp_time={RAMP_S}"),
        "--norandommap".into(),
        "--randrepeat=0".into(),
        "--output-format=json".into(),
    ]
    .into()
}

fn num(v: &Value, pointer: &str) -> Option<f64> {
    v.pointer(pointer).and_then(Value::as_f64)
}

fn run_fio(args: &[String]) -> Result<FioRun, String> {
    let out = Command::new("fio")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start fio: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("fio failed ({}): {}", out.status, stderr.trim()));
    }
    // fio may print notes before the JSON document.
    let start = if stdout.starts_with('{') {
        0
    } else {
        stdout
            .find("\n{")
            .map(|i| i + 1)
            .ok_or_else(|| format!("no JSON in fio's output: {}", stdout.trim()))?
    };
    let v: Value = serde_json::Deserializer::from_str(&stdout[start..])
        .into_iter::<Value>()
        .next()
        .ok_or("empty fio output")?
        .map_err(|e| format!("fio's JSON: {e}"))?;
    let error = num(&v, "/jobs/0/error").unwrap_or(0.0);
    if error != 0.0 {
        return Err(format!("fio job error {error}: {}", stderr.trim()));
    }
    let field = |p: &str| num(&v, p).ok_or_else(|| format!("fio's JSON has no {p}"));
    let iops = field("/jobs/0/read/iops")?;
    let usr = field("/jobs/0/usr_cpu")?;
    let sys = field("/jobs/0/sys_cpu")?;
    let runtime_ms = num(&v, "/jobs/0/read/runtime")
        .filter(|r| *r > 0.0)
        .or_else(|| num(&v, "/jobs/0/job_runtime"))
        .ok_or("fio's JSON has no runtime")?;
    let runtime_s = runtime_ms / 1000.0;
    let ios = num(&v, "/jobs/0/read/total_ios")
        .filter(|n| *n > 0.0)
        .unwrap_or(iops * runtime_s);
    if ios <= 0.0 {
        return Err("fio completed no I/O".into());
    }
    Ok(FioRun {
        iops,
        cpu_ns_per_io: (usr + sys) / 100.0 * runtime_s / ios * 1e9,
        usr_cpu_pct: usr,
        sys_cpu_pct: sys,
        runtime_s,
        ios,
        lat_mean_ms: field("/jobs/0/read/lat_ns/mean")? / 1e6,
        clat_p99_ms: num(&v, "/jobs/0/read/clat_ns/percentile/99.000000").map(|n| n / 1e6),
        iodepth_level: v
            .pointer("/jobs/0/iodepth_level")
            .cloned()
            .unwrap_or_default(),
        iodepth_complete: v
            .pointer("/jobs/0/iodepth_complete")
            .cloned()
            .unwrap_or_default(),
        load_after: load_average(),
    })
}

fn fio_json(r: &Result<FioRun, String>) -> Value {
    match r {
        Ok(f) => json!({
            "iops": f.iops, "cpu_ns_per_io": f.cpu_ns_per_io, "usr_cpu_pct": f.usr_cpu_pct,
            "sys_cpu_pct": f.sys_cpu_pct, "runtime_s": f.runtime_s, "ios": f.ios,
            "lat_mean_ms": f.lat_mean_ms, "clat_p99_ms": f.clat_p99_ms,
            "iodepth_level_pct": f.iodepth_level, "iodepth_complete_pct": f.iodepth_complete,
            "load_after": f.load_after,
        }),
        Err(e) => json!({"error": e}),
    }
}

fn storlab_json(r: &Result<StorlabRun, String>) -> Value {
    match r {
        Ok(s) => json!({
            "iops": s.iops, "cpu_ns_per_io": s.cpu_ns_per_io, "cpu_s": s.cpu_s,
            "ios_per_syscall": s.ios_per_syscall, "lat_mean_ms": s.lat_mean_ms,
            "lat_p99_ms": s.lat_p99_ms, "partial": s.partial, "device": s.device,
            "load_after": s.load_after, "warnings": s.warnings,
        }),
        Err(e) => json!({"error": e}),
    }
}

/// The run with the most IO/s.
fn best<T: Clone>(runs: &[Result<T, String>], iops: impl Fn(&T) -> f64) -> Option<T> {
    runs.iter()
        .filter_map(|r| r.as_ref().ok())
        .max_by(|a, b| iops(a).total_cmp(&iops(b)))
        .cloned()
}

/// One case's outcome.
struct Outcome {
    storlab: Option<StorlabRun>,
    fio: Option<FioRun>,
}

impl Outcome {
    fn ratio(&self) -> Option<f64> {
        let (s, f) = (self.storlab.as_ref()?, self.fio.as_ref()?);
        (f.iops > 0.0).then(|| s.iops / f.iops)
    }

    fn cpu_ratio(&self) -> Option<f64> {
        let (s, f) = (self.storlab.as_ref()?, self.fio.as_ref()?);
        (f.cpu_ns_per_io > 0.0).then(|| s.cpu_ns_per_io / f.cpu_ns_per_io)
    }
}

fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < -0.5 {
        out.insert(0, '-');
    }
    out
}

fn opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.map_or_else(|| "-".to_string(), f)
}

fn verdict(ratio: Option<f64>, bound: f64) -> &'static str {
    match ratio {
        Some(r) if r >= bound => "met",
        Some(_) => "NOT met",
        None => "unknown (a tool failed)",
    }
}

fn print_table(cases: &[(&Case, Outcome)]) {
    println!();
    println!(
        "{:<26} {:>12} {:>12} {:>7} {:>13} {:>11} {:>9} {:>11} {:>10} {:>10}",
        "case",
        "storlab IO/s",
        "fio IO/s",
        "ratio",
        "storlab ns/IO",
        "fio ns/IO",
        "cpu ratio",
        "IOs/syscall",
        "storlab ms",
        "fio ms"
    );
    for (case, o) in cases {
        let s = o.storlab.as_ref();
        let f = o.fio.as_ref();
        println!(
            "{:<26} {:>12} {:>12} {:>7} {:>13} {:>11} {:>9} {:>11} {:>10} {:>10}",
            case.name,
            opt(s.map(|s| s.iops), thousands),
            opt(f.map(|f| f.iops), thousands),
            opt(o.ratio(), |r| format!("{r:.3}x")),
            opt(s.map(|s| s.cpu_ns_per_io), thousands),
            opt(f.map(|f| f.cpu_ns_per_io), thousands),
            opt(o.cpu_ratio(), |r| format!("{r:.2}x")),
            opt(s.and_then(|s| s.ios_per_syscall), |r| format!("{r:.2}")),
            opt(s.map(|s| s.lat_mean_ms), |r| format!("{r:.3}")),
            opt(f.map(|f| f.lat_mean_ms), |r| format!("{r:.3}")),
        );
    }
    println!("(ratio = storlab / fio IO/s; cpu ratio = storlab / fio CPU ns per I/O, lower is better for storlab; ms = mean latency)");
    for (case, o) in cases {
        println!(
            "{:<26} IO/s ratio {}: minimum {MINIMUM_RATIO:.2}x {}; goal {GOAL_RATIO:.2}x {}",
            case.name,
            opt(o.ratio(), |r| format!("{r:.3}x")),
            verdict(o.ratio(), MINIMUM_RATIO),
            verdict(o.ratio(), GOAL_RATIO),
        );
    }
}

fn main() {
    // Ctrl-C stops the current run (fio gets it too), then the bench cleans up and reports.
    signal::install();
    let dir = scratch_dir();
    let machine = machine(dir.parent().unwrap_or(&dir));
    let mut report = json!({
        "benchmark": "storlab io vs fio",
        "storlab_version": env!("CARGO_PKG_VERSION"),
        "machine": machine,
    });
    let Some(fio) = ensure_fio() else {
        println!(
            "fio is not available (not on PATH and could not be installed): skipping the comparison"
        );
        report["fio"] = json!("not available");
        report["cases"] = json!([]);
        write_report(&report);
        return;
    };
    println!("{fio}; machine: {machine}");
    report["fio"] = json!(fio);

    // A leftover from an interrupted earlier run is ours: start clean.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let scratch = Scratch(dir.clone());
    let file = dir.join("fio-compare.dat");
    println!("creating {} (1 GiB) with storlab", file.display());
    create_file(&file);
    report["machine"]["device"] = mount_of(&file);

    let mut outcomes = Vec::new();
    let mut case_reports = Vec::new();
    for case in &CASES {
        let args = fio_args(&file, case);
        let mut fio_runs = Vec::new();
        let mut storlab_runs = Vec::new();
        for round in 1..=ROUNDS {
            if signal::stop_requested() {
                break;
            }
            let r = run_fio(&args);
            match &r {
                Ok(f) => println!(
                    "{:<26} round {round}: fio     {:>9} IO/s, {:>7} CPU ns/IO",
                    case.name,
                    thousands(f.iops),
                    thousands(f.cpu_ns_per_io)
                ),
                Err(e) => println!("{:<26} round {round}: fio failed: {e}", case.name),
            }
            fio_runs.push(r);
            if signal::stop_requested() {
                break;
            }
            let r = run_storlab(&file, case, u64::from(round));
            match &r {
                Ok(s) => println!(
                    "{:<26} round {round}: storlab {:>9} IO/s, {:>7} CPU ns/IO",
                    case.name,
                    thousands(s.iops),
                    thousands(s.cpu_ns_per_io)
                ),
                Err(e) => println!("{:<26} round {round}: storlab failed: {e}", case.name),
            }
            storlab_runs.push(r);
        }
        let o = Outcome {
            storlab: best(&storlab_runs, |s| s.iops),
            fio: best(&fio_runs, |f| f.iops),
        };
        let (ratio, cpu_ratio) = (o.ratio(), o.cpu_ratio());
        let s = o.storlab.as_ref();
        let f = o.fio.as_ref();
        case_reports.push(json!({
            "case": case.name,
            "rw": "randread",
            "block_bytes": BLOCK,
            "direct": true,
            "jobs": 1,
            "iodepth": case.iodepth,
            "engine": case.fio_engine,
            "storlab_iops": s.map(|s| s.iops),
            "fio_iops": f.map(|f| f.iops),
            "ratio": ratio,
            "minimum_ratio": MINIMUM_RATIO,
            "goal_ratio": GOAL_RATIO,
            "minimum_met": ratio.map(|r| r >= MINIMUM_RATIO),
            "goal_met": ratio.map(|r| r >= GOAL_RATIO),
            "storlab_cpu_ns_per_io": s.map(|s| s.cpu_ns_per_io),
            "fio_cpu_ns_per_io": f.map(|f| f.cpu_ns_per_io),
            "cpu_ratio": cpu_ratio,
            "storlab_ios_per_syscall": s.and_then(|s| s.ios_per_syscall),
            "storlab_latency_ms": s.map(|s| json!({"mean": s.lat_mean_ms, "p99": s.lat_p99_ms})),
            "fio_latency_ms": f.map(|f| json!({"mean": f.lat_mean_ms, "clat_p99": f.clat_p99_ms})),
            "fio_command": format!("fio {}", args.join(" ")),
            "runs": {
                "fio": fio_runs.iter().map(fio_json).collect::<Vec<_>>(),
                "storlab": storlab_runs.iter().map(storlab_json).collect::<Vec<_>>(),
            },
        }));
        outcomes.push((case, o));
    }
    print_table(&outcomes);

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
        "order": "per case: fio, storlab, fio, storlab; each tool's run with the most IO/s is kept",
        "storlab_cpu": "process user+system CPU over warm-up and measurement / all I/Os completed",
        "fio_cpu": "(usr_cpu + sys_cpu) / 100 * runtime / I/Os, over fio's measured window",
    });
    report["interrupted"] = json!(signal::stop_requested());
    report["cases"] = json!(case_reports);
    write_report(&report);
}
