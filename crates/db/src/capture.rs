//! `storlab db --dsn DSN --capture 60s`: a workload characterization of a live PostgreSQL
//! server that storlab did not start, read strictly read-only.
//!
//! The connection sets `default_transaction_read_only`, a statement and a lock timeout, and
//! reads each snapshot with one statement (`snapshot`); it creates nothing (no extension, no table,
//! no temporary object) and resets no statistics. Two snapshots of the cumulative views
//! (pg_stat_database, pg_stat_statements when the database has it, pg_stat_wal, pg_stat_io
//! from 16, pg_stat_bgwriter and from 17 pg_stat_checkpointer, pg_statio_user_tables and
//! _indexes) frame the capture interval; in between, pg_stat_activity is sampled every
//! [`SAMPLE`] for the sessions and what they wait on. The differences become one average
//! transaction type, the data set, the instance and the observed rates (`build`).
//!
//! Ctrl-C or SIGTERM during the interval stops within 50 ms and nothing is written:
//! a shorter window would describe another interval than the one asked for.

mod build;
mod snapshot;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use storlab_core::character::Characterization;
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config, Statement};

use crate::conninfo::{self, Lookup};
use crate::error::DbError;
use crate::flags;
use build::{RelWindow, ServerInfo, SessionTally, Window};
use snapshot::{Snapshot, TAG};
use storlab_core::character::settings::SETTINGS_KEYS;

/// Time between two samples of pg_stat_activity.
pub const SAMPLE: Duration = Duration::from_millis(200);
pub use crate::flags::{MAX_CAPTURE_NS, MIN_CAPTURE_NS};
/// Oldest server a capture reads.
pub const MIN_VERSION_NUM: i32 = 150_000;

/// What to capture.
#[derive(Clone, Debug)]
pub struct CaptureOptions {
    /// libpq connection string or URI (the PG* variables and files fill what it leaves out).
    pub dsn: String,
    /// Capture interval.
    pub interval_ns: u64,
    /// The server's CPUs, when the user gives them (else counted where possible).
    pub cpus: Option<u32>,
}

/// A characterization of the interval, what the reader should know, and the server's
/// settings as it reports them (name, value with its unit).
#[derive(Clone, Debug)]
pub struct Capture {
    pub characterization: Characterization,
    pub warnings: Vec<String>,
    pub settings: Vec<(String, String)>,
}

/// Connects, captures the interval and returns its characterization. Bad input (the DSN,
/// the interval, a refused login, a server older than 15) is [`DbError::BadInput`].
pub fn capture(opts: &CaptureOptions) -> Result<Capture, DbError> {
    flags::CAPTURE
        .check_flag("--capture", flags::span(opts.interval_ns))
        .map_err(DbError::BadInput)?;
    if let Some(n) = opts.cpus {
        flags::CPUS
            .check_flag("--cpus", flags::count(u64::from(n)))
            .map_err(DbError::BadInput)?;
    }
    let resolved = conninfo::resolve(&opts.dsn, &Lookup::from_process())
        .map_err(|e| DbError::BadInput(format!("--dsn: {e}")))?;
    for note in &resolved.notes {
        eprintln!("storlab: warning: {note}");
    }
    storlab_io::signal::install();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| DbError::Failed(format!("cannot start the async runtime: {e}")))?;
    rt.block_on(run(opts, &resolved.config, &resolved.target))
}

async fn run(opts: &CaptureOptions, config: &Config, target: &str) -> Result<Capture, DbError> {
    let c = match config.connect(tokio_postgres::NoTls).await {
        Ok((client, connection)) => {
            tokio::spawn(async move {
                let _ = connection.await;
            });
            client
        }
        Err(e) => {
            let (bad_input, text) = conninfo::connect_failure(target, &e);
            return Err(if bad_input {
                DbError::BadInput(text)
            } else {
                DbError::Failed(text)
            });
        }
    };
    c.batch_execute(
        "SET default_transaction_read_only = on; SET statement_timeout = '30s'; \
         SET lock_timeout = '5s'; SET stats_fetch_consistency = snapshot; \
         SET application_name = 'storlab capture'",
    )
    .await?;
    let mut server = server_info(&c, config, target).await?;
    let version_num = version_num(&c).await?;
    if version_num < MIN_VERSION_NUM {
        return Err(DbError::BadInput(format!(
            "--dsn: {target} runs PostgreSQL {}; a capture needs 15 or later",
            server.version
        )));
    }
    let settings = read_settings(&c).await?;
    server.settings = settings.clone();
    // The user's count, else this machine's for a local server, else the server's own.
    if opts.cpus.is_some() {
        server.cpus = opts.cpus;
    } else if server.cpus.is_none() {
        server.cpus = server_cpus(&c).await;
    }
    let mut warnings = Vec::new();
    let statements = statements_schema(&c).await?;
    let schema = match statements {
        Ok(schema) => Some(schema),
        Err(why) => {
            warnings.push(format!(
                "{why}: logical and physical reads come from pg_stat_database, blocks changed \
                 from pg_stat_wal, statements per transaction are unknown"
            ));
            None
        }
    };
    // Every statement of the window is prepared before it: a preparation is a transaction.
    let snapshot = Snapshot::prepare(&c, version_num, schema.as_deref()).await?;
    let sample = c.prepare(&sample_sql()).await?;
    let with_statements = schema.is_some();
    let before = Snapshot::take(&c, &snapshot, with_statements).await?;
    let start = Instant::now();
    let end = start + Duration::from_nanos(opts.interval_ns);
    let sessions = sample_until(&c, &sample, end).await?;
    let after = Snapshot::take(&c, &snapshot, with_statements).await?;
    let secs = start.elapsed().as_secs_f64();
    server.database = database(&c).await?;
    // The capture's own transactions in the window: the first snapshot's read, the samples
    // and the flush before the second snapshot (each snapshot has the capture's statistics
    // flushed first, so its counters hold every transaction the capture committed before).
    let own = sessions.samples as f64 + 2.0;
    let window = window(&before, &after, secs, own, sessions, server, &mut warnings);
    let (characterization, more) = build::characterize(&window).map_err(DbError::Failed)?;
    warnings.extend(more);
    Ok(Capture {
        characterization,
        warnings,
        settings,
    })
}

