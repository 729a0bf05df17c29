//! Ephemeral PostgreSQL clusters: storlab creates one on the user's paths, runs a workload
//! against it, then stops it and removes everything it created.
//!
//! - [`find_binaries`] locates `pg_ctl`, `initdb` and `postgres` (13 or newer).
//! - [`Cluster::start`] checks the directories of a [`ClusterSpec`] before touching anything
//!   (each must be missing or an empty directory), creates them for the server user, runs
//!   `initdb` (WAL in its own directory if asked), appends storlab's storage-test settings and
//!   the caller's to `postgresql.conf`, and starts `postgres` as its own child process with
//!   the parent-death signal set, so the server stops when storlab ends, even by SIGKILL
//!   (`postmaster`). The server listens
//!   only on a Unix socket in a fresh directory under `/tmp` (`listen_addresses = ''`), so it
//!   never meets another cluster (such as Debian's on port 5432) and opens no TCP port.
//! - Stopping ([`Cluster::stop`], or dropping the [`Cluster`]) runs `pg_ctl stop -m fast`, then
//!   `-m immediate` if needed, then removes what storlab created (data, WAL and tablespace
//!   directories, their new parents, the socket directory and the server log). Directories that
//!   existed empty are emptied again and get their owner and mode back; nothing that existed
//!   before is removed. [`emergency_stop_all`] does this for every cluster of the process, for a
//!   Ctrl-C handler.
//! - Each running cluster has a record in a private state directory (`leftovers`): the next
//!   start cleans up after a storlab that was killed (stops a server still running, removes
//!   the directories that storlab created) and says so; if they are no longer what storlab
//!   made (another directory at the path, no marker file, a server someone else started),
//!   it touches nothing, drops the record and says that.
//!
//! PostgreSQL refuses to run as root: when storlab is root, the server programs run as the
//! `postgres` OS user (or a `storlab-pg` system user created for the purpose), which gets the
//! directories storlab creates and must be able to traverse their existing parents.

use std::path::{Path, PathBuf};

mod binaries;
mod conf;
mod dirs;
mod leftovers;
mod os;
mod postmaster;
mod teardown;
#[cfg(test)]
pub(crate) mod tests;

pub use binaries::{find_binaries, Binaries, MIN_MAJOR};
pub use conf::DEFAULT_MAX_CONNECTIONS;
pub use teardown::emergency_stop_all;
use teardown::{take, Teardown};

/// The superuser initdb creates; clients connect as it over the socket (trust auth).
pub const SUPERUSER: &str = "storlab";

/// Why an ephemeral cluster could not be found, started or removed.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// No server binaries (exit 2 in the CLI).
    #[error(
        "PostgreSQL server binaries (pg_ctl, initdb, postgres) not found (searched: {}); install \
         them with `apt-get install postgresql` on Debian/Ubuntu (`dnf install postgresql-server` \
         on Fedora/RHEL), or put pg_ctl on PATH, or give their directory with --pg-bin",
        list(.searched)
    )]
    NotInstalled { searched: Vec<PathBuf> },
    /// Major version below 13.
    #[error(
        "PostgreSQL {version} in {} is too old: storlab needs {MIN_MAJOR} or newer; install a \
         newer one (`apt-get install postgresql`) and give its bin directory with --pg-bin",
        bindir.display()
    )]
    TooOld { version: String, bindir: PathBuf },
    /// A directory that cannot be used: the reason says why and how to fix it.
    #[error("{}: {reason}", path.display())]
    BadDirectory { path: PathBuf, reason: String },
    /// A caller's postgresql.conf setting storlab refuses (bad name, reserved, multi-line).
    #[error("setting `{name}`: {reason}")]
    BadSetting { name: String, reason: String },
    /// A command failed: its exit status and the last lines of its output or the server log.
    #[error("{what} failed: {detail}")]
    CommandFailed { what: String, detail: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn list(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

impl ClusterError {
    /// Whether the user's input or machine setup is at fault (missing or old PostgreSQL, bad
    /// directory or setting) rather than a failure along the way.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            Self::NotInstalled { .. }
                | Self::TooOld { .. }
                | Self::BadDirectory { .. }
                | Self::BadSetting { .. }
        )
    }
}

