//! storlab's database driver against pgbench on the same server, the same tables and the same
//! clients, in the same run (`cargo bench -p storlab-db --bench pgbench_compare`). Writes
//! target/bench/db.json.
//!
//! One throwaway cluster (directories under /tmp, shared_buffers 256MB so the work is about
//! the client, not the disk) is started with storlab's cluster module. A short storlab run
//! (`dpaws/select-row`, 2 s, no warm-up) creates the 15 DPAWS tables of 100,000 rows and warms
//! the caches. Then the tools take turns (storlab, pgbench, storlab, pgbench) and each keeps its
//! best run (most transactions/s):
//!
//! - storlab: `dpaws/select-row`, 8 clients, 20 s after a 3 s warm-up, through
//!   `storlab_db::run_db` with `Server::Dsn`; transactions/s = tx_per_min / 60 (each
//!   select-row operation is one autocommit transaction).
//! - pgbench: `-n -M prepared -c 8 -j 2 -T 20`, one script per table with equal weights, each
//!   `\set id random(1, 100000)` then `SELECT length(filler) FROM storlab.dpaws_NN WHERE id =
//!   :id;`, the same statement storlab prepares; tps is pgbench's "without initial connection
//!   time" figure.
//!
//! Client CPU per transaction. pgbench: the child's user + system CPU (getrusage
//! RUSAGE_CHILDREN around the run) over the transactions it reports. storlab: this process's
//! user + system CPU (RUSAGE_SELF around `run_db`), which also covers its 3 s warm-up, its
//! connection setup and its evidence gathering (the wait-event sampler queries
//! pg_stat_activity every 10 ms, snapshots, pg_stat_statements), divided by an estimate of all
//! the transactions it ran: tx/s x (warm-up + duration). Server CPU per transaction: the
//! postmaster's CPU with its reaped children (the backends) plus its live children, from
//! /proc, over the same span; approximate, and storlab's includes its sampler's queries.
//!
//! Goals (printed as met or not, never asserted): storlab / pgbench transactions/s at least
//! 0.95, target 1.0. The cluster is stopped and removed at the end, also on error or panic
//! (the `Cluster` removes itself when dropped). Without PostgreSQL the bench says so, writes a
//! report saying "not available" and exits 0.

// Wall-clock timing is what a benchmark measures.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use storlab_db::cluster::{find_binaries, Binaries, Cluster, ClusterSpec};
use storlab_db::options::Server;
use storlab_db::{run_db, DbOptions};
use storlab_io::signal;

const CLIENTS: u32 = 8;
const SCALE: u64 = 100_000;
const TABLES: u32 = 15;
const DURATION_S: u64 = 20;
const WARMUP_S: u64 = 3;
/// The loading run (creates the tables, warms the caches).
const LOAD_DURATION_S: u64 = 2;
/// Each tool runs this many times, alternately; its best run counts.
const ROUNDS: u32 = 2;
const PGBENCH_THREADS: u32 = 2;
const SCHEMA: &str = "storlab";
const SHARED_BUFFERS: &str = "256MB";
const MAX_CONNECTIONS: u32 = 120;
/// storlab's transactions/s over pgbench's: the goal, and the target.
const GOAL_RATIO: f64 = 0.95;
const TARGET_RATIO: f64 = 1.0;
const NS_PER_S: u64 = 1_000_000_000;
/// Pause after a run before reading the server's CPU, so its backends have exited.
const SETTLE: Duration = Duration::from_millis(500);

/// What one storlab run measured.
#[derive(Clone, Debug)]
struct StorlabRun {
    tps: f64,
    /// Client CPU over the whole `run_db` call.
    cpu_s: f64,
    user_s: f64,
    sys_s: f64,
    /// Transactions over warm-up and window, estimated at the window's rate.
    tx_estimated: f64,
    cpu_us_per_tx: f64,
    server_cpu_us_per_tx: Option<f64>,
    lat_mean_ms: f64,
    lat_p99_ms: f64,
    wall_s: f64,
    partial: bool,
    blocks: Value,
    waits: Value,
    warnings: Vec<String>,
}

