//! Oracle's `log buffer space` wait: redo is copied into the log buffer change by change,
//! and the buffer holds at most `log_buffer` bytes not yet on disk (space frees only when
//! the log writer's write of it completes). A session whose next change's redo does not fit
//! waits, posts the log writer (which writes what is unwritten when it is idle), and tries
//! again each time a log write completes, in the order the sessions began waiting. When the
//! redo generated outruns the log device, the sessions' throughput is capped at the log's
//! write bandwidth. The commit record (`log_bytes_per_commit`) and redo left for the commit
//! of a transaction that changes no block are not held back.

use super::{DbEngine, Stack};
use crate::engine::SimTime;

/// Sessions waiting for log buffer space, and the waits of the measured window.
#[derive(Default)]
pub(super) struct LogSpace {
    /// Waiting sessions, in the order they began.
    waiting: Vec<u32>,
    /// When each session's current wait began (None: not waiting).
    since: Vec<Option<SimTime>>,
    /// Waits ended in the measured window, and their time.
    pub waits: u64,
    pub wait_ns: u64,
}

impl LogSpace {
    /// No session waiting, for `sessions` sessions.
    pub fn new(sessions: u32) -> LogSpace {
        LogSpace {
            since: vec![None; sessions as usize],
            ..LogSpace::default()
        }
    }

    /// The warm-up is over: the counts restart (waits in progress count when they end).
    pub fn reset(&mut self) {
        self.waits = 0;
        self.wait_ns = 0;
    }
}

impl DbEngine {
    /// Whether session `s`'s change of `bytes` of redo fits in the log buffer; when it does
    /// not, the session waits (its wait starts now unless it was already waiting) and the
    /// log writer is posted.
    pub(super) fn log_space_for(&mut self, s: u32, bytes: u64, stack: &mut Stack) -> bool {
        let now = stack.now();
        let measuring = stack.measuring();
        let fits = self.log.fits(bytes);
        let Some(space) = self.oracle.as_mut().map(|o| &mut o.space) else {
            return true;
        };
        if fits {
            if let Some(since) = space.since[s as usize].take() {
                if measuring {
                    space.waits += 1;
                    space.wait_ns += now - since;
                }
            }
            return true;
        }
        space.since[s as usize].get_or_insert(now);
        space.waiting.push(s);
        let step = self.log.timeout();
        self.log_step(step, stack);
        false
    }

    /// A log write completed: the sessions waiting for log buffer space try again, in the
    /// order they began waiting (those that still do not fit wait on).
    pub(super) fn wake_log_space(&mut self, stack: &mut Stack) {
        let Some(o) = self.oracle.as_mut() else {
            return;
        };
        if o.space.waiting.is_empty() {
            return;
        }
        let waiting = std::mem::take(&mut o.space.waiting);
        for s in waiting {
            self.advance(s, stack);
        }
    }
}
