//! The simulated database on the simulated stack: closed-loop sessions running a DPAWS test,
//! a buffer cache over the test table and its primary-key index, a database writer, a log
//! writer with group commit and checkpoints. Its I/O goes through the same volumes, LUNs,
//! controllers and disks as any job's, so the array's behaviour shows in rows per second.
//!
//! Simplifications (documented in the README): a session's CPU time is charged before each
//! operation, on the host CPU that frees up first (FIFO run queue); a missed block is in the cache as soon
//! as its read is issued (no buffer-busy waits); updates change no key (no index writes);
//! no row locks.

use storlab_core::host_stats::HostStats;
use storlab_core::LatencyHistogram;

mod archive;
mod builtin;
mod character;
mod direct_path;
mod hints;
pub(crate) mod jobs;
mod launch;
mod log;
mod log_cpu;
mod log_space;
mod oscache;
mod pins;
mod planned;
mod profile;
mod query_report;
mod redo;
mod report;
mod sequence;
mod stats;
mod switch;
mod temp;
mod tx;
mod walk;
mod write_ahead;
mod writer;

use crate::config::DbSpec;
use crate::db::layout::{Layout, NEW_BLOCK};
use crate::db::workload_mix::WorkloadMix;
use crate::db::{Archiver, BufferCache, DbTimer, DbWriter, LogWrite, LogWriter};
use crate::engine::SimTime;
use crate::metrics::INTERVAL_NS;
use crate::model::{DbIoDone, Stack};
use crate::rng::Rng;
use stats::DbStats;

/// Sectors per 8 KiB block.
const BLOCK_SECTORS: u64 = 16;
/// Largest database-writer write (coalesced blocks).
const DBWR_MAX_BLOCKS: u64 = 16;

/// What a database I/O was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DbIo {
    /// A session's synchronous block read.
    Read(u32),
    /// A session writing a dirty victim before it can read (no clean buffer).
    VictimWrite(u32),
    /// A database-writer write.
    Writer,
    /// A log write (to the log target: the group's first member).
    Log,
    /// A log write's copy on further member `i` of the group.
    LogMember(u32),
    /// The archiver's read of a filled log file, and its write to the archive target.
    ArchiveRead,
    ArchiveWrite,
    /// The host's write-back of blocks written into the file cache (a session's victim, a
    /// database-writer write): nobody waits.
    Writeback,
    /// A session's write of its sort runs or hash partitions to temp, and its read of them
    /// back; the host's write-back of a temp write into the file cache (nobody waits).
    TempWrite(u32),
    TempRead(u32),
    TempWriteback,
    /// A job's large read or write (its stream in the current phase).
    Job(u32),
    /// A job's single-block read of an index leaf it changes.
    JobRead,
}

struct Session {
    rng: Rng,
    plan: Vec<(u64, bool)>,
    next: usize,
    rows: u64,
    pending_read: Option<u64>,
    /// The current operation commits (and counts as a transaction), and its log bytes.
    commits: bool,
    log_bytes: u64,
    /// Thousandths of a modified block carried to the next operation (measured profiles
    /// give fractional blocks dirtied per operation).
    dirty_carry: u64,
    wait_start: SimTime,
    /// When the current transaction started: its think time over, its CPU burst asked for.
    tx_start: SimTime,
    /// The operation after the current one, planned early (single-row tests).
    ahead: builtin::Ahead,
    /// A characterization's run: the current transaction's type, its scan's visits (plan
    /// indexes), blocks the pending read covers, think time after the transaction, and the
    /// fractions carried between executions.
    tx_type: usize,
    scan: (usize, usize),
    read_span: u64,
    /// What the pending read is (single block, multiblock, direct path).
    read_kind: direct_path::ReadKind,
    think_after_ns: u64,
    carry: crate::db::workload_mix::Carry,
    /// A drawn think time is running; this CPU burst queues when it is over.
    cpu_pending: Option<u64>,
    /// Oracle: since when the session has been waiting for a free buffer.
    free_wait_since: Option<SimTime>,
    /// The plan index whose block's pin the session took (`pins`).
    pinned: Option<usize>,
}

