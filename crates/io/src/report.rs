//! The result of a real I/O run in the common schema.

use std::time::Duration;

use storlab_core::host_stats::{round3, HostStats, INTERVAL_NS};
use storlab_core::result::{
    DeviceIostat, DeviceMetrics, IostatFigures, Metrics, Run, Target, TargetKind, ToolCost,
    Workload, WorkloadKind,
};

use crate::diskstats::{IostatSample, IostatSummary};
use crate::options::IoOptions;
use crate::target::{PreparedTarget, TargetKind as Kind};

/// What the workers and the sampler measured.
pub(crate) struct Measured {
    pub stats: HostStats,
    pub window: Duration,
    pub ios: u64,
    pub late: u64,
    pub syscalls: u64,
    pub cpu: Duration,
    pub iostat: Vec<IostatSummary>,
    pub partial: bool,
}

fn figures(s: &IostatSample) -> IostatFigures {
    IostatFigures {
        r_s: round3(s.r_s),
        w_s: round3(s.w_s),
        rmb_s: round3(s.rmb_s),
        wmb_s: round3(s.wmb_s),
        r_await_ms: round3(s.r_await_ms),
        w_await_ms: round3(s.w_await_ms),
        aqu_sz: round3(s.aqu_sz),
        util_pct: round3(s.util_pct),
    }
}

pub(crate) fn build_run(opts: &IoOptions, target: &PreparedTarget, m: Measured) -> Run {
    let secs = m.window.as_secs_f64().max(1e-9);
    let h = &m.stats;
    let per_s = |n: u64| round3(n as f64 / secs);
    let metrics = Metrics {
        iops: per_s(h.all.count()),
        read_iops: per_s(h.read.count()),
        write_iops: per_s(h.write.count()),
        mbps: round3((h.read_bytes + h.write_bytes) as f64 / 1e6 / secs),
        read_mbps: round3(h.read_bytes as f64 / 1e6 / secs),
        write_mbps: round3(h.write_bytes as f64 / 1e6 / secs),
        latency_ms: h.all.summary_ms(),
        read_latency_ms: (!h.read.is_empty()).then(|| h.read.summary_ms()),
        write_latency_ms: (!h.write.is_empty()).then(|| h.write.summary_ms()),
        ios: h.all.count(),
        io_errors: 0,
    };
    let devices = m
        .iostat
        .iter()
        .map(|d| {
            let t = &d.total;
            let ops = t.r_s + t.w_s;
            DeviceMetrics {
                name: d.device.clone(),
                model: None,
                iops: round3(ops),
                read_iops: round3(t.r_s),
                write_iops: round3(t.w_s),
                mbps: round3(t.rmb_s + t.wmb_s),
                util_pct: round3(t.util_pct),
                await_ms: if ops > 0.0 {
                    round3((t.r_await_ms * t.r_s + t.w_await_ms * t.w_s) / ops)
                } else {
                    0.0
                },
                service_ms: None,
                queue_len: Some(round3(t.aqu_sz)),
            }
        })
        .collect();
    let iostat = m
        .iostat
        .iter()
        .map(|d| DeviceIostat {
            device: d.device.clone(),
            samples: d.samples,
            min: figures(&d.min),
            avg: figures(&d.avg),
            max: figures(&d.max),
        })
        .collect();
    let intervals = (m.window.as_nanos() as u64).div_ceil(INTERVAL_NS) as usize;
    let mut warnings = Vec::new();
    if m.partial {
        warnings.push("interrupted: these are the results gathered until the stop".to_string());
    }
    if intervals < 5 {
        warnings.push(format!(
            "only {intervals} one-second samples in the measured window: raise --duration"
        ));
    }
    let cpu_ns_per_io = if m.ios > 0 {
        m.cpu.as_nanos() as f64 / m.ios as f64
    } else {
        0.0
    };
    let threads = match opts.engine {
        crate::EngineKind::Psync => opts.profile.jobs * opts.profile.iodepth,
        crate::EngineKind::IoUring => opts.profile.jobs,
    };
    let cpu_share =
        m.cpu.as_secs_f64() / (secs + opts.warmup_ns as f64 / 1e9) / threads.max(1) as f64;
    let device_util = m.iostat.first().map_or(100.0, |d| d.total.util_pct);
    if cpu_share > 0.9 && device_util < 90.0 {
        warnings.push(format!(
            "storlab, not the device, is the limit: its threads were {:.0}% busy while the device was {device_util:.0}% utilised; use --engine io_uring or fewer threads",
            cpu_share * 100.0
        ));
    }
    if let Some(r) = opts.profile.rate_iops {
        let achieved = h.all.count() as f64 / secs;
        if achieved < 0.95 * r {
            warnings.push(format!("achieved {achieved:.0} IO/s of the {r:.0} requested: the target (or storlab) cannot keep up"));
        }
    }
    let kind = match target.kind {
        Kind::File => "file",
        Kind::Directory => "directory",
        Kind::BlockDevice => "block device",
    };
    let on = target
        .devices
        .first()
        .map_or(String::new(), |d| format!(" on {}", d.name));
    let io_mode = if opts.direct { "O_DIRECT" } else { "buffered" };
    Run {
        target: Target {
            name: opts.target.display().to_string(),
            kind: TargetKind::Real,
            config: None,
            description: Some(format!(
                "{kind}{on}, {io_mode}, {} engine",
                opts.engine.name()
            )),
        },
        workload: Workload {
            name: opts.profile.name.clone(),
            kind: WorkloadKind::Io,
            duration_s: round3(secs),
            warmup_s: opts.warmup_ns as f64 / 1e9,
            parameters: serde_json::json!({
                "profile": opts.profile,
                "engine": opts.engine.name(),
                "direct": opts.direct,
                "size_bytes": target.files.iter().map(|f| f.sectors * 512).sum::<u64>(),
                "files": target.files.len(),
                "seed": opts.seed,
            }),
        },
        metrics,
        devices,
        arrays: Vec::new(),
        series: h.series(intervals),
        paths: Vec::new(),
        events: Vec::new(),
        rebuilds: Vec::new(),
        iostat,
        tool: Some(ToolCost {
            engine: opts.engine.name().into(),
            cpu_ns_per_io: round3(cpu_ns_per_io),
            cpu_s: round3(m.cpu.as_secs_f64()),
            ios_per_syscall: (opts.engine == crate::EngineKind::IoUring && m.syscalls > 0)
                .then(|| round3(m.ios as f64 / m.syscalls as f64)),
            requested_iops: opts.profile.rate_iops,
            achieved_iops: per_s(h.all.count()),
            late_ios: m.late,
        }),
        partial: m.partial,
        sim: None,
        warnings,
    }
}
