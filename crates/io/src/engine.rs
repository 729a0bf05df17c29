//! The engines: how a worker turns its job stream into system calls, and what it measured.

mod commit;
mod psync;
mod uring;
mod window;

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use storlab_core::host_stats::HostStats;

use storlab_core::rng::Rng;
use storlab_core::stream::JobStream;
pub(crate) use window::Window;

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
    /// When the run started (the clock of every worker).
    pub start: Instant,
    /// The measured window and the completion counters the run's monitor reads.
    pub window: Arc<Window>,
    pub pattern_seed: u64,
    /// Set by the run to stop early (steady state reached).
    pub stop: Arc<AtomicBool>,
    /// Verify mode: the generations of completed writes.
    pub verify: Option<Arc<Generations>>,
}

/// What a worker measured.
pub(crate) struct WorkerResult {
    /// The measured window's I/O (its series counted from `from_ns`).
    pub stats: HostStats,
    /// Where `stats` starts counting, ns after the run's start.
    pub from_ns: u64,
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
            from_ns: warmup_ns,
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
        WorkerResult::empty(self.window.measure_from_ns())
    }

    /// True when an I/O due at `due` belongs to the measured window (after the warm-up).
    fn measured(&self, due: Instant) -> bool {
        due.saturating_duration_since(self.start).as_nanos() as u64 >= self.window.measure_from_ns()
    }

    /// When the run ends (later while an automatic warm-up lasts).
    #[inline]
    fn end(&self) -> Instant {
        self.window.end()
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
        let since_ns = t1.duration_since(self.start).as_nanos() as u64;
        let latency = t1.duration_since(t0).as_nanos() as u64;
        let from_ns = self.window.measure_from_ns();
        self.window.done.fetch_add(1, Ordering::Relaxed);
        if since_ns < from_ns {
            // The warm-up: the monitor judges from these whether it has settled.
            self.window
                .warm_latency_ns
                .fetch_add(latency, Ordering::Relaxed);
            return;
        }
        // Completions after the end of the window (in flight when it closed) are not counted.
        if t1 <= self.end() {
            // An automatic warm-up opens the window after this worker started.
            if r.from_ns != from_ns {
                r.stats = HostStats::new(from_ns);
                r.from_ns = from_ns;
            }
            r.stats.record(since_ns, write, bytes, latency);
        }
    }
}
