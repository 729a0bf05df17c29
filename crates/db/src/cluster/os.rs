//! The OS user the server runs as, running server programs as that user, and process checks.

use std::ffi::CString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use super::ClusterError;

/// Name of the system user storlab creates when running as root on a machine without a
/// `postgres` user.
pub const FALLBACK_USER: &str = "storlab-pg";

/// Lines of a failed command's output (or of the server log) quoted in errors.
pub const TAIL_LINES: usize = 20;

/// Environment variables that would redirect the server programs elsewhere.
const PG_ENV: [&str; 8] = [
    "PGDATA",
    "PGPORT",
    "PGHOST",
    "PGHOSTADDR",
    "PGOPTIONS",
    "PGUSER",
    "PGDATABASE",
    "PGCLIENTENCODING",
];

/// The unprivileged OS user the server programs are run as when storlab itself is root.
#[derive(Clone, Debug)]
pub struct ServerUser {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

/// `None` when storlab is not root (the server runs as the current user); else the `postgres`
/// user, or `storlab-pg`, created as a system user if needed.
pub fn server_user() -> Result<Option<ServerUser>, ClusterError> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(None);
    }
    for name in ["postgres", FALLBACK_USER] {
        if let Some(user) = lookup(name) {
            return Ok(Some(user));
        }
    }
    let what = format!("useradd {FALLBACK_USER}");
    let status = Command::new("useradd")
        .args([
            "--system",
            "--no-create-home",
            "--shell",
            "/usr/sbin/nologin",
        ])
        .arg(FALLBACK_USER)
        .stdin(Stdio::null())
        .output();
    // A concurrent start may have created it first: look again before reporting a failure.
    if let Some(user) = lookup(FALLBACK_USER) {
        return Ok(Some(user));
    }
    let detail = match status {
        Ok(out) => format!("{}: {}", out.status, tail(&combined(&out), TAIL_LINES)),
        Err(e) => format!("could not run useradd: {e}"),
    };
    Err(ClusterError::CommandFailed {
        what,
        detail: format!(
            "{detail}\nPostgreSQL refuses to run as root and there is no `postgres` user: create \
             one (e.g. install the postgresql package) or run storlab as an unprivileged user"
        ),
    })
}

/// Looks up a non-root user in the password database.
fn lookup(name: &str) -> Option<ServerUser> {
    let cname = CString::new(name).ok()?;
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: an all-zero passwd is a valid value for the out parameter.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the duration of the call, the buffer length is right.
    let rc = unsafe {
        libc::getpwnam_r(
            cname.as_ptr(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut result,
        )
    };
    if rc != 0 || result.is_null() || pwd.pw_uid == 0 {
        return None;
    }
    Some(ServerUser {
        name: name.to_string(),
        uid: pwd.pw_uid,
        gid: pwd.pw_gid,
    })
}

/// A command for one of the server programs: run as `user` (if any), from `/`, with no stdin
/// and without the PG* variables of storlab's environment.
pub fn server_command(program: &Path, user: Option<&ServerUser>) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir("/").stdin(Stdio::null());
    for var in PG_ENV {
        cmd.env_remove(var);
    }
    if let Some(u) = user {
        // std drops the supplementary groups when switching from root.
        cmd.uid(u.uid).gid(u.gid);
    }
    cmd
}

/// Runs `cmd` to completion; on failure, [`ClusterError::CommandFailed`] with its exit status
/// and the last lines of its output. Returns the output (stdout then stderr) on success.
pub fn run(what: &str, cmd: &mut Command) -> Result<String, ClusterError> {
    let out = cmd.output().map_err(|e| ClusterError::CommandFailed {
        what: what.to_string(),
        detail: format!("could not run it: {e}"),
    })?;
    let text = combined(&out);
    if out.status.success() {
        Ok(text)
    } else {
        Err(ClusterError::CommandFailed {
            what: what.to_string(),
            detail: format!(
                "{}; last lines of its output:\n{}",
                out.status,
                tail(&text, TAIL_LINES)
            ),
        })
    }
}

fn combined(out: &std::process::Output) -> String {
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    text
}

/// The last `lines` lines of `text`.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The postmaster's pid from `<data>/postmaster.pid`, if the file exists and is well formed.
pub fn postmaster_pid(data_dir: &Path) -> Option<i32> {
    let text = std::fs::read_to_string(data_dir.join("postmaster.pid")).ok()?;
    let pid: i32 = text.lines().next()?.trim().parse().ok()?;
    (pid > 0).then_some(pid)
}

/// Whether a process with this pid exists.
pub fn process_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence and permission.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether the postmaster of `data_dir` runs: its pid file names a live process whose command
/// line still mentions the data directory (guards against a reused pid).
pub fn postmaster_running(data_dir: &Path) -> bool {
    let Some(pid) = postmaster_pid(data_dir) else {
        return false;
    };
    if !process_alive(pid) {
        return false;
    }
    match std::fs::read(format!("/proc/{pid}/cmdline")) {
        Ok(cmdline) => {
            let needle = data_dir.as_os_str().as_encoded_bytes();
            cmdline.windows(needle.len().max(1)).any(|w| w == needle)
        }
        // No /proc (or it is hidden): trust the pid file.
        Err(_) => true,
    }
}

/// Last resort when `pg_ctl stop -m immediate` failed: SIGKILL the postmaster (its children
/// exit when they notice it is gone) and wait up to `wait` for it to disappear.
// Real processes are waited for in wall-clock time (the workspace bans Instant::now elsewhere).
#[allow(clippy::disallowed_methods)]
pub fn kill_postmaster(data_dir: &Path, wait: std::time::Duration) -> bool {
    let Some(pid) = postmaster_pid(data_dir) else {
        return true;
    };
    if postmaster_running(data_dir) {
        // SAFETY: plain kill(2) on a pid we verified belongs to this data directory.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    // A killed but unreaped postmaster is a zombie with an empty command line: not running.
    let deadline = std::time::Instant::now() + wait;
    while postmaster_running(data_dir) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    !postmaster_running(data_dir)
}
