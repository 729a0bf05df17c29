//! The host's figures: host I/O, each stream apart when the run reports streams, paths,
//! overload of open-loop streams.

use storlab_core::result::{ClassMetrics, PathMetrics};
use storlab_core::LatencyHistogram;

use super::jobs::StreamClass;
use super::HostPart;
use crate::config::{SystemSpec, WorkloadSpec};
use crate::db::DbEngine;
use crate::engine::SimTime;
use crate::metrics::{round3, HostStats};
use crate::model::report::per_s;

impl HostPart {
    /// Statistics restart at `now` (end of the warm-up).
    pub fn reset_stats(&mut self, now: SimTime) {
        self.stats = HostStats::new(now.ns());
        self.io_errors = 0;
        for p in &mut self.paths {
            p.ios = 0;
            p.bytes = 0;
        }
        for s in &mut self.streams {
            s.dropped = 0;
            s.completed = 0;
            if let Some(c) = s.class.as_mut() {
                c.io = HostStats::new(now.ns());
            }
        }
    }

    /// The host figures restart at `ns`, the rest goes on (start of an automatic warm-up).
    pub fn restart_host_stats(&mut self, ns: u64) {
        self.stats = HostStats::new(ns);
    }

    /// The host I/O figures.
    pub fn stats(&self) -> &HostStats {
        &self.stats
    }

    /// With `from_db`, every host I/O is the database's (no job, no trace): its figures are
    /// taken from the database engine's roles, and not recorded twice.
    pub fn set_from_db(&mut self, from_db: bool) {
        self.from_db = from_db && self.jobs.is_empty() && self.trace.is_none();
    }

    /// Every host I/O is the database's.
    pub fn all_db_io(&self) -> bool {
        self.from_db
    }

    /// At the end of the run: the host figures are the database's roles' when every host
    /// I/O is the database's.
    pub fn take_db_stats(&mut self, db: Option<&DbEngine>) {
        if let Some(db) = db.filter(|_| self.from_db) {
            self.stats = db.host_stats();
        }
    }

    /// Host I/Os that failed in the measured window.
    pub fn io_errors(&self) -> u64 {
        self.io_errors
    }

    /// Host I/Os completed over the whole run.
    pub fn completed(&self) -> u64 {
        self.completed
    }

    /// Open-loop arrivals dropped in the measured window.
    pub fn dropped(&self) -> u64 {
        self.streams.iter().map(|s| s.dropped).sum()
    }

    /// Host latency before any failure, while any member is failed or rebuilding, after.
    pub fn phase_latency(&self) -> &[LatencyHistogram; 3] {
        &self.phase_latency
    }

    /// The streams' profiles, as the workload's parameters in results.
    pub fn stream_parameters(&self) -> serde_json::Value {
        serde_json::to_value(self.streams.iter().map(|s| &s.profile).collect::<Vec<_>>())
            .unwrap_or_default()
    }

    /// Each path's figures.
    pub fn path_metrics(&self, spec: &SystemSpec, secs: f64) -> Vec<PathMetrics> {
        (spec.host.paths.iter())
            .zip(&self.paths)
            .map(|(spec, p)| PathMetrics {
                name: spec.name.clone(),
                iops: per_s(p.ios, secs),
                mbps: round3(p.bytes as f64 / 1e6 / secs),
                failed: p.failed,
            })
            .collect()
    }

    /// The database's classes (data, log, archive), then each stream's when the run reports
    /// streams apart.
    pub fn classes(&self, db: Option<&DbEngine>, secs: f64) -> Vec<ClassMetrics> {
        let mut out = db.map_or_else(Vec::new, |d| d.classes(secs));
        out.extend(self.streams.iter().filter_map(|s| {
            s.class.as_ref().map(|c| ClassMetrics {
                name: c.name.clone(),
                target: c.target.clone(),
                metrics: c.io.metrics(secs),
                commit: None,
            })
        }));
        out
    }

    /// One warning per open-loop stream that dropped arrivals: the array could not keep up
    /// with the requested rate.
    pub fn overload_warnings(&self, secs: f64) -> Vec<String> {
        let mut out = Vec::new();
        for (i, s) in self.streams.iter().enumerate() {
            let (Some(rate), true) = (s.profile.rate_iops, s.dropped > 0) else {
                continue;
            };
            out.push(format!(
                "overloaded: the array completes {:.0} of {rate:.0} IO/s requested by stream {i} \
                 ({}); {} arrivals were dropped while {} of its I/Os were outstanding",
                s.completed as f64 / secs,
                s.profile.name,
                s.dropped,
                crate::config::limits::OPEN_LOOP_MAX_OUTSTANDING
            ));
        }
        out
    }
}

/// Each stream's class, when the run reports streams apart: with two or more streams, or
/// one beside a database (whose data and log are classes of their own). A class is named
/// after its stream's profile; a name that several streams share gets the stream's index
/// (`randread-8k#1`).
pub(super) fn stream_classes(
    workload: &WorkloadSpec,
    warmup_ns: u64,
) -> Vec<Option<Box<StreamClass>>> {
    let streams = &workload.streams;
    let apart = streams.len() >= 2 || (workload.database.is_some() && !streams.is_empty());
    streams
        .iter()
        .enumerate()
        .map(|(i, s)| {
            apart.then(|| {
                let name = &s.profile.name;
                let shared = streams.iter().filter(|o| &o.profile.name == name).count() > 1;
                Box::new(StreamClass {
                    name: if shared {
                        format!("{name}#{i}")
                    } else {
                        name.clone()
                    },
                    target: s.target_names.join(","),
                    io: HostStats::new(warmup_ns),
                })
            })
        })
        .collect()
}
