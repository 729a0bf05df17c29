//! Turns the counters of a finished run into the result schema: each part gives its own
//! figures, gathered here.

use storlab_core::result::{
    ArrayMetrics, ComponentMetrics, Metrics, Run, SimInfo, StripeWrites, Target, TargetKind,
    Workload, WorkloadKind,
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
        self.host.take_db_stats(db);
        let h = self.host.stats();
        let mut metrics = Metrics {
            io_errors: self.host.io_errors(),
            ..h.metrics(secs)
        };
        if let Some(db) = db {
            db.metrics(&mut metrics, secs);
        }
        let intervals = window_ns.div_ceil(INTERVAL_NS) as usize;
        let warnings = self.warnings(intervals, secs);
        let mut series = h.series(intervals);
        if let Some(db) = db {
            db.series(&mut series);
        }
        let spec = &self.core.spec;
        let target = Target {
            name: spec.name.clone(),
            kind: TargetKind::Sim,
            config: Some(spec.file.clone()),
            description: (!spec.description.is_empty()).then(|| spec.description.clone()),
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
            parameters: db
                .and_then(|d| d.parameters(secs))
                .unwrap_or_else(|| self.host.stream_parameters()),
        };
        Run {
            devices: self.arrays.device_metrics(window_ns),
            arrays: self.array_metrics(secs),
            series,
            paths: self.host.path_metrics(spec, secs),
            components: self.components(window_ns),
            rebuilds: (self.arrays).rebuild_metrics(now, self.host.phase_latency()),
            classes: self.host.classes(db, secs),
            sim: Some(SimInfo {
                seed: self.core.opts.seed,
                events: self.core.queue.processed(),
                host_ios: self.host.completed(),
                wall_s: 0.0,
                dropped_ios: self.host.dropped(),
            }),
            warnings,
            events: self.core.take_log(),
            ..Run::new(target, workload, metrics)
        }
    }

    /// Each group's figures: the cache's (host pieces, hits, NVS waits) and the disks'.
    fn array_metrics(&self, secs: f64) -> Vec<ArrayMetrics> {
        (self.core.spec.groups.iter())
            .enumerate()
            .map(|(g, spec)| {
                let c = self.ctrls.cache_stats(g as u32);
                let s = self.arrays.disk_stats(g as u32);
                let parity = matches!(spec.layout.level(), RaidLevel::Raid5 | RaidLevel::Raid6);
                ArrayMetrics {
                    name: spec.name.clone(),
                    level: spec.layout.level().name().to_string(),
                    read_iops: per_s(s.read_ops, secs),
                    destage_iops: per_s(s.destage_ops, secs),
                    read_delay_ms: mean_ms(s.read_delay_ns, s.read_ops),
                    destage_delay_ms: mean_ms(s.destage_delay_ns, s.destage_ops),
                    rank_destage_delay_ms: mean_ms(s.destage_rank_ns, s.destages),
                    cache_read_hit_pct: pct(c.read_hits, c.host_reads),
                    nvs_full_delay_pct: pct(c.nvs_delayed, c.host_writes),
                    stripe_writes: parity.then(|| StripeWrites {
                        full_stripe: per_s(s.full_stripe, secs),
                        read_modify_write: per_s(s.read_modify_write, secs),
                        reconstruct_write: per_s(s.reconstruct_write, secs),
                    }),
                }
            })
            .collect()
    }

    /// The array's components with a capacity of their own (host ports, back-end loops, controller
    /// processors, internal links); none unless the array file declares any of them.
    /// Disk groups laid out as redundancy sets report each set too.
    fn components(&self, window_ns: u64) -> Vec<ComponentMetrics> {
        let sets = self.arrays.set_metrics(&self.core.spec, window_ns);
        if !self.core.spec.declares_internals() {
            return sets;
        }
        (self.host.port_metrics(window_ns))
            .chain(self.arrays.back_end_metrics(window_ns))
            .chain(self.ctrls.components(window_ns))
            .chain(sets)
            .collect()
    }

    /// Warnings about the measured window: too few samples or I/Os, overloaded streams.
    fn warnings(&self, intervals: usize, secs: f64) -> Vec<String> {
        let mut warnings = Vec::new();
        if intervals < 5 {
            warnings.push(format!(
                "only {intervals} one-second samples in the measured window: raise --duration"
            ));
        }
        let count = self.host.stats().count();
        if count < 1000 {
            warnings.push(format!(
                "only {count} I/Os measured: raise --duration for stable figures"
            ));
        }
        warnings.extend(self.host.overload_warnings(secs));
        warnings
    }
}
