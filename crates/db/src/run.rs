//! One database run: start (or reach) the server, load the suite, run each test with its
//! clients while sampling waits and devices, gather the evidence, stop and clean up.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use storlab_core::result::Run;
use storlab_io::diskstats::{devices_for_path, DiskSampler};

use crate::cluster::{find_binaries, Cluster, ClusterSpec};
use crate::driver::{connect, ClientResult, ClientSpec, ClientThreads, Window};
use crate::error::DbError;
use crate::evidence::settings::{storage_settings, with_server_values};
use crate::evidence::{reset_statements, sample_waits, statements, Snapshot};
use crate::options::{DbOptions, Server};
use crate::report::{build_run, RoleSampler, TestMeasured};
use crate::suites::{self, orabench, TestDef};

/// The server a run talks to.
struct Conn {
    conninfo: String,
    cluster: Option<Cluster>,
    /// Role paths for the device view: (role, path).
    roles: Vec<(String, PathBuf)>,
    settings: Vec<(String, String)>,
    label: String,
}

fn start_server(opts: &DbOptions, max_clients: u32) -> Result<Conn, DbError> {
    match &opts.server {
        Server::Dsn(dsn) => Ok(Conn {
            conninfo: dsn.clone(),
            cluster: None,
            roles: Vec::new(),
            settings: Vec::new(),
            label: "existing server (--dsn)".into(),
        }),
        Server::Ephemeral {
            data_dir,
            wal_dir,
            tablespaces,
            pg_bin,
            settings,
        } => {
            let bins = find_binaries(pg_bin.as_deref())?;
            let spec = ClusterSpec {
                data_dir: data_dir.clone(),
                wal_dir: wal_dir.clone(),
                tablespaces: tablespaces.clone(),
                settings: settings.clone(),
                max_connections: max_clients + 20,
            };
            let cluster = Cluster::start(&bins, &spec)?;
            let mut roles = vec![("data".to_string(), data_dir.clone())];
            roles.push((
                "wal".to_string(),
                wal_dir.clone().unwrap_or_else(|| data_dir.join("pg_wal")),
            ));
            for (name, path) in tablespaces {
                roles.push((format!("tablespace:{name}"), path.clone()));
            }
            Ok(Conn {
                conninfo: cluster.conninfo("postgres"),
                settings: cluster.settings_in_effect(),
                label: data_dir.display().to_string(),
                cluster: Some(cluster),
                roles,
            })
        }
    }
}

/// Runs the suite's tests; one result per test. The cluster is stopped and removed when this
/// returns, whatever happened.
pub fn run_db(opts: &DbOptions) -> Result<Vec<Run>, DbError> {
    let tests = suites::find(&opts.suite, &opts.test).map_err(DbError::BadInput)?;
    if opts.scale == 0 {
        return Err(DbError::BadInput("--scale must be at least 1".into()));
    }
    check_space(opts, tests[0].suite)?;
    storlab_io::signal::install();
    let max_clients = tests
        .iter()
        .map(|t| opts.clients.unwrap_or(t.default_clients))
        .max()
        .unwrap_or(1);
    let mut conn = start_server(opts, max_clients)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| DbError::Failed(format!("cannot start the async runtime: {e}")))?;
    let result = rt.block_on(run_tests(opts, &mut conn, &tests));
    if let Some(cluster) = conn.cluster {
        if result.is_err() && !cluster.is_running() {
            let tail = cluster.log_tail(20);
            let _ = cluster.stop();
            return result.map_err(|e| DbError::Failed(format!("{e}\nserver log:\n{tail}")));
        }
        cluster.stop()?;
    }
    result
}

async fn run_tests(
    opts: &DbOptions,
    conn: &mut Conn,
    tests: &[TestDef],
) -> Result<Vec<Run>, DbError> {
    let admin = connect(&conn.conninfo).await?;
    conn.settings = with_server_values(&conn.settings, storage_settings(&admin).await?);
    let conn = &*conn;
    let version: String = admin.query_one("SHOW server_version", &[]).await?.get(0);
    let version_num: i32 = admin
        .query_one("SHOW server_version_num", &[])
        .await?
        .get::<_, String>(0)
        .parse()
        .map_err(|_| DbError::Failed("cannot read server_version_num".into()))?;
    admin
        .batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        .await
        .map_err(|e| {
            DbError::BadInput(format!(
                "pg_stat_statements is needed (shared_preload_libraries): {}",
                DbError::from(e)
            ))
        })?;
    if let Server::Ephemeral { tablespaces, .. } = &opts.server {
        for (name, path) in tablespaces {
            admin
                .batch_execute(&format!(
                    "CREATE TABLESPACE {name} LOCATION '{}'",
                    path.display()
                ))
                .await?;
        }
    }
    suites::load(
        &admin,
        tests[0].suite,
        &opts.schema,
        opts.scale,
        opts.tablespace.as_deref(),
    )
    .await?;
    admin.batch_execute("CHECKPOINT").await?;
    let mut runs = Vec::new();
    for test in tests {
        if storlab_io::signal::stop_requested() {
            break;
        }
        runs.push(run_test(opts, conn, &admin, *test, &version, version_num).await?);
    }
    Ok(runs)
}

