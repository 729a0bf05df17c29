//! The arrays' figures: devices, each group's disk-side statistics, rebuilds.

use storlab_core::result::{ComponentMetrics, DeviceMetrics, RebuildMetrics};
use storlab_core::LatencyHistogram;

use super::ArrayPart;
use crate::config::SystemSpec;
use crate::device::Device;
use crate::engine::SimTime;
use crate::metrics::{round3, GroupStats};
use crate::model::report::{mean_ms, per_s};

impl ArrayPart {
    /// Statistics restart at `now` (end of the warm-up).
    pub fn reset_stats(&mut self, now: SimTime) {
        for d in &mut self.devices {
            d.reset_stats(now);
        }
        for g in &mut self.groups {
            g.stats = GroupStats::default();
        }
    }

    /// Closes the devices' busy and queue figures at `now` (end of the run).
    pub fn close_stats(&mut self, now: SimTime) {
        for d in &mut self.devices {
            d.close_stats(now);
        }
    }

    /// Group `g`'s disk-side figures (disk reads, destage operations, stripe writes).
    pub fn disk_stats(&self, g: u32) -> &GroupStats {
        &self.groups[g as usize].stats
    }

    /// Each device's figures over a measured window of `window_ns`.
    pub fn device_metrics(&self, window_ns: u64) -> Vec<DeviceMetrics> {
        self.devices
            .iter()
            .map(|d| device_metrics(d, window_ns))
            .collect()
    }

    /// Each rebuild, with the host latency before, during and after (`phase_latency`).
    pub fn rebuild_metrics(
        &self,
        now: SimTime,
        phase_latency: &[LatencyHistogram; 3],
    ) -> Vec<RebuildMetrics> {
        let summary = |h: &LatencyHistogram| h.summary_ms();
        self.rebuilds
            .iter()
            .map(|r| {
                let end = r.finished_at.unwrap_or(now);
                RebuildMetrics {
                    member: r.label.clone(),
                    spare: r.onto.clone(),
                    start_s: r.started_at.secs_f64(),
                    end_s: r.finished_at.map(SimTime::secs_f64),
                    duration_s: round3(end.saturating_since(r.started_at) as f64 / 1e9),
                    rebuilt_mb: round3(r.bytes as f64 / 1e6),
                    latency_ms_before: summary(&phase_latency[0]),
                    latency_ms_during: summary(&phase_latency[1]),
                    latency_ms_after: summary(&phase_latency[2]),
                }
            })
            .collect()
    }
}

impl ArrayPart {
    /// Each redundancy set of the disk groups that have them, as a component: its disks'
    /// mean utilisation, their operations and MB/s together, and the mean queueing and
    /// service time of an operation on them.
    pub fn set_metrics(&self, spec: &SystemSpec, window_ns: u64) -> Vec<ComponentMetrics> {
        let mut out = Vec::new();
        let mut first_device = 0usize;
        for dg in &spec.disk_groups {
            if let Some(rs) = &dg.sets {
                for &(first, n) in &rs.sets {
                    let from = first_device + first as usize;
                    let devices = &self.devices[from..from + n as usize];
                    let name = format!("redundancy set {}.d{first}-d{}", dg.name, first + n - 1);
                    out.push(set_component(name, devices, window_ns));
                }
            }
            first_device += (dg.disks + dg.spares) as usize;
        }
        out
    }
}

/// One redundancy set's figures from its disks'.
fn set_component(name: String, devices: &[Device], window_ns: u64) -> ComponentMetrics {
    let m: Vec<DeviceMetrics> = devices
        .iter()
        .map(|d| device_metrics(d, window_ns))
        .collect();
    let iops: f64 = m.iter().map(|d| d.iops).sum();
    let weighted = |f: &dyn Fn(&DeviceMetrics) -> f64| {
        if iops > 0.0 {
            m.iter().map(|d| f(d) * d.iops).sum::<f64>() / iops
        } else {
            0.0
        }
    };
    let await_ms = weighted(&|d| d.await_ms);
    let service_ms = weighted(&|d| d.service_ms.unwrap_or(0.0));
    ComponentMetrics {
        name,
        kind: "redundancy_set".into(),
        util_pct: round3(m.iter().map(|d| d.util_pct).sum::<f64>() / m.len().max(1) as f64),
        ops_per_s: round3(iops),
        mbps: round3(m.iter().map(|d| d.mbps).sum()),
        wait_ms: round3((await_ms - service_ms).max(0.0)),
        service_ms: round3(service_ms),
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