/// The differences between two snapshots.
fn window(
    before: &Snapshot,
    after: &Snapshot,
    secs: f64,
    own_transactions: f64,
    sessions: SessionTally,
    server: ServerInfo,
    warnings: &mut Vec<String>,
) -> Window {
    let d = |a: f64, b: f64| (b - a).max(0.0);
    let (b, a) = (&before.db, &after.db);
    let db = snapshot::DbCounters {
        commits: d(b.commits, a.commits),
        rollbacks: d(b.rollbacks, a.rollbacks),
        blks_read: d(b.blks_read, a.blks_read),
        blks_hit: d(b.blks_hit, a.blks_hit),
        tup_inserted: d(b.tup_inserted, a.tup_inserted),
        temp_bytes: d(b.temp_bytes, a.temp_bytes),
    };
    let (b, a) = (&before.cluster, &after.cluster);
    let cluster = snapshot::ClusterCounters {
        wal_records: d(b.wal_records, a.wal_records),
        wal_bytes: d(b.wal_bytes, a.wal_bytes),
        checkpoints: d(b.checkpoints, a.checkpoints),
        blocks_written: d(b.blocks_written, a.blocks_written),
    };
    if cluster.checkpoints > 0.0 {
        warnings.push(format!(
            "{} checkpoint(s) ran during the capture: their writes and the full-page images \
             after them are in the physical writes and the WAL per transaction",
            cluster.checkpoints
        ));
    }
    let statements = match (&before.statements, &after.statements) {
        (Some(b), Some(a)) => {
            let (sum, reset) = snapshot::statements_delta(b, a);
            if reset {
                warnings.push(
                    "pg_stat_statements dropped or reset entries during the capture (raise \
                     pg_stat_statements.max?): their counters count from zero"
                        .into(),
                );
            }
            Some(sum)
        }
        _ => None,
    };
    Window {
        secs,
        db,
        cluster,
        statements,
        own_transactions,
        sessions,
        relations: relations(&before.relations, &after.relations),
        server,
    }
}

/// Each relation's accesses and scanned blocks in the window, with its size at the end.
fn relations(
    before: &HashMap<u32, snapshot::RelCounters>,
    after: &HashMap<u32, snapshot::RelCounters>,
) -> Vec<RelWindow> {
    after
        .iter()
        .map(|(oid, a)| {
            let b = before.get(oid);
            let accesses = a.accesses - b.map_or(0.0, |b| b.accesses);
            let scans = a.seq_scans - b.map_or(0.0, |b| b.seq_scans);
            RelWindow {
                name: a.name.clone(),
                index: a.index,
                tablespace: a.tablespace.clone(),
                bytes: a.bytes,
                scanned_blocks: scans.max(0.0) * a.heap_blocks,
                accesses: accesses.max(0.0),
            }
        })
        .collect()
}

/// The sample of the database's client backends (the capture's own left out).
fn sample_sql() -> String {
    format!(
        "SELECT {TAG} state, coalesce(wait_event_type, 'CPU'), \
         coalesce(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity \
         WHERE backend_type = 'client backend' AND datname = current_database() \
           AND pid <> pg_backend_pid()"
    )
}

/// Samples the database's client backends with `stmt` ([`sample_sql`]) until `end`; an
/// error when a stop is requested.
async fn sample_until(c: &Client, stmt: &Statement, end: Instant) -> Result<SessionTally, DbError> {
    let mut t = SessionTally {
        interval_s: SAMPLE.as_secs_f64(),
        ..SessionTally::default()
    };
    let started = Instant::now();
    let mut next = Instant::now();
    loop {
        if storlab_io::signal::stop_requested() {
            return Err(DbError::Failed(format!(
                "interrupted after {:.1} s of the capture; nothing was written (a shorter \
                 window is not the interval asked for)",
                started.elapsed().as_secs_f64()
            )));
        }
        let now = Instant::now();
        if now >= end {
            return Ok(t);
        }
        if now >= next {
            next = now + SAMPLE;
            t.samples += 1;
            for r in c.query(stmt, &[]).await? {
                let state: Option<String> = r.get(0);
                t.connected += 1;
                if state.as_deref() == Some("active") {
                    t.active += 1;
                    let e = t.events.entry(r.get(2)).or_insert((r.get(1), 0));
                    e.1 += 1;
                }
            }
        }
        let wake = next.min(end).saturating_duration_since(Instant::now());
        tokio::time::sleep(wake.min(Duration::from_millis(50))).await;
    }
}

