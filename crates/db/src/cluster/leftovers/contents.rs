//! What a directory storlab made for a cluster may hold when a later run removes it: only
//! what PostgreSQL and storlab put there. The same path with the same identity (and even
//! storlab's marker file) does not prove the contents: after a killed run, the user may have
//! emptied the directory and filled it with their own files, or added some beside the
//! server's. So every name at the top must be one PostgreSQL or storlab writes in a data,
//! WAL, tablespace or socket directory, and, when the server ran as another user than
//! storlab (storlab ran as root), everything below must belong to that user.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::check::MARKER;
use crate::cluster::os::ServerUser;

/// The names PostgreSQL 13 to 18 writes at the top of a data directory.
const DATA_DIR_NAMES: &[&str] = &[
    "PG_VERSION",
    "base",
    "global",
    "pg_commit_ts",
    "pg_dynshmem",
    "pg_hba.conf",
    "pg_ident.conf",
    "pg_logical",
    "pg_multixact",
    "pg_notify",
    "pg_replslot",
    "pg_serial",
    "pg_snapshots",
    "pg_stat",
    "pg_stat_tmp",
    "pg_subtrans",
    "pg_tblspc",
    "pg_twophase",
    "pg_wal",
    "pg_xact",
    "postgresql.auto.conf",
    "postgresql.conf",
    "postmaster.opts",
    "postmaster.pid",
    "current_logfiles",
    "log",
    "backup_label",
    "tablespace_map",
    "standby.signal",
    "recovery.signal",
];

/// The server log storlab writes into the socket directory.
const SERVER_LOG: &str = "server.log";

/// Whether PostgreSQL or storlab writes an entry named `name` at the top of one of a
/// cluster's directories.
fn known_name(name: &str) -> bool {
    let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    // WAL segments, partial segments and backup history files.
    let wal = name.get(..24).is_some_and(hex) && {
        let rest = &name[24..];
        let backup = rest
            .strip_prefix('.')
            .and_then(|r| r.strip_suffix(".backup"))
            .is_some_and(hex);
        rest.is_empty() || rest == ".partial" || backup
    };
    let history = name
        .strip_suffix(".history")
        .is_some_and(|t| t.len() == 8 && hex(t));
    let tablespace = name
        .strip_prefix("PG_")
        .and_then(|v| v.split_once('_'))
        .is_some_and(|(major, cat)| digits(major) && digits(cat));
    let socket = name
        .strip_prefix(".s.PGSQL.")
        .map(|p| p.strip_suffix(".lock").unwrap_or(p))
        .is_some_and(digits);
    let temp_wal = name.strip_prefix("xlogtemp.").is_some_and(digits);
    name == MARKER
        || name == SERVER_LOG
        || DATA_DIR_NAMES.contains(&name)
        || ["archive_status", "summaries"].contains(&name)
        || wal
        || history
        || tablespace
        || socket
        || temp_wal
}

/// The first entry of `dir` that neither PostgreSQL nor storlab put there, as an error
/// naming it; `user`: the user the server runs as (its ownership is checked when it is not
/// storlab's own).
pub fn only_the_clusters(dir: &Path, user: Option<&ServerUser>) -> Result<(), String> {
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    let server_uid = user.map(|u| u.uid).filter(|&u| u != me);
    let list = |d: &Path| -> Result<Vec<PathBuf>, String> {
        let entries = fs::read_dir(d).map_err(|e| format!("cannot list {}: {e}", d.display()))?;
        entries
            .map(|e| e.map(|e| e.path()))
            .collect::<io::Result<_>>()
            .map_err(|e| format!("cannot list {}: {e}", d.display()))
    };
    let top = list(dir)?;
    for path in &top {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if !known_name(&name) {
            return Err(format!(
                "{} holds {name:?}, which neither PostgreSQL nor storlab puts there",
                dir.display()
            ));
        }
    }
    let Some(uid) = server_uid else {
        return Ok(());
    };
    // storlab itself (root) writes only the marker and the server log at the top.
    let mut todo: Vec<PathBuf> = top
        .into_iter()
        .filter(|p| !p.ends_with(MARKER) && !p.ends_with(SERVER_LOG))
        .collect();
    while let Some(path) = todo.pop() {
        let meta = fs::symlink_metadata(&path)
            .map_err(|e| format!("cannot inspect {}: {e}", path.display()))?;
        if meta.uid() != uid {
            return Err(format!(
                "{} belongs to uid {}, not to the server's user (uid {uid})",
                path.display(),
                meta.uid()
            ));
        }
        if meta.is_dir() {
            todo.extend(list(&path)?);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::known_name;

    #[test]
    fn the_names_postgresql_and_storlab_write_are_known_and_others_are_not() {
        for name in [
            "PG_VERSION",
            "base",
            "pg_wal",
            "postmaster.pid",
            "000000010000000000000001",
            "000000010000000000000002.partial",
            "000000010000000000000002.00000028.backup",
            "00000002.history",
            "archive_status",
            "PG_15_202209061",
            ".s.PGSQL.53311",
            ".s.PGSQL.53311.lock",
            "server.log",
            "storlab-cluster",
            "xlogtemp.123",
        ] {
            assert!(known_name(name), "{name}");
        }
        for name in [
            "USERFILE",
            "mine",
            "base.bak",
            "PG_15",
            "PG_x_1",
            "00000001000000000000000G",
            "000000010000000000000001.txt",
            ".s.PGSQL.",
            "notes.history",
        ] {
            assert!(!known_name(name), "{name}");
        }
    }
}
