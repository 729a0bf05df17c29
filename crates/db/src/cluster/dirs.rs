//! The directories a cluster lives in: checking them before anything is touched, creating them
//! for the server user, and removing exactly what storlab created (or emptied) afterwards.

use std::ffi::CString;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::os::ServerUser;
use super::ClusterError;

/// One directory the caller asked for, resolved to an absolute path and checked.
#[derive(Debug)]
pub struct Target {
    pub path: PathBuf,
    pub role: String,
    state: State,
}

#[derive(Debug)]
enum State {
    /// Does not exist: `first_missing` is its highest ancestor that does not exist either.
    Missing { first_missing: PathBuf },
    /// Exists and is empty: owner and mode are restored afterwards.
    Empty { uid: u32, gid: u32, mode: u32 },
}

/// Which directory a path named when storlab created it (device, inode, birth time): a
/// directory removed and created again at the same path has another identity.
pub type DirId = storlab_io::safety::FileId;

/// The identity of the directory at `path` (not following a symbolic link).
fn dir_id(path: &Path) -> Result<DirId, ClusterError> {
    fs::symlink_metadata(path)
        .map(|m| DirId::of(&m))
        .map_err(io_err(path))
}

/// Something storlab made, to undo at cleanup (in reverse order).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Owned {
    /// A directory storlab created for a cluster: removed with everything in it.
    Leaf { path: PathBuf, id: DirId },
    /// A parent storlab created on the way (`mkdir -p`): removed only if empty.
    Parent { path: PathBuf, id: DirId },
    /// A directory that existed empty: its contents are removed, owner and mode restored.
    Emptied {
        path: PathBuf,
        uid: u32,
        gid: u32,
        mode: u32,
    },
}

impl Owned {
    pub fn path(&self) -> &Path {
        match self {
            Owned::Leaf { path, .. } | Owned::Parent { path, .. } | Owned::Emptied { path, .. } => {
                path
            }
        }
    }
}

