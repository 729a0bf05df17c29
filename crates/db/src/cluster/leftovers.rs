//! What a killed storlab left behind: every cluster storlab starts has a record (its pid, the
//! server's data directory, and the directories storlab created) in a private state
//! directory, removed once the cluster is stopped and cleaned up. The next cluster start
//! finds the records of storlab processes that are gone, stops their servers if they still
//! run, removes the directories they created, and says so.
//!
//! A record is trusted only as far as what it names can be proven to be storlab's still
//! (`check`): otherwise the cluster is left untouched, the record dropped, and the user told.
//!
//! The state directory is `/var/tmp/storlab-<uid>` (it survives a reboot, after which the
//! directories still need removing); it must be owned by this user and closed to everyone
//! else, or no records are kept (a record names directories to remove: nobody else may write
//! one).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::dirs::Owned;
use super::os::ServerUser;
use super::teardown::Teardown;

mod check;
mod contents;
pub(crate) use check::MARKER;
pub use check::{mark, new_token};
pub(crate) use contents::only_the_clusters;

/// One cluster's record.
#[derive(Debug, Serialize, Deserialize)]
pub struct Record {
    /// The storlab process that started it, and that process's start time (clock ticks since
    /// boot, from /proc) so that a reused pid is not taken for it.
    pub pid: i32,
    pub started: u64,
    pub pg_ctl: PathBuf,
    pub data_dir: PathBuf,
    pub user: Option<ServerUser>,
    pub owned: Vec<Owned>,
    /// The token of the marker file in each cluster directory, and the server's socket
    /// directory (named in `postmaster.pid` of the server storlab started).
    pub token: String,
    pub socket_dir: PathBuf,
}

/// Start time of process `pid` (field 22 of /proc/PID/stat), None if it is gone.
fn start_time(pid: i32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    // After the command name: state is field 3, starttime field 22.
    rest.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// Writes the record of cluster `id` of this process; returns its path (None when records
/// cannot be kept: the cluster still runs, only without this safety net).
pub fn write(id: u64, teardown: &Teardown) -> Option<PathBuf> {
    let pid = std::process::id() as i32;
    let record = Record {
        pid,
        started: start_time(pid)?,
        pg_ctl: teardown.pg_ctl.clone(),
        data_dir: teardown.data_dir.clone(),
        user: teardown.user.clone(),
        owned: teardown.owned.clone(),
        token: teardown.token.clone(),
        socket_dir: teardown.socket_dir.clone(),
    };
    let path = storlab_io::safety::state_dir()
        .ok()?
        .join(format!("cluster-{pid}-{id}.json"));
    let text = serde_json::to_string_pretty(&record).ok()?;
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, text).ok()?;
    fs::rename(&tmp, &path).ok()?;
    Some(path)
}

/// Stops and removes what storlab processes that are gone left behind; returns one line per
/// cluster handled, for the user.
pub fn sweep() -> Vec<String> {
    let Ok(dir) = storlab_io::safety::state_dir() else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut said = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let Some(record) = read(&path) else {
            continue;
        };
        if start_time(record.pid) == Some(record.started) {
            continue; // that storlab still runs
        }
        said.push(clean(&path, record));
    }
    said
}

fn read(path: &Path) -> Option<Record> {
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

/// Stops the left server (if it runs) and removes the left directories, then the record;
/// if any of it is not storlab's any more, touches nothing and only drops the record.
fn clean(path: &Path, record: Record) -> String {
    let data = record.data_dir.display().to_string();
    let pid = record.pid;
    let owned = match check::still_ours(&record) {
        Ok(owned) => owned,
        Err(why) => {
            remove(path);
            return format!(
                "an earlier storlab run (pid {pid}) left {data}, but it has changed since \
                 ({why}); left untouched"
            );
        }
    };
    let was_running = super::os::postmaster_pid(&record.data_dir)
        .filter(|_| super::os::postmaster_running(&record.data_dir));
    let teardown = Teardown {
        pg_ctl: record.pg_ctl,
        data_dir: record.data_dir,
        user: record.user,
        owned,
        token: record.token,
        socket_dir: record.socket_dir,
        child: None,
        record: Some(path.to_path_buf()),
    };
    let server = match was_running {
        Some(p) => format!("stopped its server (pid {p}) and "),
        None => String::new(),
    };
    match teardown.run(false) {
        Ok(()) => format!(
            "an earlier storlab run (pid {pid}) ended without cleaning up the cluster in \
             {data}: {server}removed the directories it had created"
        ),
        Err(e) => format!(
            "an earlier storlab run (pid {pid}) left a cluster in {data} that could not be \
             cleaned up: {e}"
        ),
    }
}

/// Removes a record (the cluster is cleaned up).
pub fn remove(path: &Path) {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            eprintln!("storlab: warning: cannot remove {}: {e}", path.display())
        }
        _ => {}
    }
}
