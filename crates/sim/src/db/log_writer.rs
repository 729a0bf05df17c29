//! The log writer: commits append their redo/WAL to a buffer and wait until it is on disk;
//! one log write is in flight at a time, and every commit that arrives meanwhile rides on the
//! next write (group commit). Writes are rounded up to the log block size and capped in
//! length; the log is a ring of `groups` files of `file_bytes` each, with a switch (and,
//! when archiving, a whole-file archive read) each time the write position leaves a file;
//! multiplexed members get the same write and it counts as done when every member is done.
//!
//! With a log buffer (`buffer_bytes > 0`, Oracle's LGWR) the writer also writes when a third
//! of the buffer holds unwritten redo and on its timeout (every 3 s), and after a write it
//! writes again only for waiting commits or a third of the buffer; without one (PostgreSQL)
//! it writes whatever commits and appends left unwritten as soon as the previous write is
//! done, and what background appends left (the WAL of hint bits' full-page images) on its
//! next timeout, the WAL writer's round.
//!
//! The last block of a write is usually partly filled. PostgreSQL writes that WAL page again
//! with the next write; Oracle's LGWR instead moves the redo generation position to the
//! start of the next redo block before it writes (`wastes_tail`), so each write starts on a
//! fresh block and the rest of the last one is never used: the `redo wastage` statistic
//! (Oracle Database Reference, "Statistics Descriptions"; Steve Adams, *Oracle Internals
//! Notes*, "Redo Wastage"). A write then costs the redo it carries rounded up to whole
//! blocks, once, instead of the partly filled block again at the start of the next write.

use std::collections::VecDeque;

/// Log layout and write behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogConfig {
    /// Write granularity (WAL page, redo block), bytes.
    pub block: u64,
    /// Largest single log write, bytes.
    pub max_write: u64,
    /// Size of one log file, bytes.
    pub file_bytes: u64,
    /// Files (groups) in the ring.
    pub groups: u32,
    /// Copies of every write (multiplexed members, each on its own target).
    pub members: u32,
    /// Archive each file after a switch.
    pub archive: bool,
    /// The log buffer, bytes (Oracle's `log_buffer`): a third of it unwritten starts a
    /// write. 0: no buffer trigger (PostgreSQL's WAL).
    pub buffer_bytes: u64,
    /// Oracle: after a write the generation position moves to the next block boundary (the
    /// rest of the written block is redo wastage); false: the partly filled block is written
    /// again by the next write (PostgreSQL's WAL page).
    pub wastes_tail: bool,
}

/// One log write to issue: `bytes` at byte `offset` of the log space, on every member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogWrite {
    pub offset: u64,
    pub bytes: u64,
}

/// What the caller must do after a commit or a completed write.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LogStep {
    /// A write to issue (on each member).
    pub write: Option<LogWrite>,
    /// Sessions whose commits are now durable.
    pub released: Vec<u32>,
    /// Files just filled: (file index, its offset in the log space) to archive when enabled.
    pub archive: Vec<(u32, u64)>,
    /// The write in flight completed on every member (`log file parallel write` ended).
    pub completed: bool,
    /// Log switches this step's write makes (a checkpoint each, in Oracle).
    pub switches: u32,
}

/// The log writer's state.
#[derive(Debug, Clone)]
pub struct LogWriter {
    cfg: LogConfig,
    /// Bytes of log generated (the insert position, an LSN).
    lsn: u64,
    /// LSN up to which the log is on disk.
    flushed: u64,
    /// LSN the write in flight will reach, and member completions it still waits for.
    inflight: Option<(u64, u32)>,
    /// Committers in LSN order: (session, LSN its commit needs on disk).
    waiters: VecDeque<(u32, u64)>,
    /// LSN the database writer asked to have on disk (Oracle's write-ahead rule): the
    /// write after the one in flight goes at least this far.
    posted: u64,
    /// Without a log buffer: the LSN the writer writes up to without waiting for its next
    /// round (commits' and appends' log; not the background appends').
    urgent: u64,
    /// An emptied `released` list handed back by the caller, reused for the next step.
    spare: Vec<u32>,
    /// End of the current log file in LSN terms: the switch happens when the log written
    /// reaches it (a write that only covers a partly filled last block does not switch).
    next_switch: u64,
    /// Counters.
    pub writes: u64,
    pub commits: u64,
    pub switches: u64,
    pub bytes_written: u64,
    /// Bytes of partly filled last blocks skipped (`wastes_tail`: Oracle's redo wastage).
    pub wasted: u64,
}

