//! One real I/O run: prepare the targets, start every class's workers, warm up (for a fixed
//! time, or until steady with `--warmup auto`), sample the devices every second, stop at the
//! end (early when throughput is steady, or on Ctrl-C keeping what was measured), clean up,
//! report.

mod monitor;

use std::collections::BTreeMap;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use storlab_core::result::Run;
use storlab_core::rng::{Purpose, Rng};
use storlab_core::stream::JobStream;
use storlab_core::{ByteSize, IoProfile, LatencyHistogram};

use crate::diskstats::{BlockDevice, DiskSampler};
use crate::engine::{
    run_committer, run_log_writer, run_psync, run_uring, CommitLog, Window, Worker, WorkerResult,
};
use crate::error::IoError;
use crate::options::{EngineKind, IoClass, IoOptions, SyncMode};
use crate::report::{build_run, ClassResult, CpuCost, Measured};
use crate::signal;
use crate::target::{cleanup, open_target, precondition, prepare, PreparedTarget, TargetNeeds};
use crate::verify::Generations;
use monitor::Monitor;

/// CPU time (user + system) of this process so far.
pub(crate) fn cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Runs `opts`; the result is marked partial when interrupted.
pub fn run_io(opts: &IoOptions) -> Result<Run, IoError> {
    run_io_with_latency(opts).map(|(run, _)| run)
}

/// [`run_io`], with the latency histogram of every measured I/O (reads and writes of every
/// class), the one the run's percentiles come from: several hosts' histograms merge exactly.
pub fn run_io_with_latency(opts: &IoOptions) -> Result<(Run, LatencyHistogram), IoError> {
    if opts.classes.is_empty() {
        return Err(IoError::BadInput("no I/O class to run".into()));
    }
    opts.check_bounds().map_err(IoError::BadInput)?;
    signal::install();
    let mut targets: BTreeMap<PathBuf, PreparedTarget> = BTreeMap::new();
    let paths: Vec<PathBuf> = opts.classes.iter().map(|c| c.target.clone()).collect();
    for path in &paths {
        if targets.contains_key(path) {
            continue;
        }
        let on_it: Vec<&IoClass> = opts.classes.iter().filter(|c| &c.target == path).collect();
        // What the run will do to this target decides what the safety gate is asked:
        // preconditioning writes every byte whatever the classes do.
        let needs = TargetNeeds {
            writes: opts.precondition || on_it.iter().any(|c| c.writes()),
            jobs: on_it.iter().map(|c| c.profile.jobs).max().unwrap_or(1),
            profiles: on_it.iter().map(|c| &c.profile).collect(),
        };
        match prepare(path, &needs, opts) {
            Ok(t) => {
                targets.insert(path.clone(), t);
            }
            Err(e) => {
                for t in targets.values() {
                    cleanup(&t.files, opts.keep);
                }
                return Err(e);
            }
        }
    }
    let result = (|| {
        if opts.precondition {
            for t in targets.values() {
                precondition(t, opts)?;
            }
        }
        measure(opts, &targets)
    })();
    let mut problems = Vec::new();
    for t in targets.values() {
        problems.extend(cleanup(&t.files, opts.keep));
    }
    let (mut run, latency) = result?;
    for t in targets.values() {
        run.warnings.extend(t.warnings.iter().cloned());
    }
    run.warnings.extend(problems);
    Ok((run, latency))
}

/// What every worker of a run shares.
struct Shared {
    start: Instant,
    stop: Arc<AtomicBool>,
    window: Arc<Window>,
}

/// A worker, and what it is for: I/O of class `class`, or a committer / log writer.
enum Task {
    Io(Worker),
    Committer(Worker, Arc<CommitLog>, u64, Duration),
    LogWriter(Worker, Arc<CommitLog>, u32, u64, u64, u64),
}

fn worker(
    opts: &IoOptions,
    sh: &Shared,
    fd: i32,
    stream: JobStream,
    profile: &IoProfile,
    index: u64,
    verify: Option<Arc<Generations>>,
) -> Worker {
    Worker {
        fd,
        stream,
        max_bytes: profile.max_block_bytes() as usize,
        depth: if opts.engine == EngineKind::IoUring {
            profile.iodepth
        } else {
            1
        },
        fdatasync: profile.sync_writes && opts.sync == SyncMode::Fdatasync,
        mean_gap: None,
        arrivals: Rng::derive(opts.seed, Purpose::Arrival, index),
        start: sh.start,
        window: sh.window.clone(),
        pattern_seed: opts.seed ^ index,
        stop: sh.stop.clone(),
        verify,
    }
}

