//! Tests against the real PostgreSQL server binaries of this machine (run with
//! `--test-threads=1`: each test starts its own throwaway clusters).

use std::fs;
use std::os::unix::fs::PermissionsExt;

use super::*;

mod leftovers;

fn bins() -> Binaries {
    find_binaries(None).expect("PostgreSQL server binaries")
}

/// A scratch directory the server user can reach: under the current directory if possible,
/// else under /tmp (tempfile makes its directories 0700; opened to 0755 here).
pub(crate) fn scratch() -> tempfile::TempDir {
    let make = |parent: &str| {
        let dir = tempfile::Builder::new()
            .prefix("storlab-cl-")
            .tempdir_in(parent)
            .ok()?;
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).ok()?;
        Some(dir)
    };
    let user = os::server_user().expect("server user");
    let reachable = |d: &tempfile::TempDir| match &user {
        Some(u) => dirs::check_reachable(&d.path().join("x"), "test", u).is_ok(),
        None => true,
    };
    match make(".") {
        Some(here) if reachable(&here) => here,
        _ => make("/tmp").expect("temp dir under /tmp"),
    }
}

/// Command lines of all processes that mention `needle`.
fn processes_mentioning(needle: &Path) -> Vec<String> {
    let needle = needle.display().to_string();
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").expect("/proc").flatten() {
        if let Ok(raw) = fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&raw).replace('\0', " ");
            if cmd.contains(&needle) {
                found.push(cmd);
            }
        }
    }
    found
}

fn connect(c: &Cluster) -> postgres::Client {
    postgres::Client::connect(&c.conninfo("postgres"), postgres::NoTls).expect("connect")
}

fn show(client: &mut postgres::Client, sql: &str) -> String {
    client.query_one(sql, &[]).expect(sql).get(0)
}

/// Tests that start clusters run one at a time (here and in other modules): `emergency_stop_all`
/// stops every cluster of the process, and the machine has two cores.
static CLUSTER_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) fn one_cluster_test_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    CLUSTER_TESTS.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn finds_the_installed_server() {
    let b = bins();
    assert!(b.major >= MIN_MAJOR, "{b:?}");
    if Path::new("/usr/lib/postgresql/15/bin/pg_ctl").exists() {
        assert_eq!(b.major, 15, "{b:?}");
        assert!(b.version.starts_with("15."), "{b:?}");
    }
    assert!(b.program("pg_ctl").is_file());
}

#[test]
fn explicit_missing_dir_is_not_installed() {
    let err = find_binaries(Some(Path::new("/nonexistent/pg/bin"))).unwrap_err();
    assert!(matches!(err, ClusterError::NotInstalled { .. }), "{err:?}");
    assert!(err.is_bad_input());
    let msg = err.to_string();
    assert!(msg.contains("apt-get install postgresql"), "{msg}");
    assert!(
        msg.contains("/nonexistent/pg/bin") && msg.contains("--pg-bin"),
        "{msg}"
    );
}

#[test]
fn explicit_dir_and_pg_ctl_path_are_accepted() {
    let b = bins();
    let again = find_binaries(Some(&b.bindir)).expect("explicit dir");
    assert_eq!(again.version, b.version);
    let via_pg_ctl = find_binaries(Some(&b.program("pg_ctl"))).expect("pg_ctl path");
    assert_eq!(via_pg_ctl.bindir, b.bindir);
}

#[test]
fn parses_versions() {
    let v = binaries::parse_version("postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n");
    assert_eq!(v, Some(("15.18".to_string(), 15)));
    let v = binaries::parse_version("postgres (PostgreSQL) 17devel");
    assert_eq!(v, Some(("17devel".to_string(), 17)));
    let v = binaries::parse_version("postgres (PostgreSQL) 9.6.24");
    assert_eq!(v, Some(("9.6.24".to_string(), 9)));
    assert_eq!(binaries::parse_version("garbage"), None);
}

