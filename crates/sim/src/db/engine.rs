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
mod log;
mod ops;
mod oscache;
mod report;
mod tx;
mod writer;

use crate::config::DbSpec;
use crate::db::layout::{Layout, NEW_BLOCK};
use crate::db::{Archiver, BufferCache, DbTimer, DbWriter, LogConfig, LogWrite, LogWriter};
use crate::engine::SimTime;
use crate::metrics::INTERVAL_NS;
use crate::model::{DbIoDone, Stack};
use crate::rng::{Purpose, Rng};

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
    /// A log write.
    Log,
    /// The archiver's read of a filled log file, and its write to the archive target.
    ArchiveRead,
    ArchiveWrite,
    /// The host's write-back of blocks written into the file cache (a session's victim, a
    /// database-writer write): nobody waits.
    Writeback,
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
    ahead: ops::Ahead,
    /// A drawn think time is running; this CPU burst queues when it is over.
    cpu_pending: Option<u64>,
}

#[derive(Default)]
struct DbStats {
    ops: u64,
    rows: u64,
    txns: u64,
    read_waits: u64,
    read_wait_ns: u64,
    victim_waits: u64,
    victim_wait_ns: u64,
    commit_waits: u64,
    commit_wait_ns: u64,
    cpu_ns: u64,
    runqueue_ns: u64,
    log_bytes: u64,
    hits: u64,
    accesses: u64,
    /// Buffer misses the host's file cache served (no device read).
    os_hits: u64,
    /// Blocks the database writer wrote (background cleaning and checkpoints).
    writer_blocks: u64,
    /// Log writes held until their file was archived: count, time held, and session time
    /// spent waiting meanwhile.
    archive_holds: u64,
    archive_hold_ns: u64,
    archive_session_ns: u64,
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
    /// The tables' segments in the page space.
    layout: Layout,
    /// Where the inserts of growing tables go.
    appends: ops::Appends,
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
}

impl DbEngine {
    /// With a measured profile: marks as many of the plan's blocks modified as the profile
    /// says (heap blocks first, then leaves, then the rest of the descent), carrying the
    /// fraction to the session's next operation.
    fn apply_profile(&self, plan: &mut [(u64, bool)], carry: &mut u64) {
        let Some(p) = self.spec.profile.as_ref() else {
            return;
        };
        let schema_writes = plan.iter().filter(|b| b.1).count() as u64;
        *carry += p.modified_milli(schema_writes, plan.len() as u64);
        let mut extra = (*carry / 1000).saturating_sub(schema_writes);
        *carry %= 1000;
        for b in plan.iter_mut().rev() {
            if extra == 0 {
                break;
            }
            if !b.1 {
                b.1 = true;
                extra -= 1;
            }
        }
    }

    /// CPU time of an operation that visits `blocks` blocks and processes `rows` rows: the
    /// server's CPU per operation measured on a real server when the profile has it, else
    /// the assumed cost per block visited and row processed; and the load generator's CPU
    /// when it shares the host.
    fn op_cpu_ns(&self, blocks: usize, rows: u64) -> u64 {
        let per_block = self.spec.cpu_ns_per_block;
        let per_row = self.spec.cpu_ns_per_row * rows;
        let server = match self.spec.profile.as_ref() {
            Some(p) => match p.server_cpu_ns_per_op {
                Some(cpu) => cpu.round() as u64,
                None => (per_block as f64 * p.blocks_per_op).round() as u64 + per_row,
            },
            None => per_block * blocks as u64 + per_row,
        };
        server + self.spec.client_cpu_ns
    }

    /// Log bytes of an operation's changes (before its commit record).
    /// Log bytes of session `s`'s operation: measured, or what its plan generates.
    fn op_log_bytes(&self, s: usize) -> u64 {
        match self.spec.profile.as_ref() {
            Some(p) => p.wal_bytes_per_op.round() as u64,
            None => self.sessions[s].log_bytes,
        }
    }
}

