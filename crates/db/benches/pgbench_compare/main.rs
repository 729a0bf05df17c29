//! storlab's database driver against pgbench on the same server, the same tables and the same
//! clients, in the same run (`cargo bench -p storlab-db --bench pgbench_compare`). Writes
//! target/bench/db.json.
//!
//! One throwaway cluster (directories under /tmp, shared_buffers 256MB so the work is about
//! the client, not the disk) is started with storlab's cluster module. A short storlab run
//! (`dpaws/select-row`, 2 s, no warm-up) creates the 15 DPAWS tables of 100,000 rows and warms
//! the caches. Then the tools take turns in short rounds (storlab, pgbench, storlab, pgbench,
//! ...); each round gives one transactions/s ratio and one client-CPU ratio, and the bench is
//! judged on the median of the rounds' ratios (min and max beside it; see
//! crates/bench-support for why; runs.rs holds one run of each tool):
//!
//! - storlab: `dpaws/select-row`, 8 clients, 6 s after a 2 s warm-up, through
//!   `storlab_db::run_db` with `Server::Dsn`; transactions/s = tx_per_min / 60 (each
//!   select-row operation is one autocommit transaction).
//! - pgbench: `-n -M prepared -c 8 -j 2 -T 6`, one script per table with equal weights, each
//!   `\set id random(1, 100000)` then `SELECT length(filler) FROM storlab.dpaws_NN WHERE id =
//!   :id;`, the same statement storlab prepares; tps is pgbench's "without initial connection
//!   time" figure.
//!
//! Client CPU per transaction. storlab: what it reports itself (`tool.cpu_ns_per_io`), its
//! process's user + system CPU over the measured window (its clients plus its wait-event
//! sampler, which queries pg_stat_activity every 10 ms) over the window's transactions.
//! pgbench: the child's user + system CPU (getrusage RUSAGE_CHILDREN around the run, its
//! connection set-up included) over the transactions it reports. Server CPU per transaction:
//! the postmaster's CPU with its reaped children (the backends) plus its live children, from
//! /proc, around each run, over the run's transactions (storlab's estimated as tx/s x
//! (warm-up + window)); approximate, and storlab's includes its evidence queries.
//!
//! Goals (printed as met or not, never asserted): storlab / pgbench transactions/s at least
//! 0.95, target 1.0. The cluster is stopped and removed at the end, also on error or panic
//! (the `Cluster` removes itself when dropped). Without PostgreSQL the bench says so, writes a
//! report saying "not available" and exits 0.

// Wall-clock timing is what a benchmark measures.
#![allow(clippy::disallowed_methods)]

use storlab_bench_support as support;

mod runs;

use std::path::{Path, PathBuf};
use std::time::Duration;

use runs::{db_options, pgbench_args, run_pgbench, run_storlab, write_scripts, Measured, Round};
use serde_json::{json, Value};
use storlab_db::cluster::{find_binaries, Binaries, Cluster, ClusterSpec};
use storlab_db::run_db;
use storlab_io::signal;
use support::{opt, run_json, verdict, Spread};

const CLIENTS: u32 = 8;
const SCALE: u64 = 100_000;
const TABLES: u32 = 15;
const DURATION_S: u64 = 6;
const WARMUP_S: u64 = 2;
/// The loading run (creates the tables, warms the caches).
const LOAD_DURATION_S: u64 = 2;
/// Rounds; each runs storlab, then pgbench.
const ROUNDS: u32 = 6;
const PGBENCH_THREADS: u32 = 2;
const SCHEMA: &str = "storlab";
const SHARED_BUFFERS: &str = "256MB";
const MAX_CONNECTIONS: u32 = 120;
/// storlab's transactions/s over pgbench's (median of the rounds): the goal, and the target.
const GOAL_RATIO: f64 = 0.95;
const TARGET_RATIO: f64 = 1.0;
const NS_PER_S: u64 = 1_000_000_000;
/// Pause after a run before reading the server's CPU, so its backends have exited.
const SETTLE: Duration = Duration::from_millis(500);

