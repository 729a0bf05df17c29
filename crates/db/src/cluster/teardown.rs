//! Stopping a cluster and removing what storlab created, and the process-wide registry of
//! running clusters behind [`emergency_stop_all`](super::emergency_stop_all).

use std::path::PathBuf;
use std::process::Child;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use super::{dirs, leftovers, os, ClusterError};

/// What stopping and cleaning up a cluster needs; kept in the process-wide registry so that
/// [`emergency_stop_all`] can do it too. Whoever takes it out of the registry runs it, once.
pub struct Teardown {
    pub pg_ctl: PathBuf,
    pub data_dir: PathBuf,
    pub user: Option<os::ServerUser>,
    pub owned: Vec<dirs::Owned>,
    /// The token of the marker file written into the cluster's directories once the server
    /// runs, and the server's socket directory: how a later sweep tells them for storlab's.
    pub token: String,
    pub socket_dir: PathBuf,
    /// The postmaster, storlab's child: reaped once stopped.
    pub child: Option<Child>,
    /// The record that lets a later run clean up if this process is killed.
    pub record: Option<PathBuf>,
}

static REGISTRY: Mutex<Vec<(u64, Teardown)>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A new cluster id.
pub fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Puts a cluster's teardown in the registry, and its record on disk.
pub fn register(id: u64, mut teardown: Teardown) {
    teardown.record = leftovers::write(id, &teardown);
    registry().push((id, teardown));
}

/// Marks the cluster's directories as storlab's (once initdb has run: it needs them empty).
pub fn mark(id: u64) {
    if let Some((_, t)) = registry().iter().find(|(i, _)| *i == id) {
        leftovers::mark(&t.owned, &t.token);
    }
}

/// Hands the running postmaster to the cluster's teardown.
pub fn set_child(id: u64, child: Child) {
    if let Some((_, t)) = registry().iter_mut().find(|(i, _)| *i == id) {
        t.child = Some(child);
    }
}

fn registry() -> std::sync::MutexGuard<'static, Vec<(u64, Teardown)>> {
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn take(id: u64) -> Option<Teardown> {
    let mut reg = registry();
    let pos = reg.iter().position(|(i, _)| *i == id)?;
    Some(reg.swap_remove(pos).1)
}

impl Teardown {
    /// Stops the server if it runs (fast first if `graceful`, then immediate, then SIGKILL)
    /// and removes what storlab created. If the server cannot be stopped, nothing is removed.
    pub fn run(mut self, graceful: bool) -> Result<(), ClusterError> {
        if os::postmaster_running(&self.data_dir) {
            let stopped = (graceful && self.pg_ctl_stop("fast", 30).is_ok())
                || self.pg_ctl_stop("immediate", 30).is_ok()
                || !os::postmaster_running(&self.data_dir);
            if !stopped && !os::kill_postmaster(&self.data_dir, Duration::from_secs(10)) {
                return Err(ClusterError::CommandFailed {
                    what: format!("stopping the server of {}", self.data_dir.display()),
                    detail: "pg_ctl stop (fast, immediate) and SIGKILL did not stop it; its \
                             directories were left in place"
                        .to_string(),
                });
            }
        }
        if let Some(mut child) = self.child.take() {
            let _ = child.wait();
        }
        // A directory someone put their own files into while the cluster ran is left as it
        // is (its parents then stay too: they are removed only when empty).
        let kept = self.foreign();
        let owned: Vec<dirs::Owned> = self
            .owned
            .iter()
            .filter(|o| !kept.iter().any(|(p, _)| p == o.path()))
            .cloned()
            .collect();
        dirs::cleanup(&owned)?;
        if let Some(record) = &self.record {
            leftovers::remove(record);
        }
        match kept.into_iter().next() {
            None => Ok(()),
            Some((path, why)) => Err(ClusterError::BadDirectory {
                path,
                reason: format!("left in place, not removed: {why}"),
            }),
        }
    }

    /// The directories to remove or empty that hold something neither PostgreSQL nor storlab
    /// put there, with why.
    fn foreign(&self) -> Vec<(PathBuf, String)> {
        self.owned
            .iter()
            .filter(|o| !matches!(o, dirs::Owned::Parent { .. }) && o.path().is_dir())
            .filter_map(|o| {
                leftovers::only_the_clusters(o.path(), self.user.as_ref())
                    .err()
                    .map(|why| (o.path().to_path_buf(), why))
            })
            .collect()
    }

    fn pg_ctl_stop(&self, mode: &str, timeout: u32) -> Result<String, ClusterError> {
        let mut cmd = os::server_command(&self.pg_ctl, self.user.as_ref());
        cmd.arg("-D").arg(&self.data_dir);
        cmd.args(["-m", mode, "-w", "-t", &timeout.to_string(), "stop"]);
        os::run(&format!("pg_ctl stop -m {mode}"), &mut cmd)
    }
}

/// Stops every cluster this process started that is still running (immediate shutdown: the
/// data is thrown away anyway) and removes their directories. For a Ctrl-C handler; best
/// effort, never panics. Clusters handled here are no-ops when later stopped or dropped.
pub fn emergency_stop_all() {
    let all: Vec<(u64, Teardown)> = registry().drain(..).collect();
    for (_, teardown) in all {
        let _ = teardown.run(false);
    }
}
