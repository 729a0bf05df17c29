//! The database suite against a real PostgreSQL that the tests start (never a mock).

use std::path::{Path, PathBuf};

use storlab_core::result::Run;
use storlab_db::cluster::{find_binaries, Cluster, ClusterSpec};
use storlab_db::options::{DsnServer, Server};
use storlab_db::{run_db, DbError, DbOptions};

mod majors;
mod safety;
mod transactions;

/// One cluster at a time: the machine has two cores.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn scratch() -> tempfile::TempDir {
    // /tmp: traversable by the unprivileged server user (target/ may sit under a 0700 home).
    tempfile::Builder::new()
        .prefix("storlab-db-test")
        .tempdir_in("/tmp")
        .expect("temp dir")
}

fn options(server: Server, suite: &str, test: &str, scale: u64) -> DbOptions {
    DbOptions {
        server,
        suite: suite.into(),
        test: test.into(),
        clients: Some(4),
        scale,
        duration_ns: 1_000_000_000,
        warmup_ns: 0,
        warmup_auto: false,
        seed: 1,
        schema: "storlab".into(),
        tablespace: None,
        think: None,
    }
}

/// An existing server whose storlab schema is kept at the end, for tests that look at it.
fn kept(dsn: String) -> Server {
    Server::Dsn(DsnServer {
        dsn,
        checkpoint: false,
        keep_schema: true,
    })
}

fn start(dir: &Path) -> Cluster {
    let bins = find_binaries(None).expect("PostgreSQL server binaries (make test installs them)");
    Cluster::start(
        &bins,
        &ClusterSpec {
            data_dir: dir.join("data"),
            max_connections: 60,
            ..ClusterSpec::default()
        },
    )
    .expect("cluster starts")
}

fn query_i64(conninfo: &str, sql: &str) -> i64 {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (c, conn) = tokio_postgres::connect(conninfo, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        let v: i64 = c.query_one(sql, &[]).await.unwrap().get(0);
        v
    })
}

fn exec(conninfo: &str, sql: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (c, conn) = tokio_postgres::connect(conninfo, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        c.batch_execute(sql).await.unwrap();
    });
}

fn one(runs: Vec<Run>) -> Run {
    assert_eq!(runs.len(), 1);
    runs.into_iter().next().unwrap()
}

const DPAWS_VERSIONS: &str = "SELECT (SELECT sum(version) FROM storlab.dpaws_01) + (SELECT sum(version) FROM storlab.dpaws_08) + (SELECT sum(version) FROM storlab.dpaws_15)";

#[test]
fn every_dpaws_and_oltp_test_runs_and_changes_what_it_says() {
    let _s = serial();
    let dir = scratch();
    let cluster = start(dir.path());
    let dsn = cluster.conninfo("postgres");
    // select-row first: it loads the tables, and changes nothing.
    let mut before = -1;
    for test in ["select-row", "update-row", "update-range", "select-range"] {
        let run = one(run_db(&options(kept(dsn.clone()), "dpaws", test, 12_000))
            .unwrap_or_else(|e| panic!("{test}: {e}")));
        let m = &run.metrics;
        assert!(m.rows_per_s.unwrap() > 0.0, "{test}");
        assert_eq!(run.workload.name, format!("dpaws/{test}"));
        assert!(!m.waits.is_empty(), "{test}: waits sampled");
        let after = query_i64(&dsn, &format!("SELECT ({DPAWS_VERSIONS})::bigint"));
        if test.starts_with("update") {
            assert!(after > before, "{test}: versions {before} -> {after}");
            assert!(m.wal_mb_per_s.unwrap() > 0.0, "{test}: WAL written");
        } else if before >= 0 {
            assert_eq!(after, before, "{test} changes nothing");
        } else {
            assert_eq!(after, 0, "freshly loaded tables");
        }
        before = after;
        if test == "select-row" {
            // Rows are counted from the reply's tag, not decoded: still one per statement.
            assert_eq!(m.rows_per_s, Some(m.iops), "{test}: one row per statement");
        }
        if test.ends_with("range") {
            assert!(
                m.rows_per_s.unwrap() > 1000.0 * m.iops,
                "{test}: thousands of rows per statement"
            );
        }
    }
    assert_eq!(
        query_i64(&dsn, "SELECT count(*) FROM storlab.dpaws_07"),
        12_000
    );
    let run = one(run_db(&options(kept(dsn.clone()), "oltp", "medium", 2_000)).unwrap());
    assert!(
        run.metrics.commit_ms.is_some(),
        "write transactions time their commit"
    );
    assert!(query_i64(&dsn, "SELECT count(*) FROM storlab.oltp_hist") > 0);
    cluster.stop().unwrap();
}