#[test]
fn settings_are_quoted_merged_and_checked() {
    assert_eq!(conf::quote("it's"), "'it''s'");
    let defaults = conf::defaults(Path::new("/tmp/s"), 50001, 0, 15);
    let extra = vec![
        ("Shared_Buffers".to_string(), "'64MB'".to_string()),
        ("work_mem".to_string(), "8MB".to_string()),
    ];
    let merged = conf::merge(&defaults, &extra);
    let get = |k: &str| merged.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("shared_buffers"), Some("64MB"));
    assert_eq!(get("max_connections"), Some("120"));
    assert_eq!(get("listen_addresses"), Some(""));
    assert_eq!(merged.last().map(|(k, _)| k.as_str()), Some("work_mem"));
    let text = conf::render(&defaults, &extra);
    assert!(text.contains("Shared_Buffers = '64MB'\n"), "{text}");
    assert!(text.find("shared_buffers = '32MB'") < text.find("Shared_Buffers"));
    assert!(!conf::defaults(Path::new("/s"), 1, 5, 13)
        .iter()
        .any(|(k, _)| k == "track_wal_io_timing"));
    for (name, value) in [
        ("listen_addresses", "*"),
        ("a b", "1"),
        ("x", "1\n2"),
        ("PORT", "1"),
    ] {
        let err = conf::validate(&[(name.to_string(), value.to_string())]).unwrap_err();
        assert!(err.is_bad_input(), "{err}");
    }
}

#[test]
fn full_lifecycle_with_separate_wal_and_tablespace() {
    let _one = one_cluster_test_at_a_time();
    let b = bins();
    let tmp = scratch();
    let spec = ClusterSpec {
        data_dir: tmp.path().join("new/data"),
        wal_dir: Some(tmp.path().join("wal")),
        tablespaces: vec![("ts1".into(), tmp.path().join("ts1"))],
        settings: vec![("work_mem".into(), "8MB".into())],
        max_connections: 0,
    };
    let c = Cluster::start(&b, &spec).expect("start");
    assert!(c.is_running());
    assert_eq!(c.user(), "storlab");
    let conninfo = c.conninfo("postgres");
    assert!(
        conninfo.starts_with(&format!(
            "host={} port={}",
            c.socket_dir().display(),
            c.port()
        )),
        "{conninfo}"
    );
    assert!(c
        .socket_dir()
        .join(format!(".s.PGSQL.{}", c.port()))
        .exists());

    let mut client = connect(&c);
    let one: i32 = client.query_one("SELECT 1", &[]).expect("select").get(0);
    assert_eq!(one, 1);
    let data = show(&mut client, "SHOW data_directory");
    assert_eq!(Path::new(&data), c.data_dir());
    assert_eq!(show(&mut client, "SHOW shared_buffers"), "32MB");
    assert_eq!(show(&mut client, "SHOW work_mem"), "8MB");
    assert_eq!(show(&mut client, "SHOW listen_addresses"), "");
    assert_eq!(show(&mut client, "SHOW fsync"), "on");
    let timing = "SELECT setting FROM pg_settings WHERE name='track_io_timing'";
    assert_eq!(show(&mut client, timing), "on");
    client
        .batch_execute("CREATE EXTENSION pg_stat_statements")
        .expect("extension");
    let n: i64 = client
        .query_one("SELECT count(*) FROM pg_stat_statements", &[])
        .expect("pg_stat_statements is preloaded")
        .get(0);
    assert!(n > 0);
    let ts = tmp.path().join("ts1").canonicalize().expect("ts dir");
    let create_ts = format!("CREATE TABLESPACE ts1 LOCATION '{}'", ts.display());
    client.batch_execute(&create_ts).expect("tablespace");
    client
        .batch_execute(
            "CREATE TABLE t (x int) TABLESPACE ts1; INSERT INTO t SELECT generate_series(1, 1000)",
        )
        .expect("table in tablespace");
    assert!(fs::read_dir(&ts).expect("ts").count() > 0);
    drop(client);

    let wal = c.wal_dir().expect("wal dir").to_path_buf();
    assert_eq!(
        fs::read_link(c.data_dir().join("pg_wal")).expect("symlink"),
        wal
    );
    assert!(fs::read_dir(&wal).expect("wal").count() > 1);
    let settings = c.settings_in_effect();
    assert!(settings.contains(&("shared_buffers".into(), "32MB".into())));
    assert!(settings.contains(&("work_mem".into(), "8MB".into())));
    assert!(c.log_tail(5).lines().count() > 0);

    let (data_dir, socket_dir) = (c.data_dir().to_path_buf(), c.socket_dir().to_path_buf());
    c.stop().expect("stop");
    assert!(processes_mentioning(&data_dir).is_empty());
    for gone in [&data_dir, &wal, &ts, &socket_dir, &tmp.path().join("new")] {
        assert!(!gone.exists(), "{} still exists", gone.display());
    }
    assert_eq!(fs::read_dir(tmp.path()).expect("tmp").count(), 0);
}