/// Where and how to create a cluster.
#[derive(Clone, Debug, Default)]
pub struct ClusterSpec {
    /// Data directory: must not exist, or be an empty directory.
    pub data_dir: PathBuf,
    /// WAL directory (initdb --waldir), same rule; `None` keeps WAL inside the data directory.
    pub wal_dir: Option<PathBuf>,
    /// (name, directory) pairs, same rule: created owned by the server user, empty, for the
    /// caller's `CREATE TABLESPACE name LOCATION 'dir'`.
    pub tablespaces: Vec<(String, PathBuf)>,
    /// Extra postgresql.conf settings, appended after storlab's defaults (so they override
    /// them). Values are plain (`32MB`) or already single-quoted (`'32MB'`).
    pub settings: Vec<(String, String)>,
    /// `max_connections`; 0 means [`DEFAULT_MAX_CONNECTIONS`].
    pub max_connections: u32,
}

/// A running cluster. Dropping it stops the server (fast, then immediate if needed) and
/// removes every directory and file storlab created (data, WAL, tablespace directories it
/// created, socket directory, log), never anything that existed before.
#[derive(Debug)]
pub struct Cluster {
    id: u64,
    bins: Binaries,
    user: Option<os::ServerUser>,
    data_dir: PathBuf,
    wal_dir: Option<PathBuf>,
    socket_dir: PathBuf,
    log_file: PathBuf,
    port: u16,
    settings: Vec<(String, String)>,
}

impl Cluster {
    /// Checks the spec's directories (nothing is touched if one is unusable), creates them,
    /// runs initdb, writes postgresql.conf and starts the server. On failure everything
    /// created so far is removed again.
    ///
    /// The server gets SIGQUIT (immediate shutdown) when the thread that called this ends:
    /// stop the cluster before that thread does (in practice, start and use it on one thread).
    pub fn start(bins: &Binaries, spec: &ClusterSpec) -> Result<Cluster, ClusterError> {
        conf::validate(&spec.settings)?;
        for said in leftovers::sweep() {
            eprintln!("storlab: {said}");
        }
        let user = os::server_user()?;
        let mut targets = vec![dirs::check(&spec.data_dir, "data directory")?];
        if let Some(wal) = &spec.wal_dir {
            targets.push(dirs::check(wal, "WAL directory")?);
        }
        for (name, dir) in &spec.tablespaces {
            targets.push(dirs::check(
                dir,
                &format!("directory of tablespace `{name}`"),
            )?);
        }
        dirs::check_disjoint(&targets)?;
        if let Some(u) = &user {
            dirs::check_reachable(&bins.program("postgres"), "server binaries", u)?;
            for t in &targets {
                dirs::check_reachable(&t.path, &t.role, u)?;
            }
        }

        let id = teardown::next_id();
        let mut owned = Vec::new();
        let prepared = (|| {
            for t in &targets {
                dirs::prepare(t, 0o700, user.as_ref(), &mut owned)?;
            }
            dirs::socket_dir(user.as_ref(), &mut owned)
        })();
        let teardown = Teardown {
            pg_ctl: bins.program("pg_ctl"),
            data_dir: targets[0].path.clone(),
            user: user.clone(),
            owned,
            token: leftovers::new_token(),
            socket_dir: prepared.as_ref().cloned().unwrap_or_default(),
            child: None,
            record: None,
        };
        let socket_dir = match prepared {
            Ok(dir) => dir,
            Err(e) => {
                let _ = teardown.run(false);
                return Err(e);
            }
        };
        teardown::register(id, teardown);
        let mut cluster = Cluster {
            id,
            bins: bins.clone(),
            user,
            data_dir: targets[0].path.clone(),
            wal_dir: spec.wal_dir.as_ref().map(|_| targets[1].path.clone()),
            log_file: socket_dir.join("server.log"),
            socket_dir,
            port: 0,
            settings: Vec::new(),
        };
        // On error, dropping `cluster` stops whatever started and removes the directories.
        cluster.init_and_start(spec)?;
        Ok(cluster)
    }

