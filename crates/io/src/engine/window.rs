//! The measured window of a run, shared by its monitor and its workers: fixed from the start
//! for a fixed warm-up; for an automatic one (`--warmup auto`), opened by the monitor at the
//! first second the warm-up passes the steady-state test (or at the limit).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// `from_ns` while an automatic warm-up lasts: nothing is measured yet.
const NOT_OPEN: u64 = u64::MAX;

/// Where the measured window lies, in ns after the run's start, and what the monitor reads
/// of the warm-up.
pub(crate) struct Window {
    start: Instant,
    from_ns: AtomicU64,
    end_ns: AtomicU64,
    /// Completions so far (warm-up and window).
    pub done: AtomicU64,
    /// Summed latency of the warm-up's completions.
    pub warm_latency_ns: AtomicU64,
}

impl Window {
    /// A window from `warmup_ns` to `warmup_ns + duration_ns` after `start`.
    pub(crate) fn fixed(start: Instant, warmup_ns: u64, duration_ns: u64) -> Window {
        Window {
            start,
            from_ns: AtomicU64::new(warmup_ns),
            end_ns: AtomicU64::new(warmup_ns.saturating_add(duration_ns)),
            done: AtomicU64::new(0),
            warm_latency_ns: AtomicU64::new(0),
        }
    }

    /// A window not open yet: the run lasts at most `max_ns + duration_ns` until
    /// [`Window::open`] places it.
    pub(crate) fn automatic(start: Instant, max_ns: u64, duration_ns: u64) -> Window {
        let w = Window::fixed(start, max_ns, duration_ns);
        w.from_ns.store(NOT_OPEN, Ordering::SeqCst);
        w
    }

    /// Opens the window `from_ns` after the start, for `duration_ns`.
    pub(crate) fn open(&self, from_ns: u64, duration_ns: u64) {
        self.end_ns
            .store(from_ns.saturating_add(duration_ns), Ordering::SeqCst);
        self.from_ns.store(from_ns, Ordering::SeqCst);
    }

    /// Start of the window, ns after the run's start (`u64::MAX` while not open).
    #[inline]
    pub(crate) fn measure_from_ns(&self) -> u64 {
        self.from_ns.load(Ordering::Relaxed)
    }

    /// True once the window is placed.
    pub(crate) fn is_open(&self) -> bool {
        self.measure_from_ns() != NOT_OPEN
    }

    /// Start of the window, if placed.
    pub(crate) fn measure_from(&self) -> Option<Instant> {
        self.is_open()
            .then(|| self.start + Duration::from_nanos(self.measure_from_ns()))
    }

    /// When the run ends.
    #[inline]
    pub(crate) fn end(&self) -> Instant {
        self.start + Duration::from_nanos(self.end_ns.load(Ordering::Relaxed))
    }
}
