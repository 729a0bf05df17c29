//! The simulated storage system: host jobs and trace replay, volumes and paths, controllers
//! with caches, RAID groups and disks, failures and rebuilds, driven by one event loop.
//!
//! Data flow of one host I/O: a job issues it on its target volume; the volume maps it to
//! pieces on LUNs (one per copy for mirrored volumes; reads pick one copy); a piece waits in the
//! LUN's host queue if the per-LUN queue depth is reached, then passes its controller
//! (processing time), then
//! - a read is served from the read cache or the write cache, waits for a fetch already in
//!   flight (prefetch), or becomes a fetch: an array request planned by the group's layout
//!   (degraded when members have failed) into disk reads; the host sees the data after the
//!   slowest piece plus the transfer on its path;
//! - a write enters the write cache (waiting while it is full) and is acknowledged after the
//!   optional mirror copy; destage later turns dirty pages into array write requests. In
//!   write-through mode the write is an array request at once and the host waits for the disks.
//!
//! Invariants checked as the run goes: every host request, piece and array request completes
//! exactly once (slab slots panic when freed twice), every array request completes after
//! exactly the disk operations its plan named, and at the end every issued host request is
//! either counted as completed or still in flight.

mod array;
mod build;
mod controller;
mod core;
mod failure;
mod host;
mod report;
mod resource;
mod warmup;

use std::sync::atomic::{AtomicBool, Ordering};

use storlab_core::result::Run;

use crate::config::{ConfigError, FailureSpec, SystemSpec};
use crate::db::{DbEngine, DbIo, DbTimer};
use crate::engine::{Event, SimTime};
use array::ArrayPart;
use controller::ControllerPart;
use core::Core;
use host::{HostIo, HostPart, Issuer};

pub use host::{TraceMode, TraceSource};

/// Run length, warm-up, seed, and the flag that interrupts a run.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Measured window after the warm-up, ns.
    pub duration_ns: u64,
    /// Warm-up excluded from measurement, ns.
    pub warmup_ns: u64,
    /// Seed of every random stream.
    pub seed: u64,
    /// Automatic warm-up: `warmup_ns` is its limit, and it ends as soon as the run's series
    /// is steady ([`storlab_core::steady`]).
    pub warmup_auto: bool,
    /// Set (by a signal handler) to stop the run: it is looked at every
    /// [`STOP_CHECK_EVENTS`] events, and a stopped run returns what it measured so far,
    /// marked partial.
    pub stop: Option<&'static AtomicBool>,
}

/// Events between two looks at [`RunOptions::stop`]: a few thousand events take well under a
/// millisecond, and the look costs nothing on the other events.
pub const STOP_CHECK_EVENTS: u32 = 4096;

/// The simulated system with its workload, ready to run: the storage stack, and the
/// database engine when the workload has a `[database]`. The event loop hands each event to
/// the part it belongs to; the database exists only when configured, and its events and
/// completions are routed to it here, once.
pub struct Model {
    stack: Stack,
    db: Option<Box<DbEngine>>,
    /// With an automatic warm-up, the time the database's tests before its own (`after`)
    /// take: the warm-up starts after them.
    before_ns: u64,
}

/// The storage stack under every workload, in three parts with their own state: the host
/// ([`HostPart`]: jobs and trace replay, targets, paths, host requests and figures), the
/// controllers ([`ControllerPart`]: caches, LUN queues, pieces) and the arrays
/// ([`ArrayPart`]: devices, RAID groups, array requests, disk operations, spares and
/// rebuilds), around the [`Core`] they share (clock, options, event queue, event log).
/// The parts call each other through a few named methods (see each module); a method that
/// reaches other parts takes the stack (one pointer, so the hot path passes and keeps one
/// register instead of one per part) and never touches another part's fields. The stack
/// hands each event to its part, and orchestrates failures, which reach several. The
/// database engine reaches it only through the narrow interface below (`now`, `measuring`,
/// `schedule_db`, `issue_db_io`, `prefetch_io`, `add_target`, `note`).
pub(crate) struct Stack {
    core: Core,
    workload_name: String,
    host: HostPart,
    ctrls: ControllerPart,
    arrays: ArrayPart,
    failures: Vec<FailureSpec>,
    /// A failure has happened (the latency phases move on from 0).
    failed_once: bool,
}

