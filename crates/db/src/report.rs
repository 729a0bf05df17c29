//! Database results in the common schema, and the device view by role.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use storlab_core::histogram::round_to;
use storlab_core::host_stats::round3;
use storlab_core::result::{
    DbEvidence, DeviceMetrics, Metrics, RoleIostat, Run, SeriesPoint, StatementStats, Target,
    TargetKind, ToolCost, TransactionMetrics, WaitEvent, Workload, WorkloadKind,
};
use storlab_io::diskstats::{BlockDevice, DiskSampler, IostatSummary};
use storlab_io::iostat_schema::{device_metrics, schema_iostat};

use crate::driver::ClientResult;
use crate::evidence::ServerWindow;
use crate::options::DbOptions;
use crate::suites::TestDef;

/// One iostat sampler per database role (data, WAL, tablespaces).
pub(crate) struct RoleSampler {
    roles: Vec<(String, PathBuf, Option<DiskSampler>)>,
}

impl RoleSampler {
    pub(crate) fn new(
        roles: &[(String, PathBuf)],
        resolve: impl Fn(&std::path::Path) -> Option<Vec<BlockDevice>>,
        sampler: impl Fn(&[BlockDevice]) -> Option<DiskSampler>,
    ) -> RoleSampler {
        RoleSampler {
            roles: roles
                .iter()
                .map(|(role, path)| {
                    (
                        role.clone(),
                        path.clone(),
                        resolve(path).and_then(|d| sampler(&d)),
                    )
                })
                .collect(),
        }
    }

    /// Starts the readings again (the measured window begins).
    pub(crate) fn restart(&mut self) {
        for (_, _, s) in &mut self.roles {
            if let Some(old) = s.take() {
                *s = DiskSampler::new(old.devices()).ok();
            }
        }
    }

    pub(crate) fn sample(&mut self, t_s: f64) {
        for (_, _, s) in &mut self.roles {
            if let Some(s) = s.as_mut() {
                let _ = s.sample(t_s);
            }
        }
    }

    pub(crate) fn summaries(&self) -> Vec<(String, PathBuf, Vec<IostatSummary>)> {
        self.roles
            .iter()
            .map(|(r, p, s)| {
                (
                    r.clone(),
                    p.clone(),
                    s.as_ref().map(|s| s.summaries()).unwrap_or_default(),
                )
            })
            .collect()
    }
}

/// What one test measured.
pub(crate) struct TestMeasured<'a> {
    pub opts: &'a DbOptions,
    pub test: TestDef,
    pub clients: u32,
    pub version: &'a str,
    pub settings: &'a [(String, String)],
    pub label: &'a str,
    pub result: ClientResult,
    pub window: Duration,
    /// WAL, checkpoints and pg_stat_io over the window.
    pub server: ServerWindow,
    pub waits: Vec<WaitEvent>,
    pub statements: Vec<StatementStats>,
    pub roles: Vec<(String, PathBuf, Vec<IostatSummary>)>,
    pub partial: bool,
    /// CPU the client (this process) used in the window.
    pub client_cpu: Option<Duration>,
    /// CPU the server's processes used in the window (a server storlab started), storlab's
    /// monitoring backends left out.
    pub server_cpu: Option<Duration>,
    /// CPU of the server backends serving storlab's monitoring connections in the window.
    pub monitor_cpu: Option<Duration>,
    /// What else the reader should know about this test (a step left out, say).
    pub extra_notes: Vec<String>,
}