/// What one pgbench run measured.
#[derive(Clone, Debug)]
struct PgbenchRun {
    tps: f64,
    transactions: u64,
    failed: Option<u64>,
    cpu_s: f64,
    user_s: f64,
    sys_s: f64,
    cpu_us_per_tx: f64,
    server_cpu_us_per_tx: Option<f64>,
    lat_mean_ms: Option<f64>,
    wall_s: f64,
    blocks: Value,
}

/// User and system CPU seconds of `who` (RUSAGE_SELF or RUSAGE_CHILDREN).
fn rusage(who: libc::c_int) -> (f64, f64) {
    // SAFETY: an all-zero rusage is a valid out parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is valid for writes for the duration of the call.
    let rc = unsafe { libc::getrusage(who, &mut ru) };
    if rc != 0 {
        return (0.0, 0.0);
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(ru.ru_utime), secs(ru.ru_stime))
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
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
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

fn blocks_json(before: Option<(i64, i64)>, after: Option<(i64, i64)>) -> Value {
    match (before, after) {
        (Some((h0, r0)), Some((h1, r1))) => {
            let (hit, read) = (h1 - h0, r1 - r0);
            let ratio = (hit + read > 0).then(|| hit as f64 / (hit + read) as f64);
            json!({"shared_hit": hit, "read": read, "hit_ratio": ratio})
        }
        _ => Value::Null,
    }
}

/// Measures around one run: client CPU of `who`, server CPU, buffer counts, wall time.
struct Around {
    cpu: (f64, f64),
    server: Option<f64>,
    blocks: Option<(i64, i64)>,
    t0: std::time::Instant,
}

impl Around {
    fn start(who: libc::c_int, conninfo: &str, data_dir: &Path) -> Around {
        let blocks = block_counts(conninfo);
        Around {
            server: server_cpu_s(data_dir),
            cpu: rusage(who),
            blocks,
            t0: std::time::Instant::now(),
        }
    }

    /// (user s, system s, server s, buffer counts, wall s) since the start.
    fn finish(
        self,
        who: libc::c_int,
        conninfo: &str,
        data_dir: &Path,
    ) -> (f64, f64, Option<f64>, Value, f64) {
        let wall = self.t0.elapsed().as_secs_f64();
        let (u, s) = rusage(who);
        std::thread::sleep(SETTLE);
        let server = match (self.server, server_cpu_s(data_dir)) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        };
        let blocks = blocks_json(self.blocks, block_counts(conninfo));
        (u - self.cpu.0, s - self.cpu.1, server, blocks, wall)
    }
}

fn db_options(conninfo: &str, duration_s: u64, warmup_s: u64, seed: u64) -> DbOptions {
    DbOptions {
        server: Server::Dsn(conninfo.to_string()),
        suite: "dpaws".into(),
        test: "select-row".into(),
        clients: Some(CLIENTS),
        scale: SCALE,
        duration_ns: duration_s * NS_PER_S,
        warmup_ns: warmup_s * NS_PER_S,
        seed,
        schema: SCHEMA.into(),
        tablespace: None,
    }
}

fn run_storlab(conninfo: &str, data_dir: &Path, seed: u64) -> Result<StorlabRun, String> {
    let opts = db_options(conninfo, DURATION_S, WARMUP_S, seed);
    let around = Around::start(libc::RUSAGE_SELF, conninfo, data_dir);
    let runs = run_db(&opts).map_err(|e| e.to_string());
    let (user_s, sys_s, server_s, blocks, wall_s) =
        around.finish(libc::RUSAGE_SELF, conninfo, data_dir);
    let run = runs?
        .into_iter()
        .next()
        .ok_or("storlab returned no result")?;
    let m = &run.metrics;
    let tps = m.tx_per_min.ok_or("storlab reported no transactions/min")? / 60.0;
    if tps <= 0.0 {
        return Err("storlab completed no transaction".into());
    }
    let tx_estimated = tps * (WARMUP_S + DURATION_S) as f64;
    let cpu_s = user_s + sys_s;
    Ok(StorlabRun {
        tps,
        cpu_s,
        user_s,
        sys_s,
        tx_estimated,
        cpu_us_per_tx: cpu_s / tx_estimated * 1e6,
        server_cpu_us_per_tx: server_s.map(|s| s / tx_estimated * 1e6),
        lat_mean_ms: m.latency_ms.mean,
        lat_p99_ms: m.latency_ms.p99,
        wall_s,
        partial: run.partial,
        blocks,
        waits: serde_json::to_value(&m.waits).unwrap_or_default(),
        warnings: run.warnings.clone(),
    })
}