/// A database I/O completed at the host, for the database engine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DbIoDone {
    pub io: DbIo,
    pub write: bool,
    pub bytes: u64,
    pub latency_ns: u64,
    /// Completed without error in the measured window: counted under its role.
    pub measured: bool,
}

impl Model {
    /// Runs to the end of the measured window; returns the result (`sim.wall_s` left at 0:
    /// the simulator never reads a clock). A malformed trace record ends the run with an error.
    /// With [`RunOptions::warmup_auto`] the warm-up lasts until the series is steady, at most
    /// `warmup_ns` (see [`warmup`]).
    pub fn run(mut self) -> Result<Run, ConfigError> {
        let asked_ns = self.stack.core.opts.duration_ns;
        // A job has no warm-up (see `Model::new`) and ends when it is done.
        let job = self.db.as_deref().is_some_and(DbEngine::runs_job);
        let auto_max_ns = self
            .stack
            .core
            .opts
            .warmup_auto
            .then_some(self.stack.core.opts.warmup_ns);
        if auto_max_ns.is_some() && self.before_ns == 0 {
            self.begin_auto_warmup(0);
        }
        HostPart::start(&mut self.stack);
        if let Some(db) = self.db.as_deref_mut() {
            db.start(&mut self.stack);
        }
        let s = &mut self.stack;
        s.host.set_from_db(self.db.is_some());
        if auto_max_ns.is_none() && s.core.opts.warmup_ns > 0 {
            s.core
                .queue
                .schedule(SimTime(s.core.opts.warmup_ns), Event::WarmupEnd);
        }
        for (i, f) in s.failures.iter().enumerate() {
            s.core
                .queue
                .schedule(SimTime(f.at_ns), Event::Failure(i as u32));
        }
        let mut warmup = None;
        if let Some(max_ns) = auto_max_ns {
            let start = self.before_ns;
            if start > 0 {
                if self.run_until(SimTime(start))? {
                    return Ok(self.into_partial_run(asked_ns));
                }
                self.stack.core.now = SimTime(start);
                self.begin_auto_warmup(start);
            }
            let w = self.warm_until_steady(start, max_ns)?;
            if w.stopped {
                return Ok(self.into_partial_warmup());
            }
            warmup = Some((w.verdict, w.samples));
        }
        let end = SimTime(self.stack.core.opts.warmup_ns + asked_ns);
        let mut stopped = self.run_until(end)?;
        if let Some((_, before)) = warmup.as_ref().filter(|_| !stopped) {
            self.stack.core.now = end;
            stopped = self.stretch_until_steady(before)?;
        }
        // The window measured: the one asked, or longer when an automatic run measured on.
        let measured_ns = self.stack.core.opts.duration_ns;
        let stretched_from_ns = (measured_ns > asked_ns).then_some(asked_ns);
        let end = SimTime(self.stack.core.opts.warmup_ns + measured_ns);
        self.stack.host.check_accounts();
        self.stack.host.trace_outcome()?;
        if stopped {
            return Ok(self.into_partial_run(asked_ns));
        }
        if self.db.as_deref().is_some_and(DbEngine::job_over) {
            // The job finished (the run ended then): the window is its elapsed time.
            self.stack.core.opts.duration_ns = self.stack.core.now.ns().max(1);
        } else {
            self.stack.core.now = end;
        }
        let mut run = warmup::finish(self.into_run(), warmup, stretched_from_ns);
        if job {
            crate::db::jobs::mark_run(&mut run);
        }
        Ok(run)
    }

