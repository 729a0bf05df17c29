//! The run's monitor: the thread that started the workers watches them every
//! [`MONITOR_TICK`], ends an automatic warm-up when it is steady, opens the measured window
//! (resetting the device sampler and the CPU count there), samples the devices every second,
//! and stops the run early when throughput is steady (`--steady`).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::diskstats::DiskSampler;
use crate::engine::Window;
use crate::options::IoOptions;
use crate::run::cpu_time;
use crate::signal;
use crate::warmup::{AutoWarmup, Warmed};

/// Longest sleep of the monitor thread. Measured on the 2-core development VM (psync, 4 KiB
/// random reads at depth 1, O_DIRECT, pinned to one CPU): a thread of the same process that
/// wakes every 10 ms on the worker's CPU raised the reads per second by 14% (eight alternated
/// pairs, each faster), whatever that thread does; fio's main loop wakes every 10 ms too. The
/// cost is 100 wake-ups a second: 1.9 ms of CPU a second measured, 0.4% of what one psync
/// worker at depth 1 uses.
const MONITOR_TICK: Duration = Duration::from_millis(10);

/// The process's CPU over the measured window: taken by the monitor at its first sample (the
/// end of the warm-up) and when it stops watching (the end of the window, a steady stop or
/// Ctrl-C). Set-up, opening files, starting threads and the warm-up are left out, as fio leaves
/// its job's start-up and ramp out of its usr/sys figures; the monitor thread and its
/// /proc/diskstats sampling are in (a wake-up every [`MONITOR_TICK`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CpuWindow {
    from: Option<(Instant, Duration)>,
    to: Option<(Instant, Duration)>,
}

impl CpuWindow {
    /// CPU and wall time between the two samples; None when the window never opened
    /// (interrupted during the warm-up, or every worker ended before it).
    pub(super) fn span(&self) -> Option<(Duration, Duration)> {
        let ((t0, c0), (t1, c1)) = (self.from?, self.to?);
        Some((c1.saturating_sub(c0), t1.saturating_duration_since(t0)))
    }
}

/// What the monitor saw.
pub(super) struct Monitor<'a> {
    opts: &'a IoOptions,
    window: &'a Window,
    start: Instant,
    pub sampler: Option<DiskSampler>,
    pub cpu: CpuWindow,
    /// When `--steady` stopped the run.
    pub steady_at: Option<Instant>,
    /// An automatic warm-up, until it ends.
    warmup: Option<AutoWarmup>,
    /// How an automatic warm-up ended: its length, verdict and samples.
    pub warmed: Option<Warmed>,
}

impl<'a> Monitor<'a> {
    pub(super) fn new(
        opts: &'a IoOptions,
        window: &'a Window,
        start: Instant,
        sampler: Option<DiskSampler>,
    ) -> Monitor<'a> {
        Monitor {
            opts,
            window,
            start,
            sampler,
            cpu: CpuWindow::default(),
            steady_at: None,
            warmup: opts
                .warmup_auto
                .then(|| AutoWarmup::new(Duration::from_nanos(opts.warmup_ns))),
            warmed: None,
        }
    }

    /// Watches until the end of the run, a stop request, or every worker ended
    /// (`all_ended`); sets `stop` on a steady stop.
    pub(super) fn watch(
        &mut self,
        stop: &std::sync::atomic::AtomicBool,
        all_ended: impl Fn() -> bool,
    ) {
        let mut next = self.window.measure_from().unwrap_or(self.start);
        let mut started = false;
        let mut per_second: Vec<u64> = Vec::new();
        let mut last_done = 0u64;
        let mut ended = None;
        while Instant::now() < self.window.end() && !signal::stop_requested() && !all_ended() {
            let now = Instant::now();
            if let Some(w) = self.warmup.as_mut() {
                let at = self.start + w.next_sample();
                if now >= at {
                    let done = self.window.done.load(Ordering::Relaxed);
                    let latency_ns = self.window.warm_latency_ns.load(Ordering::Relaxed);
                    if w.sample(at - self.start, done, latency_ns) {
                        // The window opens now: the workers count from here on.
                        let from = now.duration_since(self.start);
                        self.window
                            .open(from.as_nanos() as u64, self.opts.duration_ns);
                        ended = Some(from);
                        next = now;
                    }
                }
                next = next.max(at);
            }
            if let Some(from) = ended.take() {
                self.warmed = self.warmup.take().map(|w| w.ended(from));
            }
            if self.warmup.is_none() && now >= next {
                let done = self.window.done.load(Ordering::Relaxed);
                if !started {
                    self.open(now);
                } else {
                    let measure_from = self.window.measure_from().unwrap_or(self.start);
                    if let Some(s) = self.sampler.as_mut() {
                        let _ = s.sample(now.duration_since(measure_from).as_secs_f64());
                    }
                    per_second.push(done - last_done);
                    if steady(self.opts, &per_second) {
                        stop.store(true, Ordering::SeqCst);
                        self.steady_at = Some(now);
                    }
                }
                started = true;
                last_done = done;
                next += Duration::from_secs(1);
            }
            // Ctrl-C stops the workers, whose ends wake this thread.
            std::thread::park_timeout(
                next.min(self.window.end())
                    .saturating_duration_since(Instant::now())
                    .clamp(Duration::from_millis(1), MONITOR_TICK),
            );
        }
        self.cpu.to = Some((Instant::now(), cpu_time()));
        if let Some(w) = self.warmup.take() {
            // Interrupted (or every worker ended) during the automatic warm-up.
            self.warmed = Some(w.ended(self.start.elapsed()));
        }
    }

    /// The measured window opens: the CPU count and the device sampler start there.
    fn open(&mut self, now: Instant) {
        self.cpu.from = Some((now, cpu_time()));
        if let Some(s) = self.sampler.as_mut() {
            *s = DiskSampler::new(s.devices()).unwrap_or_else(|_| s.clone());
        }
    }
}

/// Steady state: the last K one-second samples all within X% of their mean.
fn steady(opts: &IoOptions, per_second: &[u64]) -> bool {
    let Some(s) = opts.steady else { return false };
    let k = s.samples as usize;
    if k == 0 || per_second.len() < k {
        return false;
    }
    let last = &per_second[per_second.len() - k..];
    let mean = last.iter().sum::<u64>() as f64 / k as f64;
    mean > 0.0
        && last
            .iter()
            .all(|&x| (x as f64 - mean).abs() <= mean * s.within_pct / 100.0)
}
