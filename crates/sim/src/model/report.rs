//! Turns the counters of a finished run into the result schema.

use storlab_core::result::{
    ArrayMetrics, ClassMetrics, DeviceMetrics, Metrics, PathMetrics, RebuildMetrics, Run, SimInfo,
    StripeWrites, Target, TargetKind, Workload, WorkloadKind,
};

use super::{Model, Stack};
use crate::db::DbEngine;
use crate::engine::SimTime;
use crate::metrics::{round3, round4, INTERVAL_NS};
use crate::raid::RaidLevel;

fn per_s(count: u64, secs: f64) -> f64 {
    round3(count as f64 / secs)
}

fn mean_ms(total_ns: u64, count: u64) -> f64 {
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
        let now = self.now;
        for d in &mut self.devices {
            d.close_stats(now);
        }
        let window_ns = self.opts.duration_ns;
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
        let devices = self
            .devices
            .iter()
            .map(|d| device_metrics(d, window_ns))
            .collect();
        let arrays = self
            .spec
            .groups
            .iter()
            .zip(&self.groups)
            .map(|(spec, g)| {
                let s = &g.stats;
                let parity = matches!(spec.layout.level(), RaidLevel::Raid5 | RaidLevel::Raid6);
                ArrayMetrics {
                    name: spec.name.clone(),
                    level: spec.layout.level().name().to_string(),
                    read_iops: per_s(s.read_ops, secs),
                    destage_iops: per_s(s.destage_ops, secs),
                    read_delay_ms: mean_ms(s.read_delay_ns, s.read_ops),
                    destage_delay_ms: mean_ms(s.destage_delay_ns, s.destage_ops),
                    cache_read_hit_pct: pct(s.read_hits, s.host_reads),
                    nvs_full_delay_pct: pct(s.nvs_delayed, s.host_writes),
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
            name: self.spec.name.clone(),
            kind: TargetKind::Sim,
            config: Some(self.spec.file.clone()),
            description: (!self.spec.description.is_empty()).then(|| self.spec.description.clone()),
        };
        let workload = Workload {
            name: self.workload_name.clone(),
            kind: if db.is_some() {
                WorkloadKind::Db
            } else {
                WorkloadKind::Io
            },
            duration_s: secs,
            warmup_s: self.opts.warmup_ns as f64 / 1e9,
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
            events: std::mem::take(&mut self.log),
            rebuilds: self.rebuild_metrics(),
            classes: self.classes(db, secs),
            sim: Some(SimInfo {
                seed: self.opts.seed,
                events: self.queue.processed(),
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

    fn rebuild_metrics(&self) -> Vec<RebuildMetrics> {
        let summary = |h: &storlab_core::LatencyHistogram| h.summary_ms();
        self.rebuilds
            .iter()
            .map(|r| {
                let end = r.finished_at.unwrap_or(self.now);
                RebuildMetrics {
                    member: r.label.clone(),
                    spare: self.devices[r.spare as usize].name.clone(),
                    start_s: r.started_at.secs_f64(),
                    end_s: r.finished_at.map(SimTime::secs_f64),
                    duration_s: round3(end.saturating_since(r.started_at) as f64 / 1e9),
                    rebuilt_mb: round3(r.bytes as f64 / 1e6),
                    latency_ms_before: summary(&self.phase_latency[0]),
                    latency_ms_during: summary(&self.phase_latency[1]),
                    latency_ms_after: summary(&self.phase_latency[2]),
                }
            })
            .collect()
    }
}

fn device_metrics(d: &crate::device::Device, window_ns: u64) -> DeviceMetrics {
    let secs = window_ns as f64 / 1e9;
    let s = &d.stats;
    let ops = s.reads + s.writes;
    DeviceMetrics {
        name: d.name.clone(),
        model: Some(d.model.clone()),
        iops: per_s(ops, secs),
        read_iops: per_s(s.reads, secs),
        write_iops: per_s(s.writes, secs),
        mbps: round3(s.sectors as f64 * 512.0 / 1e6 / secs),
        util_pct: round3(100.0 * s.busy_ns as f64 / window_ns as f64),
        await_ms: mean_ms(s.await_ns, ops),
        service_ms: Some(mean_ms(s.service_ns, s.started)),
        queue_len: Some(round3(s.queue_area as f64 / window_ns as f64)),
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