#[test]
fn drop_without_stop_cleans_up() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let spec = ClusterSpec {
        data_dir: tmp.path().join("data"),
        ..Default::default()
    };
    let c = Cluster::start(&bins(), &spec).expect("start");
    let (data_dir, socket_dir) = (c.data_dir().to_path_buf(), c.socket_dir().to_path_buf());
    assert!(c.is_running());
    drop(c);
    assert!(processes_mentioning(&data_dir).is_empty());
    assert!(!data_dir.exists() && !socket_dir.exists());
}

#[test]
fn existing_empty_dir_is_emptied_and_kept() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let data = tmp.path().join("data");
    fs::create_dir(&data).expect("mkdir");
    fs::set_permissions(&data, fs::Permissions::from_mode(0o750)).expect("chmod");
    let spec = ClusterSpec {
        data_dir: data.clone(),
        max_connections: 20,
        ..Default::default()
    };
    let c = Cluster::start(&bins(), &spec).expect("start");
    let mut client = connect(&c);
    assert_eq!(show(&mut client, "SHOW max_connections"), "20");
    drop(client);
    c.stop().expect("stop");
    assert!(data.is_dir());
    assert_eq!(fs::read_dir(&data).expect("data").count(), 0);
    let meta = fs::metadata(&data).expect("meta");
    assert_eq!(meta.permissions().mode() & 0o777, 0o750);
}

#[test]
fn non_empty_data_dir_is_refused_untouched() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let data = tmp.path().join("data");
    fs::create_dir(&data).expect("mkdir");
    fs::write(data.join("precious"), b"keep me").expect("write");
    let spec = ClusterSpec {
        data_dir: data.clone(),
        wal_dir: Some(tmp.path().join("wal")),
        ..Default::default()
    };
    let err = Cluster::start(&bins(), &spec).expect_err("refused");
    assert!(matches!(err, ClusterError::BadDirectory { .. }), "{err:?}");
    assert!(err.is_bad_input());
    assert!(err.to_string().contains("not empty"), "{err}");
    assert_eq!(fs::read(data.join("precious")).expect("read"), b"keep me");
    assert_eq!(fs::read_dir(&data).expect("data").count(), 1);
    assert!(!tmp.path().join("wal").exists());
}

#[test]
fn overlapping_and_file_paths_are_refused() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let spec = ClusterSpec {
        data_dir: tmp.path().join("data"),
        wal_dir: Some(tmp.path().join("data/wal")),
        ..Default::default()
    };
    let err = Cluster::start(&bins(), &spec).expect_err("refused");
    assert!(err.to_string().contains("overlaps"), "{err}");
    fs::write(tmp.path().join("file"), b"").expect("write");
    let spec = ClusterSpec {
        data_dir: tmp.path().join("file"),
        ..Default::default()
    };
    let err = Cluster::start(&bins(), &spec).expect_err("refused");
    assert!(err.to_string().contains("not a directory"), "{err}");
    assert_eq!(fs::read_dir(tmp.path()).expect("tmp").count(), 1);
}

#[test]
fn untraversable_parent_is_reported() {
    let _one = one_cluster_test_at_a_time();
    let Some(user) = os::server_user().expect("server user") else {
        return; // only meaningful when root hands the server to another user
    };
    let tmp = scratch();
    let locked = tmp.path().join("locked");
    fs::create_dir(&locked).expect("mkdir");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o700)).expect("chmod");
    let spec = ClusterSpec {
        data_dir: locked.join("data"),
        ..Default::default()
    };
    let err = Cluster::start(&bins(), &spec).expect_err("refused");
    let msg = err.to_string();
    assert!(matches!(err, ClusterError::BadDirectory { .. }), "{err:?}");
    assert!(
        msg.contains("cannot traverse") && msg.contains(&user.name),
        "{msg}"
    );
    assert_eq!(fs::read_dir(&locked).expect("locked").count(), 0);
}

#[test]
fn two_clusters_at_once_and_emergency_stop() {
    let _one = one_cluster_test_at_a_time();
    let b = bins();
    let tmp = scratch();
    let spec = |name: &str| ClusterSpec {
        data_dir: tmp.path().join(name),
        ..Default::default()
    };
    let a = Cluster::start(&b, &spec("a")).expect("start a");
    let c = Cluster::start(&b, &spec("b")).expect("start b");
    assert_ne!(a.port(), c.port());
    assert_ne!(a.socket_dir(), c.socket_dir());
    for cl in [&a, &c] {
        let mut client = connect(cl);
        assert_eq!(
            show(&mut client, "SHOW data_directory"),
            cl.data_dir().display().to_string()
        );
    }
    emergency_stop_all();
    for cl in [&a, &c] {
        assert!(!cl.is_running());
        assert!(processes_mentioning(cl.data_dir()).is_empty());
        assert!(!cl.data_dir().exists() && !cl.socket_dir().exists());
    }
    a.stop().expect("stop after emergency stop is a no-op");
    drop(c);
}

