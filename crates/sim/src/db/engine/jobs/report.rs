//! What a job reports: its elapsed time (`metrics.elapsed_s`), whether it finished within
//! the run's time limit and the share it did, its I/O on each volume, its redo and commits;
//! and, in place of a steady-state verdict (which does not apply to a job), whether it ran
//! to completion.

use storlab_core::histogram::round_to;
use storlab_core::result::{JobOutcome, Metrics, Run};

use super::super::DbEngine;
use crate::config::database::JobKind;

impl DbEngine {
    /// The job's figures into `m`; `window_s` is the run's window: the job's time, or the
    /// time limit it reached.
    pub(crate) fn job_metrics(&self, m: &mut Metrics, window_s: f64) {
        let Some(job) = self.job.as_deref() else {
            return;
        };
        let complete = job.finished.is_some();
        let limit_s = job.limit_ns as f64 / 1e9;
        // Unfinished: the window it ran (the limit, or less when the run was interrupted).
        let elapsed_s = job.finished.map_or(window_s, |t| {
            t.ns().saturating_sub(job.started.ns()) as f64 / 1e9
        });
        m.elapsed_s = Some(round_to(elapsed_s, 6));
        let names = |p: &crate::config::Placement| p.names.join(",");
        let mut volumes = Vec::new();
        for (i, v) in job.io.iter().enumerate() {
            if v.reads + v.writes == 0 {
                continue;
            }
            let target = match i {
                1 => job.spec.source.as_ref().map_or_else(String::new, names),
                2 => names(self.spec.temp.as_ref().unwrap_or(&self.spec.data)),
                _ => names(&self.spec.data),
            };
            volumes.push(storlab_core::result::JobVolumeIo {
                target,
                ..v.clone()
            });
        }
        m.job = Some(JobOutcome {
            complete,
            done_pct: round_to(100.0 * job.share_done(), 3),
            limit_s,
            work: job.describe(),
            redo_bytes: job.redo_bytes,
            commits: job.commits,
            cpu_s: round_to(job.work.cpu_ns as f64 / 1e9, 6),
            index_blocks: job.work.index_blocks,
            index_reads: job.work.index_reads_done,
            free_buffer_waits: job.work.free_waits,
            free_buffer_wait_s: round_to(job.work.free_wait_ns as f64 / 1e9, 6),
            volumes,
        });
        let rows = job
            .rows
            .as_ref()
            .map(|r| r.share_committed() * r.total() as f64);
        let table_rows = self.spec.tables.first().map_or(0, |t| t.rows) as f64;
        m.rows_per_s = match job.spec.kind {
            JobKind::CreateTablespace | JobKind::CopyFile => None,
            _ if elapsed_s > 0.0 => Some(round_to(
                rows.unwrap_or(table_rows * job.share_done()) / elapsed_s,
                1,
            )),
            _ => None,
        };
        m.tx_latency_ms = None;
        m.transactions.clear();
        if job.redo_bytes > 0 {
            let secs = window_s.max(1e-9);
            m.wal_mb_per_s = Some(crate::metrics::round3(
                self.stats.log_bytes as f64 / 1e6 / secs,
            ));
        }
        if job.commits > 0 {
            m.tx_per_min = Some(round_to(job.commits as f64 * 60.0 / window_s.max(1e-9), 1));
            m.commit_ms = Some(self.commit_latency.summary_ms());
        }
    }

    /// The job's name and keys in the effective parameters (in place of the base test the
    /// job's table comes from).
    pub(crate) fn job_parameters(&self, v: &mut serde_json::Value) {
        if let (Some(job), Some(o)) = (self.job.as_deref(), v.as_object_mut()) {
            o.insert("test".into(), job.spec.kind.name().into());
            o.remove("sessions");
        }
    }
}

/// Records a job's outcome where the steady-state verdict goes: a job is not measured at
/// steady state, so `steady` is false and its reason says how the job ended.
pub(crate) fn mark_run(run: &mut Run) {
    let Some(job) = run.metrics.job.as_ref() else {
        return;
    };
    let elapsed = run.metrics.elapsed_s.unwrap_or(0.0);
    run.steady = false;
    run.steady_reason = Some(if job.complete {
        format!("job: ran to completion in {elapsed} s; steady state does not apply to a job")
    } else {
        format!(
            "job: incomplete: {}% done when the time limit of {} s (--duration) was reached",
            job.done_pct, job.limit_s
        )
    });
}