/// One pgbench script per table, weighted equally on the command line.
fn write_scripts(dir: &Path) -> Result<Vec<PathBuf>, String> {
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

fn pgbench_args(scripts: &[PathBuf], conninfo: &str) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "-n".into(),
        "-M".into(),
        "prepared".into(),
        "-c".into(),
        CLIENTS.to_string(),
        "-j".into(),
        PGBENCH_THREADS.to_string(),
        "-T".into(),
        DURATION_S.to_string(),
    ];
    for s in scripts {
        args.push("-f".into());
        args.push(format!("{}@1", s.display()));
    }
    args.push(conninfo.to_string());
    args
}

/// The number after `prefix` on the first line that starts with it.
fn after<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(prefix))
        .and_then(|rest| rest.split_whitespace().next())
}

fn run_pgbench(
    pgbench: &Path,
    args: &[String],
    conninfo: &str,
    data_dir: &Path,
) -> Result<PgbenchRun, String> {
    let around = Around::start(libc::RUSAGE_CHILDREN, conninfo, data_dir);
    let out = Command::new(pgbench)
        .args(args)
        .stdin(Stdio::null())
        .output();
    let (user_s, sys_s, server_s, blocks, wall_s) =
        around.finish(libc::RUSAGE_CHILDREN, conninfo, data_dir);
    let out = out.map_err(|e| format!("cannot start {}: {e}", pgbench.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
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
        .and_then(|l| l["tps = ".len()..].split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("no tps line in pgbench's output:\n{}", stdout.trim()))?;
    let transactions: u64 = after(&stdout, "number of transactions actually processed:")
        .and_then(|n| n.split('/').next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            format!(
                "no transaction count in pgbench's output:\n{}",
                stdout.trim()
            )
        })?;
    if transactions == 0 {
        return Err("pgbench completed no transaction".into());
    }
    let cpu_s = user_s + sys_s;
    let tx = transactions as f64;
    Ok(PgbenchRun {
        tps,
        transactions,
        failed: after(&stdout, "number of failed transactions:").and_then(|n| n.parse().ok()),
        cpu_s,
        user_s,
        sys_s,
        cpu_us_per_tx: cpu_s / tx * 1e6,
        server_cpu_us_per_tx: server_s.map(|s| s / tx * 1e6),
        lat_mean_ms: after(&stdout, "latency average =").and_then(|n| n.parse().ok()),
        wall_s,
        blocks,
    })
}

fn storlab_json(r: &Result<StorlabRun, String>) -> Value {
    match r {
        Ok(s) => json!({
            "tps": s.tps, "cpu_us_per_tx": s.cpu_us_per_tx, "cpu_s": s.cpu_s,
            "user_s": s.user_s, "sys_s": s.sys_s, "tx_estimated": s.tx_estimated,
            "server_cpu_us_per_tx": s.server_cpu_us_per_tx, "latency_mean_ms": s.lat_mean_ms,
            "latency_p99_ms": s.lat_p99_ms, "wall_s": s.wall_s, "partial": s.partial,
            "blocks": s.blocks, "waits": s.waits, "warnings": s.warnings,
        }),
        Err(e) => json!({"error": e}),
    }
}

fn pgbench_json(r: &Result<PgbenchRun, String>) -> Value {
    match r {
        Ok(p) => json!({
            "tps": p.tps, "transactions": p.transactions, "failed": p.failed,
            "cpu_us_per_tx": p.cpu_us_per_tx, "cpu_s": p.cpu_s, "user_s": p.user_s,
            "sys_s": p.sys_s, "server_cpu_us_per_tx": p.server_cpu_us_per_tx,
            "latency_mean_ms": p.lat_mean_ms, "wall_s": p.wall_s, "blocks": p.blocks,
        }),
        Err(e) => json!({"error": e}),
    }
}

/// The run with the most transactions/s.
fn best<T: Clone>(runs: &[Result<T, String>], tps: impl Fn(&T) -> f64) -> Option<T> {
    runs.iter()
        .filter_map(|r| r.as_ref().ok())
        .max_by(|a, b| tps(a).total_cmp(&tps(b)))
        .cloned()
}

fn command_line(cmd: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn machine() -> Value {
    let nproc = std::thread::available_parallelism()
        .ok()
        .map(|n| n.get() as u64);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_string());
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    json!({"nproc": nproc, "kernel": kernel, "cpu_model": cpu_model})
}

fn write_report(report: &Value) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/bench");
    std::fs::create_dir_all(dir).expect("create target/bench");
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| PathBuf::from(dir));
    let path = dir.join("db.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(report).expect("json") + "\n",
    )
    .expect("write db.json");
    println!("wrote {}", path.display());
}