fn print_run(round: u32, tool: &str, r: &Result<Measured, String>) {
    match r {
        Ok(m) => println!(
            "round {round}: {tool:<7} {:>8.0} tx/s, client {:>5.1} µs CPU/tx, server {} µs CPU/tx",
            m.tps,
            m.client_cpu_us_per_tx,
            opt(m.server_cpu_us_per_tx, |x| format!("{x:.1}"))
        ),
        Err(e) => println!("round {round}: {tool} failed: {e}"),
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

/// Creates the tables and warms the caches with a short storlab run.
fn load(conninfo: &str, report: &mut Value) -> Result<(), String> {
    println!(
        "loading: storlab dpaws/select-row, {CLIENTS} clients, scale {SCALE}, {LOAD_DURATION_S} s"
    );
    let runs = run_db(&db_options(conninfo, LOAD_DURATION_S, 0, 99))
        .map_err(|e| format!("loading: {e}"))?;
    let tps = runs
        .first()
        .and_then(|r| r.metrics.tx_per_min)
        .map(|t| t / 60.0);
    println!(
        "  loaded; {} tx/s while warming",
        opt(tps, |t| format!("{t:.0}"))
    );
    let (version, data_bytes) = server_facts(conninfo);
    if let Some(v) = version {
        report["postgresql_version"] = json!(v);
    }
    report["data_bytes"] = json!(data_bytes);
    if let Some(b) = data_bytes {
        println!(
            "  {TABLES} tables with indexes: {:.0} MB (shared_buffers {SHARED_BUFFERS})",
            b as f64 / 1e6
        );
    }
    Ok(())
}

/// Runs the comparison on a started cluster; fills `report`.
fn compare(bins: &Binaries, cluster: &Cluster, data_dir: &Path, report: &mut Value) {
    let conninfo = cluster.conninfo("postgres");
    report["conninfo"] = json!(conninfo);
    if let Err(e) = load(&conninfo, report) {
        println!("{e}");
        report["error"] = json!(e);
        return;
    }
    let pgbench = bins.program("pgbench");
    let pgbench_version = support::command_line(&pgbench, &["--version"]);
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

    let mut rounds = Vec::new();
    for round in 1..=ROUNDS {
        if signal::stop_requested() {
            break;
        }
        let storlab = run_storlab(&conninfo, data_dir, u64::from(round));
        print_run(round, "storlab", &storlab);
        if signal::stop_requested() {
            break;
        }
        let pgbench = match (&pgbench_version, &scripts) {
            (None, _) => Err(format!("{} not found or not working", pgbench.display())),
            (_, Err(e)) => Err(e.clone()),
            _ => run_pgbench(&pgbench, &args, &conninfo, data_dir),
        };
        print_run(round, "pgbench", &pgbench);
        let r = Round { storlab, pgbench };
        println!(
            "round {round}: tx/s ratio {}, client CPU/tx ratio {}",
            opt(r.tps_ratio(), |x| format!("{x:.3}x")),
            opt(r.cpu_ratio(), |x| format!("{x:.3}x"))
        );
        rounds.push(r);
    }
    drop(scripts_dir);
    summarize(&rounds, report);
}

/// Prints the medians of the rounds and puts them, with every round, in `report`.
fn summarize(rounds: &[Round], report: &mut Value) {
    type Pick = fn(&Round) -> Option<&Measured>;
    let storlab: Pick = |r| r.storlab.as_ref().ok();
    let pgbench: Pick = |r| r.pgbench.as_ref().ok();
    let spread = |pick: Pick, f: fn(&Measured) -> Option<f64>| {
        Spread::of(rounds.iter().filter_map(pick).filter_map(f))
    };
    let tps = |m: &Measured| Some(m.tps);
    let client = |m: &Measured| Some(m.client_cpu_us_per_tx);
    let server = |m: &Measured| m.server_cpu_us_per_tx;
    let latency = |m: &Measured| m.lat_mean_ms;
    let ratio = Spread::of(rounds.iter().filter_map(Round::tps_ratio));
    let cpu_ratio = Spread::of(rounds.iter().filter_map(Round::cpu_ratio));
    let median = |s: Option<Spread>| s.map(|s| s.median);
    let goal_met = median(ratio).map(|r| r >= GOAL_RATIO);
    let target_met = median(ratio).map(|r| r >= TARGET_RATIO);

    println!();
    println!(
        "{:<8} {:>10} {:>16} {:>16} {:>12}   (medians of {} rounds)",
        "tool",
        "tx/s",
        "client µs CPU/tx",
        "server µs CPU/tx",
        "latency ms",
        rounds.len()
    );
    for (name, pick) in [("storlab", storlab), ("pgbench", pgbench)] {
        println!(
            "{name:<8} {:>10} {:>16} {:>16} {:>12}",
            opt(median(spread(pick, tps)), |x| format!("{x:.0}")),
            opt(median(spread(pick, client)), |x| format!("{x:.1}")),
            opt(median(spread(pick, server)), |x| format!("{x:.1}")),
            opt(median(spread(pick, latency)), |x| format!("{x:.3}")),
        );
    }
    println!(
        "storlab / pgbench tx/s {} (median, min-max): goal {GOAL_RATIO:.2}x {}; target {TARGET_RATIO:.2}x {}; client CPU per tx {}",
        Spread::ratio_text(ratio),
        verdict(goal_met),
        verdict(target_met),
        Spread::ratio_text(cpu_ratio)
    );

    report["ratio"] = Spread::json(ratio);
    report["client_cpu_ratio"] = Spread::json(cpu_ratio);
    report["goal_ratio"] = json!(GOAL_RATIO);
    report["target_ratio"] = json!(TARGET_RATIO);
    report["goal_met"] = json!(goal_met);
    report["target_met"] = json!(target_met);
    for (name, pick) in [("storlab", storlab), ("pgbench", pgbench)] {
        report[format!("{name}_tps")] = Spread::json(spread(pick, tps));
        report[format!("{name}_client_cpu_us_per_tx")] = Spread::json(spread(pick, client));
        report[format!("{name}_server_cpu_us_per_tx")] = Spread::json(spread(pick, server));
    }
    report["rounds"] = rounds
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({
                "round": i + 1,
                "storlab": run_json(&r.storlab, Measured::json),
                "pgbench": run_json(&r.pgbench, Measured::json),
                "tps_ratio": r.tps_ratio(), "client_cpu_ratio": r.cpu_ratio(),
            })
        })
        .collect();
}

