//! One test of a run: its setup, clients, warm-up and measured window, and the evidence.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use storlab_core::result::Run;
use storlab_io::diskstats::{devices_for_path, DiskSampler};
use tokio_postgres::Client;

use super::stop::{cancellable, interrupted, wait_until};
use super::Conn;
use crate::cluster::Cluster;
use crate::driver::{connect, ClientResult, ClientSpec, ClientThreads, Window};
use crate::error::DbError;
use crate::evidence::statements::{Statements, StatementsSnapshot};
use crate::evidence::{sample_waits, Snapshot};
use crate::options::DbOptions;
use crate::report::{build_run, RoleSampler, TestMeasured};
use crate::suites::{orabench, TestDef};

/// What every test of a run shares.
pub(super) struct Context<'a> {
    pub opts: &'a DbOptions,
    pub conn: &'a Conn,
    pub admin: &'a Client,
    pub version: &'a str,
    pub version_num: i32,
    /// Where the per-statement profile comes from (or why there is none).
    pub statements: &'a Statements,
    /// Whether CHECKPOINT may be run (storlab's own cluster, or `--checkpoint`).
    pub checkpoint: bool,
}

/// Statements of the window: the top 10 by execution time.
const TOP_STATEMENTS: usize = 10;

pub(super) async fn run_test(ctx: &Context<'_>, test: TestDef) -> Result<Run, DbError> {
    let (opts, conn, admin) = (ctx.opts, ctx.conn, ctx.admin);
    let setup = orabench::setup_test(admin, test.op, &opts.schema, opts.scale);
    cancellable(admin, &format!("the setup of {}", test.name), setup).await?;
    let clients = opts.clients.unwrap_or(test.default_clients);
    let mut roles = RoleSampler::new(
        &conn.roles,
        |p| devices_for_path(p).ok(),
        |d| DiskSampler::new(d).ok(),
    );
    if test.once {
        return run_once(ctx, test, roles).await;
    }
    // Without a warm-up the window opens as the clients start: the counters are read before
    // they do, as a session publishes the statistics of its first transaction at once (and
    // then at most once a second), before a snapshot taken once they run could see it.
    let opening = if opts.warmup_ns == 0 && !opts.warmup_auto {
        let server = Snapshot::take(admin, ctx.version_num).await?;
        Some((
            server,
            StatementsSnapshot::take(admin, ctx.statements).await?,
        ))
    } else {
        None
    };
    let start = Instant::now();
    // An automatic warm-up ends the window at the limit until the run is steady.
    let w = Window::new(
        start + Duration::from_nanos(opts.warmup_ns),
        start + Duration::from_nanos(opts.warmup_ns + opts.duration_ns),
    );
    let threads = ClientThreads::start(
        clients,
        &ClientSpec {
            config: conn.config.clone(),
            test,
            schema: opts.schema.clone(),
            scale: opts.scale,
            seed: opts.seed,
            window: w.clone(),
            think: opts.think,
            flush_stats: ctx.version_num >= 150_000,
        },
    )?;
    let warmed = if opts.warmup_auto {
        super::warmup::until_steady(admin, &w, start, opts).await
    } else {
        wait_until(w.measure_from()).await.then_some(None)
    };
    let Some(warmup) = warmed else {
        w.stop.store(true, Ordering::SeqCst);
        threads.join().await;
        return Err(interrupted(&format!("the warm-up of {}", test.name)));
    };
    let measure_from = w.measure_from();
    // storlab's own monitoring (the wait sampler's queries, the snapshots) runs in server
    // backends too: their CPU is measured and left out of the server's.
    let sampler = Arc::new(connect(&conn.config).await?);
    let backend_pid = "SELECT pg_backend_pid()";
    let monitors: [i32; 2] = [
        admin.query_one(backend_pid, &[]).await?.get(0),
        sampler.query_one(backend_pid, &[]).await?.get(0),
    ];
    let monitors_cpu = |c: &Cluster| c.backends_cpu(&monitors);
    let cpu0 = process_cpu();
    let server_cpu0 = conn.cluster.as_ref().and_then(Cluster::server_cpu);
    let monitor_cpu0 = conn.cluster.as_ref().and_then(monitors_cpu);
    let (before, stmts_before) = match opening {
        Some(counters) => counters,
        None => (
            Snapshot::take(admin, ctx.version_num).await?,
            StatementsSnapshot::take(admin, ctx.statements).await?,
        ),
    };
    roles.restart();
    let sampler_stop = Arc::new(AtomicBool::new(false));
    let waits = tokio::spawn(sample_waits(sampler.clone(), sampler_stop.clone()));
    let mut next = measure_from + Duration::from_secs(1);
    while Instant::now() < w.end() && !storlab_io::signal::stop_requested() && !threads.finished() {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if Instant::now() >= next {
            roles.sample(next.duration_since(measure_from).as_secs_f64());
            next += Duration::from_secs(1);
        }
    }
    w.stop.store(true, Ordering::SeqCst);
    let mut total = threads.join().await;
    sampler_stop.store(true, Ordering::SeqCst);
    let stopped = Instant::now();
    let cpu = process_cpu().saturating_sub(cpu0);
    // The sampler's last query done; its connection (and backend) lives on until the CPU
    // is read.
    let tally = waits.await.unwrap_or_default();
    let delta = |after: Option<Duration>, before: Option<Duration>| {
        after.zip(before).map(|(a, b)| a.saturating_sub(b))
    };
    let monitor_cpu = delta(conn.cluster.as_ref().and_then(monitors_cpu), monitor_cpu0);
    let server_cpu = delta(
        conn.cluster.as_ref().and_then(Cluster::server_cpu),
        server_cpu0,
    )
    .map(|s| s.saturating_sub(monitor_cpu.unwrap_or_default()));
    drop(sampler);
    let window = stopped.min(w.end()).saturating_duration_since(measure_from);
    roles.sample(window.as_secs_f64().max(1e-3));
    let after = Snapshot::take(admin, ctx.version_num).await?;
    let server = before.diff(&after, window.as_secs_f64());
    if let Some(e) = total.error.take() {
        if total.ops == 0 {
            return Err(DbError::Failed(format!("{}: {e}", test.name)));
        }
        total.error = Some(e);
    }
    let stmts = stmts_before.top(
        &StatementsSnapshot::take(admin, ctx.statements).await?,
        TOP_STATEMENTS,
    );
    let mut run = build_run(TestMeasured {
        opts,
        test,
        clients,
        version: ctx.version,
        settings: &conn.settings,
        label: &conn.label,
        result: total,
        window,
        waits: tally.top(5, &server.wait_means),
        server,
        statements: stmts,
        roles: roles.summaries(),
        partial: storlab_io::signal::stop_requested(),
        client_cpu: Some(cpu),
        server_cpu,
        monitor_cpu,
        extra_notes: ctx.statements.note().into_iter().collect(),
    });
    super::warmup::judge(&mut run, warmup, measure_from.duration_since(start));
    Ok(run)
}