/// Opens the class's files and builds its workers.
fn class_tasks(
    opts: &IoOptions,
    ci: usize,
    target: &PreparedTarget,
    sh: &Shared,
    files: &mut Vec<File>,
) -> Result<Vec<Task>, IoError> {
    let class = &opts.classes[ci];
    let p = &class.profile;
    let writes = class.writes();
    let mut fds = Vec::new();
    for tf in &target.files {
        let f = open_target(tf, opts, writes, p.sync_writes)?;
        fds.push(std::os::fd::AsRawFd::as_raw_fd(&f));
        files.push(f);
    }
    let base = (ci as u64) << 32;
    if let Some(committers) = class.group_commit {
        let log = Arc::new(CommitLog::default());
        let record = p.max_block_bytes();
        let sectors = target.files[0].sectors;
        let lo = p.region_offset.0 / 512;
        let hi = p
            .region_size
            .map_or(sectors, |r| lo + r.0 / 512)
            .min(sectors);
        let stream = JobStream::new(p, ci as u32, 0, sectors, opts.seed);
        let mut tasks = vec![Task::LogWriter(
            worker(opts, sh, fds[0], stream.clone(), p, base, None),
            log.clone(),
            committers,
            record,
            lo,
            hi,
        )];
        for k in 0..committers {
            let w = worker(
                opts,
                sh,
                fds[0],
                stream.clone(),
                p,
                base + 1 + k as u64,
                None,
            );
            tasks.push(Task::Committer(
                w,
                log.clone(),
                record,
                Duration::from_nanos(p.think_time.0),
            ));
        }
        return Ok(tasks);
    }
    let per_job = if opts.engine == EngineKind::Psync {
        p.iodepth
    } else {
        1
    };
    let count = p.jobs * per_job;
    let one_file_per_job = target.files.len() > 1;
    let verify = opts.verify.then(|| {
        let smallest = p.block_sizes.iter().map(|b| b.size.0).min().unwrap_or(512);
        Arc::new(Generations::new(
            target
                .files
                .iter()
                .map(|f| f.sectors * 512)
                .max()
                .unwrap_or(0),
            smallest,
        ))
    });
    let rate_each = p.rate_iops.map(|r| r / count as f64);
    let mut tasks = Vec::new();
    for j in 0..p.jobs {
        let file = (j as usize).min(target.files.len() - 1);
        for k in 0..per_job {
            let index = j * per_job + k;
            // Every worker walks its own slice: of the one file (all workers) or of its job's
            // file (that job's workers). Verify mode confines random I/O to the slice too, so
            // no two workers race on a block.
            let mut jp = p.clone();
            jp.jobs = if one_file_per_job { per_job } else { count };
            let slot = if one_file_per_job { k } else { index };
            let sectors = target.files[file].sectors;
            if opts.verify {
                let region = jp
                    .region_size
                    .map_or(sectors * 512 - jp.region_offset.0, |r| r.0);
                let slice = region / jp.jobs as u64 / 4096 * 4096;
                jp.region_offset = ByteSize(jp.region_offset.0 + slot as u64 * slice);
                jp.region_size = Some(ByteSize(slice));
                jp.jobs = 1;
            }
            // In verify mode each worker is the only job of its slice: its own stream id.
            let stream = if opts.verify {
                JobStream::new(&jp, ((ci as u32) << 16) | slot, 0, sectors, opts.seed)
            } else {
                JobStream::new(&jp, ci as u32, slot, sectors, opts.seed)
            };
            let mut w = worker(
                opts,
                sh,
                fds[file],
                stream,
                p,
                base + index as u64,
                verify.clone(),
            );
            w.mean_gap = rate_each.map(|r| Duration::from_secs_f64(1.0 / r));
            tasks.push(Task::Io(w));
        }
    }
    Ok(tasks)
}

fn run_task(engine: EngineKind, t: Task) -> WorkerResult {
    match t {
        Task::Io(w) if engine == EngineKind::IoUring => run_uring(w),
        Task::Io(w) => run_psync(w),
        Task::Committer(w, log, record, think) => run_committer(w, log, record, think),
        Task::LogWriter(w, log, n, record, lo, hi) => run_log_writer(w, log, n, record, lo, hi),
    }
}

