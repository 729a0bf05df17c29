//! Ctrl-C during a run. The command line's handler (storlab_io::signal) sets the stop flag
//! the simulator polls between events; here it is installed only for the length of a call
//! and the interpreter's own handlers come back afterwards, so a Ctrl-C during the run stops
//! the run (its results so far marked partial) and none is left pending for later.

use std::sync::atomic::Ordering;

/// The handlers of SIGINT and SIGTERM before the call; put back on drop.
pub struct Saved {
    int: libc::sigaction,
    term: libc::sigaction,
}

impl Saved {
    /// Saves the current handlers and lowers the stop flag.
    pub fn new() -> Saved {
        // SAFETY: sigaction with a null new action only reads the current one.
        let saved = unsafe {
            let mut int: libc::sigaction = std::mem::zeroed();
            let mut term: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGINT, std::ptr::null(), &mut int);
            libc::sigaction(libc::SIGTERM, std::ptr::null(), &mut term);
            Saved { int, term }
        };
        storlab_cli_flag().store(false, Ordering::SeqCst);
        saved
    }

    /// True when a signal asked the run to stop.
    pub fn stopped(&self) -> bool {
        storlab_cli_flag().load(Ordering::SeqCst)
    }
}

impl Drop for Saved {
    fn drop(&mut self) {
        // SAFETY: puts back handlers read by sigaction above.
        unsafe {
            libc::sigaction(libc::SIGINT, &self.int, std::ptr::null_mut());
            libc::sigaction(libc::SIGTERM, &self.term, std::ptr::null_mut());
        }
    }
}

fn storlab_cli_flag() -> &'static std::sync::atomic::AtomicBool {
    storlab_io::signal::flag()
}
