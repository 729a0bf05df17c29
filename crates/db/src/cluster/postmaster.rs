//! Starting the postmaster as storlab's own child, so that it dies with storlab.
//!
//! `pg_ctl start` detaches the server: after a SIGKILL of storlab it ran on with its
//! directories. Here `postgres` is spawned directly with the parent-death signal set to
//! SIGQUIT (PostgreSQL's immediate shutdown): when storlab ends for any reason, the kernel
//! tells the postmaster, which stops its backends and exits. It runs in its own process group
//! so that a Ctrl-C at the terminal reaches storlab only (which then stops it itself).

use std::fs::OpenOptions;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Child;
use std::time::Duration;

use super::os::{self, ServerUser};
use super::ClusterError;

/// How long the server may take to accept connections.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// Spawns `postgres -D data_dir`, its output appended to `log_file`, and waits until its
/// `postmaster.pid` says it is ready. On failure the child is reaped and the error carries
/// the last lines of the log.
pub fn start(
    postgres: &Path,
    data_dir: &Path,
    log_file: &Path,
    user: Option<&ServerUser>,
) -> Result<Child, ClusterError> {
    let io_err = |source| ClusterError::Io {
        path: log_file.to_path_buf(),
        source,
    };
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_file)
        .map_err(io_err)?;
    let mut cmd = os::server_command(postgres, user);
    cmd.arg("-D").arg(data_dir);
    cmd.stdout(log.try_clone().map_err(io_err)?).stderr(log);
    cmd.process_group(0);
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: only async-signal-safe calls (prctl, getppid, _exit) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGQUIT as libc::c_ulong);
            // storlab died between the fork and the prctl: do not start at all.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(|e| ClusterError::CommandFailed {
        what: "postgres".into(),
        detail: format!("could not run {}: {e}", postgres.display()),
    })?;
    let pid = child.id() as i32;
    let deadline = std::time::Instant::now() + READY_WITHIN;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(ClusterError::CommandFailed {
                what: "postgres".into(),
                detail: format!("the server exited during its start ({status})"),
            });
        }
        if ready(data_dir, pid) {
            return Ok(child);
        }
        if storlab_io::signal::stop_requested() {
            // SAFETY: our own child; SIGQUIT is PostgreSQL's immediate shutdown.
            unsafe { libc::kill(pid, libc::SIGQUIT) };
            let _ = child.wait();
            return Err(ClusterError::CommandFailed {
                what: "postgres".into(),
                detail: "interrupted during its start".into(),
            });
        }
        if std::time::Instant::now() >= deadline {
            // SAFETY: our own child.
            unsafe { libc::kill(pid, libc::SIGQUIT) };
            let _ = child.wait();
            return Err(ClusterError::CommandFailed {
                what: "postgres".into(),
                detail: format!("not ready after {} s", READY_WITHIN.as_secs()),
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `postmaster.pid` names `pid` and says `ready` (its 8th line, PostgreSQL 10+).
fn ready(data_dir: &Path, pid: i32) -> bool {
    let Ok(text) = std::fs::read_to_string(data_dir.join("postmaster.pid")) else {
        return false;
    };
    let lines: Vec<&str> = text.lines().collect();
    lines.first().and_then(|l| l.trim().parse::<i32>().ok()) == Some(pid)
        && lines.get(7).is_some_and(|l| l.trim() == "ready")
}

/// The caller's setting a failed start's log complains about, and the complaint: PostgreSQL
/// logs `invalid value for parameter "x": "v"` or `unrecognized configuration parameter "x"`.
pub fn bad_setting(log: &str, settings: &[(String, String)]) -> Option<(String, String)> {
    for line in log.lines() {
        let Some(start) = line.find("parameter \"") else {
            continue;
        };
        let rest = &line[start + "parameter \"".len()..];
        let Some(end) = rest.find('"') else {
            continue;
        };
        let name = &rest[..end];
        if let Some((given, _)) = settings.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)) {
            let what = line.split_once(':').map_or(line, |(_, m)| m).trim();
            return Some((given.clone(), format!("the server refuses it: {what}")));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_names_the_bad_setting() {
        let settings = vec![
            ("shared_buffers".to_string(), "banana".to_string()),
            ("nosuchsetting".to_string(), "1".to_string()),
        ];
        let log = "2024 LOG:  invalid value for parameter \"shared_buffers\": \"banana\"\n";
        let (name, why) = bad_setting(log, &settings).unwrap();
        assert_eq!(name, "shared_buffers");
        assert!(
            why.contains("invalid value") && why.contains("banana"),
            "{why}"
        );
        let log =
            "LOG:  unrecognized configuration parameter \"nosuchsetting\" in file \"x\" line 3\n";
        assert_eq!(bad_setting(log, &settings).unwrap().0, "nosuchsetting");
        let log = "LOG:  invalid value for parameter \"work_mem\": \"x\"\n";
        assert_eq!(bad_setting(log, &settings), None, "not one of the caller's");
    }
}