fn opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.map_or_else(|| "-".to_string(), f)
}

fn verdict(met: Option<bool>) -> &'static str {
    match met {
        Some(true) => "met",
        Some(false) => "NOT met",
        None => "unknown (a tool failed)",
    }
}

/// Server facts for the report: version, size of the DPAWS tables with their indexes.
fn server_facts(conninfo: &str) -> (Option<String>, Option<i64>) {
    let Ok(mut c) = postgres::Client::connect(conninfo, postgres::NoTls) else {
        return (None, None);
    };
    let version = c
        .query_one("SHOW server_version", &[])
        .ok()
        .map(|r| r.get::<_, String>(0));
    let size = c
        .query_one(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE 'dpaws\\_%'",
            &[&SCHEMA],
        )
        .ok()
        .map(|r| r.get::<_, i64>(0));
    (version, size)
}

/// Runs the comparison on a started cluster; fills `report`.
fn compare(bins: &Binaries, cluster: &Cluster, data_dir: &Path, report: &mut Value) {
    let conninfo = cluster.conninfo("postgres");
    report["conninfo"] = json!(conninfo);

    println!(
        "loading: storlab dpaws/select-row, {CLIENTS} clients, scale {SCALE}, {LOAD_DURATION_S} s"
    );
    let load = run_db(&db_options(&conninfo, LOAD_DURATION_S, 0, 99));
    match &load {
        Ok(runs) => {
            let tps = runs
                .first()
                .and_then(|r| r.metrics.tx_per_min)
                .map(|t| t / 60.0);
            println!(
                "  loaded; {} tx/s while warming",
                opt(tps, |t| format!("{t:.0}"))
            );
        }
        Err(e) => {
            println!("loading failed: {e}");
            report["error"] = json!(format!("loading: {e}"));
            return;
        }
    }
    let (version, data_bytes) = server_facts(&conninfo);
    report["postgresql_version"] = json!(version.unwrap_or_else(|| bins.version.clone()));
    report["data_bytes"] = json!(data_bytes);
    if let Some(b) = data_bytes {
        println!(
            "  {TABLES} tables with indexes: {:.0} MB (shared_buffers {SHARED_BUFFERS})",
            b as f64 / 1e6
        );
    }

    let pgbench = bins.program("pgbench");
    let pgbench_version = command_line(&pgbench, &["--version"]);
    report["pgbench_version"] = json!(pgbench_version);
    let scripts_dir = tempfile::Builder::new()
        .prefix("storlab-pgbench-scripts-")
        .tempdir()
        .expect("temporary directory for pgbench scripts");
    let scripts = write_scripts(scripts_dir.path());
    let args = scripts
        .as_ref()
        .map(|s| pgbench_args(s, &conninfo))
        .unwrap_or_default();
    report["pgbench_command"] = json!(format!("{} {}", pgbench.display(), args.join(" ")));
    report["pgbench_script"] = json!(format!(
        "\\set id random(1, {SCALE})\nSELECT length(filler) FROM {SCHEMA}.dpaws_NN WHERE id = :id;  (NN = 01..{TABLES}, one file each, weight 1)"
    ));

    let mut storlab_runs = Vec::new();
    let mut pgbench_runs = Vec::new();
    for round in 1..=ROUNDS {
        if signal::stop_requested() {
            break;
        }
        let r = run_storlab(&conninfo, data_dir, u64::from(round));
        match &r {
            Ok(s) => println!(
                "round {round}: storlab {:>8.0} tx/s, client {:>6.1} µs CPU/tx, server {} µs CPU/tx",
                s.tps,
                s.cpu_us_per_tx,
                opt(s.server_cpu_us_per_tx, |x| format!("{x:.1}"))
            ),
            Err(e) => println!("round {round}: storlab failed: {e}"),
        }
        storlab_runs.push(r);
        if signal::stop_requested() {
            break;
        }
        let r = match (&pgbench_version, &scripts) {
            (None, _) => Err(format!("{} not found or not working", pgbench.display())),
            (_, Err(e)) => Err(e.clone()),
            _ => run_pgbench(&pgbench, &args, &conninfo, data_dir),
        };
        match &r {
            Ok(p) => println!(
                "round {round}: pgbench {:>8.0} tx/s, client {:>6.1} µs CPU/tx, server {} µs CPU/tx",
                p.tps,
                p.cpu_us_per_tx,
                opt(p.server_cpu_us_per_tx, |x| format!("{x:.1}"))
            ),
            Err(e) => println!("round {round}: pgbench failed: {e}"),
        }
        pgbench_runs.push(r);
    }
    drop(scripts_dir);

    let s = best(&storlab_runs, |s| s.tps);
    let p = best(&pgbench_runs, |p| p.tps);
    let ratio = match (&s, &p) {
        (Some(s), Some(p)) if p.tps > 0.0 => Some(s.tps / p.tps),
        _ => None,
    };
    let cpu_ratio = match (&s, &p) {
        (Some(s), Some(p)) if p.cpu_us_per_tx > 0.0 => Some(s.cpu_us_per_tx / p.cpu_us_per_tx),
        _ => None,
    };
    let goal_met = ratio.map(|r| r >= GOAL_RATIO);
    let target_met = ratio.map(|r| r >= TARGET_RATIO);

    println!();
    println!(
        "{:<8} {:>10} {:>16} {:>16} {:>12} {:>10}",
        "tool", "tx/s", "client µs CPU/tx", "server µs CPU/tx", "latency ms", "hit ratio"
    );
    let hit = |b: &Value| b["hit_ratio"].as_f64();
    if let Some(s) = &s {
        println!(
            "{:<8} {:>10.0} {:>16.1} {:>16} {:>12.3} {:>10}",
            "storlab",
            s.tps,
            s.cpu_us_per_tx,
            opt(s.server_cpu_us_per_tx, |x| format!("{x:.1}")),
            s.lat_mean_ms,
            opt(hit(&s.blocks), |x| format!("{x:.4}"))
        );
    }
    if let Some(p) = &p {
        println!(
            "{:<8} {:>10.0} {:>16.1} {:>16} {:>12} {:>10}",
            "pgbench",
            p.tps,
            p.cpu_us_per_tx,
            opt(p.server_cpu_us_per_tx, |x| format!("{x:.1}")),
            opt(p.lat_mean_ms, |x| format!("{x:.3}")),
            opt(hit(&p.blocks), |x| format!("{x:.4}"))
        );
    }
    println!(
        "storlab / pgbench tx/s {}: goal {GOAL_RATIO:.2}x {}; target {TARGET_RATIO:.2}x {}; client CPU per tx {}",
        opt(ratio, |r| format!("{r:.3}x")),
        verdict(goal_met),
        verdict(target_met),
        opt(cpu_ratio, |r| format!("{r:.2}x"))
    );

    report["storlab_tps"] = json!(s.as_ref().map(|s| s.tps));
    report["pgbench_tps"] = json!(p.as_ref().map(|p| p.tps));
    report["ratio"] = json!(ratio);
    report["goal_ratio"] = json!(GOAL_RATIO);
    report["target_ratio"] = json!(TARGET_RATIO);
    report["goal_met"] = json!(goal_met);
    report["target_met"] = json!(target_met);
    report["storlab_cpu_us_per_tx"] = json!(s.as_ref().map(|s| s.cpu_us_per_tx));
    report["pgbench_cpu_us_per_tx"] = json!(p.as_ref().map(|p| p.cpu_us_per_tx));
    report["cpu_ratio"] = json!(cpu_ratio);
    report["storlab_server_cpu_us_per_tx"] = json!(s.as_ref().and_then(|s| s.server_cpu_us_per_tx));
    report["pgbench_server_cpu_us_per_tx"] = json!(p.as_ref().and_then(|p| p.server_cpu_us_per_tx));
    report["runs"] = json!({
        "storlab": storlab_runs.iter().map(storlab_json).collect::<Vec<_>>(),
        "pgbench": pgbench_runs.iter().map(pgbench_json).collect::<Vec<_>>(),
    });
}

