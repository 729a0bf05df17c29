//! The postgresql.conf settings storlab appends, and the port (socket file name) choice.

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use super::ClusterError;

/// `max_connections` when the spec leaves it at 0.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 120;

/// Settings storlab must control itself: the private socket, no TCP, the log file.
const RESERVED: [&str; 8] = [
    "listen_addresses",
    "port",
    "unix_socket_directories",
    "logging_collector",
    "data_directory",
    "config_file",
    "hba_file",
    "ident_file",
];

/// Header of the block appended to initdb's postgresql.conf.
const HEADER: &str =
    "\n# ---- storlab: ephemeral storage-test cluster (appended; later lines win) ----\n";

/// storlab's defaults for storage testing, in the order written.
pub fn defaults(
    socket_dir: &Path,
    port: u16,
    max_connections: u32,
    major: u32,
) -> Vec<(String, String)> {
    let max_conn = if max_connections == 0 {
        DEFAULT_MAX_CONNECTIONS
    } else {
        max_connections
    };
    let mut list: Vec<(&str, String)> = vec![
        ("listen_addresses", String::new()),
        ("unix_socket_directories", socket_dir.display().to_string()),
        ("unix_socket_permissions", "0700".into()),
        ("port", port.to_string()),
        ("shared_buffers", "32MB".into()),
        ("fsync", "on".into()),
        ("synchronous_commit", "on".into()),
        ("full_page_writes", "on".into()),
        ("wal_level", "replica".into()),
        ("max_wal_size", "1GB".into()),
        ("checkpoint_timeout", "5min".into()),
        ("track_io_timing", "on".into()),
    ];
    if major >= 14 {
        list.push(("track_wal_io_timing", "on".into()));
    }
    list.extend([
        ("shared_preload_libraries", "pg_stat_statements".into()),
        ("pg_stat_statements.track", "all".into()),
        ("max_connections", max_conn.to_string()),
        ("log_checkpoints", "on".into()),
        ("logging_collector", "off".into()),
    ]);
    list.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Checks the caller's extra settings: plain names (letters, digits, `_`, `.`), single-line
/// values, and none of the settings storlab reserves.
pub fn validate(extra: &[(String, String)]) -> Result<(), ClusterError> {
    for (name, value) in extra {
        let reason = if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            "not a valid setting name"
        } else if RESERVED.contains(&name.to_ascii_lowercase().as_str()) {
            "storlab sets it itself (private Unix socket, no TCP, server log file)"
        } else if value.contains(['\n', '\r', '\0']) {
            "the value must be a single line"
        } else {
            continue;
        };
        return Err(ClusterError::BadSetting {
            name: name.clone(),
            reason: reason.to_string(),
        });
    }
    Ok(())
}

/// The effective list: defaults with the caller's values replacing same-named ones (names
/// compare case-insensitively, as in PostgreSQL), new names appended in the caller's order.
pub fn merge(defaults: &[(String, String)], extra: &[(String, String)]) -> Vec<(String, String)> {
    let mut out = defaults.to_vec();
    for (name, value) in extra {
        let value = unquote(value);
        match out.iter_mut().find(|(k, _)| k.eq_ignore_ascii_case(name)) {
            Some(slot) => slot.1 = value,
            None => out.push((name.clone(), value)),
        }
    }
    out
}

/// The block appended to postgresql.conf: defaults, then the caller's settings.
pub fn render(defaults: &[(String, String)], extra: &[(String, String)]) -> String {
    let mut text = String::from(HEADER);
    for (name, value) in defaults {
        text.push_str(&format!("{name} = {}\n", quote(value)));
    }
    if !extra.is_empty() {
        text.push_str("# ---- caller's settings ----\n");
        for (name, value) in extra {
            text.push_str(&format!("{name} = {}\n", quote(&unquote(value))));
        }
    }
    text
}

/// A value as written by a caller may already be single-quoted (`'32MB'`): take it plain.
fn unquote(value: &str) -> String {
    let v = value.trim();
    match v.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        Some(inner) => inner.replace("''", "'"),
        None => v.to_string(),
    }
}

/// postgresql.conf quoting: every value single-quoted, quotes doubled, backslashes escaped.
pub fn quote(value: &str) -> String {
    format!("'{}'", value.replace('\\', "\\\\").replace('\'', "''"))
}

static PORT_SEQ: AtomicU32 = AtomicU32::new(0);

/// The next port to try: 50000 + (pid % 10000), then the following ones for later clusters or
/// retries of this process (wrapping within 50000..65000). Only names the socket file.
pub fn next_port() -> u16 {
    let n = PORT_SEQ.fetch_add(1, Ordering::Relaxed);
    let offset = (std::process::id() % 10_000 + n) % 15_000;
    // offset < 15000, so the sum fits in u16.
    50_000 + offset as u16
}

/// Whether a failed start looks like a port/socket clash worth retrying on the next port.
pub fn is_port_clash(log: &str) -> bool {
    [
        "could not create lock file",
        "Address already in use",
        "could not bind",
        "is another postmaster",
    ]
    .iter()
    .any(|needle| log.contains(needle))
}