    fn init_and_start(&mut self, spec: &ClusterSpec) -> Result<(), ClusterError> {
        let mut initdb = os::server_command(&self.bins.program("initdb"), self.user.as_ref());
        initdb.arg("-D").arg(&self.data_dir);
        if let Some(wal) = &self.wal_dir {
            initdb.arg("--waldir").arg(wal);
        }
        initdb.arg(format!("--username={SUPERUSER}"));
        initdb.args(["--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
        os::run_interruptible("initdb", &mut initdb)?;
        teardown::mark(self.id);

        let conf_path = self.data_dir.join("postgresql.conf");
        let io_err = |source| ClusterError::Io {
            path: conf_path.clone(),
            source,
        };
        let original = std::fs::read_to_string(&conf_path).map_err(io_err)?;
        const ATTEMPTS: u32 = 3;
        let mut attempt = 0;
        loop {
            attempt += 1;
            self.port = conf::next_port();
            let defaults = conf::defaults(
                &self.socket_dir,
                self.port,
                spec.max_connections,
                self.bins.major,
            );
            let block = conf::render(&defaults, &spec.settings);
            std::fs::write(&conf_path, format!("{original}{block}")).map_err(io_err)?;
            self.settings = conf::merge(&defaults, &spec.settings);
            let _ = std::fs::remove_file(&self.log_file);

            let started = postmaster::start(
                &self.bins.program("postgres"),
                &self.data_dir,
                &self.log_file,
                self.user.as_ref(),
            );
            let err = match started {
                Ok(child) => {
                    teardown::set_child(self.id, child);
                    return Ok(());
                }
                Err(e) => e,
            };
            let log = self.log_tail(os::TAIL_LINES);
            if attempt < ATTEMPTS && conf::is_port_clash(&log) && !self.is_running() {
                continue;
            }
            if let Some((name, reason)) = postmaster::bad_setting(&log, &spec.settings) {
                return Err(ClusterError::BadSetting { name, reason });
            }
            let detail = match err {
                ClusterError::CommandFailed { detail, .. } => detail,
                other => other.to_string(),
            };
            return Err(ClusterError::CommandFailed {
                what: format!("starting the server (port {})", self.port),
                detail: format!(
                    "{detail}\nlast lines of the server log {}:\n{log}",
                    self.log_file.display()
                ),
            });
        }
    }

    /// Directory of the server's Unix socket (the libpq `host`).
    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// Port number: only names the socket file (`.s.PGSQL.<port>`); there is no TCP listener.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Database superuser to connect as (trust authentication over the socket).
    pub fn user(&self) -> &str {
        SUPERUSER
    }

    /// libpq-style connection parameters:
    /// `host=<socket dir> port=<port> user=storlab dbname=<dbname>`.
    pub fn conninfo(&self, dbname: &str) -> String {
        format!(
            "host={} port={} user={SUPERUSER} dbname={}",
            conninfo_value(&self.socket_dir.display().to_string()),
            self.port,
            conninfo_value(dbname)
        )
    }

    /// The postgresql.conf settings storlab wrote, as in effect: its defaults with the
    /// caller's values replacing same-named ones, then the caller's other settings.
    pub fn settings_in_effect(&self) -> Vec<(String, String)> {
        self.settings.clone()
    }

    /// CPU time the server's processes have used so far (the postmaster and its children);
    /// None when it cannot be read.
    pub fn server_cpu(&self) -> Option<std::time::Duration> {
        os::postmaster_pid(&self.data_dir).and_then(os::process_tree_cpu)
    }

    /// CPU time the server processes `pids` (backends of given connections) have used so
    /// far, their own; None when one cannot be read.
    pub fn backends_cpu(&self, pids: &[i32]) -> Option<std::time::Duration> {
        pids.iter().map(|&p| os::process_cpu(p)).sum()
    }

    /// Whether the postmaster runs (pid from `postmaster.pid`, checked with kill(pid, 0)).
    pub fn is_running(&self) -> bool {
        os::postmaster_running(&self.data_dir)
    }

    /// The last `lines` lines of the server log ("" if there is none yet).
    pub fn log_tail(&self, lines: usize) -> String {
        std::fs::read(&self.log_file)
            .map(|b| os::tail(&String::from_utf8_lossy(&b), lines))
            .unwrap_or_default()
    }

    /// Stops the server (fast, then immediate) and removes what storlab created.
    pub fn stop(self) -> Result<(), ClusterError> {
        match take(self.id) {
            Some(teardown) => teardown.run(true),
            None => Ok(()),
        }
    }

    /// Stops the server at once (`-m immediate`: no shutdown checkpoint, the data is thrown
    /// away anyway) and removes what storlab created: for an interrupted run.
    pub fn stop_immediately(self) -> Result<(), ClusterError> {
        match take(self.id) {
            Some(teardown) => teardown.run(false),
            None => Ok(()),
        }
    }

    /// The data directory (absolute).
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The separate WAL directory (absolute), if one was asked for.
    pub fn wal_dir(&self) -> Option<&Path> {
        self.wal_dir.as_deref()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(teardown) = take(self.id) {
            let _ = teardown.run(true);
        }
    }
}

/// A conninfo value, quoted if it has to be.
fn conninfo_value(value: &str) -> String {
    if !value.is_empty() && !value.contains(|c: char| c.is_whitespace() || c == '\'' || c == '\\') {
        return value.to_string();
    }
    format!("'{}'", value.replace('\\', "\\\\").replace('\'', "\\'"))
}