pub(crate) fn build_run(m: TestMeasured) -> Run {
    let secs = m.window.as_secs_f64().max(1e-9);
    let r = &m.result;
    let ServerWindow {
        wal,
        checkpoints,
        io,
        wait_means: _,
    } = m.server;
    let mut notes = Vec::new();
    // Reads the database asked for that the devices never saw came from the OS page cache.
    let blocks_read: f64 = m
        .statements
        .iter()
        .map(|s| s.shared_blks_read * s.calls as f64)
        .sum();
    let data_read_mb: f64 = m
        .roles
        .iter()
        .filter(|(role, _, _)| role == "data")
        .flat_map(|(_, _, d)| d.first())
        .map(|d| d.total.rmb_s * secs)
        .sum();
    if blocks_read * 8192.0 / 1e6 > 10.0 && data_read_mb < 0.2 * blocks_read * 8192.0 / 1e6 {
        notes.push(format!(
            "the database read {:.0} MB but the data devices only {data_read_mb:.0} MB: most reads came from the OS page cache, not the device",
            blocks_read * 8192.0 / 1e6
        ));
    }
    if m.partial {
        notes.push("interrupted: results gathered until the stop".into());
    }
    notes.extend(m.extra_notes.iter().cloned());
    let mut devices: Vec<DeviceMetrics> = Vec::new();
    let mut roles = Vec::new();
    for (role, path, sums) in &m.roles {
        for d in sums {
            if devices.iter().any(|x| x.name == d.device) {
                continue;
            }
            devices.push(device_metrics(d, Some(format!("role {role}"))));
        }
        roles.push(RoleIostat {
            role: role.clone(),
            path: path.display().to_string(),
            devices: sums.iter().map(schema_iostat).collect(),
        });
    }
    let series: Vec<SeriesPoint> = r
        .per_second
        .iter()
        .enumerate()
        .map(|(i, &(ops, rows))| SeriesPoint {
            t_s: i as f64,
            iops: ops as f64,
            rows_per_s: Some(rows as f64),
            ..SeriesPoint::default()
        })
        .collect();
    let mut warnings = notes.clone();
    if let Some(e) = &r.error {
        warnings.push(format!("a client failed: {e}"));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let tool = m.client_cpu.map(|cpu| {
        let busy = cpu.as_secs_f64() / secs / cores;
        if busy > 0.9 {
            warnings.push(format!(
                "the client machine is saturated (storlab used {:.0}% of its CPUs): the database may be waiting for the driver; run the driver elsewhere or use fewer clients",
                busy * 100.0
            ));
        }
        ToolCost {
            engine: "tokio-postgres".into(),
            cpu_ns_per_io: if r.ops > 0 { round3(cpu.as_nanos() as f64 / r.ops as f64) } else { 0.0 },
            cpu_s: round3(cpu.as_secs_f64()),
            achieved_iops: round3(r.ops as f64 / secs),
            ..ToolCost::default()
        }
    });
    let settings: BTreeMap<String, String> = m.settings.iter().cloned().collect();
    let rows_per_s = r.rows as f64 / secs;
    let mbps = r.bytes as f64 / 1e6 / secs;
    let run = Run {
        target: Target {
            name: m.label.to_string(),
            kind: TargetKind::Real,
            config: None,
            description: Some(format!("PostgreSQL {}", m.version)),
        },
        workload: Workload {
            name: m.test.name.to_string(),
            kind: WorkloadKind::Db,
            duration_s: round3(secs),
            warmup_s: m.opts.warmup_ns as f64 / 1e9,
            warmup_auto: false,
            parameters: serde_json::json!({
                "suite": m.test.suite, "clients": m.clients, "scale": m.opts.scale,
                "schema": m.opts.schema, "seed": m.opts.seed, "once": m.test.once,
                "think_ms": m.opts.think.map_or(m.test.def.think_ms as f64, |t| t.mean_ns as f64 / 1e6),
                "think_variability": if m.opts.think.is_some_and(|t| t.exponential) { "exponential" } else { "fixed" },
                "latency_by_statement_ms": r.latency.iter().map(|(k, h)| (k.to_string(), h.summary_ms())).collect::<BTreeMap<_, _>>(),
            }),
        },
        metrics: Metrics {
            iops: round3(r.ops as f64 / secs),
            mbps: round3(mbps),
            write_mbps: round3(mbps),
            latency_ms: r.all.summary_ms(),
            ios: r.ops,
            rows_per_s: Some(round3(rows_per_s)),
            tx_per_min: Some(round3(r.ops as f64 / secs * 60.0)),
            wal_mb_per_s: Some(wal.mb_per_s),
            commit_ms: (!r.commits.is_empty()).then(|| r.commits.summary_ms()),
            tx_latency_ms: (!r.transactions.is_empty()).then(|| r.all.summary_ms()),
            transactions: transactions(r, secs),
            waits: m.waits,
            ..Metrics::default()
        },
        devices,
        series,
        db: Some(DbEvidence {
            server_version: m.version.to_string(),
            settings,
            wal,
            checkpoints,
            statements: m.statements,
            roles,
            pg_stat_io: Some(io),
            notes,
            server_cpu_s: m.server_cpu.map(|c| round3(c.as_secs_f64())),
            monitor_cpu_s: m.monitor_cpu.map(|c| round3(c.as_secs_f64())),
            server_cpu_ns_per_op: m
                .server_cpu
                .filter(|_| r.ops > 0)
                .map(|c| round3(c.as_nanos() as f64 / r.ops as f64)),
        }),
        partial: m.partial,
        steady: true,
        steady_reason: None,
        tool,
        warnings,
        ..empty_run()
    };
    run
}

/// Each transaction type's count, rate and response time over the `secs` of the window.
fn transactions(r: &ClientResult, secs: f64) -> Vec<TransactionMetrics> {
    r.transactions
        .iter()
        .map(|(name, h)| TransactionMetrics {
            name: name.to_string(),
            count: h.count(),
            tx_per_s: round_to(h.count() as f64 / secs, 1),
            latency_ms: h.summary_ms(),
        })
        .collect()
}

fn empty_run() -> Run {
    let target = Target {
        name: String::new(),
        kind: TargetKind::Real,
        config: None,
        description: None,
    };
    let workload = Workload {
        name: String::new(),
        kind: WorkloadKind::Db,
        duration_s: 0.0,
        warmup_s: 0.0,
        warmup_auto: false,
        parameters: serde_json::Value::Null,
    };
    Run::new(target, workload, Metrics::default())
}
