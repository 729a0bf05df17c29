//! Finding the PostgreSQL server binaries (`pg_ctl`, `initdb`, `postgres`) and their version.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::ClusterError;

/// Oldest PostgreSQL major version storlab drives.
pub const MIN_MAJOR: u32 = 13;

/// The programs a cluster's lifecycle needs, all from one directory.
const REQUIRED: [&str; 3] = ["pg_ctl", "initdb", "postgres"];

/// Server binaries found.
#[derive(Clone, Debug)]
pub struct Binaries {
    /// Directory holding `pg_ctl`, `initdb` and `postgres`.
    pub bindir: PathBuf,
    /// Full version as `postgres --version` prints it, e.g. "15.18".
    pub version: String,
    /// Major version, e.g. 15.
    pub major: u32,
}

impl Binaries {
    /// Path of one program in [`Binaries::bindir`].
    pub fn program(&self, name: &str) -> PathBuf {
        self.bindir.join(name)
    }
}

/// Finds the server binaries: an explicit directory if given (a path to `pg_ctl` itself is
/// accepted too), else the directory of `pg_ctl` on PATH (symlinks resolved), else
/// `pg_config --bindir`, else the highest `/usr/lib/postgresql/*/bin` (then `/usr/pgsql-*/bin`
/// and `/usr/local/pgsql/bin`) holding `pg_ctl`, `initdb` and `postgres`. The version comes
/// from `postgres --version`; major versions below 13 are refused ([`ClusterError::TooOld`]).
///
/// Without an explicit directory, a candidate that is too old does not stop the search: a newer
/// installation further down the list is preferred, and `TooOld` is reported only if none is.
pub fn find_binaries(explicit: Option<&Path>) -> Result<Binaries, ClusterError> {
    if let Some(given) = explicit {
        let dir = match given.file_name() {
            Some(name) if name == "pg_ctl" && given.is_file() => given.parent().unwrap_or(given),
            _ => given,
        };
        if !has_server(dir) {
            return Err(ClusterError::NotInstalled {
                searched: vec![dir.to_path_buf()],
            });
        }
        return probe(dir);
    }
    let mut searched = Vec::new();
    let mut first_failure = None;
    for dir in candidates() {
        if searched.contains(&dir) {
            continue;
        }
        searched.push(dir.clone());
        if !has_server(&dir) {
            continue;
        }
        match probe(&dir) {
            Ok(found) => return Ok(found),
            Err(e) => {
                first_failure.get_or_insert(e);
            }
        }
    }
    Err(first_failure.unwrap_or(ClusterError::NotInstalled { searched }))
}

/// Candidate directories, in order of preference.
fn candidates() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        for entry in std::env::split_paths(&path) {
            let pg_ctl = entry.join("pg_ctl");
            if is_executable(&pg_ctl) {
                let real = std::fs::canonicalize(&pg_ctl).unwrap_or(pg_ctl);
                if let Some(parent) = real.parent() {
                    dirs.push(parent.to_path_buf());
                }
            }
        }
    }
    if let Some(dir) = pg_config_bindir() {
        dirs.push(dir);
    }
    dirs.extend(versioned_dirs(Path::new("/usr/lib/postgresql"), "", "bin"));
    dirs.extend(versioned_dirs(Path::new("/usr"), "pgsql-", "bin"));
    dirs.push(PathBuf::from("/usr/local/pgsql/bin"));
    dirs
}

/// `pg_config --bindir`, if `pg_config` is on PATH and answers.
fn pg_config_bindir() -> Option<PathBuf> {
    let out = Command::new("pg_config")
        .arg("--bindir")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let dir = text.trim();
    (!dir.is_empty()).then(|| PathBuf::from(dir))
}

/// `<root>/<prefix><N>/<sub>` for every numeric N found, highest version first.
fn versioned_dirs(root: &Path, prefix: &str, sub: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found: Vec<(Vec<u32>, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let ver = name.strip_prefix(prefix)?;
            let key: Option<Vec<u32>> = ver.split('.').map(|p| p.parse().ok()).collect();
            Some((key?, e.path().join(sub)))
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0));
    found.into_iter().map(|(_, p)| p).collect()
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Whether `dir` holds every program the lifecycle needs.
fn has_server(dir: &Path) -> bool {
    REQUIRED.iter().all(|p| is_executable(&dir.join(p)))
}

/// Runs `postgres --version` in `dir` and checks the major version.
fn probe(dir: &Path) -> Result<Binaries, ClusterError> {
    let bindir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let postgres = bindir.join("postgres");
    let what = format!("{} --version", postgres.display());
    let out = Command::new(&postgres)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| ClusterError::CommandFailed {
            what: what.clone(),
            detail: format!("could not run it: {e}"),
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let parsed = if out.status.success() {
        parse_version(&text)
    } else {
        None
    };
    let Some((version, major)) = parsed else {
        return Err(ClusterError::CommandFailed {
            what,
            detail: format!(
                "{}; unexpected output: {:?}{}",
                out.status,
                text.trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        });
    };
    if major < MIN_MAJOR {
        return Err(ClusterError::TooOld { version, bindir });
    }
    Ok(Binaries {
        bindir,
        version,
        major,
    })
}

/// Parses `postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)` into ("15.18", 15).
pub(super) fn parse_version(text: &str) -> Option<(String, u32)> {
    let line = text.lines().next()?;
    let mut words = line.split_whitespace();
    let version = match words.position(|w| w == "(PostgreSQL)") {
        Some(_) => words.next()?,
        None => line
            .split_whitespace()
            .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?,
    };
    let digits: String = version.chars().take_while(|c| c.is_ascii_digit()).collect();
    let major = digits.parse().ok()?;
    Some((version.to_string(), major))
}
