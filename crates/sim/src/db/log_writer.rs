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
//! it writes whatever is unwritten as soon as the previous write is done.
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
        let mut step = LogStep::default();
        if self.inflight.is_none() && self.third_full() {
            self.start_write(&mut step);
        }
        step
    }

    /// The log writer's timeout (Oracle: every 3 s): it writes what is unwritten when no
    /// write is in flight.
    pub fn timeout(&mut self) -> LogStep {
        let mut step = LogStep::default();
        if self.inflight.is_none() {
            self.start_write(&mut step);
        }
        step
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
            self.lsn > self.flushed
        };
        if !self.waiters.is_empty() || more {
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
mod tests {
    use super::*;

    fn cfg() -> LogConfig {
        LogConfig {
            block: 8192,
            max_write: 1 << 20,
            file_bytes: 16 << 20,
            groups: 3,
            members: 1,
            archive: false,
            buffer_bytes: 0,
            wastes_tail: false,
        }
    }

    #[test]
    fn a_lone_committer_gets_one_write_per_commit() {
        let mut l = LogWriter::new(cfg());
        for i in 0..10 {
            let s = l.commit(0, 300);
            assert!(s.write.is_some(), "commit {i} starts a write");
            assert!(s.released.is_empty());
            let d = l.member_done();
            assert_eq!(d.released, vec![0]);
            assert!(d.write.is_none());
        }
        assert_eq!(l.writes, 10);
        assert_eq!(l.commits_per_write(), 1.0);
    }

    #[test]
    fn a_commit_behind_the_write_in_flight_has_no_step() {
        let mut l = LogWriter::new(cfg());
        let first = l
            .commit_step(0, 500)
            .expect("the first commit starts a write");
        assert_eq!(first.write.map(|w| w.bytes), Some(8192));
        assert_eq!(l.commit_step(1, 500), None);
        assert_eq!(l.waiting(), 2);
        // The write in flight done, the waiting commit's write starts.
        let d = l.member_done();
        assert_eq!(d.released, vec![0]);
        assert!(d.write.is_some());
    }

    #[test]
    fn commits_during_a_write_share_the_next_one() {
        let mut l = LogWriter::new(cfg());
        let first = l.commit(0, 500).write.unwrap();
        assert_eq!(
            first,
            LogWrite {
                offset: 0,
                bytes: 8192
            }
        );
        // Nine sessions commit while the first write is in flight: none starts a write.
        for s in 1..10 {
            assert!(l.commit(s, 500).write.is_none());
        }
        let d = l.member_done();
        assert_eq!(d.released, vec![0]);
        // One write carries all nine (5,000 bytes in the same 8 KiB block, rewritten).
        assert_eq!(
            d.write,
            Some(LogWrite {
                offset: 0,
                bytes: 8192
            })
        );
        let d = l.member_done();
        assert_eq!(d.released, (1..10).collect::<Vec<_>>());
        assert!(d.write.is_none());
        assert_eq!(l.writes, 2);
        assert_eq!(l.commits_per_write(), 5.0);
    }

    /// The released list's memory goes round: a commit's step (an empty list) given back
    /// does not replace the grown one, so steady group commits stop allocating.
    #[test]
    fn recycled_release_lists_keep_their_memory() {
        let mut l = LogWriter::new(cfg());
        l.commit(0, 100);
        for s in 1..40 {
            l.commit(s, 100);
        }
        let first = l.member_done().released;
        l.recycle(first);
        let grown = l.member_done().released;
        assert_eq!(grown.len(), 39);
        let (ptr, cap) = (grown.as_ptr(), grown.capacity());
        l.recycle(grown);
        let c = l.commit(50, 100);
        assert!(c.released.is_empty());
        l.recycle(c.released);
        let next = l.member_done();
        assert_eq!(next.released, vec![50]);
        assert_eq!(
            (next.released.as_ptr(), next.released.capacity()),
            (ptr, cap)
        );
    }

    #[test]
    fn multiplexed_members_release_only_when_every_copy_is_written() {
        let mut l = LogWriter::new(LogConfig {
            members: 2,
            ..cfg()
        });
        l.commit(4, 100);
        assert!(l.member_done().released.is_empty());
        assert_eq!(l.member_done().released, vec![4]);
        assert_eq!(l.bytes_written, 2 * 8192);
    }

    #[test]
    fn writes_stop_at_file_ends_and_the_ring_wraps_with_switches_and_archives() {
        let c = LogConfig {
            file_bytes: 64 * 1024,
            groups: 2,
            max_write: 32 * 1024,
            archive: true,
            ..cfg()
        };
        let mut l = LogWriter::new(c);
        let mut offsets = Vec::new();
        let mut archived = Vec::new();
        // 40 KiB per commit, one at a time: writes of 32 KiB then the rest, never across a
        // file end.
        for _ in 0..8 {
            let mut s = l.commit(0, 40 * 1024);
            archived.extend(s.archive.iter().copied());
            loop {
                let w = s.write.expect("a write is pending while the session waits");
                assert!(w.offset % c.file_bytes + w.bytes <= c.file_bytes, "{w:?}");
                offsets.push(w.offset);
                s = l.member_done();
                archived.extend(s.archive.iter().copied());
                if s.released == vec![0] {
                    break;
                }
            }
        }
        // 320 KiB of log over a ring of two 64 KiB files: five file ends, five switches.
        assert_eq!(l.switches, 5);
        assert!(offsets.iter().all(|&o| o < 2 * c.file_bytes));
        assert!(offsets.windows(2).any(|w| w[1] < w[0]), "the ring wraps");
        assert_eq!(archived.first(), Some(&(0, 0)));
        assert_eq!(archived.len(), 5);
        assert!(archived
            .iter()
            .all(|&(f, off)| off == u64::from(f) * c.file_bytes));
    }

    #[test]
    fn a_partly_filled_last_block_does_not_switch_until_the_log_reaches_the_file_end() {
        let c = LogConfig {
            file_bytes: 64 * 1024,
            groups: 2,
            archive: true,
            ..cfg()
        };
        let mut l = LogWriter::new(c);
        // 60 KiB of log: the write rounds up to the file end (64 KiB) but the file is not full.
        let s = l.commit(0, 60 * 1024);
        assert_eq!(s.write.unwrap().bytes, 64 * 1024);
        assert!(s.archive.is_empty());
        assert_eq!(l.switches, 0);
        l.member_done();
        // 4 KiB more fill it: the rewrite of the last block is the switch.
        let s = l.commit(0, 4 * 1024);
        assert_eq!(s.write.unwrap().offset, 56 * 1024);
        assert_eq!(s.archive, vec![(0, 0)]);
        assert_eq!(l.switches, 1);
    }

    fn oracle() -> LogConfig {
        LogConfig {
            block: 512,
            max_write: 1 << 20,
            buffer_bytes: 3 << 20,
            wastes_tail: true,
            ..cfg()
        }
    }

    /// Oracle: each write starts on a fresh redo block; the rest of the last one is redo
    /// wastage, never written again. PostgreSQL's writer rewrites the partly filled page.
    #[test]
    fn oracle_skips_the_rest_of_the_last_redo_block_and_never_rewrites_it() {
        let mut ora = LogWriter::new(oracle());
        let mut pg = LogWriter::new(LogConfig {
            wastes_tail: false,
            ..oracle()
        });
        let (mut ora_writes, mut pg_writes) = (Vec::new(), Vec::new());
        // One committer at a time, 320 bytes of redo each.
        for _ in 0..4 {
            ora_writes.push(ora.commit(0, 320).write.expect("a write"));
            ora.member_done();
            pg_writes.push(pg.commit(0, 320).write.expect("a write"));
            pg.member_done();
        }
        let at = |w: &[LogWrite]| w.iter().map(|w| (w.offset, w.bytes)).collect::<Vec<_>>();
        assert_eq!(
            at(&ora_writes),
            [(0, 512), (512, 512), (1024, 512), (1536, 512)]
        );
        assert_eq!(
            (ora.bytes_written, ora.wasted, ora.lsn()),
            (2048, 768, 2048)
        );
        // The partly filled block again at the start of each write: 640 = 2 blocks, ...
        assert_eq!(
            at(&pg_writes),
            [(0, 512), (0, 1024), (512, 512), (512, 1024)]
        );
        assert_eq!((pg.bytes_written, pg.wasted, pg.lsn()), (3072, 0, 1280));
        // Group commit: ten commits of 320 bytes behind a write go in one write of their
        // 3,200 bytes rounded up to whole blocks (3,584), from the next block boundary.
        let first = ora.commit(0, 320).write.expect("a write");
        for s in 1..=10 {
            assert!(ora.commit(s, 320).write.is_none());
        }
        let next = ora.member_done().write.expect("the group's write");
        assert_eq!((first.offset, next.offset, next.bytes), (2048, 2560, 3584));
        assert_eq!(ora.member_done().released, (1..=10).collect::<Vec<_>>());
        assert_eq!(ora.wasted, 768 + 192 + 384);
    }

    #[test]
    fn a_third_of_the_log_buffer_starts_a_write_and_only_that_does() {
        let mut l = LogWriter::new(oracle());
        // 768 KiB unwritten: under a third of 3 MiB, no write.
        for _ in 0..3 {
            assert_eq!(l.append(256 << 10).write, None);
        }
        // 1 MiB: a write of it.
        let w = l.append(256 << 10).write.expect("a third full");
        assert_eq!((w.offset, w.bytes), (0, 1 << 20));
        // More redo while it is in flight waits for it.
        assert_eq!(l.append(512 << 10).write, None);
        // Done: 512 KiB unwritten, no commit waiting: the writer sleeps.
        let d = l.member_done();
        assert!(d.completed && d.write.is_none());
        // Its timeout writes what is there.
        let t = l.timeout().write.expect("the timeout writes");
        assert_eq!((t.offset, t.bytes), (1 << 20, 512 << 10));
        assert!(l.member_done().completed);
        assert_eq!(l.timeout().write, None, "nothing left to write");
    }

    #[test]
    fn the_buffer_takes_redo_until_it_is_full_and_frees_it_when_written() {
        let mut l = LogWriter::new(LogConfig {
            buffer_bytes: 64 << 10,
            ..oracle()
        });
        assert!(l.fits(1 << 30), "an empty buffer takes any record");
        let w = l.append(30 << 10).write.expect("a third full");
        assert_eq!(w.bytes, 30 << 10);
        assert!(l.fits(34 << 10) && !l.fits((34 << 10) + 1));
        l.append(34 << 10);
        assert!(!l.fits(1), "full while the write is in flight");
        assert!(
            l.member_done().write.is_some(),
            "the rest is a third: written"
        );
        assert!(l.fits(30 << 10) && !l.fits((30 << 10) + 1));
        l.member_done();
        assert!(l.fits(64 << 10));
        assert!(LogWriter::new(cfg()).fits(u64::MAX), "no buffer, no limit");
    }

    #[test]
    fn without_a_log_buffer_appends_never_start_a_write() {
        let mut l = LogWriter::new(cfg());
        assert_eq!(l.append(64 << 20).write, None);
        assert!(l.timeout().write.is_some(), "a timeout still writes");
    }
}