fn main() {
    // Ctrl-C ends the current run (pgbench gets it too); the cluster is then removed.
    signal::install();
    let mut report = json!({
        "benchmark": "storlab db vs pgbench: dpaws/select-row",
        "storlab_version": env!("CARGO_PKG_VERSION"),
        "machine": support::machine(None),
        "clients": CLIENTS, "scale": SCALE, "tables": TABLES, "duration_s": DURATION_S,
        "storlab_warmup_s": WARMUP_S, "pgbench_threads": PGBENCH_THREADS,
        "shared_buffers": SHARED_BUFFERS,
        "method": {
            "rounds": ROUNDS,
            "order": "storlab, pgbench, storlab, pgbench, ...; each round's two runs give one ratio; judged on the median of the rounds' ratios",
            "storlab_tps": format!("metrics.tx_per_min / 60 over the {DURATION_S} s window (after a {WARMUP_S} s warm-up)"),
            "pgbench_tps": format!("pgbench's tps without initial connection time, -T {DURATION_S}, no warm-up"),
            "storlab_cpu": "storlab's own tool.cpu_ns_per_io: process user+system CPU over the measured window (clients and its wait sampler, which queries pg_stat_activity every 10 ms) / the window's transactions",
            "pgbench_cpu": "getrusage(RUSAGE_CHILDREN) user+system around the pgbench process / transactions it processed",
            "server_cpu": "postmaster + reaped backends + live children from /proc, around each run (approximate; storlab's includes its evidence queries and warm-up)",
        },
    });
    let bins = match find_binaries(None) {
        Ok(b) => b,
        Err(e) => {
            println!("PostgreSQL is not available: {e}\nskipping the comparison");
            report["postgresql"] = json!("not available");
            report["error"] = json!(e.to_string());
            support::write_report("db.json", &report);
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
    let spec = ClusterSpec {
        data_dir: base.join("data"),
        settings: vec![("shared_buffers".into(), SHARED_BUFFERS.into())],
        max_connections: MAX_CONNECTIONS,
        ..ClusterSpec::default()
    };
    let cluster = match Cluster::start(&bins, &spec) {
        Ok(c) => c,
        Err(e) => {
            println!("cannot start a cluster in {}: {e}", spec.data_dir.display());
            report["error"] = json!(format!("cluster: {e}"));
            support::write_report("db.json", &report);
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
    support::write_report("db.json", &report);
}