impl DbEngine {
    /// Builds the database on `stack`: its data, log and archive targets, and its sessions.
    pub(crate) fn build(spec: &DbSpec, stack: &mut Stack) -> Result<DbEngine, String> {
        let data = stack.add_target(spec.data.volume, &spec.data.luns)?;
        let log_target = if spec.log_offset.is_some() {
            data
        } else {
            stack.add_target(spec.log.volume, &spec.log.luns)?
        };
        let layout = Layout::new(&spec.tables);
        if layout.blocks() >= u64::from(u32::MAX) {
            return Err(format!(
                "the database's {} blocks of 8 KiB exceed the model's limit of {} (32 TiB)",
                layout.blocks(),
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
        let opts = *stack.opts();
        let sessions = (0..spec.sessions)
            .map(|i| Session {
                rng: Rng::derive(opts.seed, Purpose::Job, (1 << 40) | u64::from(i)),
                plan: Vec::new(),
                next: 0,
                rows: 0,
                pending_read: None,
                commits: false,
                log_bytes: 0,
                dirty_carry: 0,
                wait_start: SimTime(0),
                tx_start: SimTime(0),
                ahead: ops::Ahead::new(),
                cpu_pending: None,
            })
            .collect();
        Ok(DbEngine {
            spec: spec.clone(),
            data,
            log_target,
            cache: BufferCache::new(spec.buffer_blocks as usize, layout.blocks()),
            os_cache: oscache::initial(spec, layout.blocks()),
            writer: DbWriter::new(spec.dbwr_outstanding, DBWR_MAX_BLOCKS),
            log: LogWriter::new(LogConfig {
                block: 8192,
                max_write: 1 << 20,
                file_bytes: spec.log_file_bytes,
                groups: spec.log_groups,
                members: 1,
                archive: spec.archive.is_some(),
            }),
            sessions,
            layout,
            appends: ops::Appends::new(spec),
            stats: DbStats::default(),
            commit_latency: LatencyHistogram::new(),
            tx_times: tx::TxTimes::new(spec.test),
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
        })
    }

    /// Starts every session's first operation, the writer's rounds and the checkpoints.
    pub(crate) fn start(&mut self, stack: &mut Stack) {
        let n = self.sessions.len() as u32;
        let interval = self.spec.dbwr_interval_ns;
        let checkpoint = self.spec.checkpoint_ns;
        for s in 0..n {
            self.start_op(s, stack);
        }
        stack.schedule_db(stack.now() + interval, DbTimer::Writer);
        if checkpoint > 0 {
            stack.schedule_db(stack.now() + checkpoint, DbTimer::Checkpoint);
        }
    }

    pub(crate) fn on_timer(&mut self, t: DbTimer, stack: &mut Stack) {
        match t {
            DbTimer::Session(s) => match self.sessions[s as usize].cpu_pending.take() {
                Some(cpu) => self.run_cpu(s, stack.now(), cpu, stack),
                None => self.advance(s, stack),
            },
            DbTimer::VictimBuffered(s) => self.victim_written(s, stack),
            DbTimer::WriterBuffered => self.writer_write_done(stack),
            DbTimer::Writer => {
                // Like PostgreSQL's background writer: clean ahead of the clock hand twice as
                // many buffers as sessions allocated since the last round.
                let frames = self.cache.frames();
                let want = (2 * self.allocs).max(1) as usize;
                self.allocs = 0;
                let pages = self.cache.clean_ahead(frames, want);
                self.writer.submit(&pages);
                stack.schedule_db(stack.now() + self.spec.dbwr_interval_ns, DbTimer::Writer);
                self.pump_writer(stack);
            }
            DbTimer::Checkpoint => {
                let pages = self.cache.checkpoint();
                self.writer.submit(&pages);
                stack.schedule_db(stack.now() + self.spec.checkpoint_ns, DbTimer::Checkpoint);
                stack.note("checkpoint", "database", format!("{} blocks", pages.len()));
                self.pump_writer(stack);
            }
        }
    }

    /// Draws session `s`'s next operation and charges its CPU time.
    fn start_op(&mut self, s: u32, stack: &mut Stack) {
        let now = stack.now();
        let mut plan = std::mem::take(&mut self.sessions[s as usize].plan);
        let DbEngine {
            spec,
            layout,
            appends,
            sessions,
            cache,
            ..
        } = self;
        let Session { rng, ahead, .. } = &mut sessions[s as usize];
        let op = ops::take_or_plan(spec, layout, appends, rng, ahead, &mut plan);
        ops::plan_ahead(spec, layout, appends, rng, cache, ahead);
        let rows = op.rows;
        self.sessions[s as usize].commits = op.commits;
        self.sessions[s as usize].log_bytes = op.log_bytes;
        let mut carry = self.sessions[s as usize].dirty_carry;
        self.apply_profile(&mut plan, &mut carry);
        // The blocks' buffer frames load during the CPU burst, before the accesses, and so
        // do the array read-cache entries of blocks the buffer cache lacks (at most four:
        // the leaf and heap blocks a miss reads).
        let mut absent = [0u64; 4];
        let mut n_absent = 0;
        for &(entry, _) in &plan {
            if !self.cache.prefetch(entry & !NEW_BLOCK)
                && entry & NEW_BLOCK == 0
                && n_absent < absent.len()
            {
                absent[n_absent] = entry;
                n_absent += 1;
            }
        }
        let target = self.data;
        let cpu = self.op_cpu_ns(plan.len(), rows);
        let exponential = self.spec.exponential_times;
        let sess = &mut self.sessions[s as usize];
        let (think, cpu) = tx::draw_times(exponential, self.spec.think_ns, cpu, &mut sess.rng);
        sess.plan = plan;
        sess.dirty_carry = carry;
        sess.next = 0;
        sess.rows = rows;
        let ready = now + think;
        sess.tx_start = ready;
        if exponential && think > 0 {
            // Drawn think times end out of the order they began: queue when it is over.
            sess.cpu_pending = Some(cpu);
            stack.schedule_db(ready, DbTimer::Session(s));
        } else {
            self.run_cpu(s, ready, cpu, stack);
        }
        for &block in &absent[..n_absent] {
            stack.prefetch_io(target, block * BLOCK_SECTORS, BLOCK_SECTORS, false);
        }
    }

    /// Session `s`'s CPU burst, asked for at `ready`: it runs on the host CPU that frees up
    /// first, in the order sessions ask (a FIFO run queue).
    fn run_cpu(&mut self, s: u32, ready: SimTime, cpu: u64, stack: &mut Stack) {
        let (cpu_i, free) = self
            .cpu_free
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|&(_, f)| f)
            .expect("at least one CPU");
        let start = ready.max(free);
        self.cpu_free[cpu_i] = start + cpu;
        if stack.measuring() {
            self.stats.cpu_ns += cpu;
            self.stats.runqueue_ns += start - ready;
        }
        stack.schedule_db(start + cpu, DbTimer::Session(s));
    }

    /// Runs session `s`'s block accesses until one misses (a read to wait for) or the
    /// operation is done (commit, or the next operation).
    fn advance(&mut self, s: u32, stack: &mut Stack) {
        let measuring = stack.measuring();
        loop {
            let sess = &mut self.sessions[s as usize];
            if sess.next >= sess.plan.len() {
                break;
            }
            let (entry, write) = sess.plan[sess.next];
            let (block, new) = (entry & !NEW_BLOCK, entry & NEW_BLOCK != 0);
            let a = self.cache.access(block, write);
            if measuring {
                self.stats.accesses += 1;
                self.stats.hits += u64::from(a.hit);
            }
            // A block the operation creates needs a buffer, not a read.
            if a.hit || (new && a.evicted_dirty.is_none()) {
                self.allocs += u64::from(!a.hit);
                sess.next += 1;
                continue;
            }
            self.allocs += 1;
            sess.wait_start = stack.now();
            ops::prefetch_ahead(&self.cache, &sess.ahead);
            if let Some(victim) = a.evicted_dirty {
                sess.pending_read = (!new).then_some(block);
                self.os_cache_keep(victim, 1);
                if !self.os_cache_write(victim, 1, DbTimer::VictimBuffered(s), stack) {
                    self.issue_block(DbIo::VictimWrite(s), victim, true, stack);
                }
            } else {
                self.read_block(s, block, stack);
            }
            return;
        }
        if self.sessions[s as usize].commits {
            ops::prefetch_ahead(&self.cache, &self.sessions[s as usize].ahead);
            let bytes = self.op_log_bytes(s as usize);
            self.log.append(bytes);
            let step = self.log.commit(s, self.spec.log_bytes_per_commit);
            self.sessions[s as usize].wait_start = stack.now();
            self.log_step(step, stack);
        } else {
            self.finish_op(s, stack);
        }
    }

    fn finish_op(&mut self, s: u32, stack: &mut Stack) {
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
            self.tx_times
                .record(sess.commits, stack.now() - sess.tx_start);
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
                let sess = &mut self.sessions[s as usize];
                if stack.measuring() {
                    self.stats.read_waits += 1;
                    self.stats.read_wait_ns += stack.now() - sess.wait_start;
                }
                self.os_cache_keep_current(s);
                self.sessions[s as usize].next += 1;
                self.advance(s, stack);
            }
            DbIo::VictimWrite(s) => self.victim_written(s, stack),
            DbIo::Writeback => self.writebacks -= 1,
            DbIo::Writer => self.writer_write_done(stack),
            DbIo::Log => {
                let step = self.log.member_done();
                self.log_step(step, stack);
            }
            DbIo::ArchiveRead | DbIo::ArchiveWrite => self.archive_io_done(stack),
        }
    }
}