    /// Processes every event due at or before `end`; true when the run was stopped.
    fn run_until(&mut self, end: SimTime) -> Result<bool, ConfigError> {
        // Only a trace replay can fail mid-run (a malformed record): the other runs skip the
        // check on every event.
        let tracing = self.stack.host.tracing();
        let mut countdown = STOP_CHECK_EVENTS;
        while let Some((t, event)) = self.stack.core.queue.pop_until(end) {
            debug_assert!(t >= self.stack.core.now, "time went backwards");
            self.stack.core.now = t;
            self.dispatch(event);
            if let Some(e) = tracing
                .then(|| self.stack.host.take_trace_error())
                .flatten()
            {
                return Err(e);
            }
            countdown -= 1;
            if countdown == 0 {
                countdown = STOP_CHECK_EVENTS;
                if self
                    .stack
                    .core
                    .opts
                    .stop
                    .is_some_and(|s| s.load(Ordering::Relaxed))
                {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// The run so far, after a stop: the measured window is what had passed of it (at least
    /// 1 ns, so that rates stay numbers when the stop came in the warm-up). `asked_ns` is the
    /// window asked for; an automatic run may have been measuring on past it (see `warmup`).
    fn into_partial_run(self, asked_ns: u64) -> Run {
        let window_ns = self.stack.core.opts.duration_ns;
        let covered_ns = self.measured_so_far_ns().min(window_ns);
        let (mut run, at_s) = self.into_stopped_run(covered_ns);
        storlab_core::steady::mark(&mut run);
        let (covered_s, asked_s) = (covered_ns as f64 / 1e9, asked_ns as f64 / 1e9);
        run.warnings.push(if window_ns > asked_ns {
            format!(
                "interrupted at {at_s:.3} s of simulated time, while measuring on past the \
                 {asked_s:.3} s window asked for because it was not steady: the figures cover \
                 {covered_s:.3} s"
            )
        } else {
            format!(
                "interrupted at {at_s:.3} s of simulated time: the figures cover {covered_s:.3} s \
                 of the {asked_s:.3} s measured window asked for"
            )
        });
        run
    }

    /// The run so far, after a stop in the automatic warm-up: no measured window was
    /// reached, and the figures are those of the warm-up so far (its statistics run from its
    /// start, where `begin_auto_warmup` put the window's), over its length.
    fn into_partial_warmup(self) -> Run {
        let warmed_ns = self.measured_so_far_ns();
        let (mut run, at_s) = self.into_stopped_run(warmed_ns);
        let warmed_s = warmed_ns as f64 / 1e9;
        storlab_core::steady::set(
            &mut run,
            storlab_core::steady::Verdict::Unsteady(format!(
                "interrupted in the automatic warm-up after {warmed_s:.3} s, before it found a \
                 steady window"
            )),
        );
        run.warnings.push(format!(
            "interrupted at {at_s:.3} s of simulated time, in the automatic warm-up: no measured \
             window was reached; the figures cover the {warmed_s:.3} s of warm-up so far"
        ));
        run
    }

    /// Simulated time since the statistics started (at least 1 ns).
    fn measured_so_far_ns(&self) -> u64 {
        self.stack
            .core
            .now
            .saturating_since(self.stack.warmup_end())
            .max(1)
    }

    /// The run of a stopped simulation over a window of `window_ns`, marked partial, and the
    /// simulated time of the stop in seconds.
    fn into_stopped_run(mut self, window_ns: u64) -> (Run, f64) {
        self.stack.core.opts.duration_ns = window_ns;
        let at_s = self.stack.core.now.secs_f64();
        let auto = self.stack.core.opts.warmup_auto;
        let mut run = self.into_run();
        run.partial = true;
        run.workload.warmup_auto = auto;
        (run, at_s)
    }

    /// Hands `event` to the part it belongs to; the database's events and completions go
    /// to the database engine. Called from the event loop alone: inlined there, it costs no
    /// call per event.
    #[inline(always)]
    fn dispatch(&mut self, event: Event) {
        let s = &mut self.stack;
        match event {
            Event::JobIssue(job) => HostPart::on_job_issue(s, job),
            Event::DeviceDone(op) | Event::BackEndDone(op) => {
                // A drive's operation reaches the controllers once its data has crossed the
                // back end (at once when there is none). One call site keeps the controllers'
                // completion inlined here.
                let crossed =
                    matches!(event, Event::BackEndDone(_)) || s.arrays.device_done(&mut s.core, op);
                if crossed {
                    ControllerPart::on_disk_done(s, op)
                }
            }
            Event::HostDone(h) => {
                if let (Some(done), Some(db)) = (s.on_host_done(h), self.db.as_deref_mut()) {
                    db.io_done(done, s);
                    if db.job_over() {
                        // The job is done: the run ends now.
                        s.core.queue.clear();
                    }
                }
            }
            Event::WarmupEnd => {
                s.reset_stats();
                if let Some(db) = self.db.as_deref_mut() {
                    db.reset_stats(s.core.now.ns());
                }
            }
            Event::Failure(i) => s.on_failure(i),
            Event::RebuildTick(t) => s.arrays.pump_rebuild(&mut s.core, t),
            Event::TraceNext => HostPart::on_trace_next(s),
            Event::ReadMissStart(id) => ControllerPart::on_read_miss_start(s, id),
            Event::Db(t) => {
                if let Some(db) = self.db.as_deref_mut() {
                    db.on_timer(t, s);
                    if db.job_over() {
                        s.core.queue.clear();
                    }
                }
            }
        }
    }
}

impl Stack {
    /// Host request `h` completed; a database I/O comes back for the database engine.
    #[inline]
    fn on_host_done(&mut self, h: u32) -> Option<DbIoDone> {
        // Latency before, during and after a rebuild: kept only when a failure can start one.
        let phase = (!self.failures.is_empty()).then(|| self.phase());
        HostPart::on_host_done(self, h, phase)
    }

    /// Statistics restart now (end of the warm-up).
    fn reset_stats(&mut self) {
        let now = self.core.now;
        self.host.reset_stats(now);
        self.ctrls.reset_stats();
        self.arrays.reset_stats(now);
    }

    /// Which latency phase the system is in: 0 healthy so far, 1 degraded or rebuilding,
    /// 2 every failed member rebuilt.
    fn phase(&self) -> usize {
        if !self.failed_once {
            0
        } else if self.arrays.any_failed() {
            1
        } else {
            2
        }
    }

    /// Appends to the event log.
    pub(crate) fn note(&mut self, kind: &str, target: &str, detail: String) {
        self.core.note(kind, target, detail);
    }
}

/// What the database engine uses of the stack.
impl Stack {
    /// The current simulated time.
    #[inline]
    pub(crate) fn now(&self) -> SimTime {
        self.core.now
    }

    /// The run's options (seed, warm-up, measured window).
    pub(crate) fn opts(&self) -> &RunOptions {
        &self.core.opts
    }

    /// The system's specification.
    pub(crate) fn spec(&self) -> &SystemSpec {
        &self.core.spec
    }

    /// The warm-up is over: what happens now is counted.
    #[inline]
    pub(crate) fn measuring(&self) -> bool {
        self.core.measuring()
    }

    /// When the warm-up ends and the measured window starts.
    #[inline]
    pub(crate) fn warmup_end(&self) -> SimTime {
        self.core.warmup_end()
    }

    /// Schedules a database timer at `at`.
    #[inline]
    pub(crate) fn schedule_db(&mut self, at: SimTime, timer: DbTimer) {
        self.core.schedule(at, Event::Db(timer));
    }

    /// Issues a database I/O on `target` now; it comes back as a [`DbIoDone`].
    #[inline]
    pub(crate) fn issue_db_io(
        &mut self,
        io: DbIo,
        target: u32,
        lba: u64,
        sectors: u64,
        write: bool,
    ) {
        let host_io = HostIo {
            target,
            lba,
            sectors,
            write,
        };
        HostPart::issue(self, Issuer::Db(io), host_io, self.core.now);
    }

    /// Starts loading the cache entries an I/O of `sectors` at `lba` of `target` will look
    /// up (the database reads a block soon).
    pub(crate) fn prefetch_io(&mut self, target: u32, lba: u64, sectors: u64, write: bool) {
        let io = HostIo {
            target,
            lba,
            sectors,
            write,
        };
        self.host.prefetch_io(&self.ctrls, io);
    }

    /// A target over LUNs: a configured volume, or the concatenation of `luns`.
    pub(crate) fn add_target(&mut self, volume: Option<u32>, luns: &[u32]) -> Result<u32, String> {
        self.host.add_target(&self.core.spec, volume, luns)
    }
}
