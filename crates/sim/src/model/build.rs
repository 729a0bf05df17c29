//! Building the model: each part builds itself from the specification, the database engine
//! (when the workload has one) adds its targets through the stack.

use super::array::ArrayPart;
use super::controller::ControllerPart;
use super::core::Core;
use super::host::{HostPart, TraceSource};
use super::{Model, RunOptions, Stack};
use crate::config::{FailureSpec, SystemSpec, WorkloadSpec};
use crate::db::DbEngine;

impl Model {
    /// Builds the system and its workload. `failures` are the file's plus the command line's.
    pub fn new(
        spec: &SystemSpec,
        workload: &WorkloadSpec,
        failures: &[FailureSpec],
        mut opts: RunOptions,
    ) -> Result<Model, String> {
        if workload.database.as_ref().is_some_and(|d| d.job.is_some()) {
            // A job runs from its start to its end (or the time limit): no warm-up.
            opts.warmup_ns = 0;
            opts.warmup_auto = false;
        }
        // The tests run before the section's own (`after`) come first: each its duration,
        // by default the run's warm-up; the warm-up then starts with the section's test.
        // With an automatic warm-up each gives its duration, and the warm-up starts after
        // them (see `Model::run`).
        let mut database = workload.database.clone();
        let mut before_ns = 0;
        if let Some(d) = database.as_mut().filter(|d| !d.after.is_empty()) {
            let durations = crate::config::after_durations_ns(&d.after, opts.warmup_ns);
            for (p, ns) in d.after.iter_mut().zip(&durations) {
                p.duration_ns = Some(*ns);
            }
            before_ns = durations.iter().sum::<u64>();
            if !opts.warmup_auto {
                opts.warmup_ns += before_ns;
                before_ns = 0;
            }
        }
        let arrays = ArrayPart::build(spec, opts.seed)?;
        let ctrls = ControllerPart::build(spec);
        let host = HostPart::build(spec, workload, &opts)?;
        let mut stack = Stack {
            core: Core::new(spec, opts),
            workload_name: workload.name.clone(),
            host,
            ctrls,
            arrays,
            failures: failures.to_vec(),
            failed_once: false,
        };
        let db = match &database {
            Some(d) => Some(Box::new(DbEngine::build(d, &mut stack)?)),
            None => None,
        };
        Ok(Model {
            stack,
            db,
            before_ns,
        })
    }

    /// Replays `source` (in addition to any workload streams).
    pub fn with_trace(mut self, source: TraceSource) -> Model {
        let s = &mut self.stack;
        s.host.set_trace(&s.core.spec, source);
        self
    }
}