async fn version_num(c: &Client) -> Result<i32, DbError> {
    let v: String = c
        .query_one(
            "SELECT /* storlab capture */ current_setting('server_version_num')",
            &[],
        )
        .await?
        .get(0);
    v.trim()
        .parse()
        .map_err(|_| DbError::Failed(format!("cannot read server_version_num {v:?}")))
}

async fn database(c: &Client) -> Result<String, DbError> {
    Ok(
        c.query_one("SELECT /* storlab capture */ current_database()::text", &[])
            .await?
            .get(0),
    )
}

/// Version, sizes of the buffers and the WAL, and the CPUs when the server is local.
async fn server_info(c: &Client, config: &Config, target: &str) -> Result<ServerInfo, DbError> {
    let r = c
        .query_one(
            "SELECT /* storlab capture */ current_setting('server_version'), \
             current_setting('block_size')::int4, \
             pg_size_bytes(current_setting('shared_buffers'))::int8, \
             pg_size_bytes(current_setting('wal_buffers'))::int8, \
             pg_size_bytes(current_setting('max_wal_size'))::int8, current_database()::text",
            &[],
        )
        .await?;
    let local = config.get_hosts().iter().all(|h| match h {
        tokio_postgres::config::Host::Tcp(name) => {
            matches!(name.as_str(), "localhost" | "127.0.0.1" | "::1")
        }
        tokio_postgres::config::Host::Unix(_) => true,
    });
    let cpus = local
        .then(|| std::thread::available_parallelism().ok())
        .flatten()
        .map(|n| n.get().min(4096) as u32);
    Ok(ServerInfo {
        version: r.get(0),
        block_bytes: r.get::<_, i32>(1).max(512) as u32,
        shared_buffers_bytes: r.get::<_, i64>(2).max(0) as u64,
        wal_buffers_bytes: r.get::<_, i64>(3).max(0) as u64,
        max_wal_size_bytes: r.get::<_, i64>(4).max(0) as u64,
        database: r.get(5),
        target: target.to_string(),
        cpus,
        settings: Vec::new(),
    })
}

/// The settings of `[instance.settings]` as the server has them, with units (`32MB`,
/// `5min`); those this version lacks are left out.
async fn read_settings(c: &Client) -> Result<Vec<(String, String)>, DbError> {
    let names: Vec<&str> = SETTINGS_KEYS.iter().map(|k| k.name).collect();
    let rows = c
        .query(
            "SELECT /* storlab capture */ name, current_setting(name) FROM unnest($1::text[]) \
             AS name WHERE current_setting(name, true) IS NOT NULL ORDER BY name",
            &[&names],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// The server's CPUs from its own /proc/cpuinfo (Linux), read with pg_read_file: a read of a
/// file, allowed to superusers and members of pg_read_server_files; None when not allowed
/// or not Linux.
async fn server_cpus(c: &Client) -> Option<u32> {
    let row = c
        .query_one(
            "SELECT /* storlab capture */ count(*)::int8 FROM regexp_matches(\
             pg_read_file('/proc/cpuinfo'), '^processor\\s*:', 'gn')",
            &[],
        )
        .await
        .ok()?;
    let n: i64 = row.get(0);
    u32::try_from(n).ok().filter(|n| (1..=4096).contains(n))
}

/// The schema of pg_stat_statements in the connected database, or why it cannot be read
/// (not created there, not preloaded, not permitted). It is never created.
async fn statements_schema(c: &Client) -> Result<Result<String, String>, DbError> {
    let find = "SELECT /* storlab capture */ n.nspname::text FROM pg_extension e \
                JOIN pg_namespace n ON n.oid = e.extnamespace \
                WHERE e.extname = 'pg_stat_statements'";
    let Some(row) = c.query_opt(find, &[]).await? else {
        return Ok(Err(
            "pg_stat_statements is not installed in this database (storlab never creates it)"
                .into(),
        ));
    };
    let schema: String = row.get(0);
    let probe = format!(
        "SELECT {TAG} 1 FROM {}.pg_stat_statements LIMIT 1",
        quote_ident(&schema)
    );
    match c.batch_execute(&probe).await {
        Ok(()) => Ok(Ok(quote_ident(&schema))),
        Err(e) => match e.as_db_error() {
            Some(d) if d.code() == &SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE => Ok(Err(
                "pg_stat_statements is not in the server's shared_preload_libraries".into(),
            )),
            Some(d) => Ok(Err(format!(
                "pg_stat_statements cannot be read ({})",
                d.message()
            ))),
            None => Err(e.into()),
        },
    }
}

/// A SQL identifier, quoted.
fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}
