//! The simulated database's log path: a log writer step releases the commits its write made
//! durable and issues the next write (held first when its file still awaits archiving).

use super::{DbIo, Issuer, Model};
use crate::db::{LogStep, LogWrite};

impl Model {
    pub(super) fn log_step(&mut self, step: LogStep) {
        let measuring = self.now >= self.opts.warmup_ns;
        for &s in &step.released {
            let db = self.db.as_mut().expect("database");
            if measuring {
                let waited = self.now - db.sessions[s as usize].wait_start;
                db.stats.commit_waits += 1;
                db.stats.commit_wait_ns += waited;
                db.commit_latency.record(waited);
            }
            self.finish_op(s);
        }
        let db = self.db.as_mut().expect("database");
        db.log.recycle(step.released);
        // The write first: the files this step filled (the write's own among them) are
        // queued for archiving after it is checked against the files still to be copied.
        if let Some(w) = step.write {
            if !self.hold_for_archive(w) {
                self.issue_log_write(w);
            }
        }
        self.archive_files(&step.archive);
    }

    pub(super) fn issue_log_write(&mut self, w: LogWrite) {
        let measuring = self.now >= self.opts.warmup_ns;
        let db = self.db.as_mut().expect("database");
        if measuring {
            db.stats.log_bytes += w.bytes;
        }
        let target = db.log_target;
        let base = db.spec.log_offset.unwrap_or(0);
        self.issue_host(
            Issuer::Db(DbIo::Log),
            target,
            (base + w.offset) / 512,
            w.bytes / 512,
            true,
            self.now,
        );
    }
}
