//! `storlab db`: options from the flags, run the suite, print a compact report, write JSON;
//! or, with `--capture`, characterize a live server's workload (`capture`).

mod capture;

use storlab_core::result::Run;
use storlab_db::options::{DsnServer, Server};
use storlab_db::{run_db, DbOptions};

use crate::cli::DbArgs;
use crate::error::CliError;
use crate::output::{json_output, write_results};
use crate::table::{num, render};
use storlab_core::TimeSpan;

fn pair(flag: &str, s: &str) -> Result<(String, String), CliError> {
    let (a, b) = s
        .split_once('=')
        .ok_or_else(|| CliError::BadInput(format!("{flag}: use NAME=VALUE; got {s:?}")))?;
    if a.is_empty()
        || !a
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        return Err(CliError::BadInput(format!("{flag}: bad name {a:?}")));
    }
    Ok((a.to_string(), b.to_string()))
}

/// The runs `a` asks for, printed by [`run`] and collected by `storlab compare`.
pub fn runs(a: &DbArgs) -> Result<Vec<Run>, CliError> {
    let server = match (&a.dsn, &a.data_dir) {
        (Some(dsn), _) => Server::Dsn(DsnServer {
            dsn: dsn.clone(),
            checkpoint: a.checkpoint,
            keep_schema: a.keep_schema,
        }),
        (None, Some(data)) => Server::Ephemeral {
            data_dir: data.clone(),
            wal_dir: a.wal_dir.clone(),
            tablespaces: a
                .tablespace
                .iter()
                .map(|t| pair("--tablespace", t).map(|(n, p)| (n, p.into())))
                .collect::<Result<_, _>>()?,
            pg_bin: a.pg_bin.clone(),
            settings: a
                .settings
                .iter()
                .map(|s| pair("--set", s))
                .collect::<Result<_, _>>()?,
        },
        (None, None) => {
            return Err(CliError::BadInput(
                "storlab db needs --data-dir DIR or --dsn DSN".into(),
            ))
        }
    };
    let tablespace = match &server {
        Server::Ephemeral { tablespaces, .. } => tablespaces.first().map(|(n, _)| n.clone()),
        Server::Dsn(_) => None,
    };
    // Database tests warm up until steady unless told otherwise.
    let warmup = crate::cli::resolve_warmup(a.run.warmup, a.run.warmup_max, true, TimeSpan(0));
    let opts = DbOptions {
        server,
        suite: a.suite.clone(),
        test: a.test.clone(),
        clients: a.clients,
        scale: a.scale,
        duration_ns: a.run.duration.0,
        warmup_ns: warmup.max().0,
        warmup_auto: warmup.is_auto(),
        seed: a.run.seed,
        schema: a.schema.clone(),
        tablespace,
        think: None,
    };
    if let Some(spec) = a.users.spec(&storlab_db::flags::CLIENTS)? {
        crate::users_sweep::check_db(a)?;
        return crate::users_sweep::db_runs(&spec, &opts, &crate::users_sweep::db_setting(a));
    }
    Ok(run_db(&opts)?)
}

pub fn run(a: DbArgs) -> Result<(), CliError> {
    if a.capture.is_some() {
        return capture::run(&a);
    }
    let outputs = crate::users_sweep::outputs(a.run.json.as_deref(), &a.users);
    crate::output::check_all(&outputs, &[])?;
    if a.users.users_sweep {
        return crate::users_sweep::run_db(&a);
    }
    let runs = runs(&a)?;
    for r in &runs {
        print!("{}", report(r));
    }
    // A stop between two tests leaves every run whole but the set short.
    let partial = runs.iter().any(|r| r.partial) || storlab_io::signal::stop_requested();
    if let Some(path) = &a.run.json {
        write_results(&json_output(path), runs)?;
        println!("results: {}", path.display());
    }
    if partial {
        let kept = match &a.run.json {
            Some(path) => format!("the results so far are in {}", path.display()),
            None => "the results so far are above".to_string(),
        };
        return Err(CliError::Failed(format!(
            "interrupted; {kept} (a test cut short is marked partial)"
        )));
    }
    Ok(())
}