#[test]
fn every_orabench_test_runs_and_changes_what_it_says() {
    let _s = serial();
    let dir = scratch();
    let cluster = start(dir.path());
    let dsn = cluster.conninfo("postgres");
    let scale = 20_000;
    for test in storlab_db::suites::tests_of("orabench") {
        let run = one(run_db(&options(kept(dsn.clone()), "orabench", test, scale))
            .unwrap_or_else(|e| panic!("{test}: {e}")));
        assert!(run.metrics.rows_per_s.unwrap() > 0.0, "{test}");
        let db = run.db.as_ref().unwrap();
        match test {
            "load-conventional" => {
                assert!(query_i64(&dsn, "SELECT count(*) FROM storlab.ob_load") > 0);
                assert!(run.metrics.commit_ms.is_some());
                assert!(db.wal.bytes > 0);
            }
            "load-bulk" => {
                assert!(query_i64(&dsn, "SELECT count(*) FROM storlab.ob_load") >= 10_000)
            }
            "update-random" => assert!(db.wal.records > 0),
            "insert-select" => assert!(query_i64(&dsn, "SELECT count(*) FROM storlab.ob_copy") > 0),
            "delete-batched" => {
                assert!(query_i64(&dsn, "SELECT count(*) FROM storlab.ob_del") < scale as i64)
            }
            "create-table-size" => assert!(run.metrics.mbps > 0.0, "MB/s of new table"),
            _ => {}
        }
    }
    assert_eq!(
        query_i64(&dsn, "SELECT count(*) FROM storlab.ob_big"),
        scale as i64
    );
    assert_eq!(
        query_i64(
            &dsn,
            "SELECT count(*) FROM pg_inherits WHERE inhparent = 'storlab.ob_big'::regclass"
        ),
        32
    );
    cluster.stop().unwrap();
}

fn postgres_running_on(dir: &Path) -> bool {
    let needle = dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        std::fs::read(p.path().join("cmdline"))
            .map(|c| {
                String::from_utf8_lossy(&c).contains(&needle)
                    && String::from_utf8_lossy(&c).contains("postgres")
            })
            .unwrap_or(false)
    })
}

#[test]
fn an_ephemeral_cluster_on_data_and_wal_paths_maps_roles_and_cleans_up() {
    let _s = serial();
    let dir = scratch();
    let (data, wal) = (dir.path().join("data"), dir.path().join("wal"));
    let server = Server::Ephemeral {
        data_dir: data.clone(),
        wal_dir: Some(wal.clone()),
        tablespaces: vec![("ts1".into(), dir.path().join("ts1"))],
        pg_bin: None,
        settings: vec![("shared_buffers".into(), "16MB".into())],
    };
    let mut o = options(server, "dpaws", "update-row", 2_000);
    o.tablespace = Some("ts1".into());
    let run = one(run_db(&o).unwrap());
    let db = run.db.as_ref().unwrap();
    let roles: Vec<&str> = db.roles.iter().map(|r| r.role.as_str()).collect();
    assert_eq!(roles, ["data", "wal", "tablespace:ts1"]);
    assert!(
        db.roles.iter().all(|r| !r.devices.is_empty()),
        "each role has its devices"
    );
    assert_eq!(
        db.settings.get("shared_buffers").map(String::as_str),
        Some("16MB")
    );
    assert!(db.wal.syncs > 0 && db.wal.bytes > 0);
    assert!(!db.statements.is_empty() && db.statements[0].calls > 0);
    assert!(
        run.series.iter().any(|p| p.rows_per_s.unwrap_or(0.0) > 0.0),
        "rows per second series"
    );
    let tool = run.tool.as_ref().expect("the driver's own cost");
    assert!(tool.cpu_ns_per_io > 0.0 && tool.achieved_iops > 0.0);
    assert!(
        !data.exists() && !wal.exists() && !dir.path().join("ts1").exists(),
        "everything storlab created is gone"
    );
    assert!(!postgres_running_on(&data));
}

#[test]
fn dsn_mode_touches_only_its_own_schema() {
    let _s = serial();
    let dir = scratch();
    let cluster = start(dir.path());
    let dsn = cluster.conninfo("postgres");
    exec(&dsn, "CREATE TABLE public.precious (id int); INSERT INTO public.precious SELECT generate_series(1, 100);");
    let mut o = options(kept(dsn.clone()), "dpaws", "update-row", 1_000);
    o.schema = "bench".into();
    one(run_db(&o).unwrap());
    assert_eq!(query_i64(&dsn, "SELECT count(*) FROM public.precious"), 100);
    assert_eq!(
        query_i64(
            &dsn,
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'bench'"
        ),
        15
    );
    assert_eq!(
        query_i64(
            &dsn,
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'storlab'"
        ),
        0
    );
    cluster.stop().unwrap();
}

