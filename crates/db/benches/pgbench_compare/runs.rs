//! One run of each tool and what is measured around it: client CPU (getrusage), the server's
//! CPU (from /proc), shared-buffer hits, wall time.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use storlab_db::options::{DsnServer, Server};
use storlab_db::{run_db, DbOptions};

use crate::support::{self, ratio};
use crate::{
    CLIENTS, DURATION_S, NS_PER_S, PGBENCH_THREADS, SCALE, SCHEMA, SETTLE, TABLES, WARMUP_S,
};

/// What one run of either tool measured.
#[derive(Clone, Debug)]
pub(crate) struct Measured {
    pub(crate) tps: f64,
    pub(crate) client_cpu_us_per_tx: f64,
    pub(crate) server_cpu_us_per_tx: Option<f64>,
    pub(crate) lat_mean_ms: Option<f64>,
    /// Everything else worth keeping.
    pub(crate) detail: Value,
}

impl Measured {
    pub(crate) fn json(&self) -> Value {
        let mut v = json!({
            "tps": self.tps, "client_cpu_us_per_tx": self.client_cpu_us_per_tx,
            "server_cpu_us_per_tx": self.server_cpu_us_per_tx,
            "latency_mean_ms": self.lat_mean_ms,
        });
        if let (Some(v), Some(d)) = (v.as_object_mut(), self.detail.as_object()) {
            v.extend(d.clone());
        }
        v
    }
}

/// One round: storlab's run, then pgbench's.
pub(crate) struct Round {
    pub(crate) storlab: Result<Measured, String>,
    pub(crate) pgbench: Result<Measured, String>,
}

impl Round {
    fn both(&self) -> Option<(&Measured, &Measured)> {
        Some((self.storlab.as_ref().ok()?, self.pgbench.as_ref().ok()?))
    }

    pub(crate) fn tps_ratio(&self) -> Option<f64> {
        self.both()
            .and_then(|(s, p)| ratio(Some(s.tps), Some(p.tps)))
    }

    pub(crate) fn cpu_ratio(&self) -> Option<f64> {
        self.both()
            .and_then(|(s, p)| ratio(Some(s.client_cpu_us_per_tx), Some(p.client_cpu_us_per_tx)))
    }
}

/// utime + stime + cutime + cstime (seconds) and the parent pid, from /proc/<pid>/stat.
fn proc_cpu(pid: u32) -> Option<(f64, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let rest = &text[text.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ppid = f.get(1)?.parse().ok()?;
    let mut ticks = 0u64;
    for i in 11..=14 {
        ticks += f.get(i)?.parse::<u64>().ok()?;
    }
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = if hz > 0 { hz as f64 } else { 100.0 };
    Some((ticks as f64 / hz, ppid))
}

/// The server's CPU seconds so far: the postmaster with its reaped children (backends that
/// exited) plus its live children (background processes, backends still running).
fn server_cpu_s(data_dir: &Path) -> Option<f64> {
    let pid_file = std::fs::read_to_string(data_dir.join("postmaster.pid")).ok()?;
    let pm: u32 = pid_file.lines().next()?.trim().parse().ok()?;
    let (mut total, _) = proc_cpu(pm)?;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        if let Some((cpu, ppid)) = proc_cpu(pid) {
            if ppid == pm {
                total += cpu;
            }
        }
    }
    Some(total)
}

/// Shared-buffer hits and reads of the database so far (pg_stat_database).
fn block_counts(conninfo: &str) -> Option<(i64, i64)> {
    let mut c = postgres::Client::connect(conninfo, postgres::NoTls).ok()?;
    let row = c
        .query_one(
            "SELECT blks_hit, blks_read FROM pg_stat_database WHERE datname = current_database()",
            &[],
        )
        .ok()?;
    Some((row.get(0), row.get(1)))
}

/// Measures around one run: client CPU of `who`, server CPU, buffer counts, wall time.
struct Around {
    who: libc::c_int,
    cpu: (f64, f64),
    server: Option<f64>,
    blocks: Option<(i64, i64)>,
    t0: std::time::Instant,
}

/// What [`Around`] saw.
struct Seen {
    client_cpu_s: f64,
    server_cpu_s: Option<f64>,
    detail: Value,
}

impl Around {
    fn start(who: libc::c_int, conninfo: &str, data_dir: &Path) -> Around {
        let blocks = block_counts(conninfo);
        Around {
            who,
            server: server_cpu_s(data_dir),
            cpu: support::rusage(who),
            blocks,
            t0: std::time::Instant::now(),
        }
    }

    fn finish(self, conninfo: &str, data_dir: &Path) -> Seen {
        let wall_s = self.t0.elapsed().as_secs_f64();
        let (u, s) = support::rusage(self.who);
        std::thread::sleep(SETTLE);
        let server = server_cpu_s(data_dir).zip(self.server).map(|(b, a)| b - a);
        let blocks = match (self.blocks, block_counts(conninfo)) {
            (Some((h0, r0)), Some((h1, r1))) => {
                let (hit, read) = (h1 - h0, r1 - r0);
                let ratio = (hit + read > 0).then(|| hit as f64 / (hit + read) as f64);
                json!({"shared_hit": hit, "read": read, "hit_ratio": ratio})
            }
            _ => Value::Null,
        };
        let (user_s, sys_s) = (u - self.cpu.0, s - self.cpu.1);
        Seen {
            client_cpu_s: user_s + sys_s,
            server_cpu_s: server,
            detail: json!({
                "user_s": user_s, "sys_s": sys_s, "wall_s": wall_s, "blocks": blocks,
                "load_after": support::load_average(),
            }),
        }
    }
}

