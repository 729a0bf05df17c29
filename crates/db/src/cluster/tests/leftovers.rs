//! A storlab killed with its cluster running: the next start stops and removes what it
//! left, but only what is provably still storlab's.

use std::fs;
use std::path::{Path, PathBuf};

use super::super::*;
use super::{bins, one_cluster_test_at_a_time, scratch};

#[test]
fn a_cluster_left_by_a_killed_process_is_stopped_and_removed_by_the_next_start() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let data = tmp.path().join("left").join("data");
    let spec = ClusterSpec {
        data_dir: data.clone(),
        ..Default::default()
    };
    let cluster = Cluster::start(&bins(), &spec).expect("start");
    let data = cluster.data_dir().to_path_buf();
    let pid = os::postmaster_pid(&data).expect("pid file");
    // As if this process had been killed: the record says a storlab process that is gone
    // (pid 0 never has a start time) started it, and nothing stops the cluster.
    let teardown = take(cluster.id).expect("registered");
    let record = teardown.record.clone().expect("a record is kept");
    let mut text: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&record).unwrap()).unwrap();
    text["pid"] = 0.into();
    fs::write(&record, text.to_string()).unwrap();
    drop(cluster);
    assert!(
        os::postmaster_running(&data),
        "still running: nobody stopped it"
    );
    let again = Cluster::start(&bins(), &spec).expect("the next start cleans up and proceeds");
    let mut old = teardown.child.expect("the first postmaster");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while old.try_wait().expect("wait").is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "old server {pid} still runs"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!record.exists(), "the old record is removed");
    assert_ne!(
        os::postmaster_pid(&data),
        Some(pid),
        "a new server in the same place"
    );
    again.stop().expect("stop");
    assert!(
        !data.exists() && !data.parent().unwrap().exists(),
        "directories removed"
    );
}

/// Starts a cluster and leaves it as a killed storlab would (its record on disk, its
/// directories in place) with its server stopped; returns the teardown, the record and the
/// socket directory.
fn left_behind(spec: &ClusterSpec) -> (Teardown, PathBuf, PathBuf) {
    let cluster = Cluster::start(&bins(), spec).expect("start");
    let socket_dir = cluster.socket_dir().to_path_buf();
    let mut teardown = take(cluster.id).expect("registered");
    drop(cluster);
    let mut child = teardown.child.take().expect("the postmaster");
    // SAFETY: our own child; SIGQUIT is PostgreSQL's immediate shutdown.
    unsafe { libc::kill(child.id() as i32, libc::SIGQUIT) };
    child.wait().expect("wait");
    let record = teardown.record.clone().expect("a record is kept");
    (teardown, record, socket_dir)
}

/// Makes `record` say its storlab process is gone (pid 0 never has a start time), sweeps,
/// and returns what the sweep said about `dir`.
fn sweep_as_if_killed(record: &Path, dir: &Path) -> Vec<String> {
    let mut text: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(record).expect("record")).expect("json");
    text["pid"] = 0.into();
    fs::write(record, text.to_string()).expect("write record");
    let needle = dir.display().to_string();
    let said = leftovers::sweep();
    said.into_iter().filter(|s| s.contains(&needle)).collect()
}

#[test]
fn a_leftover_directory_replaced_by_the_users_is_left_untouched() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let spec = ClusterSpec {
        data_dir: tmp.path().join("left").join("data"),
        ..Default::default()
    };
    let (teardown, record, socket_dir) = left_behind(&spec);
    let data = teardown.data_dir.clone();
    // The user removes the leftover and makes their own directory at the same path.
    fs::remove_dir_all(&data).expect("rm");
    fs::create_dir(&data).expect("mkdir");
    fs::write(data.join("mine"), b"user data").expect("write");
    let said = sweep_as_if_killed(&record, &data);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("has changed since") && said[0].contains("left untouched"),
        "{said:?}"
    );
    assert_eq!(fs::read(data.join("mine")).expect("kept"), b"user data");
    assert!(!record.exists(), "the record is dropped");
    assert!(socket_dir.exists(), "nothing of that cluster touched");
    fs::remove_dir_all(&socket_dir).expect("rm socket dir");
}

#[test]
fn an_emptied_directory_holding_the_users_files_is_left_untouched() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let data = tmp.path().join("data");
    fs::create_dir(&data).expect("mkdir");
    let spec = ClusterSpec {
        data_dir: data.clone(),
        ..Default::default()
    };
    let (teardown, record, socket_dir) = left_behind(&spec);
    let data = teardown.data_dir.clone();
    // The user clears storlab's files out of their directory and puts their own in.
    for entry in fs::read_dir(&data).expect("ls").flatten() {
        let path = entry.path();
        if path.is_dir() {
            fs::remove_dir_all(&path).expect("rm dir");
        } else {
            fs::remove_file(&path).expect("rm file");
        }
    }
    fs::write(data.join("mine"), b"user data").expect("write");
    let said = sweep_as_if_killed(&record, &data);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("left untouched"), "{said:?}");
    assert_eq!(fs::read(data.join("mine")).expect("kept"), b"user data");
    assert_eq!(fs::read_dir(&data).expect("ls").count(), 1);
    assert!(!record.exists(), "the record is dropped");
    fs::remove_dir_all(&socket_dir).expect("rm socket dir");
}

