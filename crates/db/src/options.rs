//! Options of a database run.

use std::path::PathBuf;

use crate::flags;

/// Where the database is.
#[derive(Clone, Debug)]
pub enum Server {
    /// storlab starts a cluster with data (and optionally WAL and tablespaces) on these paths.
    Ephemeral {
        /// Data directory (must not exist, or be empty).
        data_dir: PathBuf,
        /// WAL directory (initdb --waldir).
        wal_dir: Option<PathBuf>,
        /// Extra tablespaces: name and directory.
        tablespaces: Vec<(String, PathBuf)>,
        /// Server binaries directory (found automatically when None).
        pg_bin: Option<PathBuf>,
        /// Extra postgresql.conf settings.
        settings: Vec<(String, String)>,
    },
    /// An existing server: storlab works only inside a schema it creates and marks.
    Dsn(DsnServer),
}

/// An existing server reached with a libpq connection string.
#[derive(Clone, Debug)]
pub struct DsnServer {
    /// libpq `key=value` string or `postgresql://` URI; what it leaves out comes from the PG*
    /// environment variables, the service file and the password file, as with libpq.
    pub dsn: String,
    /// Run a CHECKPOINT after the load (never done on someone else's server otherwise).
    pub checkpoint: bool,
    /// Keep storlab's schema at the end instead of dropping it.
    pub keep_schema: bool,
}

impl Server {
    /// An existing server, with no checkpoint and the schema dropped at the end.
    pub fn dsn(dsn: impl Into<String>) -> Server {
        Server::Dsn(DsnServer {
            dsn: dsn.into(),
            checkpoint: false,
            keep_schema: false,
        })
    }
}

/// Everything a database run needs.
#[derive(Clone, Debug)]
pub struct DbOptions {
    /// The server.
    pub server: Server,
    /// Suite (`dpaws`, `orabench`, `oltp`).
    pub suite: String,
    /// Test of the suite (`update-row`, `cycle`, ...).
    pub test: String,
    /// Concurrent clients (None: the test's default).
    pub clients: Option<u32>,
    /// Scale: rows per table (suite-specific meaning, documented per suite).
    pub scale: u64,
    /// Measured time per test.
    pub duration_ns: u64,
    /// Warm-up per test, excluded (with `warmup_auto`, its limit).
    pub warmup_ns: u64,
    /// Automatic warm-up: until the clients' per-second figures are steady.
    pub warmup_auto: bool,
    /// Seed of the clients' random streams.
    pub seed: u64,
    /// Schema for storlab's objects.
    pub schema: String,
    /// Tablespace for the tables (one of the ephemeral tablespaces), if any.
    pub tablespace: Option<String>,
    /// Think time of every client between transactions, over the test's own (None: the
    /// test's: oltp 10 ms, the others none).
    pub think: Option<Think>,
}

/// What each client does between two transactions: sleeps `mean_ns`, or a time drawn from
/// an exponential distribution of that mean (as the simulated database's sessions do with
/// `variability = "exponential"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Think {
    /// Mean think time, ns.
    pub mean_ns: u64,
    /// Drawn from an exponential distribution; fixed otherwise.
    pub exponential: bool,
}

pub use crate::flags::{MAX_CLIENTS, MAX_DURATION_NS, MAX_SCALE, MAX_WARMUP_NS};
pub use storlab_core::profile::MAX_THINK_NS;

impl DbOptions {
    /// Checks every number and name against its declared bounds (crate::flags) before
    /// anything is started; the message names the flag, the bound and the value given.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(c) = self.clients {
            flags::CLIENTS.check_flag("--clients", c)?;
        }
        flags::SCALE.check_flag("--scale", flags::count(self.scale))?;
        flags::DURATION.check_flag("--duration", flags::span(self.duration_ns))?;
        // An automatic warm-up's limit is --warmup-max.
        let warmup_flag = match self.warmup_auto {
            true => "--warmup-max",
            false => "--warmup",
        };
        flags::WARMUP.check_flag(warmup_flag, flags::span(self.warmup_ns))?;
        if let Some(t) = self.think {
            flags::THINK.check_flag("--think-ms", flags::span(t.mean_ns))?;
        }
        check_schema_name(&self.schema)
    }
}

/// storlab's schema name: a plain lower-case identifier that is not one of the server's
/// own schemas or `public` (storlab only ever uses a schema it creates itself).
pub fn check_schema_name(name: &str) -> Result<(), String> {
    let plain = !name.is_empty()
        && name.len() <= 63
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !plain {
        return Err(format!(
            "--schema: use 1 to 63 lower-case letters, digits and _, starting with a letter; \
             got {name:?}"
        ));
    }
    if name == "public" || name == "information_schema" || name.starts_with("pg_") {
        return Err(format!(
            "--schema {name}: storlab only works in a schema it creates and drops itself, \
             never in `public` or the server's own schemas; give a new name such as storlab"
        ));
    }
    Ok(())
}
