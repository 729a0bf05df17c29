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
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
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

/// [`run`], but Ctrl-C (the stop flag) kills the command within a few milliseconds and
/// returns [`ClusterError::CommandFailed`] saying so. For commands with little output
/// (initdb's is about 2 KB): it is read once the command ends, so more than a pipe's
/// 64 KB would block the command.
pub fn run_interruptible(what: &str, cmd: &mut Command) -> Result<String, ClusterError> {
    let failed = |detail: String| ClusterError::CommandFailed {
        what: what.to_string(),
        detail,
    };
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("could not run it: {e}")))?;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if storlab_io::signal::stop_requested() => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(failed("interrupted".into()));
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(10)),
            Err(e) => return Err(failed(format!("could not wait for it: {e}"))),
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| failed(format!("could not read its output: {e}")))?;
    let text = combined(&out);
    match out.status.success() {
        true => Ok(text),
        false => Err(failed(format!(
            "{}; last lines of its output:\n{}",
            out.status,
            tail(&text, TAIL_LINES)
        ))),
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

/// Fields of `/proc/PID/stat` after the command name: (parent pid, CPU clock ticks of the
/// process itself (user + system) and of its waited-for children).
fn stat_cpu(stat: &str) -> Option<(i32, u64, u64)> {
    // The command name is in parentheses and may hold spaces or parentheses: the fields
    // start after the last ')'. After it: state (3), ppid (4), ... utime (14), stime (15),
    // cutime (16), cstime (17).
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let num = |i: usize| f.get(i - 3)?.parse::<u64>().ok();
    let ppid = f.get(1)?.parse().ok()?;
    Some((ppid, num(14)? + num(15)?, num(16)? + num(17)?))
}

/// CPU time (user + system) of process `root` and its children, their own and that of their
/// children already reaped: the postmaster, its backends and background processes. A child
/// that exits moves into the postmaster's reaped total, so the sum keeps growing as it
/// should. A child reaped while /proc is walked would be missed or counted twice: the walk is
/// repeated until the reaped total is the same before and after it. None without /proc.
pub fn process_tree_cpu(root: i32) -> Option<std::time::Duration> {
    let read_root = || {
        let own = std::fs::read_to_string(format!("/proc/{root}/stat")).ok()?;
        stat_cpu(&own).map(|(_, t, reaped)| (t, reaped))
    };
    let mut ticks = 0;
    for _ in 0..5 {
        let (_, reaped_before) = read_root()?;
        let children = children_ticks(root)?;
        let (own, reaped) = read_root()?;
        ticks = own + reaped + children;
        if reaped == reaped_before {
            break;
        }
    }
    ticks_to_duration(ticks)
}

/// CPU time (user + system) of process `pid` itself, its children not included. None when
/// the process is gone or there is no /proc.
pub fn process_cpu(pid: i32) -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, ticks, _) = stat_cpu(&stat)?;
    ticks_to_duration(ticks)
}

fn ticks_to_duration(ticks: u64) -> Option<std::time::Duration> {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = u64::try_from(hz).ok().filter(|&h| h > 0)?;
    Some(std::time::Duration::from_nanos(ticks * 1_000_000_000 / hz))
}

/// CPU clock ticks of the live (or not yet reaped) children of `root`, their reaped children
/// included.
fn children_ticks(root: i32) -> Option<u64> {
    let mut ticks = 0;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        // A process may exit between the listing and the read: skip it.
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if let Some((ppid, t, r)) = stat_cpu(&stat) {
            if ppid == root {
                ticks += t + r;
            }
        }
    }
    Some(ticks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_read_after_the_command_name() {
        // A command name with spaces and a parenthesis, as a process may set it.
        let line = "4242 (postgres: a (b) c) S 17 4242 4242 0 -1 4194560 900 0 0 0 \
                    250 75 30 12 20 0 1 0 100 200000000 3000 18446744073709551615";
        assert_eq!(stat_cpu(line), Some((17, 325, 42)));
        assert_eq!(stat_cpu("garbage"), None);
        assert_eq!(stat_cpu("1 (x) S 0"), None);
    }

    #[test]
    fn this_process_tree_reports_its_cpu() {
        // Burn some CPU in a child, wait for it: it moves into this process's reaped total.
        let pid = std::process::id() as i32;
        let before = process_tree_cpu(pid).expect("/proc is readable");
        let status = Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"])
            .status()
            .expect("sh runs");
        assert!(status.success());
        let after = process_tree_cpu(pid).expect("/proc is readable");
        assert!(
            after > before,
            "a child's CPU is counted: {before:?} -> {after:?}"
        );
    }
}
