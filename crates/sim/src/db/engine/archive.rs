//! Log archiving in the simulated database: each log switch queues the filled file for the
//! archiver, which copies it chunk by chunk (a sequential read on the log target, then a write
//! on the archive target); a log write into a file not yet archived is held until the copy is
//! done, and the sessions waiting for that write wait on `LogSwitch:ArchiveNeeded`.

use super::{DbIo, Issuer, Model};
use crate::db::{ArchiveIo, LogWrite};

/// Bytes copied per archive I/O.
pub(super) const ARCHIVE_CHUNK: u64 = 1 << 20;

impl Model {
    /// Queues the log files a step filled.
    pub(super) fn archive_files(&mut self, files: &[(u32, u64)]) {
        for &(file, _) in files {
            let db = self.db.as_mut().expect("database");
            let Some(a) = db.archiver.as_mut() else {
                return;
            };
            if let Some(io) = a.enqueue(file) {
                self.issue_archive(io);
            }
        }
    }

    fn issue_archive(&mut self, io: ArchiveIo) {
        let db = self.db.as_ref().expect("database");
        let (issuer, target, offset, bytes, write) = match io {
            ArchiveIo::Read { offset, bytes } => (
                DbIo::ArchiveRead,
                db.log_target,
                db.spec.log_offset.unwrap_or(0) + offset,
                bytes,
                false,
            ),
            ArchiveIo::Write { offset, bytes } => (
                DbIo::ArchiveWrite,
                db.archive_target.expect("archiving has a target"),
                offset,
                bytes,
                true,
            ),
        };
        self.issue_host(
            Issuer::Db(issuer),
            target,
            offset / 512,
            bytes / 512,
            write,
            self.now,
        );
    }

    /// An archive I/O finished: the next one, and a held log write released when its file
    /// is now archived.
    pub(super) fn archive_io_done(&mut self) {
        let db = self.db.as_mut().expect("database");
        let Some(a) = db.archiver.as_mut() else {
            return;
        };
        let (next, finished) = a.io_done();
        if let Some(io) = next {
            self.issue_archive(io);
        }
        let Some(file) = finished else { return };
        let db = self.db.as_mut().expect("database");
        let file_bytes = db.spec.log_file_bytes;
        let Some((w, since)) = db
            .held_log
            .filter(|(w, _)| w.offset / file_bytes == u64::from(file))
        else {
            return;
        };
        db.held_log = None;
        if since >= self.opts.warmup_ns {
            let held = self.now - since;
            db.stats.archive_holds += 1;
            db.stats.archive_hold_ns += held;
            db.stats.archive_session_ns += held * db.log.waiting() as u64;
        }
        self.issue_log_write(w);
    }

    /// True (and the write kept) when `w` goes into a log file the archiver still has to copy.
    pub(super) fn hold_for_archive(&mut self, w: LogWrite) -> bool {
        let now = self.now;
        let db = self.db.as_mut().expect("database");
        let file = (w.offset / db.spec.log_file_bytes) as u32;
        if db.archiver.as_ref().is_some_and(|a| a.pending(file)) {
            db.held_log = Some((w, now));
            return true;
        }
        false
    }
}
