//! One database run: start (or reach) the server, load the suite, run each test with its
//! clients while sampling waits and devices, gather the evidence, stop and clean up.
//!
//! On someone else's server (`--dsn`) storlab works only in a schema it creates and marks
//! (`schema`), reads statement statistics as differences (never resets them), runs no
//! CHECKPOINT unless asked, and drops its schema at the end (success, failure, interrupt)
//! unless `--keep-schema`. Ctrl-C or SIGTERM cancels the statement running on the server
//! (the load, a test's setup, a client's statement) and the run ends within about a second,
//! keeping what was measured.

mod stop;
mod test;
mod warmup;

use std::path::PathBuf;

use storlab_core::result::Run;
use tokio_postgres::{Client, Config};

use crate::cluster::{find_binaries, Cluster, ClusterSpec};
use crate::conninfo::{self, Lookup};
use crate::driver::connect;
use crate::error::DbError;
use crate::evidence::settings::{storage_settings, with_server_values};
use crate::options::{DbOptions, DsnServer, Server};
use crate::schema;
use crate::suites::{self, TestDef};
use stop::{cancellable, interrupted};

/// The server a run talks to.
struct Conn {
    config: Config,
    /// Where, for messages: `host H port P, database D as user U`.
    target: String,
    cluster: Option<Cluster>,
    /// Someone else's server, and what the user allowed on it.
    dsn: Option<DsnServer>,
    /// Role paths for the device view: (role, path).
    roles: Vec<(String, PathBuf)>,
    settings: Vec<(String, String)>,
    label: String,
}

fn start_server(opts: &DbOptions, max_clients: u32) -> Result<Conn, DbError> {
    match &opts.server {
        Server::Dsn(d) => {
            let resolved = conninfo::resolve(&d.dsn, &Lookup::from_process())
                .map_err(|e| DbError::BadInput(format!("--dsn: {e}")))?;
            for note in &resolved.notes {
                eprintln!("storlab: warning: {note}");
            }
            Ok(Conn {
                config: resolved.config,
                target: resolved.target,
                cluster: None,
                dsn: Some(d.clone()),
                roles: Vec::new(),
                settings: Vec::new(),
                label: "existing server (--dsn)".into(),
            })
        }
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
            let conninfo = cluster.conninfo("postgres");
            let config = conninfo.parse().map_err(|e| {
                DbError::Failed(format!("the cluster's connection string {conninfo}: {e}"))
            })?;
            Ok(Conn {
                config,
                target: format!("the cluster in {}", data_dir.display()),
                settings: cluster.settings_in_effect(),
                label: data_dir.display().to_string(),
                cluster: Some(cluster),
                dsn: None,
                roles,
            })
        }
    }
}

/// Runs the suite's tests; one result per test. The cluster is stopped and removed, or on
/// `--dsn` storlab's schema dropped, when this returns, whatever happened. An interrupted
/// run returns the tests measured so far (the one stopped marked partial), or an error
/// saying "interrupted" when nothing was measured yet.
pub fn run_db(opts: &DbOptions) -> Result<Vec<Run>, DbError> {
    let tests = suites::find(&opts.suite, &opts.test).map_err(DbError::BadInput)?;
    opts.validate().map_err(DbError::BadInput)?;
    check_space(opts, tests[0].suite)?;
    storlab_io::signal::install();
    let max_clients = tests
        .iter()
        .map(|t| opts.clients.unwrap_or(t.default_clients))
        .max()
        .unwrap_or(1);
    let mut conn = start_server(opts, max_clients)?;
    let result = if storlab_io::signal::stop_requested() {
        Err(interrupted("the server's start"))
    } else {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| DbError::Failed(format!("cannot start the async runtime: {e}")))?;
        rt.block_on(session(opts, &mut conn, &tests))
    };
    if let Some(cluster) = conn.cluster {
        if storlab_io::signal::stop_requested() {
            // Its data is thrown away anyway: no shutdown checkpoint to wait for.
            cluster.stop_immediately()?;
            return result;
        }
        if result.is_err() && !cluster.is_running() {
            let tail = cluster.log_tail(20);
            let _ = cluster.stop();
            return result.map_err(|e| DbError::Failed(format!("{e}\nserver log:\n{tail}")));
        }
        cluster.stop()?;
    }
    result
}

