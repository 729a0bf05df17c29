//! What every part of the stack shares: the clock, the run's options, the system's
//! specification (read only), the event queue and the event log. A part's method that only
//! needs its own state takes the core beside it; one that reaches other parts takes the whole
//! [`super::Stack`] and uses each part through its methods.

use storlab_core::result::SimEvent;

use super::RunOptions;
use crate::config::SystemSpec;
use crate::engine::{Event, EventQueue, SimTime};

pub(crate) struct Core {
    /// The current simulated time.
    pub now: SimTime,
    pub opts: RunOptions,
    pub spec: SystemSpec,
    pub queue: EventQueue,
    log: Vec<SimEvent>,
}

impl Core {
    pub(super) fn new(spec: &SystemSpec, opts: RunOptions) -> Core {
        Core {
            now: SimTime(0),
            opts,
            spec: spec.clone(),
            queue: EventQueue::new(),
            log: Vec::new(),
        }
    }

    /// Schedules `event` at `at`.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: Event) {
        self.queue.schedule(at, event);
    }

    /// When the warm-up ends and the measured window starts.
    #[inline]
    pub fn warmup_end(&self) -> SimTime {
        SimTime(self.opts.warmup_ns)
    }

    /// The warm-up is over: what happens now is counted.
    #[inline]
    pub fn measuring(&self) -> bool {
        self.now >= self.warmup_end()
    }

    /// Appends to the event log.
    pub fn note(&mut self, kind: &str, target: &str, detail: String) {
        self.log.push(SimEvent {
            t_s: self.now.secs_f64(),
            kind: kind.to_string(),
            target: target.to_string(),
            detail,
        });
    }

    /// The event log, emptied.
    pub fn take_log(&mut self) -> Vec<SimEvent> {
        std::mem::take(&mut self.log)
    }
}
