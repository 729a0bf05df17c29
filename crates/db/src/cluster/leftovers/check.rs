//! Before a leftover record is acted on (possibly days later, after a reboot): proof that
//! what it names is still what storlab made. A directory storlab created must have the
//! identity recorded at its creation; a cluster directory must hold storlab's marker file
//! with the record's token; a running server must be the one storlab started (its
//! `postmaster.pid` names storlab's socket directory), and a directory to be removed or
//! emptied must hold only what PostgreSQL and storlab put there ([`super::contents`]).
//! Anything else belongs to the user now.

use std::fs;
use std::io;
use std::path::Path;

use super::super::dirs::{DirId, Owned};
use super::super::os;
use super::Record;

/// The marker file storlab writes into every cluster directory it fills, holding the token
/// of the run's record.
pub const MARKER: &str = "storlab-cluster";

/// A token no other run shares: 16 random bytes in hex (the pid and the time if
/// /dev/urandom cannot be read).
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    let random = fs::File::open("/dev/urandom")
        .and_then(|mut f| io::Read::read_exact(&mut f, &mut bytes))
        .is_ok();
    if random {
        return bytes.iter().map(|b| format!("{b:02x}")).collect();
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{now}", std::process::id())
}

/// Writes the marker into every directory of `owned` that a cluster fills (all but the
/// parents), once initdb has filled them. Best effort: a directory without it is left alone by a later sweep.
pub fn mark(owned: &[Owned], token: &str) {
    for item in owned {
        if !matches!(item, Owned::Parent { .. }) {
            let _ = fs::write(item.path().join(MARKER), token);
        }
    }
}

/// The items of `record` that are still storlab's, to clean up (items that are gone, or
/// empty directories that existed before, need nothing); Err naming what changed if any
/// item or the running server is not storlab's any more.
pub fn still_ours(record: &Record) -> Result<Vec<Owned>, String> {
    let mut keep = Vec::new();
    for item in &record.owned {
        if check_one(item, &record.token, record.user.as_ref())? {
            keep.push(item.clone());
        }
    }
    if os::postmaster_running(&record.data_dir) {
        server_is_ours(record)?;
    }
    Ok(keep)
}

/// Whether `item` is to be cleaned up; Err if it is there but not storlab's any more.
fn check_one(item: &Owned, token: &str, user: Option<&os::ServerUser>) -> Result<bool, String> {
    let path = item.path();
    let at = path.display();
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(format!("cannot inspect {at}: {e}")),
        Ok(meta) => meta,
    };
    if !meta.is_dir() {
        return Err(format!("{at} is no longer a directory"));
    }
    if let Owned::Leaf { id, .. } | Owned::Parent { id, .. } = item {
        if DirId::of(&meta) != *id {
            return Err(format!(
                "{at} is not the directory it created (it was removed and made again)"
            ));
        }
    }
    if matches!(item, Owned::Parent { .. }) {
        // Removed only if empty (rmdir).
        return Ok(true);
    }
    // Whatever proves the directory storlab's, its contents must be the cluster's.
    super::contents::only_the_clusters(path, user)?;
    if marked(path, token) {
        return Ok(true);
    }
    // Killed before initdb finished (no marker yet): a directory storlab created, with the
    // identity and birth time it had then, is still that directory, and it holds only what
    // the cluster's programs write (checked above).
    if let Owned::Leaf { id, .. } = item {
        if id.birth_ns != 0 {
            return Ok(true);
        }
    }
    match fs::read_dir(path).map(|mut entries| entries.next().is_none()) {
        // Empty: a directory it created can go, one that existed before needs nothing.
        Ok(true) => Ok(matches!(item, Owned::Leaf { .. })),
        Ok(false) => Err(format!("{at} holds files but not its marker file {MARKER}")),
        Err(e) => Err(format!("cannot list {at}: {e}")),
    }
}

fn marked(dir: &Path, token: &str) -> bool {
    let marker = dir.join(MARKER);
    let regular = fs::symlink_metadata(&marker).is_ok_and(|m| m.is_file());
    regular && fs::read_to_string(&marker).is_ok_and(|t| t.trim() == token)
}

/// Whether the server running in the record's data directory is the one storlab started:
/// its `postmaster.pid` (5th line) names the socket directory storlab created for it.
fn server_is_ours(record: &Record) -> Result<(), String> {
    let pid_file = record.data_dir.join("postmaster.pid");
    let text = fs::read_to_string(&pid_file).unwrap_or_default();
    let socket = text.lines().nth(4).unwrap_or("").trim();
    let ours = record.socket_dir.as_os_str();
    if !ours.is_empty() && socket.as_bytes() == ours.as_encoded_bytes() {
        return Ok(());
    }
    let pid = os::postmaster_pid(&record.data_dir).unwrap_or(0);
    Err(format!(
        "a PostgreSQL server it did not start (pid {pid}, socket directory {socket:?}) runs in \
         {}",
        record.data_dir.display()
    ))
}
