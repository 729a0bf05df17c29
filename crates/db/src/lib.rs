//! storlab-db: the database workload suite on a real PostgreSQL, with statspack-style
//! evidence ("OraBench" / "DPAWS" of the classic studies).
//!
//! It owns the ephemeral cluster (started on the user's data and WAL paths, on a private
//! socket, as an unprivileged user, stopped and removed at the end, on Ctrl-C and on panic),
//! the suites (`dpaws`, `orabench`, `oltp`: schema, load, tests), the async driver (one
//! connection per client, prepared statements), and the evidence: throughput, latency per
//! statement, commit latency, sampled wait events, WAL and checkpoint activity, relation I/O
//! by backend type (pg_stat_io, PostgreSQL 16+), per-statement block profiles, and the
//! iostat view of the devices under each role (data, WAL, tablespaces). With `--dsn` it uses
//! an existing server and touches only a schema it creates, marks and drops again
//! (`schema`); `conninfo` finds the connection settings as libpq does.

// Real database runs are measured in wall-clock time by definition.
#![allow(clippy::disallowed_methods)]

pub mod capture;
pub mod cluster;
pub mod conninfo;
mod driver;
pub mod error;
mod evidence;
pub mod flags;
pub mod options;
mod report;
pub mod run;
pub mod schema;
pub mod suites;

pub use capture::{capture, Capture, CaptureOptions};
pub use error::DbError;
pub use evidence::pg_stat_io::{io_summary, IoLine, IoSummary};
pub use options::DbOptions;
pub use run::run_db;