/// The simulated database: present only when the workload has a `[database]`. Its handlers
/// take the storage stack they issue I/O on as an argument.
pub(crate) struct DbEngine {
    spec: DbSpec,
    data: u32,
    log_target: u32,
    cache: BufferCache,
    /// The host's file cache under the data files (capacity 0: none).
    os_cache: crate::cache::LruCache,
    writer: DbWriter,
    log: LogWriter,
    sessions: Vec<Session>,
    /// A built-in test's characterization, laid out for its sessions to plan (None: a
    /// characterization's run, or a job's).
    builtin: Option<Box<WorkloadMix>>,
    stats: DbStats,
    commit_latency: LatencyHistogram,
    /// Transaction response times by type (measured window).
    tx_times: tx::TxTimes,
    /// Buffers allocated (misses) since the writer's last round.
    allocs: u64,
    /// File-cache write-backs in flight.
    writebacks: u32,
    /// When each host CPU is next free.
    cpu_free: Vec<SimTime>,
    /// Rows completed in each one-second interval of the measured window.
    rows_by_second: Vec<u64>,
    /// Host I/O of the data files and of the log (iostat by role).
    data_io: HostStats,
    log_io: HostStats,
    archive_io: HostStats,
    /// Log archiving: its target, the archiver, a log write held for it.
    archive_target: Option<u32>,
    archiver: Option<Archiver>,
    held_log: Option<(LogWrite, SimTime)>,
    /// Further members of every log group (their targets), and when the log write in flight
    /// was issued.
    log_members: Vec<u32>,
    log_write_start: SimTime,
    /// A log write waiting for the log writer's CPU burst to end.
    log_cpu_pending: Option<LogWrite>,
    /// Host I/O of each further log member.
    member_io: Vec<HostStats>,
    /// Oracle's undo and change-by-change redo (None: PostgreSQL).
    oracle: Option<redo::Oracle>,
    /// Blocks of the page space; a characterization's next insert block of each segment.
    page_blocks: u64,
    mix_appends: Vec<u64>,
    /// Sorts' and hash joins' temp I/O (None: the workload has none).
    temp: Option<temp::Temp>,
    /// A fixed-size job the database runs instead of its sessions' operations.
    job: Option<Box<jobs::JobRun>>,
    /// Oracle: sessions waiting for the writer to free a buffer.
    free_buffer_waiters: Vec<u32>,
    /// Blocks being changed: sessions changing one block take turns.
    pins: pins::Pins,
    /// The tests run before the section's own (`after`), and which runs now.
    sequence: Option<Box<sequence::Sequence>>,
    /// PostgreSQL: heap blocks holding tuples without hint bits (None: Oracle, a job).
    hints: Option<Box<crate::db::hint_bits::HintBits>>,
}

