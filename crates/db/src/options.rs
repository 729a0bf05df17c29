//! Options of a database run.

use std::path::PathBuf;

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
    /// An existing server: storlab works only inside its own schema.
    Dsn(String),
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
    /// Warm-up per test, excluded.
    pub warmup_ns: u64,
    /// Seed of the clients' random streams.
    pub seed: u64,
    /// Schema for storlab's objects.
    pub schema: String,
    /// Tablespace for the tables (one of the ephemeral tablespaces), if any.
    pub tablespace: Option<String>,
}
