//! The engines: how a worker turns its job stream into system calls, and what it measured.

mod psync;
mod uring;

use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use storlab_core::host_stats::HostStats;
use storlab_core::rng::Rng;
use storlab_core::stream::JobStream;

pub(crate) use psync::run_psync;
pub(crate) use uring::run_uring;

/// An open-loop arrival is late when it starts more than this after its intended time.
const LATE: Duration = Duration::from_millis(1);

/// One worker: a file descriptor, an address stream and the run's clock.
pub(crate) struct Worker {
    pub fd: RawFd,
    pub stream: JobStream,
    /// Largest block in bytes (buffer size).
    pub max_bytes: usize,
    /// Outstanding I/Os (io_uring; psync workers have one).
    pub depth: u32,
    /// fdatasync(2) after each write.
    pub fdatasync: bool,
    /// Open loop: mean gap between this worker's arrivals.
    pub mean_gap: Option<Duration>,
    pub arrivals: Rng,
    pub start: Instant,
    pub warmup: Duration,
    pub end: Instant,
    pub pattern_seed: u64,
}

/// What a worker measured.
pub(crate) struct WorkerResult {
    pub stats: HostStats,
    pub ios: u64,
    pub late: u64,
    pub syscalls: u64,
    pub error: Option<String>,
}

impl Worker {
    fn result(&self) -> WorkerResult {
        WorkerResult {
            stats: HostStats::new(self.warmup.as_nanos() as u64),
            ios: 0,
            late: 0,
            syscalls: 0,
            error: None,
        }
    }

    /// Next open-loop arrival after `due`.
    fn next_due(&mut self, due: Instant) -> Instant {
        let mean = self.mean_gap.unwrap_or_default().as_nanos() as f64;
        due + Duration::from_nanos(self.arrivals.exp(mean) as u64)
    }

    /// Records one completion that started at `t0` and ended at `t1`.
    fn record(&self, r: &mut WorkerResult, write: bool, bytes: u64, t0: Instant, t1: Instant) {
        r.ios += 1;
        let since = t1.duration_since(self.start);
        // Completions after the end of the window (in flight when it closed) are not counted.
        if since >= self.warmup && t1 <= self.end {
            let latency = t1.duration_since(t0).as_nanos() as u64;
            r.stats
                .record(since.as_nanos() as u64, write, bytes, latency);
        }
    }
}
