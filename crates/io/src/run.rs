//! One real I/O run: prepare the target, start the workers, sample the devices every second,
//! stop at the end (or on Ctrl-C, keeping what was measured), clean up, report.

use std::time::{Duration, Instant};

use storlab_core::host_stats::HostStats;
use storlab_core::result::Run;
use storlab_core::rng::{Purpose, Rng};
use storlab_core::stream::JobStream;

use crate::diskstats::DiskSampler;
use crate::engine::{run_psync, run_uring, Worker, WorkerResult};
use crate::error::IoError;
use crate::options::{EngineKind, IoOptions, SyncMode};
use crate::report::{build_run, Measured};
use crate::signal;
use crate::target::{cleanup, prepare, PreparedTarget};

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
    signal::install();
    let target = prepare(opts)?;
    let result = measure(opts, &target);
    let problems = cleanup(&target.files, opts.keep);
    let mut run = result?;
    run.warnings.extend(target.warnings.iter().cloned());
    run.warnings.extend(problems);
    Ok(run)
}

fn workers(opts: &IoOptions, target: &PreparedTarget, start: Instant) -> Vec<Worker> {
    let p = &opts.profile;
    let per_job = match opts.engine {
        EngineKind::Psync => p.iodepth,
        EngineKind::IoUring => 1,
    };
    let count = p.jobs * per_job;
    let rate_each = p.rate_iops.map(|r| r / count as f64);
    let mut out = Vec::new();
    for j in 0..p.jobs {
        let file = &target.files[(j as usize).min(target.files.len() - 1)];
        let one_file_per_job = target.files.len() > 1;
        for k in 0..per_job {
            let index = j * per_job + k;
            // Every worker walks its own slice: of the one file (all workers), or of its
            // job's file (that job's workers).
            let mut job_profile = p.clone();
            job_profile.jobs = if one_file_per_job { per_job } else { count };
            let job_index = if one_file_per_job { k } else { index };
            out.push(Worker {
                fd: std::os::fd::AsRawFd::as_raw_fd(&file.file),
                stream: JobStream::new(&job_profile, 0, job_index, file.sectors, opts.seed),
                max_bytes: p.max_block_bytes() as usize,
                depth: if opts.engine == EngineKind::IoUring {
                    p.iodepth
                } else {
                    1
                },
                fdatasync: p.sync_writes && opts.sync == SyncMode::Fdatasync,
                mean_gap: rate_each.map(|r| Duration::from_secs_f64(1.0 / r)),
                arrivals: Rng::derive(opts.seed, Purpose::Arrival, index as u64),
                start,
                warmup: Duration::from_nanos(opts.warmup_ns),
                end: start + Duration::from_nanos(opts.warmup_ns + opts.duration_ns),
                pattern_seed: opts.seed ^ index as u64,
            });
        }
    }
    out
}

fn measure(opts: &IoOptions, target: &PreparedTarget) -> Result<Run, IoError> {
    let start = Instant::now();
    let cpu0 = cpu_time();
    let mut sampler = DiskSampler::new(&target.devices).ok();
    let end = start + Duration::from_nanos(opts.warmup_ns + opts.duration_ns);
    let measure_from = start + Duration::from_nanos(opts.warmup_ns);
    let list = workers(opts, target, start);
    let engine = opts.engine;
    let results: Vec<WorkerResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = list
            .into_iter()
            .map(|w| {
                scope.spawn(move || match engine {
                    EngineKind::Psync => run_psync(w),
                    EngineKind::IoUring => run_uring(w),
                })
            })
            .collect();
        // Sample the devices once a second from the measured window's start.
        let mut next = measure_from;
        let mut started = false;
        while Instant::now() < end
            && !signal::stop_requested()
            && !handles.iter().all(|h| h.is_finished())
        {
            let now = Instant::now();
            if now >= next {
                if let Some(s) = sampler.as_mut() {
                    if !started {
                        // Restart the readings at the end of the warm-up.
                        *s = DiskSampler::new(s.devices()).unwrap_or_else(|_| s.clone());
                        started = true;
                    } else {
                        let _ = s.sample(now.duration_since(measure_from).as_secs_f64());
                    }
                }
                next += Duration::from_secs(1);
            }
            std::thread::sleep(
                Duration::from_millis(20)
                    .min(next.saturating_duration_since(now))
                    .max(Duration::from_millis(1)),
            );
        }
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| failed_worker(opts)))
            .collect()
    });
    let stopped = Instant::now();
    if let Some(s) = sampler.as_mut() {
        let _ = s.sample(stopped.duration_since(measure_from).as_secs_f64().max(1e-3));
    }
    let cpu = cpu_time().saturating_sub(cpu0);
    let mut stats = HostStats::new(opts.warmup_ns);
    let (mut ios, mut late, mut syscalls, mut errors) = (0, 0, 0, Vec::new());
    for r in &results {
        stats.merge(&r.stats);
        ios += r.ios;
        late += r.late;
        syscalls += r.syscalls;
        errors.extend(r.error.clone());
    }
    if let Some(e) = errors.first() {
        return Err(IoError::Failed(format!("{}: {e}", opts.target.display())));
    }
    let interrupted = signal::stop_requested();
    let window = if interrupted {
        stopped.saturating_duration_since(measure_from)
    } else {
        Duration::from_nanos(opts.duration_ns)
    };
    Ok(build_run(
        opts,
        target,
        Measured {
            stats,
            window,
            ios,
            late,
            syscalls,
            cpu,
            iostat: sampler.map(|s| s.summaries()).unwrap_or_default(),
            partial: interrupted,
        },
    ))
}

fn failed_worker(opts: &IoOptions) -> WorkerResult {
    WorkerResult {
        stats: HostStats::new(opts.warmup_ns),
        ios: 0,
        late: 0,
        syscalls: 0,
        error: Some("a worker thread panicked".into()),
    }
}
