//! The engines: how a worker turns its job stream into system calls, and what it measured.

mod commit;
mod psync;
mod uring;

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use storlab_core::host_stats::HostStats;
use storlab_core::rng::Rng;
use storlab_core::stream::JobStream;

use crate::signal::stop_requested;
use crate::verify::{check, stamp, Generations, VerifyReport};

pub(crate) use commit::{run_committer, run_log_writer, CommitLog};
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
    /// Set by the run to stop early (steady state reached).
    pub stop: Arc<AtomicBool>,
    /// Completions so far, for the run's live view.
    pub done: Arc<AtomicU64>,
    /// Verify mode: the generations of completed writes.
    pub verify: Option<Arc<Generations>>,
}

/// What a worker measured.
pub(crate) struct WorkerResult {
    pub stats: HostStats,
    pub ios: u64,
    pub late: u64,
    pub syscalls: u64,
    pub error: Option<String>,
    pub verify: VerifyReport,
}

impl WorkerResult {
    /// Nothing measured yet; counting starts after `warmup_ns`.
    pub(crate) fn empty(warmup_ns: u64) -> WorkerResult {
        WorkerResult {
            stats: HostStats::new(warmup_ns),
            ios: 0,
            late: 0,
            syscalls: 0,
            error: None,
            verify: VerifyReport::default(),
        }
    }
}

impl Worker {
    fn result(&self) -> WorkerResult {
        WorkerResult::empty(self.warmup.as_nanos() as u64)
    }

    /// True when an I/O due at `due` belongs to the measured window (after the warm-up).
    fn measured(&self, due: Instant) -> bool {
        due.saturating_duration_since(self.start) >= self.warmup
    }

    /// True when the worker should stop issuing.
    #[inline]
    fn stopping(&self) -> bool {
        stop_requested() || self.stop.load(Ordering::Relaxed)
    }

    /// Verify mode, before a write: a new generation stamped into the buffer.
    #[inline]
    fn stamp(&self, buf: &mut [u8], off: u64) -> u64 {
        match &self.verify {
            Some(g) => {
                let gen = g.next_gen();
                stamp(buf, off, gen);
                gen
            }
            None => 0,
        }
    }

    /// Verify mode, after a write completed.
    #[inline]
    fn written(&self, off: u64, len: u64, gen: u64) {
        if let Some(g) = &self.verify {
            g.completed(off, len, gen);
        }
    }

    /// Verify mode: the generations a read should find, one per tracked block it covers,
    /// taken when the read is issued (empty when not verifying).
    #[inline]
    fn expect(&self, off: u64, len: u64) -> Vec<Option<u64>> {
        match &self.verify {
            Some(g) => {
                let bb = g.block_bytes();
                (0..len.div_ceil(bb))
                    .map(|i| g.expected(off + i * bb))
                    .collect()
            }
            None => Vec::new(),
        }
    }

    /// Verify mode, after a read completed: each tracked block checked on its own.
    #[inline]
    fn check_read(&self, r: &mut WorkerResult, buf: &[u8], off: u64, expected: &[Option<u64>]) {
        let Some(g) = &self.verify else { return };
        let bb = g.block_bytes() as usize;
        for (i, chunk) in buf.chunks(bb).enumerate() {
            let exp = expected.get(i).copied().flatten();
            r.verify.add(&check(chunk, off + (i * bb) as u64, exp));
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
        self.done.fetch_add(1, Ordering::Relaxed);
        let since = t1.duration_since(self.start);
        // Completions after the end of the window (in flight when it closed) are not counted.
        if since >= self.warmup && t1 <= self.end {
            let latency = t1.duration_since(t0).as_nanos() as u64;
            r.stats
                .record(since.as_nanos() as u64, write, bytes, latency);
        }
    }
}
