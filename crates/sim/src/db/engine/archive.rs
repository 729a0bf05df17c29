//! Log archiving in the simulated database: each log switch queues the filled file for the
//! archiver, which copies it chunk by chunk (a sequential read on the log target, then a write
//! on the archive target); a log write into a file not yet archived is held until the copy is
//! done, and the sessions waiting for that write wait on `LogSwitch:ArchiveNeeded`.

use super::{DbEngine, DbIo, Stack};
use crate::db::{ArchiveIo, LogWrite};
use crate::engine::SimTime;

/// Bytes copied per archive I/O.
pub(super) const ARCHIVE_CHUNK: u64 = 1 << 20;

impl DbEngine {
    /// Queues the log files a step filled.
    pub(super) fn archive_files(&mut self, files: &[(u32, u64)], stack: &mut Stack) {
        for &(file, _) in files {
            if self.oracle.is_some() && self.archiver.is_some() {
                let member = self.spec.log.names.join(",");
                stack.note("archive", "database", format!("group {file} from {member}"));
            }
            let Some(a) = self.archiver.as_mut() else {
                return;
            };
            if let Some(io) = a.enqueue(file) {
                self.issue_archive(io, stack);
            }
        }
    }

    fn issue_archive(&self, io: ArchiveIo, stack: &mut Stack) {
        let (issuer, target, offset, bytes, write) = match io {
            ArchiveIo::Read { offset, bytes } => (
                DbIo::ArchiveRead,
                self.log_target,
                self.spec.log_offset.unwrap_or(0) + offset,
                bytes,
                false,
            ),
            ArchiveIo::Write { offset, bytes } => (
                DbIo::ArchiveWrite,
                self.archive_target.expect("archiving has a target"),
                offset,
                bytes,
                true,
            ),
        };
        stack.issue_db_io(issuer, target, offset / 512, bytes / 512, write);
    }

    /// An archive I/O finished: the next one, and a held log write released when its file
    /// is now archived.
    pub(super) fn archive_io_done(&mut self, stack: &mut Stack) {
        let Some(a) = self.archiver.as_mut() else {
            return;
        };
        let (next, finished) = a.io_done();
        if let Some(io) = next {
            self.issue_archive(io, stack);
        }
        let Some(file) = finished else { return };
        let file_bytes = self.spec.log_file_bytes;
        let Some((w, since)) = self
            .held_log
            .filter(|(w, _)| w.offset / file_bytes == u64::from(file))
        else {
            return;
        };
        self.held_log = None;
        if since >= stack.warmup_end() {
            let held = stack.now() - since;
            self.stats.archive_holds += 1;
            self.stats.archive_hold_ns += held;
            self.stats.archive_session_ns += held * self.log.waiting() as u64;
        }
        self.issue_log_write(w, stack);
    }

    /// True (and the write kept) when `w` goes into a log file the archiver still has to copy.
    pub(super) fn hold_for_archive(&mut self, w: LogWrite, now: SimTime) -> bool {
        let file = (w.offset / self.spec.log_file_bytes) as u32;
        if self.archiver.as_ref().is_some_and(|a| a.pending(file)) {
            self.held_log = Some((w, now));
            return true;
        }
        false
    }
}