pub(crate) fn db_options(conninfo: &str, duration_s: u64, warmup_s: u64, seed: u64) -> DbOptions {
    DbOptions {
        // The bench's own cluster: loaded once and kept between the runs.
        server: Server::Dsn(DsnServer {
            dsn: conninfo.to_string(),
            checkpoint: true,
            keep_schema: true,
        }),
        suite: "dpaws".into(),
        test: "select-row".into(),
        clients: Some(CLIENTS),
        scale: SCALE,
        duration_ns: duration_s * NS_PER_S,
        warmup_ns: warmup_s * NS_PER_S,
        warmup_auto: false,
        seed,
        schema: SCHEMA.into(),
        tablespace: None,
        think: None,
    }
}

pub(crate) fn run_storlab(conninfo: &str, data_dir: &Path, seed: u64) -> Result<Measured, String> {
    let opts = db_options(conninfo, DURATION_S, WARMUP_S, seed);
    let around = Around::start(libc::RUSAGE_SELF, conninfo, data_dir);
    let runs = run_db(&opts).map_err(|e| e.to_string());
    let seen = around.finish(conninfo, data_dir);
    let run = runs?
        .into_iter()
        .next()
        .ok_or("storlab returned no result")?;
    let m = &run.metrics;
    let tps = m.tx_per_min.ok_or("storlab reported no transactions/min")? / 60.0;
    let tool = run.tool.as_ref().ok_or("storlab reported no client CPU")?;
    if tps <= 0.0 {
        return Err("storlab completed no transaction".into());
    }
    let tx_estimated = tps * (WARMUP_S + DURATION_S) as f64;
    let mut detail = seen.detail;
    detail["whole_call_cpu_s"] = json!(seen.client_cpu_s);
    detail["tx_estimated_with_warmup"] = json!(tx_estimated);
    detail["latency_p99_ms"] = json!(m.latency_ms.p99);
    detail["partial"] = json!(run.partial);
    detail["waits"] = serde_json::to_value(&m.waits).unwrap_or_default();
    detail["warnings"] = json!(run.warnings);
    Ok(Measured {
        tps,
        client_cpu_us_per_tx: tool.cpu_ns_per_io / 1000.0,
        server_cpu_us_per_tx: seen.server_cpu_s.map(|s| s / tx_estimated * 1e6),
        lat_mean_ms: Some(m.latency_ms.mean),
        detail,
    })
}

/// One pgbench script per table, weighted equally on the command line.
pub(crate) fn write_scripts(dir: &Path) -> Result<Vec<PathBuf>, String> {
    (1..=TABLES)
        .map(|k| {
            let path = dir.join(format!("dpaws_{k:02}.sql"));
            let text = format!(
                "\\set id random(1, {SCALE})\nSELECT length(filler) FROM {SCHEMA}.dpaws_{k:02} WHERE id = :id;\n"
            );
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            Ok(path)
        })
        .collect()
}

pub(crate) fn pgbench_args(scripts: &[PathBuf], conninfo: &str) -> Vec<String> {
    let mut args: Vec<String> = ["-n", "-M", "prepared", "-c"].map(String::from).into();
    args.extend([
        CLIENTS.to_string(),
        "-j".into(),
        PGBENCH_THREADS.to_string(),
    ]);
    args.extend(["-T".into(), DURATION_S.to_string()]);
    for s in scripts {
        args.push("-f".into());
        args.push(format!("{}@1", s.display()));
    }
    args.push(conninfo.to_string());
    args
}

/// The first word after `prefix` on the first line that starts with it.
fn after<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(prefix))
        .and_then(|rest| rest.split_whitespace().next())
}

pub(crate) fn run_pgbench(
    pgbench: &Path,
    args: &[String],
    conninfo: &str,
    data_dir: &Path,
) -> Result<Measured, String> {
    let around = Around::start(libc::RUSAGE_CHILDREN, conninfo, data_dir);
    let out = Command::new(pgbench)
        .args(args)
        .stdin(Stdio::null())
        .output();
    let seen = around.finish(conninfo, data_dir);
    let out = out.map_err(|e| format!("cannot start {}: {e}", pgbench.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "pgbench failed ({}): {}\n{}",
            out.status,
            stderr.trim(),
            stdout.trim()
        ));
    }
    let tps: f64 = stdout
        .lines()
        .find(|l| l.starts_with("tps = ") && l.contains("without initial connection time"))
        .and_then(|l| after(l, "tps ="))
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("no tps line in pgbench's output:\n{}", stdout.trim()))?;
    let transactions: u64 = after(&stdout, "number of transactions actually processed:")
        .and_then(|n| n.split('/').next())
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("no transactions in pgbench's output:\n{}", stdout.trim()))?;
    let tx = transactions as f64;
    let mut detail = seen.detail;
    detail["transactions"] = json!(transactions);
    detail["failed"] =
        json!(after(&stdout, "number of failed transactions:").and_then(|n| n.parse::<u64>().ok()));
    Ok(Measured {
        tps,
        client_cpu_us_per_tx: seen.client_cpu_s / tx * 1e6,
        server_cpu_us_per_tx: seen.server_cpu_s.map(|s| s / tx * 1e6),
        lat_mean_ms: after(&stdout, "latency average =").and_then(|n| n.parse().ok()),
        detail,
    })
}