async fn run_test(
    opts: &DbOptions,
    conn: &Conn,
    admin: &tokio_postgres::Client,
    test: TestDef,
    version: &str,
    version_num: i32,
) -> Result<Run, DbError> {
    orabench::setup_test(admin, test.op, &opts.schema, opts.scale).await?;
    let clients = opts.clients.unwrap_or(test.default_clients);
    let mut roles = RoleSampler::new(
        &conn.roles,
        |p| devices_for_path(p).ok(),
        |d| DiskSampler::new(d).ok(),
    );
    let start = Instant::now();
    let w = Window {
        measure_from: start + Duration::from_nanos(opts.warmup_ns),
        end: start + Duration::from_nanos(opts.warmup_ns + opts.duration_ns),
        stop: Arc::new(AtomicBool::new(false)),
    };
    if test.once {
        return run_once(opts, conn, admin, test, version, version_num, roles).await;
    }
    let threads = ClientThreads::start(
        clients,
        &ClientSpec {
            conninfo: conn.conninfo.clone(),
            test,
            schema: opts.schema.clone(),
            scale: opts.scale,
            seed: opts.seed,
            window: w.clone(),
        },
    )?;
    // Warm-up, then the window: snapshots, waits, devices.
    tokio::time::sleep_until(w.measure_from.into()).await;
    // storlab's own monitoring (the wait sampler's queries, the snapshots) runs in server
    // backends too: their CPU is measured and left out of the server's.
    let sampler = Arc::new(connect(&conn.conninfo).await?);
    let backend_pid = "SELECT pg_backend_pid()";
    let monitors: [i32; 2] = [
        admin.query_one(backend_pid, &[]).await?.get(0),
        sampler.query_one(backend_pid, &[]).await?.get(0),
    ];
    let monitors_cpu = |c: &Cluster| c.backends_cpu(&monitors);
    let cpu0 = process_cpu();
    let server_cpu0 = conn.cluster.as_ref().and_then(Cluster::server_cpu);
    let monitor_cpu0 = conn.cluster.as_ref().and_then(monitors_cpu);
    let before = Snapshot::take(admin, version_num).await?;
    reset_statements(admin).await?;
    roles.restart();
    let sampler_stop = Arc::new(AtomicBool::new(false));
    let waits = tokio::spawn(sample_waits(sampler.clone(), sampler_stop.clone()));
    let mut next = w.measure_from + Duration::from_secs(1);
    while Instant::now() < w.end && !storlab_io::signal::stop_requested() && !threads.finished() {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if Instant::now() >= next {
            roles.sample(next.duration_since(w.measure_from).as_secs_f64());
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
    let window = stopped.min(w.end).saturating_duration_since(w.measure_from);
    roles.sample(window.as_secs_f64().max(1e-3));
    let after = Snapshot::take(admin, version_num).await?;
    let server = before.diff(&after, window.as_secs_f64());
    if let Some(e) = total.error.take() {
        if total.ops == 0 {
            return Err(DbError::Failed(format!("{}: {e}", test.name)));
        }
        total.error = Some(e);
    }
    let stmts = statements(admin, 10).await?;
    Ok(build_run(TestMeasured {
        opts,
        test,
        clients,
        version,
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
    }))
}

async fn run_once(
    opts: &DbOptions,
    conn: &Conn,
    admin: &tokio_postgres::Client,
    test: TestDef,
    version: &str,
    version_num: i32,
    mut roles: RoleSampler,
) -> Result<Run, DbError> {
    let before = Snapshot::take(admin, version_num).await?;
    reset_statements(admin).await?;
    roles.restart();
    let t0 = Instant::now();
    let out = orabench::orabench_once(
        admin,
        test.op,
        &opts.schema,
        opts.scale,
        opts.tablespace.as_deref(),
    )
    .await?;
    let window = t0.elapsed();
    roles.sample(window.as_secs_f64().max(1e-3));
    let after = Snapshot::take(admin, version_num).await?;
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
    let stmts = statements(admin, 10).await?;
    Ok(build_run(TestMeasured {
        opts,
        test,
        clients: 1,
        version,
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
    }))
}

/// CPU time (user + system) of this process: the driver's own cost.
fn process_cpu() -> Duration {
    // SAFETY: getrusage fills the struct.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Bytes a suite's tables and indexes take at `scale` (heap rows with their 24-byte headers
/// and line pointers, plus the primary-key index), a deliberately generous estimate.
fn estimated_bytes(suite: &str, scale: u64) -> u64 {
    let per_row = match suite {
        // 15 tables, rows of 14..805 bytes (mean ~410) + headers + index entry.
        "dpaws" => 15 * (410 + 28 + 24),
        // ~300-byte rows, the copy targets filled by the tests included.
        "orabench" => 3 * (300 + 28 + 24),
        _ => 140 + 28 + 24,
    };
    scale * per_row
}

/// Refuses a scale the data directory's file system cannot hold (estimated first).
fn check_space(opts: &DbOptions, suite: &str) -> Result<(), DbError> {
    let Server::Ephemeral { data_dir, .. } = &opts.server else {
        return Ok(());
    };
    let mut dir = data_dir.as_path();
    while !dir.exists() {
        match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => dir = p,
            _ => return Ok(()),
        }
    }
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return Ok(());
    };
    // SAFETY: statvfs fills the struct for a valid C string.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return Ok(());
    }
    let free = s.f_bavail as u64 * s.f_frsize as u64;
    // Tables, plus WAL and checkpoint headroom.
    let need = estimated_bytes(suite, opts.scale) * 3 / 2 + (256 << 20);
    if free < need {
        return Err(DbError::BadInput(format!(
            "{}: --scale {} needs about {:.1} GB free for the {suite} tables, WAL and headroom; {:.1} GB free. Lower --scale or use another --data-dir",
            dir.display(),
            opts.scale,
            need as f64 / 1e9,
            free as f64 / 1e9
        )));
    }
    Ok(())
}