impl DbEngine {
    /// Builds the database on `stack`: its data, log and archive targets, and its sessions.
    pub(crate) fn build(spec: &DbSpec, stack: &mut Stack) -> Result<DbEngine, String> {
        let (sequence, first) = match sequence::Sequence::new(spec)? {
            Some((q, first)) => (Some(q), Some(first)),
            None => (None, None),
        };
        // With `after`, the database starts with the first test's section.
        let spec = first.as_ref().unwrap_or(spec);
        let data = stack.add_target(spec.data.volume, &spec.data.luns)?;
        let log_target = if spec.log_offset.is_some() {
            data
        } else {
            stack.add_target(spec.log.volume, &spec.log.luns)?
        };
        let builtin = match spec.builtin_mix() {
            Some(m) => Some(Box::new(m?)),
            None => None,
        };
        let mix = spec
            .character
            .as_ref()
            .map(|c| &c.mix)
            .or(builtin.as_deref());
        let page_blocks = mix.map_or_else(|| Layout::new(&spec.tables).blocks(), |m| m.blocks);
        let carry = mix.map_or_else(Vec::new, |m| m.new_carry());
        let mix_appends = mix.map_or_else(Vec::new, |m| m.new_appends());
        let tx_times = match mix {
            Some(m) => tx::TxTimes::named(m.type_names()),
            None => tx::TxTimes::new(spec.test),
        };
        let pages = redo::page_space(spec, page_blocks).max(jobs::cached_blocks(spec));
        if pages >= u64::from(u32::MAX) {
            return Err(format!(
                "the database's {} blocks of 8 KiB exceed the model's limit of {} (32 TiB)",
                pages,
                u32::MAX - 1
            ));
        }
        let archive_target = match &spec.archive {
            Some(a) => Some(stack.add_target(a.volume, &a.luns)?),
            None => None,
        };
        let archiver = spec.archive.as_ref().map(|a| {
            let slots = (a.bytes(stack.spec()) / spec.log_file_bytes).max(1);
            Archiver::new(spec.log_file_bytes, archive::ARCHIVE_CHUNK, slots)
        });
        let log_members = spec
            .log_members
            .iter()
            .map(|m| stack.add_target(m.volume, &m.luns))
            .collect::<Result<Vec<u32>, String>>()?;
        let oracle = redo::Oracle::new(spec, page_blocks);
        let hints = hints::new(spec, mix, page_blocks).map(Box::new);
        let job = match &spec.job {
            Some(j) => {
                let e = j.extents(spec);
                let source = match j.source.as_ref().filter(|_| !e.input_on_data) {
                    Some(s) => Some(stack.add_target(s.volume, &s.luns)?),
                    None => None,
                };
                Some(Box::new(jobs::JobRun::new(spec, j, data, source)))
            }
            None => None,
        };
        let opts = *stack.opts();
        let temp = temp::Temp::new(
            spec,
            (data, spec.data.bytes(stack.spec()) / 8192),
            match &spec.temp {
                Some(p) if spec.character.is_some() || jobs::spills(spec) => Some((
                    stack.add_target(p.volume, &p.luns)?,
                    p.bytes(stack.spec()) / 8192,
                )),
                _ => None,
            },
            opts.warmup_ns,
        );
        let mut job = job;
        if let (Some(j), Some(t)) = (job.as_mut(), temp.as_ref()) {
            j.place_temp(t.area());
        }
        let sessions = (0..spec.sessions)
            .map(|i| Session {
                rng: sequence::session_stream(opts.seed, None, i),
                plan: Vec::new(),
                next: 0,
                rows: 0,
                pending_read: None,
                commits: false,
                log_bytes: 0,
                dirty_carry: 0,
                wait_start: SimTime(0),
                tx_start: SimTime(0),
                ahead: builtin::Ahead::new(),
                tx_type: 0,
                scan: (0, 0),
                read_span: 1,
                read_kind: direct_path::ReadKind::Single,
                think_after_ns: 0,
                carry: carry.clone(),
                cpu_pending: None,
                free_wait_since: None,
                pinned: None,
            })
            .collect();
        let mut db = DbEngine {
            spec: spec.clone(),
            data,
            log_target,
            cache: new_cache(spec, pages),
            os_cache: oscache::initial(spec, page_blocks),
            writer: DbWriter::new(spec.dbwr_outstanding, DBWR_MAX_BLOCKS),
            log: LogWriter::new(log::config(spec)),
            sessions,
            builtin,
            stats: DbStats::default(),
            commit_latency: LatencyHistogram::new(),
            tx_times,
            allocs: 0,
            writebacks: 0,
            cpu_free: vec![SimTime(0); spec.cpus as usize],
            rows_by_second: Vec::new(),
            data_io: HostStats::new(opts.warmup_ns),
            log_io: HostStats::new(opts.warmup_ns),
            archive_io: HostStats::new(opts.warmup_ns),
            archive_target,
            archiver,
            held_log: None,
            member_io: vec![HostStats::new(opts.warmup_ns); log_members.len()],
            log_members,
            log_write_start: SimTime(0),
            log_cpu_pending: None,
            oracle,
            page_blocks,
            mix_appends,
            temp,
            job,
            free_buffer_waiters: Vec::new(),
            pins: pins::Pins::new(spec.cpu_ns_per_block + spec.cpu_ns_per_row),
            sequence,
            hints,
        };
        db.draw_for_test(opts.seed);
        Ok(db)
    }