/// A server without pg_stat_statements in shared_preload_libraries: the run goes on, the
/// result has no per-statement profile and says why, and every other part is there.
#[test]
fn a_server_without_pg_stat_statements_runs_without_the_statement_profile() {
    let _s = serial();
    let dir = scratch();
    let bins = find_binaries(None).expect("PostgreSQL server binaries (make test installs them)");
    let cluster = Cluster::start(
        &bins,
        &ClusterSpec {
            data_dir: dir.path().join("data"),
            max_connections: 60,
            settings: vec![("shared_preload_libraries".into(), String::new())],
            ..ClusterSpec::default()
        },
    )
    .expect("cluster starts");
    let dsn = cluster.conninfo("postgres");
    let run = one(run_db(&options(kept(dsn), "dpaws", "update-row", 1_000)).unwrap());
    assert!(run.metrics.ios > 0, "{:?}", run.metrics);
    assert!(run.metrics.rows_per_s.unwrap() > 0.0);
    assert!(
        run.metrics.latency_ms.p50 > 0.0,
        "{:?}",
        run.metrics.latency_ms
    );
    let db = run.db.as_ref().unwrap();
    assert!(db.statements.is_empty(), "{:?}", db.statements);
    assert!(db.wal.records > 0, "the WAL evidence is kept: {:?}", db.wal);
    assert!(db.pg_stat_io.is_some());
    let said = |n: &String| {
        n.contains("no per-statement block profile")
            && n.contains("not in the server's shared_preload_libraries")
    };
    assert!(db.notes.iter().any(said), "{:?}", db.notes);
    assert!(run.warnings.iter().any(said), "{:?}", run.warnings);
    cluster.stop().unwrap();
}

#[test]
fn pg_stat_io_is_in_the_result_or_reported_unavailable_with_the_server_version() {
    let _s = serial();
    let dir = scratch();
    let cluster = start(dir.path());
    let dsn = cluster.conninfo("postgres");
    let version_num = query_i64(&dsn, "SELECT current_setting('server_version_num')::int8");
    let run = one(run_db(&options(kept(dsn), "dpaws", "select-row", 1_000)).unwrap());
    let db = run.db.as_ref().unwrap();
    let io = db
        .pg_stat_io
        .as_ref()
        .expect("a pg_stat_io section, filled or not");
    let json = serde_json::to_value(&run).unwrap();
    if version_num < 160_000 {
        let major_minor = db.server_version.split_whitespace().next().unwrap();
        assert_eq!(
            io.unavailable.as_deref(),
            Some(
                format!("pg_stat_io needs PostgreSQL 16 or later; the server is {major_minor}")
                    .as_str()
            ),
        );
        assert!(io.rows.is_empty());
        assert_eq!(
            json["db"]["pg_stat_io"],
            serde_json::json!({ "unavailable": io.unavailable }),
            "the JSON says so too, and nothing else"
        );
    } else {
        assert_eq!(io.unavailable, None);
        assert!(
            io.rows
                .iter()
                .any(|r| r.backend_type == "client backend" && r.hits > 0),
            "select-row hits shared buffers: {:?}",
            io.rows
        );
    }
    cluster.stop().unwrap();
}

#[test]
fn bad_input_is_refused_and_nothing_is_left_running() {
    let _s = serial();
    let dir = scratch();
    let data: PathBuf = dir.path().join("full");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("keep.txt"), b"mine").unwrap();
    let server = Server::Ephemeral {
        data_dir: data.clone(),
        wal_dir: None,
        tablespaces: Vec::new(),
        pg_bin: None,
        settings: Vec::new(),
    };
    let e = run_db(&options(server, "dpaws", "update-row", 100)).unwrap_err();
    assert!(matches!(e, DbError::BadInput(_)), "{e}");
    assert_eq!(std::fs::read(data.join("keep.txt")).unwrap(), b"mine");
    let huge = Server::Ephemeral {
        data_dir: dir.path().join("huge"),
        wal_dir: None,
        tablespaces: Vec::new(),
        pg_bin: None,
        settings: Vec::new(),
    };
    let e = run_db(&options(huge, "dpaws", "update-row", 900_000_000)).unwrap_err();
    assert!(
        matches!(e, DbError::BadInput(_)) && e.to_string().contains("needs about"),
        "{e}"
    );
    assert!(
        !dir.path().join("huge").exists(),
        "refused before anything was created"
    );
    let e = run_db(&options(kept("host=/nonexistent".into()), "tpcc", "x", 100)).unwrap_err();
    assert!(e.to_string().contains("dpaws"), "{e}");
    assert!(!postgres_running_on(&data));
}

#[test]
fn an_automatic_warmup_that_runs_out_is_measured_and_marked_unsteady() {
    let _s = serial();
    let dir = scratch();
    let cluster = start(dir.path());
    let dsn = cluster.conninfo("postgres");
    let opts = DbOptions {
        warmup_ns: 3_000_000_000,
        warmup_auto: true,
        ..options(kept(dsn), "dpaws", "select-row", 2_000)
    };
    let run = one(run_db(&opts).unwrap_or_else(|e| panic!("{e}")));
    assert!(run.workload.warmup_auto);
    // The limit is shorter than the test's window: the warm-up runs to it, then the window.
    assert!(
        (3.0..4.0).contains(&run.workload.warmup_s),
        "warm-up {} s",
        run.workload.warmup_s
    );
    assert!(run.metrics.rows_per_s.unwrap_or(0.0) > 0.0);
    assert!(!run.steady);
    let reason = run.steady_reason.unwrap_or_default();
    assert!(
        reason.starts_with("no steady state within the 3") && reason.contains("warm-up limit"),
        "{reason}"
    );
}