impl LogWriter {
    pub fn new(cfg: LogConfig) -> Self {
        assert!(cfg.block > 0 && cfg.max_write >= cfg.block && cfg.file_bytes >= cfg.block);
        LogWriter {
            cfg: LogConfig {
                groups: cfg.groups.max(1),
                members: cfg.members.max(1),
                ..cfg
            },
            lsn: 0,
            flushed: 0,
            inflight: None,
            waiters: VecDeque::new(),
            posted: 0,
            urgent: 0,
            spare: Vec::new(),
            next_switch: cfg.file_bytes,
            writes: 0,
            commits: 0,
            switches: 0,
            bytes_written: 0,
            wasted: 0,
        }
    }

    /// Log generated by a change that does not wait (an update before its commit). With a
    /// log buffer, a third of it unwritten starts a write when none is in flight.
    pub fn append(&mut self, bytes: u64) -> LogStep {
        self.lsn += bytes;
        self.urgent = self.lsn;
        let mut step = LogStep::default();
        if self.inflight.is_none() && self.third_full() {
            self.start_write(&mut step);
        }
        step
    }

    /// Log generated that waits for the writer's next round (PostgreSQL: WAL that no commit
    /// flushes, which the WAL writer writes every `wal_writer_delay`). Starts no write.
    pub fn append_background(&mut self, bytes: u64) {
        self.lsn += bytes;
    }

    /// The log writer's timeout (Oracle: every 3 s; PostgreSQL's WAL writer): it writes what
    /// is unwritten when no write is in flight, and without a log buffer goes on until all of
    /// it is written.
    pub fn timeout(&mut self) -> LogStep {
        self.urgent = self.lsn;
        let mut step = LogStep::default();
        if self.inflight.is_none() {
            self.start_write(&mut step);
        }
        step
    }

    /// The database writer posts the log writer (Oracle's write-ahead rule): the redo
    /// generated so far must go to disk. A write starts now when none is in flight, else
    /// right after the one in flight.
    pub fn post(&mut self) -> LogStep {
        self.posted = self.lsn;
        let mut step = LogStep::default();
        if self.inflight.is_none() {
            self.start_write(&mut step);
        }
        step
    }

    /// The LSN the write in flight makes durable (None: no write in flight).
    pub fn writing_to(&self) -> Option<u64> {
        self.inflight.map(|(to, _)| to)
    }

    /// A log buffer holds at least a third of its size unwritten.
    fn third_full(&self) -> bool {
        self.cfg.buffer_bytes > 0 && 3 * (self.lsn - self.flushed) >= self.cfg.buffer_bytes
    }

    /// Whether `bytes` more redo fit in the log buffer: the redo not yet on disk (the write
    /// in flight's included, as Oracle frees buffer space only once LGWR has written it)
    /// plus them at most `buffer_bytes`. An empty buffer takes a record of any size; without
    /// a buffer (PostgreSQL) everything fits.
    pub fn fits(&self, bytes: u64) -> bool {
        let unwritten = self.lsn - self.flushed;
        self.cfg.buffer_bytes == 0
            || unwritten == 0
            || unwritten.saturating_add(bytes) <= self.cfg.buffer_bytes
    }

    /// The log group (file of the ring) the log is written into now.
    pub fn group(&self) -> u32 {
        ((self.next_switch / self.cfg.file_bytes - 1) % u64::from(self.cfg.groups)) as u32
    }

    /// Bytes of log generated so far (the insert position).
    pub fn lsn(&self) -> u64 {
        self.lsn
    }