fn bad(path: &Path, reason: impl Into<String>) -> ClusterError {
    ClusterError::BadDirectory {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ClusterError + '_ {
    move |source| ClusterError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Resolves `path` (absolute, symlinks of existing ancestors resolved) and checks that it is
/// usable: missing with a writable existing ancestor, or an empty writable directory.
pub fn check(path: &Path, role: &str) -> Result<Target, ClusterError> {
    if path.as_os_str().is_empty() {
        return Err(bad(path, format!("no path given for the {role}")));
    }
    let abs = resolve(path).map_err(|e| bad(path, format!("cannot resolve it: {e}")))?;
    let state = match fs::metadata(&abs) {
        Ok(meta) => {
            if !meta.is_dir() {
                let reason = format!(
                    "the {role} exists and is not a directory; give a new path (storlab \
                     creates it) or an empty directory"
                );
                return Err(bad(&abs, reason));
            }
            let mut entries = fs::read_dir(&abs)
                .map_err(|e| bad(&abs, format!("cannot list the {role}: {e}")))?;
            if let Some(first) = entries.next() {
                if let Some(reason) = live_server(&abs, role) {
                    return Err(bad(&abs, reason));
                }
                let name = first.map(|e| e.file_name()).unwrap_or_default();
                let reason = format!(
                    "the {role} is not empty (it contains {name:?}); storlab never touches \
                     existing files: give a new or empty directory, e.g. {}",
                    abs.join("storlab").display()
                );
                return Err(bad(&abs, reason));
            }
            writable(&abs).map_err(|e| {
                let fix = "fix its permissions or pick another directory";
                bad(&abs, format!("the {role} is not writable ({e}); {fix}"))
            })?;
            State::Empty {
                uid: meta.uid(),
                gid: meta.gid(),
                mode: meta.mode() & 0o7777,
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let (existing, first_missing) = nearest_existing(&abs);
            if !existing.is_dir() {
                return Err(bad(
                    &abs,
                    format!(
                        "cannot create the {role}: {} is not a directory",
                        existing.display()
                    ),
                ));
            }
            writable(&existing).map_err(|e| {
                let at = existing.display();
                let fix = "fix its permissions or pick another place";
                bad(
                    &abs,
                    format!("cannot create the {role}: {at} is not writable ({e}); {fix}"),
                )
            })?;
            State::Missing { first_missing }
        }
        Err(e) => return Err(bad(&abs, format!("cannot inspect the {role}: {e}"))),
    };
    Ok(Target {
        path: abs,
        role: role.to_string(),
        state,
    })
}

/// Why a directory holding a running PostgreSQL server cannot be used, naming the server. Only
/// a server in a directory storlab marked is called storlab's, with how to stop and remove
/// it; any other is the user's, and left to them.
fn live_server(dir: &Path, role: &str) -> Option<String> {
    let pid = super::os::postmaster_pid(dir)?;
    if !super::os::postmaster_running(dir) {
        return None;
    }
    if !dir.join(super::leftovers::MARKER).is_file() {
        return Some(format!(
            "the {role} holds a running PostgreSQL server (postmaster pid {pid}) that storlab \
             did not start; storlab never touches it: give a new or empty directory, or point \
             storlab at that server with --dsn"
        ));
    }
    Some(format!(
        "the {role} holds a running PostgreSQL server (postmaster pid {pid}) left by a storlab \
         run that was killed; stop it (`pg_ctl -D {} stop -m immediate` as the server's OS \
         user, or `kill -QUIT {pid}`), remove the directory, and run again",
        dir.display()
    ))
}

/// Absolute form of `path`: its longest existing prefix canonicalized, the rest appended.
fn resolve(path: &Path) -> io::Result<PathBuf> {
    let abs = std::path::absolute(path)?;
    let (existing, _) = nearest_existing(&abs);
    let mut out = fs::canonicalize(&existing)?;
    let rest = abs.strip_prefix(&existing).unwrap_or(Path::new(""));
    for comp in rest.components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            _ => {}
        }
    }
    Ok(out)
}

/// The nearest existing ancestor of `abs` (or `abs` itself) and the child of it towards `abs`.
fn nearest_existing(abs: &Path) -> (PathBuf, PathBuf) {
    let mut child = abs.to_path_buf();
    for anc in abs.ancestors() {
        if fs::symlink_metadata(anc).is_ok() {
            return (anc.to_path_buf(), child);
        }
        child = anc.to_path_buf();
    }
    (PathBuf::from("/"), child)
}

fn writable(dir: &Path) -> io::Result<()> {
    let c = CString::new(dir.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: valid NUL-terminated path.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Refuses targets that are equal or nested (each must be a separate directory).
pub fn check_disjoint(targets: &[Target]) -> Result<(), ClusterError> {
    for (i, a) in targets.iter().enumerate() {
        for b in &targets[i + 1..] {
            if a.path.starts_with(&b.path) || b.path.starts_with(&a.path) {
                return Err(bad(
                    &b.path,
                    format!(
                        "the {} overlaps the {} ({}); each must be a separate directory",
                        b.role,
                        a.role,
                        a.path.display()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// When the server runs as another user (storlab is root), every existing directory above
/// `path` must be searchable by that user, or the server cannot reach it. (`path` itself, if a
/// cluster directory, is handed to the user; missing parents are created searchable.)
pub fn check_reachable(path: &Path, role: &str, user: &ServerUser) -> Result<(), ClusterError> {
    let above: Vec<&Path> = path.ancestors().skip(1).collect();
    for anc in above.into_iter().rev() {
        let Ok(meta) = fs::metadata(anc) else {
            break;
        };
        if !searchable(&meta, user) {
            let (at, mode, owner) = (anc.display(), meta.mode() & 0o7777, meta.uid());
            let reason = format!(
                "the PostgreSQL server runs as OS user `{}` (uid {}), which cannot traverse \
                 {at} (mode {mode:o}, owner uid {owner}), so it could not reach the {role}; \
                 allow it (e.g. `chmod o+x {at}`) or use a directory elsewhere",
                user.name, user.uid
            );
            return Err(bad(path, reason));
        }
    }
    Ok(())
}

/// Search permission from the mode bits alone, as for a process with only the user's primary
/// group (std drops supplementary groups when switching user).
pub fn searchable(meta: &fs::Metadata, user: &ServerUser) -> bool {
    let mode = meta.mode();
    let bit = if meta.uid() == user.uid {
        0o100
    } else if meta.gid() == user.gid {
        0o010
    } else {
        0o001
    };
    mode & bit != 0
}

/// Creates (or takes over) the directory of `target` for the server: missing directories are
/// created (parents 0755, the directory itself `mode`), an empty one is taken over; either way
/// it ends owned by `user` with `mode`. Everything done is recorded in `owned` as it happens.
pub fn prepare(
    target: &Target,
    mode: u32,
    user: Option<&ServerUser>,
    owned: &mut Vec<Owned>,
) -> Result<(), ClusterError> {
    match &target.state {
        State::Missing { first_missing } => {
            let rest = target
                .path
                .strip_prefix(first_missing)
                .unwrap_or(Path::new(""));
            let mut dir = first_missing.clone();
            let mut steps = vec![dir.clone()];
            for comp in rest.components() {
                dir.push(comp);
                steps.push(dir.clone());
            }
            for step in &steps {
                // A parent another directory of this cluster shares, created for it already.
                if owned.iter().any(|o| o.path() == step) {
                    continue;
                }
                fs::create_dir(step).map_err(io_err(step))?;
                let (path, id) = (step.clone(), dir_id(step)?);
                if step == &target.path {
                    owned.push(Owned::Leaf { path, id });
                } else {
                    owned.push(Owned::Parent { path, id });
                    set_mode(step, 0o755)?;
                }
            }
        }
        State::Empty { uid, gid, mode } => owned.push(Owned::Emptied {
            path: target.path.clone(),
            uid: *uid,
            gid: *gid,
            mode: *mode,
        }),
    }
    set_mode(&target.path, mode)?;
    give_to(&target.path, user)
}

fn set_mode(path: &Path, mode: u32) -> Result<(), ClusterError> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(io_err(path))
}

fn give_to(path: &Path, user: Option<&ServerUser>) -> Result<(), ClusterError> {
    match user {
        Some(u) => std::os::unix::fs::chown(path, Some(u.uid), Some(u.gid)).map_err(io_err(path)),
        None => Ok(()),
    }
}

static SOCKET_SEQ: AtomicU32 = AtomicU32::new(0);

/// A fresh socket directory `/tmp/storlab-<pid>-<n>` (short: socket paths are limited to about
/// 107 bytes), mode 0755, owned by the server user; recorded in `owned`.
pub fn socket_dir(
    user: Option<&ServerUser>,
    owned: &mut Vec<Owned>,
) -> Result<PathBuf, ClusterError> {
    let pid = std::process::id();
    loop {
        let n = SOCKET_SEQ.fetch_add(1, Ordering::Relaxed);
        let dir = PathBuf::from(format!("/tmp/storlab-{pid}-{n}"));
        match fs::create_dir(&dir) {
            Ok(()) => {
                let id = dir_id(&dir)?;
                owned.push(Owned::Leaf {
                    path: dir.clone(),
                    id,
                });
                set_mode(&dir, 0o755)?;
                give_to(&dir, user)?;
                return Ok(dir);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 10_000 => continue,
            Err(e) => return Err(io_err(&dir)(e)),
        }
    }
}

/// Undoes `owned` in reverse order, going on after errors; returns the first error.
pub fn cleanup(owned: &[Owned]) -> Result<(), ClusterError> {
    let mut first = None;
    for item in owned.iter().rev() {
        let result = match item {
            Owned::Leaf { path: p, .. } => match fs::remove_dir_all(p) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_err(p)(e)),
                _ => Ok(()),
            },
            // Left alone if something else appeared in it meanwhile.
            Owned::Parent { path: p, .. } => {
                let _ = fs::remove_dir(p);
                Ok(())
            }
            Owned::Emptied {
                path,
                uid,
                gid,
                mode,
            } => empty(path).and_then(|()| {
                std::os::unix::fs::chown(path, Some(*uid), Some(*gid)).map_err(io_err(path))?;
                set_mode(path, *mode)
            }),
        };
        if let Err(e) = result {
            first.get_or_insert(e);
        }
    }
    first.map_or(Ok(()), Err)
}

/// Removes everything inside `dir` (symlinks themselves, never their targets).
fn empty(dir: &Path) -> Result<(), ClusterError> {
    let entries = match fs::read_dir(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        other => other.map_err(io_err(dir))?,
    };
    for entry in entries {
        let entry = entry.map_err(io_err(dir))?;
        let path = entry.path();
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        let res = if is_dir {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        res.map_err(io_err(&path))?;
    }
    Ok(())
}
