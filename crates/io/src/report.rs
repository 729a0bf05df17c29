//! The result of a real I/O run in the common schema.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use storlab_core::host_stats::{round3, HostStats, INTERVAL_NS};
use storlab_core::result::{
    ClassMetrics, CommitMetrics, Run, Target, TargetKind, ToolCost, VerifyFault, VerifyResult,
    Workload, WorkloadKind,
};

use crate::diskstats::IostatSummary;
use crate::engine::WorkerResult;
use crate::iostat_schema::{device_metrics, schema_iostat};
use crate::options::{EngineKind, IoOptions};
use crate::target::{PreparedTarget, TargetKind as Kind};
use crate::verify::{FaultKind, VerifyReport};

/// What one class's workers measured.
pub(crate) struct ClassResult {
    /// I/O (or, for a commit path, the log writes).
    pub io: HostStats,
    /// Commit latencies (commit paths).
    pub commits: HostStats,
    pub committers: u32,
    pub ios: u64,
    pub late: u64,
    pub syscalls: u64,
    pub verify: VerifyReport,
}

impl ClassResult {
    pub(crate) fn new(warmup_ns: u64) -> ClassResult {
        ClassResult {
            io: HostStats::new(warmup_ns),
            commits: HostStats::new(warmup_ns),
            committers: 0,
            ios: 0,
            late: 0,
            syscalls: 0,
            verify: VerifyReport::default(),
        }
    }

    pub(crate) fn add(&mut self, r: &WorkerResult, committer: bool) {
        if committer {
            self.commits.merge(&r.stats);
            self.committers += 1;
        } else {
            self.io.merge(&r.stats);
            self.ios += r.ios;
        }
        self.late += r.late;
        self.syscalls += r.syscalls;
        self.verify.merge(&r.verify);
    }
}

/// What running the workload cost storlab's process: CPU (user + system) over `wall`, and the
/// I/Os completed in that time. Normally the measured window (see run.rs, `CpuWindow`).
pub(crate) struct CpuCost {
    pub cpu: Duration,
    pub wall: Duration,
    pub ios: u64,
}

/// What the run measured.
pub(crate) struct Measured {
    pub classes: Vec<ClassResult>,
    pub window: Duration,
    pub cpu: CpuCost,
    pub iostat: Vec<IostatSummary>,
    pub partial: bool,
    pub steady: bool,
}

fn verify_result(v: &VerifyReport) -> VerifyResult {
    VerifyResult {
        blocks_checked: v.blocks_checked,
        corrupt: v.corrupt,
        misplaced: v.misplaced,
        lost: v.lost,
        unwritten: v.unwritten,
        faults: v
            .first_faults
            .iter()
            .map(|f| VerifyFault {
                kind: match f.kind {
                    FaultKind::Corrupt => "corrupt",
                    FaultKind::Misplaced => "misplaced",
                    FaultKind::Lost => "lost",
                    FaultKind::Unwritten => "unwritten",
                }
                .into(),
                offset: f.offset,
                expected_gen: f.expected_gen,
                found_gen: f.found_gen,
                found_offset: f.found_offset,
            })
            .collect(),
    }
}