#[test]
fn a_server_the_user_started_in_a_leftover_directory_is_not_stopped() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let spec = ClusterSpec {
        data_dir: tmp.path().join("data"),
        ..Default::default()
    };
    let (teardown, record, socket_dir) = left_behind(&spec);
    let data = teardown.data_dir.clone();
    // The user starts their own server on storlab's leftover, with their own socket dir.
    let sock = tmp.path().join("sock");
    fs::create_dir(&sock).expect("mkdir");
    if let Some(u) = &teardown.user {
        std::os::unix::fs::chown(&sock, Some(u.uid), Some(u.gid)).expect("chown");
    }
    let mut cmd = os::server_command(&bins().program("postgres"), teardown.user.as_ref());
    cmd.arg("-D").arg(&data).arg("-k").arg(&sock);
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut theirs = cmd.spawn().expect("their server");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while os::postmaster_pid(&data) != Some(theirs.id() as i32) || !os::postmaster_running(&data) {
        assert!(std::time::Instant::now() < deadline, "their server starts");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let said = sweep_as_if_killed(&record, &data);
    let running = os::postmaster_running(&data);
    // SAFETY: our own child; SIGQUIT is PostgreSQL's immediate shutdown.
    unsafe { libc::kill(theirs.id() as i32, libc::SIGQUIT) };
    theirs.wait().expect("wait");
    assert!(running, "their server was stopped");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("did not start") && said[0].contains("left untouched"),
        "{said:?}"
    );
    assert!(data.join("PG_VERSION").exists(), "their data kept");
    assert!(!record.exists(), "the record is dropped");
    fs::remove_dir_all(&socket_dir).expect("rm socket dir");
}

#[test]
fn a_directory_it_created_is_removed_even_when_killed_before_marking_it() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let spec = ClusterSpec {
        data_dir: tmp.path().join("left").join("data"),
        ..Default::default()
    };
    let (teardown, record, _socket_dir) = left_behind(&spec);
    let data = teardown.data_dir.clone();
    let born = fs::metadata(&data).ok().and_then(|m| m.created().ok());
    if born.is_none() {
        eprintln!("skipped: this file system keeps no birth times");
        return;
    }
    // Killed during initdb: the directory it created holds initdb's files, no marker yet.
    fs::remove_file(data.join(leftovers::MARKER)).expect("rm marker");
    let said = sweep_as_if_killed(&record, &data);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("removed the directories"), "{said:?}");
    assert!(!data.exists() && !data.parent().unwrap().exists());
    assert!(!record.exists(), "the record is dropped");
}

/// Removes everything inside `dir`.
fn clear(dir: &Path) {
    for entry in fs::read_dir(dir).expect("ls").flatten() {
        let path = entry.path();
        let link = fs::symlink_metadata(&path)
            .expect("stat")
            .file_type()
            .is_symlink();
        if path.is_dir() && !link {
            fs::remove_dir_all(&path).expect("rm dir");
        } else {
            fs::remove_file(&path).expect("rm file");
        }
    }
}

#[test]
fn a_leftover_directory_the_user_refilled_or_added_to_is_left_untouched() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let spec = ClusterSpec {
        data_dir: tmp.path().join("left").join("data"),
        wal_dir: Some(tmp.path().join("left").join("wal")),
        ..Default::default()
    };
    let (teardown, record, socket_dir) = left_behind(&spec);
    let data = teardown.data_dir.clone();
    let wal = spec.wal_dir.clone().unwrap();
    // The data directory (storlab's, same identity) emptied, marker and all, and refilled
    // with the user's files; the WAL directory keeps storlab's marker and gets one file more.
    clear(&data);
    fs::create_dir(data.join("mine")).expect("mkdir");
    fs::write(data.join("mine").join("f"), b"user data").expect("write");
    fs::write(wal.join("USERFILE"), b"user data").expect("write");
    assert!(wal.join(leftovers::MARKER).exists());
    let said = sweep_as_if_killed(&record, &data);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("left untouched") && said[0].contains("neither PostgreSQL nor storlab"),
        "{said:?}"
    );
    assert_eq!(fs::read(data.join("mine").join("f")).unwrap(), b"user data");
    assert_eq!(fs::read(wal.join("USERFILE")).unwrap(), b"user data");
    assert!(
        wal.join("archive_status").exists(),
        "nothing of the WAL removed"
    );
    assert!(!record.exists(), "the record is dropped");
    fs::remove_dir_all(&socket_dir).expect("rm socket dir");
}

/// With the server running as another user (storlab as root), a file of the user's deep in
/// the data directory, under a name the server could have written, is not the server's.
#[test]
fn a_leftover_directory_holding_a_file_the_server_did_not_write_is_left_untouched() {
    let _one = one_cluster_test_at_a_time();
    let tmp = scratch();
    let spec = ClusterSpec {
        data_dir: tmp.path().join("left").join("data"),
        ..Default::default()
    };
    let (teardown, record, socket_dir) = left_behind(&spec);
    if teardown.user.is_none() {
        eprintln!("skipped: the server runs as this user (storlab is not root)");
        fs::remove_dir_all(&socket_dir).expect("rm socket dir");
        return;
    }
    let data = teardown.data_dir.clone();
    let theirs = data.join("base").join("99999");
    fs::write(&theirs, b"user data").expect("write");
    let said = sweep_as_if_killed(&record, &data);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("left untouched") && said[0].contains("not to the server's user"),
        "{said:?}"
    );
    assert_eq!(fs::read(&theirs).unwrap(), b"user data");
    assert!(data.join("PG_VERSION").exists());
    fs::remove_dir_all(&socket_dir).expect("rm socket dir");
}