/// Connects, claims the schema, runs the tests, and on `--dsn` drops the schema again
/// (unless `--keep-schema`) whatever the tests did.
async fn session(
    opts: &DbOptions,
    conn: &mut Conn,
    tests: &[TestDef],
) -> Result<Vec<Run>, DbError> {
    let admin = match conn.config.connect(tokio_postgres::NoTls).await {
        Ok((client, connection)) => {
            tokio::spawn(async move {
                let _ = connection.await;
            });
            client
        }
        Err(e) => {
            let (bad_input, text) = conninfo::connect_failure(&conn.target, &e);
            return Err(if bad_input {
                DbError::BadInput(text)
            } else {
                DbError::Failed(text)
            });
        }
    };
    schema::claim(&admin, &opts.schema).await?;
    let result = run_tests(opts, conn, &admin, tests).await;
    if let Some(d) = &conn.dsn {
        if !d.keep_schema {
            drop_schema(&admin, &conn.config, &opts.schema).await;
        }
    }
    result
}

/// Drops storlab's schema (over a new connection if the old one broke); warns when it has
/// to be kept.
async fn drop_schema(admin: &Client, config: &Config, schema: &str) {
    let kept = if admin.is_closed() {
        match connect(config).await {
            Ok(c) => schema::drop_owned(&c, schema).await,
            Err(e) => Some(e.to_string()),
        }
    } else {
        schema::drop_owned(admin, schema).await
    };
    if let Some(why) = kept {
        eprintln!("storlab: warning: schema {schema} was kept: {why}");
    }
}

async fn run_tests(
    opts: &DbOptions,
    conn: &mut Conn,
    admin: &Client,
    tests: &[TestDef],
) -> Result<Vec<Run>, DbError> {
    conn.settings = with_server_values(&conn.settings, storage_settings(admin).await?);
    let conn = &*conn;
    let version: String = admin.query_one("SHOW server_version", &[]).await?.get(0);
    let version_num: i32 = admin
        .query_one("SHOW server_version_num", &[])
        .await?
        .get::<_, String>(0)
        .parse()
        .map_err(|_| DbError::Failed("cannot read server_version_num".into()))?;
    let statements = schema::statements_extension(admin, &opts.schema).await?;
    if let Some(note) = statements.note() {
        eprintln!("storlab: warning: {note}");
    }
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
    let load = suites::load(
        admin,
        tests[0].suite,
        &opts.schema,
        opts.scale,
        opts.tablespace.as_deref(),
    );
    let during = format!("the load of the {} tables", tests[0].suite);
    cancellable(admin, &during, load).await?;
    schema::mark_objects(admin, &opts.schema).await?;
    let checkpoint = conn.dsn.as_ref().is_none_or(|d| d.checkpoint);
    if checkpoint {
        cancellable(admin, "the checkpoint after the load", async {
            Ok(admin.batch_execute("CHECKPOINT").await?)
        })
        .await?;
    }
    let ctx = test::Context {
        opts,
        conn,
        admin,
        version: &version,
        version_num,
        statements: &statements,
        checkpoint,
    };
    let mut runs = Vec::new();
    for t in tests {
        if storlab_io::signal::stop_requested() {
            break;
        }
        match test::run_test(&ctx, *t).await {
            Ok(run) => runs.push(run),
            // Interrupted between measurements: the finished tests are the result.
            Err(_) if storlab_io::signal::stop_requested() && !runs.is_empty() => break,
            Err(e) => return Err(e),
        }
    }
    if runs.is_empty() && storlab_io::signal::stop_requested() {
        return Err(interrupted("the run"));
    }
    Ok(runs)
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
    scale.saturating_mul(per_row)
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