pub(crate) fn build_run(
    opts: &IoOptions,
    targets: &BTreeMap<PathBuf, PreparedTarget>,
    m: Measured,
) -> Run {
    let secs = m.window.as_secs_f64().max(1e-9);
    let mut all = HostStats::new(opts.warmup_ns);
    let mut verify = VerifyReport::default();
    let (mut ios, mut late, mut syscalls) = (0, 0, 0);
    for c in &m.classes {
        all.merge(&c.io);
        verify.merge(&c.verify);
        ios += c.ios;
        late += c.late;
        syscalls += c.syscalls;
    }
    let classes: Vec<ClassMetrics> =
        if m.classes.len() > 1 || m.classes.iter().any(|c| c.committers > 0) {
            opts.classes
                .iter()
                .zip(&m.classes)
                .map(|(spec, c)| ClassMetrics {
                    name: spec.name.clone(),
                    target: spec.target.display().to_string(),
                    metrics: c.io.metrics(secs),
                    commit: (c.committers > 0).then(|| CommitMetrics {
                        committers: c.committers,
                        commits_per_s: round3(c.commits.count() as f64 / secs),
                        latency_ms: c.commits.all().summary_ms(),
                        mean_batch: round3(c.commits.count() as f64 / c.io.count().max(1) as f64),
                    }),
                })
                .collect()
        } else {
            Vec::new()
        };
    let intervals = (m.window.as_nanos() as u64).div_ceil(INTERVAL_NS) as usize;
    let warnings = warnings(opts, &m, &all, secs, intervals, &verify);
    let first = &opts.classes[0];
    let target = &targets[&first.target];
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
    let name = if opts.classes.len() > 1 {
        opts.classes
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join("+")
    } else {
        first.name.clone()
    };
    let run = Run::new(
        Target {
            name: first.target.display().to_string(),
            kind: TargetKind::Real,
            config: None,
            description: Some(format!(
                "{kind}{on}, {io_mode}, {} engine",
                opts.engine.name()
            )),
        },
        Workload {
            name,
            kind: WorkloadKind::Io,
            duration_s: round3(secs),
            warmup_s: opts.warmup_ns as f64 / 1e9,
            warmup_auto: false,
            parameters: serde_json::json!({
                "classes": opts.classes.iter().map(|c| serde_json::json!({
                    "name": c.name, "target": c.target.display().to_string(),
                    "profile": c.profile, "group_commit": c.group_commit,
                })).collect::<Vec<_>>(),
                "engine": opts.engine.name(),
                "direct": opts.direct,
                "size_bytes": targets.values().flat_map(|t| t.files.iter()).map(|f| f.sectors * 512).sum::<u64>(),
                "seed": opts.seed,
                "precondition": opts.precondition,
                "steady_stop": m.steady,
            }),
        },
        all.metrics(secs),
    );
    let run = Run {
        devices: m.iostat.iter().map(|d| device_metrics(d, None)).collect(),
        series: all.series(intervals),
        classes,
        iostat: m.iostat.iter().map(schema_iostat).collect(),
        verify: opts.verify.then(|| verify_result(&verify)),
        tool: Some(ToolCost {
            engine: opts.engine.name().into(),
            cpu_ns_per_io: if m.cpu.ios > 0 {
                round3(m.cpu.cpu.as_nanos() as f64 / m.cpu.ios as f64)
            } else {
                0.0
            },
            cpu_s: round3(m.cpu.cpu.as_secs_f64()),
            ios_per_syscall: (opts.engine == EngineKind::IoUring && syscalls > 0)
                .then(|| round3(ios as f64 / syscalls as f64)),
            requested_iops: rate(opts),
            achieved_iops: round3(achieved(opts, &m, &all) as f64 / secs),
            late_ios: late,
        }),
        partial: m.partial,
        warnings,
        ..run
    };
    run
}

/// I/Os completed in the window by the open-loop classes, the ones a requested rate is
/// about (by every class when none is open loop).
fn achieved(opts: &IoOptions, m: &Measured, all: &HostStats) -> u64 {
    if rate(opts).is_none() {
        return all.count();
    }
    opts.classes
        .iter()
        .zip(&m.classes)
        .filter(|(spec, _)| spec.profile.rate_iops.is_some())
        .map(|(_, c)| c.io.count())
        .sum()
}

/// The requested arrival rate: the sum over the open-loop classes.
fn rate(opts: &IoOptions) -> Option<f64> {
    let rates: Vec<f64> = opts
        .classes
        .iter()
        .filter_map(|c| c.profile.rate_iops)
        .collect();
    (!rates.is_empty()).then(|| rates.iter().sum())
}

fn warnings(
    opts: &IoOptions,
    m: &Measured,
    all: &HostStats,
    secs: f64,
    intervals: usize,
    verify: &VerifyReport,
) -> Vec<String> {
    let mut w = Vec::new();
    if m.partial {
        w.push("interrupted: these are the results gathered until the stop".to_string());
    }
    if m.steady {
        w.push(format!("stopped after {secs:.0} s: throughput was steady"));
    }
    if intervals < 5 {
        w.push(format!(
            "only {intervals} one-second samples in the measured window: raise --duration"
        ));
    }
    let threads: u32 = opts
        .classes
        .iter()
        .map(|c| match (c.group_commit, opts.engine) {
            (Some(n), _) => n + 1,
            (None, EngineKind::Psync) => c.profile.jobs * c.profile.iodepth,
            (None, EngineKind::IoUring) => c.profile.jobs,
        })
        .sum();
    let cpu_share =
        m.cpu.cpu.as_secs_f64() / m.cpu.wall.as_secs_f64().max(1e-9) / threads.max(1) as f64;
    let device_util = m.iostat.first().map_or(100.0, |d| d.total.util_pct);
    if cpu_share > 0.9 && device_util < 90.0 {
        w.push(format!(
            "storlab, not the device, is the limit: its threads were {:.0}% busy while the device was {device_util:.0}% utilised; use --engine io_uring or fewer threads",
            cpu_share * 100.0
        ));
    }
    if let Some(r) = rate(opts) {
        let achieved = achieved(opts, m, all) as f64 / secs;
        if achieved < 0.95 * r {
            w.push(format!("the open-loop streams achieved {achieved:.0} IO/s of the {r:.0} requested: the target (or storlab) cannot keep up"));
        }
    }
    if opts.verify && !verify.is_clean() {
        w.push(format!(
            "DATA VERIFICATION FAILED: {} corrupt, {} misplaced, {} lost, {} unwritten sectors",
            verify.corrupt, verify.misplaced, verify.lost, verify.unwritten
        ));
    }
    w
}