/// The compact statspack of one test.
fn report(r: &Run) -> String {
    let m = &r.metrics;
    let mut out = format!(
        "{} | {} | {} s measured after {} s warm-up\n",
        r.target.description.as_deref().unwrap_or(""),
        r.workload.name,
        r.workload.duration_s,
        r.workload.warmup_s
    );
    let commit = |f: fn(&storlab_core::LatencySummaryMs) -> f64| {
        m.commit_ms.as_ref().map_or("-".into(), |c| num(f(c), 3))
    };
    out += &render(
        &[
            "test",
            "rows/s",
            "tx/min",
            "mean ms",
            "p99 ms",
            "commit ms",
            "commit p99",
            "WAL MB/s",
        ],
        &[vec![
            r.workload.name.clone(),
            num(m.rows_per_s.unwrap_or(0.0), 0),
            num(m.tx_per_min.unwrap_or(0.0), 0),
            num(m.latency_ms.mean, 3),
            num(m.latency_ms.p99, 3),
            commit(|c| c.mean),
            commit(|c| c.p99),
            num(m.wal_mb_per_s.unwrap_or(0.0), 2),
        ]],
    );
    out += &crate::table::transactions(m);
    if !m.waits.is_empty() {
        out += &crate::table::waits(&m.waits);
    }
    if let Some(db) = &r.db {
        let mut rows = Vec::new();
        for role in &db.roles {
            for d in &role.devices {
                rows.push(vec![
                    format!("{} ({})", role.role, d.device),
                    num(d.avg.r_s, 0),
                    num(d.avg.w_s, 0),
                    num(d.avg.rmb_s, 1),
                    num(d.avg.wmb_s, 1),
                    num(d.avg.r_await_ms, 2),
                    num(d.avg.w_await_ms, 2),
                    num(d.avg.util_pct, 0),
                ]);
            }
        }
        if !rows.is_empty() {
            out += &render(
                &[
                    "device by role (avg)",
                    "r/s",
                    "w/s",
                    "rMB/s",
                    "wMB/s",
                    "r_await",
                    "w_await",
                    "%util",
                ],
                &rows,
            );
        }
        out += &format!(
            "  WAL: {} records, {} full-page images, {} writes, {} syncs; checkpoints {} timed / {} requested\n",
            num(db.wal.records as f64, 0),
            num(db.wal.full_page_images as f64, 0),
            num(db.wal.writes as f64, 0),
            num(db.wal.syncs as f64, 0),
            db.checkpoints.timed,
            db.checkpoints.requested
        );
        if let Some(io) = &db.pg_stat_io {
            out += &pg_stat_io(io);
        }
        out += &io_settings(&db.settings);
        for n in &db.notes {
            out += &format!("  note: {n}\n");
        }
    }
    let server_cpu = r.db.as_ref().and_then(|d| d.server_cpu_ns_per_op);
    if let Some(ns) = server_cpu {
        let monitor =
            r.db.as_ref()
                .and_then(|d| d.monitor_cpu_s)
                .map_or(String::new(), |s| {
                    format!("; storlab's monitoring, {} ms, left out", num(s * 1e3, 0))
                });
        out += &format!(
            "  server CPU: {} us per transaction (its processes, over the window{monitor})\n",
            num(ns / 1e3, 1)
        );
    }
    if let Some(t) = &r.tool {
        out += &format!(
            "  driver: {} us of client CPU per transaction\n",
            num(t.cpu_ns_per_io / 1e3, 1)
        );
    }
    for w in &r.warnings {
        out += &format!("  warning: {w}\n");
    }
    out += &crate::table::unsteady(r);
    out
}

/// The server settings that most change its I/O, on one line (all of them are in the JSON).
fn io_settings(settings: &std::collections::BTreeMap<String, String>) -> String {
    let shown: Vec<String> = [
        "shared_buffers",
        "wal_sync_method",
        "synchronous_commit",
        "full_page_writes",
        "data_checksums",
        "io_method",
        "io_workers",
        "effective_io_concurrency",
    ]
    .iter()
    .filter_map(|name| settings.get(*name).map(|v| format!("{name} {v}")))
    .collect();
    if shown.is_empty() {
        return String::new();
    }
    format!(
        "  server: {}
",
        shown.join(", ")
    )
}

/// The busiest rows of pg_stat_io, or why the server has none.
fn pg_stat_io(io: &storlab_core::result::PgStatIo) -> String {
    if let Some(why) = &io.unavailable {
        // "pg_stat_io needs PostgreSQL 16 or later; the server is 15.8"
        return format!("  note: {why}\n");
    }
    let summary = storlab_db::io_summary(io, 6);
    let ms = |v: Option<f64>| v.map_or("-".into(), |v| num(v, 3));
    let count = |v: u64| num(v as f64, 0);
    let rows: Vec<Vec<String>> = summary
        .lines
        .iter()
        .map(|l| {
            vec![
                l.name.clone(),
                count(l.reads),
                ms(l.read_avg_ms),
                count(l.writes),
                ms(l.write_avg_ms),
                count(l.extends),
                count(l.hits),
                count(l.evictions),
                count(l.fsyncs),
            ]
        })
        .collect();
    if rows.is_empty() {
        return "  pg_stat_io: no relation I/O in the window\n".into();
    }
    let mut out = render(
        &[
            "pg_stat_io",
            "reads",
            "ms/rd",
            "writes",
            "ms/wr",
            "extends",
            "hits",
            "evicts",
            "fsyncs",
        ],
        &rows,
    );
    if summary.more > 0 {
        out += &format!("  ({} more pg_stat_io rows in the JSON)\n", summary.more);
    }
    out
}
