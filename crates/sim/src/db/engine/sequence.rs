//! A database that runs other tests before its own (`[database] after`), the way a
//! benchmark cycle runs its tests in turn on one database. Each test before the section's
//! runs its duration with its sessions; then the section's test starts, with its warm-up
//! and measured window. Nothing is reset between tests: the buffer cache with its dirty
//! blocks, the database writer's and the log writer's state, the log's position, Oracle's
//! undo, checkpoint queue and blocks left to clean out, the host's and the array's caches
//! all go on as the previous test left them.
//!
//! The sessions are those of the busiest test; a test with fewer runs the first ones and
//! the others stay idle. At a switch a session busy with the previous test's transaction
//! finishes it (its plan was drawn), and its next one is the new test's.
//!
//! Each test's sessions draw from streams of their own, and the section's test from the
//! streams it has without `after`: it visits the same rows in the same order as on a fresh
//! database, so a comparison of the two shows what the state left behind changes, not
//! another sample of rows (common random numbers).

use super::tx::TxTimes;
use super::{DbEngine, DbTimer, Stack};
use crate::config::DbSpec;
use crate::db::workload_mix::WorkloadMix;
use crate::rng::{Purpose, Rng};

/// Session `s`'s random stream in test `step` of the sequence (None: the section's own
/// test, with or without `after`).
pub(super) fn session_stream(seed: u64, step: Option<usize>, s: u32) -> Rng {
    let test = step.map_or(0, |k| k as u64 + 1);
    Rng::derive(seed, Purpose::Job, (1 << 40) | (test << 32) | u64::from(s))
}

/// One test of the sequence: the section as that test runs it, its planned mix, how long
/// it runs (the section's own test: until the run ends).
struct Step {
    spec: DbSpec,
    mix: Option<Box<WorkloadMix>>,
    duration_ns: u64,
}

/// The tests of a database with `after`, the current one, and its sessions.
pub(super) struct Sequence {
    /// Every test in order: those of `after`, then the section's own.
    steps: Vec<Step>,
    current: usize,
    /// Sessions of the test running now.
    active: u32,
    /// Sessions waiting for a test with as many sessions.
    idle: Vec<bool>,
}

impl Sequence {
    /// The sequence of `spec` (None without `after`), and the section its database is built
    /// from: the first test's, with the sessions of the busiest test (each session has its
    /// own state, Oracle's undo segment among it).
    pub(super) fn new(spec: &DbSpec) -> Result<Option<(Box<Sequence>, DbSpec)>, String> {
        if spec.after.is_empty() {
            return Ok(None);
        }
        let busiest = spec.busiest_sessions();
        let mut steps = Vec::with_capacity(spec.after.len() + 1);
        for p in &spec.after {
            let mut s = spec.clone();
            s.test = p.test;
            s.sessions = p.sessions;
            // A measured profile describes the section's own test.
            s.profile = None;
            s.after.clear();
            steps.push(Step {
                mix: s.builtin_mix().transpose()?.map(Box::new),
                spec: s,
                duration_ns: p.duration_ns.unwrap_or(0),
            });
        }
        steps.push(Step {
            mix: spec.builtin_mix().transpose()?.map(Box::new),
            spec: spec.clone(),
            duration_ns: 0,
        });
        let mut first = steps[0].spec.clone();
        first.sessions = busiest;
        let active = steps[0].spec.sessions;
        let idle = (0..busiest).map(|s| s >= active).collect();
        Ok(Some((
            Box::new(Sequence {
                steps,
                current: 0,
                active,
                idle,
            }),
            first,
        )))
    }
}

impl DbEngine {
    /// Sessions of the test running now.
    pub(super) fn active_sessions(&self) -> u32 {
        self.sequence
            .as_ref()
            .map_or(self.sessions.len() as u32, |q| q.active)
    }

    /// The sessions draw from the streams of the test running now (none before `after`'s
    /// first: the streams they were built with).
    pub(super) fn draw_for_test(&mut self, seed: u64) {
        let Some(q) = self.sequence.as_ref() else {
            return;
        };
        let step = (q.current + 1 < q.steps.len()).then_some(q.current);
        for (i, sess) in self.sessions.iter_mut().enumerate() {
            sess.rng = session_stream(seed, step, i as u32);
        }
    }

    /// Schedules the end of the first test of the sequence, if any.
    pub(super) fn start_sequence(&mut self, stack: &mut Stack) {
        if let Some(q) = &self.sequence {
            stack.schedule_db(stack.now() + q.steps[0].duration_ns, DbTimer::NextTest);
        }
    }

    /// Whether session `s`, its transaction done, waits (the test running now has fewer
    /// sessions) rather than starting its next one.
    pub(super) fn session_waits(&mut self, s: u32) -> bool {
        let Some(q) = self.sequence.as_mut() else {
            return false;
        };
        let waits = s >= q.active;
        q.idle[s as usize] = waits;
        waits
    }

    /// The test running now ends: the next one takes over the database and its sessions.
    pub(super) fn next_test(&mut self, stack: &mut Stack) {
        let Some(q) = self.sequence.as_mut() else {
            return;
        };
        q.current += 1;
        let last = q.current + 1 == q.steps.len();
        let step = &mut q.steps[q.current];
        q.active = step.spec.sessions;
        if !last {
            stack.schedule_db(stack.now() + step.duration_ns, DbTimer::NextTest);
        }
        self.spec = step.spec.clone();
        self.builtin = step.mix.take();
        if let Some(m) = self.builtin.as_deref() {
            for sess in &mut self.sessions {
                // Plans drawn ahead from the previous test's mix are dropped.
                sess.ahead = super::builtin::Ahead::new();
                sess.carry = m.new_carry();
            }
        }
        self.draw_for_test(stack.opts().seed);
        if last {
            self.tx_times = match self.builtin.as_deref() {
                Some(m) => TxTimes::named(m.type_names()),
                None => TxTimes::new(self.spec.test),
            };
        }
        let wake: Vec<u32> = match self.sequence.as_mut() {
            Some(q) => (0..q.active)
                .filter(|&s| std::mem::take(&mut q.idle[s as usize]))
                .collect(),
            None => Vec::new(),
        };
        for s in wake {
            self.start_op(s, stack);
        }
    }
}