#[test]
fn failed_start_reports_log_and_cleans_up() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let spec = ClusterSpec {
        data_dir: tmp.path().join("data"),
        settings: vec![("shared_buffers".into(), "not-a-size".into())],
        ..Default::default()
    };
    let err = Cluster::start(&bins(), &spec).expect_err("fails");
    let msg = err.to_string();
    // The caller's setting is at fault: bad input, naming it and the server's complaint.
    assert!(matches!(err, ClusterError::BadSetting { .. }), "{err:?}");
    assert!(err.is_bad_input());
    assert!(
        msg.contains("setting `shared_buffers`") && msg.contains("not-a-size"),
        "{msg}"
    );
    assert!(!tmp.path().join("data").exists());
    let spec = ClusterSpec {
        data_dir: tmp.path().join("data"),
        settings: vec![("nosuchsetting".into(), "1".into())],
        ..Default::default()
    };
    let err = Cluster::start(&bins(), &spec).expect_err("fails");
    assert!(
        err.is_bad_input() && err.to_string().contains("setting `nosuchsetting`"),
        "{err}"
    );
    assert!(!tmp.path().join("data").exists());
}

#[test]
fn a_running_server_in_the_data_directory_is_named() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let data = tmp.path().join("data");
    let a = Cluster::start(
        &bins(),
        &ClusterSpec {
            data_dir: data.clone(),
            ..Default::default()
        },
    )
    .expect("start");
    let pid = os::postmaster_pid(&data).expect("pid");
    let err = dirs::check(&data, "data directory").expect_err("in use");
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("postmaster pid {pid}")) && msg.contains("stop it"),
        "{msg}"
    );
    // Without storlab's marker the server is the user's: storlab does not tell them to stop
    // it and remove their directory.
    let marker = data.join(super::leftovers::MARKER);
    let token = fs::read(&marker).expect("marker");
    fs::remove_file(&marker).expect("rm marker");
    let msg = dirs::check(&data, "data directory")
        .expect_err("in use")
        .to_string();
    fs::write(&marker, token).expect("marker back");
    assert!(
        msg.contains("did not start") && !msg.contains("remove the directory"),
        "{msg}"
    );
    a.stop().expect("stop");
}

#[test]
fn two_directories_under_one_missing_parent_are_created_and_removed() {
    let tmp = scratch();
    let parent = tmp.path().join("new");
    let data = dirs::check(&parent.join("data"), "data directory").expect("data");
    let wal = dirs::check(&parent.join("wal"), "WAL directory").expect("wal");
    let mut owned = Vec::new();
    dirs::prepare(&data, 0o700, None, &mut owned).expect("data made");
    dirs::prepare(&wal, 0o700, None, &mut owned).expect("wal made under the same new parent");
    assert!(parent.join("data").is_dir() && parent.join("wal").is_dir());
    dirs::cleanup(&owned).expect("cleanup");
    assert!(!parent.exists(), "the parent it created is removed too");
}

/// A file the user put into the data directory while the cluster ran is not storlab's: the
/// server is stopped, the rest removed, that directory left as it is.
#[test]
fn a_directory_the_user_added_a_file_to_during_the_run_is_left_in_place() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let spec = ClusterSpec {
        data_dir: tmp.path().join("left").join("data"),
        ..Default::default()
    };
    let cluster = Cluster::start(&bins(), &spec).expect("start");
    let data = cluster.data_dir().to_path_buf();
    let socket_dir = cluster.socket_dir().to_path_buf();
    fs::write(data.join("notes.txt"), b"user data").expect("write");
    let err = cluster.stop().expect_err("the directory is kept");
    let msg = err.to_string();
    assert!(
        msg.contains("left in place") && msg.contains("notes.txt"),
        "{msg}"
    );
    assert_eq!(fs::read(data.join("notes.txt")).unwrap(), b"user data");
    assert!(!os::postmaster_running(&data), "the server is stopped");
    assert!(!socket_dir.exists(), "what is storlab's alone is removed");
}