    /// `session` commits with `bytes` of log; it waits until `LogStep::released` names it.
    #[inline]
    pub fn commit(&mut self, session: u32, bytes: u64) -> LogStep {
        self.commit_step(session, bytes).unwrap_or_default()
    }

    /// [`LogWriter::commit`], returning a step only when it has something to do: a commit
    /// behind the write in flight (nearly every one under load) just waits.
    #[inline]
    pub fn commit_step(&mut self, session: u32, bytes: u64) -> Option<LogStep> {
        self.lsn += bytes;
        self.urgent = self.lsn;
        self.commits += 1;
        self.waiters.push_back((session, self.lsn));
        if self.inflight.is_some() {
            return None;
        }
        let mut step = LogStep::default();
        self.start_write(&mut step);
        Some(step)
    }

    /// Sessions waiting for their commit to be durable.
    pub fn waiting(&self) -> usize {
        self.waiters.len()
    }

    /// Commits per log write so far.
    pub fn commits_per_write(&self) -> f64 {
        if self.writes == 0 {
            0.0
        } else {
            self.commits as f64 / self.writes as f64
        }
    }

    /// Takes back a step's `released` list once the caller has read it, so the next step
    /// reuses its memory instead of allocating. The larger of it and the spare is kept: a
    /// commit's step carries an empty list that must not replace a grown one.
    pub fn recycle(&mut self, mut released: Vec<u32>) {
        if released.capacity() > self.spare.capacity() {
            released.clear();
            self.spare = released;
        }
    }

    /// One member finished the write in flight.
    pub fn member_done(&mut self) -> LogStep {
        let mut step = LogStep {
            released: std::mem::take(&mut self.spare),
            ..LogStep::default()
        };
        let Some((to, left)) = self.inflight else {
            return step;
        };
        if left > 1 {
            self.inflight = Some((to, left - 1));
            return step;
        }
        self.inflight = None;
        step.completed = true;
        self.flushed = to;
        while let Some(&(s, need)) = self.waiters.front() {
            if need > self.flushed {
                break;
            }
            step.released.push(s);
            self.waiters.pop_front();
        }
        let more = if self.cfg.buffer_bytes > 0 {
            self.third_full()
        } else {
            self.urgent > self.flushed
        };
        if !self.waiters.is_empty() || more || self.posted > self.flushed {
            self.start_write(&mut step);
        }
        step
    }

    fn start_write(&mut self, step: &mut LogStep) {
        if self.lsn <= self.flushed {
            return;
        }
        let b = self.cfg.block;
        // Whole blocks from the flushed position (PostgreSQL: a partly filled block is
        // written again; Oracle: the flushed position is always a block boundary), no
        // further than the end of the current file, no longer than max_write.
        let start = self.flushed / b * b;
        let in_file = start % self.cfg.file_bytes;
        let room = self.cfg.file_bytes - in_file;
        let want = (self.lsn - start).div_ceil(b) * b;
        let bytes = want.min(self.cfg.max_write / b * b).min(room);
        if self.cfg.wastes_tail && start + bytes > self.lsn {
            // Oracle: redo generated from now on goes to the next block.
            self.wasted += start + bytes - self.lsn;
            self.lsn = start + bytes;
        }
        let to = (start + bytes).min(self.lsn);
        let ring = self.cfg.file_bytes * u64::from(self.cfg.groups);
        step.write = Some(LogWrite {
            offset: start % ring,
            bytes,
        });
        // A switch when the log this write makes durable reaches the end of its file.
        while to >= self.next_switch {
            self.switches += 1;
            step.switches += 1;
            if self.cfg.archive {
                let file =
                    (self.next_switch / self.cfg.file_bytes - 1) % u64::from(self.cfg.groups);
                step.archive.push((file as u32, file * self.cfg.file_bytes));
            }
            self.next_switch += self.cfg.file_bytes;
        }
        self.inflight = Some((to, self.cfg.members));
        self.writes += 1;
        self.bytes_written += bytes * u64::from(self.cfg.members);
    }
}

#[cfg(test)]
mod tests;