    /// Starts every session's first operation, the writer's rounds and the checkpoints.
    pub(crate) fn start(&mut self, stack: &mut Stack) {
        if self.job.is_some() {
            self.start_job(stack);
            return;
        }
        for s in 0..self.active_sessions() {
            self.start_op(s, stack);
        }
        self.start_sequence(stack);
        self.start_background(stack);
    }

    /// Schedules the writer's rounds, the timed checkpoints and (Oracle) the log writer's
    /// timeout. Oracle has no timed full checkpoint: its checkpoints are incremental (the
    /// checkpoint queue's targets, on each writer round) and each log switch's, which is
    /// lazy: due before the group it leaves is reused (Oracle Database Reference,
    /// `LOG_CHECKPOINT_TIMEOUT`: time-based checkpoints are the incremental checkpoint's).
    fn start_background(&mut self, stack: &mut Stack) {
        let interval = self.spec.dbwr_interval_ns;
        let checkpoint = self.spec.checkpoint_ns;
        stack.schedule_db(stack.now() + interval, DbTimer::Writer);
        if checkpoint > 0 && self.oracle.is_none() {
            stack.schedule_db(stack.now() + checkpoint, DbTimer::Checkpoint);
        }
        if self.oracle.is_some() {
            stack.schedule_db(stack.now() + redo::LOG_TIMEOUT_NS, DbTimer::LogTimeout);
        } else {
            self.start_wal_writer(stack);
        }
    }

    #[inline]
    pub(crate) fn on_timer(&mut self, t: DbTimer, stack: &mut Stack) {
        match t {
            DbTimer::Session(s) => match self.sessions[s as usize].cpu_pending.take() {
                Some(cpu) => self.run_cpu(s, stack.now(), cpu, stack),
                None if self.temp_buffered(s) => self.temp_io_done(s, stack),
                None => self.advance(s, stack),
            },
            DbTimer::VictimBuffered(s) => self.victim_written(s, stack),
            DbTimer::WriterBuffered => self.writer_write_done(stack),
            DbTimer::Writer => self.writer_round(stack),
            DbTimer::Checkpoint => {
                stack.schedule_db(stack.now() + self.spec.checkpoint_ns, DbTimer::Checkpoint);
                self.checkpoint(stack);
            }
            DbTimer::LogTimeout => self.log_timeout(stack),
            DbTimer::LogWriterCpu => self.log_writer_cpu_done(stack),
            DbTimer::JobCpu => self.job_cpu_done(stack),
            DbTimer::NextTest => self.next_test(stack),
        }
    }

    /// Draws session `s`'s next operation and charges its CPU time.
    fn start_op(&mut self, s: u32, stack: &mut Stack) {
        if self.spec.character.is_none() {
            self.start_builtin(s, stack);
            return;
        }
        let mut plan = std::mem::take(&mut self.sessions[s as usize].plan);
        let op = self.plan_character(s, &mut plan);
        self.start_planned(s, plan, op, stack);
    }