fn main() {
    // Ctrl-C ends the current run (pgbench gets it too); the cluster is then removed.
    signal::install();
    let mut report = json!({
        "benchmark": "storlab db vs pgbench: dpaws/select-row",
        "storlab_version": env!("CARGO_PKG_VERSION"),
        "machine": machine(),
        "clients": CLIENTS,
        "scale": SCALE,
        "tables": TABLES,
        "duration_s": DURATION_S,
        "storlab_warmup_s": WARMUP_S,
        "pgbench_threads": PGBENCH_THREADS,
        "shared_buffers": SHARED_BUFFERS,
        "method": {
            "rounds": ROUNDS,
            "order": "storlab, pgbench, storlab, pgbench; each tool's run with the most tx/s is kept",
            "storlab_tps": "metrics.tx_per_min / 60 over the 20 s window (after a 3 s warm-up)",
            "pgbench_tps": "pgbench's tps without initial connection time, -T 20, no warm-up",
            "storlab_cpu": "getrusage(RUSAGE_SELF) user+system over the whole run_db call (connection setup, 3 s warm-up, 20 s window, evidence: includes storlab's wait sampler, which queries pg_stat_activity every 10 ms, and its snapshots) / (tx/s x 23 s)",
            "pgbench_cpu": "getrusage(RUSAGE_CHILDREN) user+system around the pgbench process / transactions it processed",
            "server_cpu": "postmaster + reaped backends + live children from /proc, around each run (approximate; storlab's includes its sampler's queries and warm-up)",
        },
    });

    let bins = match find_binaries(None) {
        Ok(b) => b,
        Err(e) => {
            println!("PostgreSQL is not available: {e}\nskipping the comparison");
            report["postgresql"] = json!("not available");
            report["error"] = json!(e.to_string());
            write_report(&report);
            return;
        }
    };
    report["postgresql_version"] = json!(bins.version);
    report["bindir"] = json!(bins.bindir.display().to_string());
    println!("PostgreSQL {} in {}", bins.version, bins.bindir.display());

    let base = PathBuf::from(format!(
        "/tmp/storlab-pgbench-compare-{}",
        std::process::id()
    ));
    let data_dir = base.join("data");
    let spec = ClusterSpec {
        data_dir: data_dir.clone(),
        settings: vec![("shared_buffers".into(), SHARED_BUFFERS.into())],
        max_connections: MAX_CONNECTIONS,
        ..ClusterSpec::default()
    };
    let cluster = match Cluster::start(&bins, &spec) {
        Ok(c) => c,
        Err(e) => {
            println!("cannot start a cluster in {}: {e}", data_dir.display());
            report["error"] = json!(format!("cluster: {e}"));
            write_report(&report);
            std::process::exit(1);
        }
    };
    let data_dir = cluster.data_dir().to_path_buf();
    println!(
        "cluster in {} (socket {}, port {})",
        data_dir.display(),
        cluster.socket_dir().display(),
        cluster.port()
    );
    report["cluster"] = json!({
        "data_dir": data_dir.display().to_string(),
        "settings": cluster
            .settings_in_effect()
            .into_iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect::<Vec<_>>(),
    });

    compare(&bins, &cluster, &data_dir, &mut report);

    let stopped = cluster.stop();
    if let Err(e) = &stopped {
        println!("stopping the cluster: {e}");
    }
    report["cluster"]["removed"] = json!(stopped.is_ok() && !data_dir.exists() && !base.exists());
    report["interrupted"] = json!(signal::stop_requested());
    write_report(&report);
}