async fn run_once(
    ctx: &Context<'_>,
    test: TestDef,
    mut roles: RoleSampler,
) -> Result<Run, DbError> {
    let (opts, conn, admin) = (ctx.opts, ctx.conn, ctx.admin);
    let before = Snapshot::take(admin, ctx.version_num).await?;
    let stmts_before = StatementsSnapshot::take(admin, ctx.statements).await?;
    roles.restart();
    let t0 = Instant::now();
    let once = orabench::orabench_once(
        admin,
        test.op,
        &opts.schema,
        opts.scale,
        opts.tablespace.as_deref(),
        ctx.checkpoint,
    );
    let out = cancellable(admin, test.name, once).await?;
    let window = t0.elapsed();
    roles.sample(window.as_secs_f64().max(1e-3));
    let after = Snapshot::take(admin, ctx.version_num).await?;
    let mut result = ClientResult {
        rows: out.rows,
        ops: 1,
        bytes: out.bytes,
        per_second: vec![(1, out.rows)],
        ..ClientResult::default()
    };
    result.all.record(window.as_nanos() as u64);
    result
        .latency
        .entry("test")
        .or_default()
        .record(window.as_nanos() as u64);
    let stmts = stmts_before.top(
        &StatementsSnapshot::take(admin, ctx.statements).await?,
        TOP_STATEMENTS,
    );
    let mut extra_notes: Vec<String> = ctx.statements.note().into_iter().collect();
    if !ctx.checkpoint {
        extra_notes.push(
            "no CHECKPOINT at the end (someone else's server; --checkpoint allows it): the \
             time leaves out writing the new data out"
                .to_string(),
        );
    }
    let mut run = build_run(TestMeasured {
        opts,
        test,
        clients: 1,
        version: ctx.version,
        settings: &conn.settings,
        label: &conn.label,
        result,
        window,
        server: before.diff(&after, window.as_secs_f64()),
        waits: Vec::new(),
        statements: stmts,
        roles: roles.summaries(),
        partial: false,
        client_cpu: None,
        server_cpu: None,
        monitor_cpu: None,
        extra_notes,
    });
    // One timed statement: no series that could still be settling.
    storlab_core::steady::set(&mut run, storlab_core::steady::Verdict::Steady);
    Ok(run)
}

/// CPU time (user + system) of this process: the driver's own cost.
fn process_cpu() -> Duration {
    // SAFETY: getrusage fills the struct.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}