fn measure(
    opts: &IoOptions,
    targets: &BTreeMap<PathBuf, PreparedTarget>,
) -> Result<(Run, LatencyHistogram), IoError> {
    let start = Instant::now();
    let window = if opts.warmup_auto {
        Window::automatic(start, opts.warmup_ns, opts.duration_ns)
    } else {
        Window::fixed(start, opts.warmup_ns, opts.duration_ns)
    };
    let sh = Shared {
        start,
        stop: Arc::new(AtomicBool::new(false)),
        window: Arc::new(window),
    };
    let cpu0 = cpu_time();
    let mut devices: Vec<BlockDevice> = Vec::new();
    for t in targets.values() {
        for d in &t.devices {
            if !devices.contains(d) {
                devices.push(d.clone());
            }
        }
    }
    let mut files = Vec::new();
    let mut tasks: Vec<(usize, Task)> = Vec::new();
    for (ci, c) in opts.classes.iter().enumerate() {
        for t in class_tasks(opts, ci, &targets[&c.target], &sh, &mut files)? {
            tasks.push((ci, t));
        }
    }
    let mut mon = Monitor::new(opts, &sh.window, start, DiskSampler::new(&devices).ok());
    let results = run_tasks(opts, tasks, &sh, &mut mon);
    drop(files);
    let stopped = Instant::now();
    let measure_from = sh.window.measure_from();
    if let Some(s) = mon.sampler.as_mut() {
        let from = measure_from.unwrap_or(start);
        let _ = s.sample(stopped.duration_since(from).as_secs_f64().max(1e-3));
    }
    let mut classes: Vec<ClassResult> = opts
        .classes
        .iter()
        .map(|_| ClassResult::new(opts.warmup_ns))
        .collect();
    for (ci, committer, r) in &results {
        if let Some(e) = &r.error {
            return Err(IoError::Failed(format!(
                "{}: {e}",
                opts.classes[*ci].target.display()
            )));
        }
        classes[*ci].add(r, *committer);
    }
    let cpu = match mon.cpu.span() {
        Some((cpu, wall)) => CpuCost {
            cpu,
            wall,
            ios: classes.iter().map(|c| c.io.count()).sum(),
        },
        None => CpuCost {
            cpu: cpu_time().saturating_sub(cpu0),
            wall: stopped.saturating_duration_since(start),
            ios: classes.iter().map(|c| c.ios).sum(),
        },
    };
    let interrupted = signal::stop_requested();
    let window = match (interrupted, mon.steady_at, measure_from) {
        (_, _, None) => Duration::ZERO,
        (true, _, Some(from)) => stopped.saturating_duration_since(from),
        (false, Some(t), Some(from)) => t.saturating_duration_since(from),
        (false, None, Some(_)) => Duration::from_nanos(opts.duration_ns),
    };
    let mut latency = LatencyHistogram::new();
    for c in &classes {
        latency.merge(&c.io.all());
    }
    let mut run = build_run(
        opts,
        targets,
        Measured {
            classes,
            window,
            cpu,
            iostat: mon.sampler.map(|s| s.summaries()).unwrap_or_default(),
            partial: interrupted,
            steady: mon.steady_at.is_some(),
        },
    );
    let limit = Duration::from_nanos(opts.warmup_ns);
    crate::warmup::judge(&mut run, mon.warmed, limit, interrupted);
    Ok((run, latency))
}

/// Starts the workers, watches them until the run ends, and gathers what each measured.
fn run_tasks(
    opts: &IoOptions,
    tasks: Vec<(usize, Task)>,
    sh: &Shared,
    mon: &mut Monitor,
) -> Vec<(usize, bool, WorkerResult)> {
    let engine = opts.engine;
    // The monitor (this thread) wakes every tick, and early when a worker ends.
    let monitor = std::thread::current();
    std::thread::scope(|scope| {
        let handles: Vec<_> = tasks
            .into_iter()
            .map(|(ci, t)| {
                let committer = matches!(t, Task::Committer(..));
                let monitor = monitor.clone();
                let handle = scope.spawn(move || {
                    let r = run_task(engine, t);
                    monitor.unpark();
                    r
                });
                (ci, committer, handle)
            })
            .collect();
        mon.watch(&sh.stop, || handles.iter().all(|h| h.2.is_finished()));
        handles
            .into_iter()
            .map(|(ci, committer, h)| (ci, committer, h.join().unwrap_or_else(|_| panicked(opts))))
            .collect()
    })
}

fn panicked(opts: &IoOptions) -> WorkerResult {
    let mut r = WorkerResult::empty(opts.warmup_ns);
    r.error = Some("a worker thread panicked".into());
    r
}
