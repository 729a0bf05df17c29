//! Turns the counters of a finished run into the result schema.

use storlab_core::result::{
    ArrayMetrics, ClassMetrics, Metrics, PathMetrics, Run, SimInfo, StripeWrites, Target,
    TargetKind, Workload, WorkloadKind,
};

use super::{Model, Stack};
use crate::db::DbEngine;
use crate::metrics::{round3, round4, INTERVAL_NS};
use crate::raid::RaidLevel;

pub(super) fn per_s(count: u64, secs: f64) -> f64 {
    round3(count as f64 / secs)
}

pub(super) fn mean_ms(total_ns: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        round4(total_ns as f64 / count as f64 / 1e6)
    }
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        round3(100.0 * part as f64 / whole as f64)
    }
}

impl Model {
    /// The result of the run: the stack's figures, with the database's when there is one.
    pub(super) fn into_run(self) -> Run {
        self.stack.into_run(self.db.as_deref())
    }
}

impl Stack {
    fn into_run(mut self, db: Option<&DbEngine>) -> Run {
        let now = self.core.now;
        self.arrays.close_stats(now);
        let window_ns = self.core.opts.duration_ns;
        let secs = window_ns as f64 / 1e9;
        if let Some(db) = db.filter(|_| self.host_from_db) {
            self.host = db.host_stats();
        }
        let h = &self.host;
        let mut metrics = Metrics {
            io_errors: self.io_errors,
            ..h.metrics(secs)
        };
        if let Some(db) = db {
            db.metrics(&mut metrics, secs);
        }
        let devices = self.arrays.device_metrics(window_ns);
        let arrays = (self.core.spec.groups.iter())
            .zip(&self.groups)
            .enumerate()
            .map(|(gi, (spec, g))| {
                // The cache's figures, and the disks'.
                let (c, s) = (&g.stats, self.arrays.disk_stats(gi as u32));
                let parity = matches!(spec.layout.level(), RaidLevel::Raid5 | RaidLevel::Raid6);
                ArrayMetrics {
                    name: spec.name.clone(),
                    level: spec.layout.level().name().to_string(),
                    read_iops: per_s(s.read_ops, secs),
                    destage_iops: per_s(s.destage_ops, secs),
                    read_delay_ms: mean_ms(s.read_delay_ns, s.read_ops),
                    destage_delay_ms: mean_ms(s.destage_delay_ns, s.destage_ops),
                    cache_read_hit_pct: pct(c.read_hits, c.host_reads),
                    nvs_full_delay_pct: pct(c.nvs_delayed, c.host_writes),
                    stripe_writes: parity.then(|| StripeWrites {
                        full_stripe: per_s(s.full_stripe, secs),
                        read_modify_write: per_s(s.read_modify_write, secs),
                        reconstruct_write: per_s(s.reconstruct_write, secs),
                    }),
                }
            })
            .collect();
        let intervals = window_ns.div_ceil(INTERVAL_NS) as usize;
        let mut warnings = Vec::new();
        if intervals < 5 {
            warnings.push(format!(
                "only {intervals} one-second samples in the measured window: raise --duration"
            ));
        }
        if h.count() < 1000 {
            warnings.push(format!(
                "only {} I/Os measured: raise --duration for stable figures",
                h.count()
            ));
        }
        warnings.extend(self.overload_warnings(secs));
        let mut series = self.host.series(intervals);
        if let Some(db) = db {
            db.series(&mut series);
        }
        let target = Target {
            name: self.core.spec.name.clone(),
            kind: TargetKind::Sim,
            config: Some(self.core.spec.file.clone()),
            description: (!self.core.spec.description.is_empty())
                .then(|| self.core.spec.description.clone()),
        };
        let workload = Workload {
            name: self.workload_name.clone(),
            kind: if db.is_some() {
                WorkloadKind::Db
            } else {
                WorkloadKind::Io
            },
            duration_s: secs,
            warmup_s: self.core.opts.warmup_ns as f64 / 1e9,
            warmup_auto: false,
            parameters: db.and_then(|d| d.parameters(secs)).unwrap_or_else(|| {
                serde_json::to_value(self.streams.iter().map(|s| &s.profile).collect::<Vec<_>>())
                    .unwrap_or_default()
            }),
        };
        Run {
            devices,
            arrays,
            series,
            paths: self
                .core
                .spec
                .host
                .paths
                .iter()
                .zip(&self.paths)
                .map(|(spec, p)| PathMetrics {
                    name: spec.name.clone(),
                    iops: per_s(p.ios, secs),
                    mbps: round3(p.bytes as f64 / 1e6 / secs),
                    failed: p.failed,
                })
                .collect(),
            events: self.core.take_log(),
            rebuilds: self.arrays.rebuild_metrics(now, &self.phase_latency),
            classes: self.classes(db, secs),
            sim: Some(SimInfo {
                seed: self.core.opts.seed,
                events: self.core.queue.processed(),
                host_ios: self.host_completed,
                wall_s: 0.0,
                dropped_ios: self.streams.iter().map(|s| s.dropped).sum(),
            }),
            warnings,
            ..Run::new(target, workload, metrics)
        }
    }
}

impl Stack {
    /// The database's classes (data, log, archive), then each stream's when the run reports
    /// streams apart.
    fn classes(&self, db: Option<&DbEngine>, secs: f64) -> Vec<ClassMetrics> {
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
}

impl Stack {
    /// One warning per open-loop stream that dropped arrivals: the array could not keep up
    /// with the requested rate.
    fn overload_warnings(&self, secs: f64) -> Vec<String> {
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
    workload: &crate::config::WorkloadSpec,
    warmup_ns: u64,
) -> Vec<Option<Box<super::state::StreamClass>>> {
    let streams = &workload.streams;
    let apart = streams.len() >= 2 || (workload.database.is_some() && !streams.is_empty());
    streams
        .iter()
        .enumerate()
        .map(|(i, s)| {
            apart.then(|| {
                let name = &s.profile.name;
                let shared = streams.iter().filter(|o| &o.profile.name == name).count() > 1;
                Box::new(super::state::StreamClass {
                    name: if shared {
                        format!("{name}#{i}")
                    } else {
                        name.clone()
                    },
                    target: s.target_names.join(","),
                    io: crate::metrics::HostStats::new(warmup_ns),
                })
            })
        })
        .collect()
}