    fn finish_op(&mut self, s: u32, stack: &mut Stack) {
        if self.job.is_some() {
            self.job_committed(stack);
            return;
        }
        if stack.measuring() {
            let sess = &self.sessions[s as usize];
            self.stats.ops += 1;
            self.stats.rows += sess.rows;
            let second = ((stack.now() - stack.warmup_end()) / INTERVAL_NS) as usize;
            if self.rows_by_second.len() <= second {
                self.rows_by_second.resize(second + 1, 0);
            }
            self.rows_by_second[second] += sess.rows;
            // Transactions: every commit, and the OLTP mix's read transactions too.
            if sess.commits || self.spec.test.oltp() {
                self.stats.txns += 1;
            }
            let response_ns = stack.now() - sess.tx_start;
            self.tx_times.record_type(sess.tx_type, response_ns);
        }
        if self.session_waits(s) {
            return;
        }
        self.start_op(s, stack);
    }

    /// Session `s`'s dirty victim is written (to the device, or into the file cache): it
    /// reads the block it needs, or goes on when the block is one it creates.
    fn victim_written(&mut self, s: u32, stack: &mut Stack) {
        let now = stack.now();
        let sess = &mut self.sessions[s as usize];
        if stack.measuring() {
            self.stats.victim_waits += 1;
            self.stats.victim_wait_ns += now - sess.wait_start;
        }
        // A created block needs no read once its buffer is clean.
        let Some(block) = sess.pending_read.take() else {
            sess.next += 1;
            self.advance(s, stack);
            return;
        };
        sess.wait_start = now;
        self.read_block(s, block, stack);
    }

    /// Session `s` reads `block`: from the host's file cache when it holds it, else from
    /// the device.
    fn read_block(&mut self, s: u32, block: u64, stack: &mut Stack) {
        if !self.os_cache_read(s, block, stack) {
            self.issue_block(DbIo::Read(s), block, false, stack);
        }
    }

    /// A database I/O of one 8 KiB block of the data files.
    fn issue_block(&mut self, io: DbIo, block: u64, write: bool, stack: &mut Stack) {
        stack.issue_db_io(io, self.data, block * BLOCK_SECTORS, BLOCK_SECTORS, write);
    }

    /// A database I/O completed at the host: counted under its role, and whoever waited
    /// for it goes on.
    pub(crate) fn io_done(&mut self, done: DbIoDone, stack: &mut Stack) {
        if done.measured {
            self.record(
                done.io,
                done.write,
                done.bytes,
                done.latency_ns,
                stack.now().ns(),
            );
        }
        match done.io {
            DbIo::Read(s) => {
                let waited = stack.now() - self.sessions[s as usize].wait_start;
                self.count_read(s, waited, stack.measuring());
                self.os_cache_keep_current(s);
                let sess = &mut self.sessions[s as usize];
                sess.next += std::mem::replace(&mut sess.read_span, 1) as usize;
                self.advance(s, stack);
            }
            DbIo::VictimWrite(s) => self.victim_written(s, stack),
            DbIo::Writeback => self.writebacks -= 1,
            DbIo::Writer => self.writer_write_done(stack),
            DbIo::Log | DbIo::LogMember(_) => {
                let step = self.log.member_done();
                self.log_step(step, stack);
            }
            DbIo::ArchiveRead | DbIo::ArchiveWrite => self.archive_io_done(stack),
            DbIo::TempWrite(s) | DbIo::TempRead(s) => self.temp_io_done(s, stack),
            DbIo::TempWriteback => self.writebacks -= 1,
            DbIo::Job(i) => self.job_io_done(i, done.write, done.bytes, stack),
            DbIo::JobRead => self.job_read_done(stack),
        }
    }
}

/// The buffer cache of `spec` over `pages` blocks. With Oracle's engine the sweep for a free
/// buffer moves dirty ones to the write list and looks on, at most 40% of the cache
/// (_db_block_max_scan_pct, assumed: the percentage of the LRU a foreground scans for a free
/// buffer before it waits).
fn new_cache(spec: &crate::config::DbSpec, pages: u64) -> BufferCache {
    let mut cache = BufferCache::new(spec.buffer_blocks as usize, pages);
    if spec.engine == storlab_core::character::Engine::Oracle {
        cache.skip_dirty_victims(40);
    }
    cache
}
