//! Temp I/O of sorts and hash joins that do not fit in memory: a characterization's
//! `temp_bytes` per execution are written to a temp segment and read back, in I/Os of the
//! multiblock read's size, bypassing the buffer cache, in the order a spilling join or sort
//! does it ([`schedule`]): the first pass written while the transaction's scans read (each
//! write due as the scanned share fills a temp I/O), later passes reading the one before
//! and writing their own interleaved, the last read back; whatever the scan leaves unwritten
//! (a transaction that scans nothing: all of it) is written after its visits, before its
//! commit. A built-in query declares its passes (the grace hash join's partitioning passes,
//! then the sort's runs and merge passes, [`crate::db::query`]); a characterization's
//! `temp_bytes` are one pass.
//!
//! - Oracle writes sort runs and hash partitions by direct path (`direct path write temp`)
//!   and reads them back the same way (`direct path read temp`); the session waits for each.
//! - PostgreSQL writes temp files through the host's file cache when there is one: the
//!   session pays the system call and the copy (`os_read` per block, `IO:BufFileWrite`) and
//!   the host writes the blocks back in the background; without a file cache it waits for
//!   the device. The blocks it writes stay in the file cache (its least recently used
//!   evicted as any block's), so it reads them back from there while the cache holds them
//!   (`os_read` per block, `IO:BufFileRead`), else from the device.
//! - Where: the characterization's `kind = "temp"` segment when it has one, on the data
//!   target, or the whole of `[database] temp` when that names a target of its own; else
//!   the data target's room after the segments (and the log files that follow them), else
//!   the segments' own blocks. Each session writes its passes in a slice of its own, one
//!   after another, wrapping at the slice's end.
//! - An index build's sort runs ([`super::jobs`]) go the same way: to `[database] temp`
//!   when it names a target, else after the new index on the data target; their I/O counts
//!   in the `temp` class.
//! - Fractions of a block carry from one execution of a type to the next, so the temp bytes
//!   written and read average out to `temp_bytes` per execution exactly.

mod schedule;

use storlab_core::character::{Engine, SegmentKind};
use storlab_core::histogram::round_to;
use storlab_core::host_stats::HostStats;
use storlab_core::result::{ClassMetrics, WaitEvent};

use super::{DbEngine, DbIo, Stack, BLOCK_SECTORS};
use crate::config::DbSpec;
use crate::db::workload_mix::BLOCK_BYTES;
use crate::db::DbTimer;
use schedule::{pass_blocks, Schedule, TempIo};

/// Temp I/O of the whole database: where it goes, what each type does, and its figures.
pub(super) struct Temp {
    /// The target temp I/O goes to, and its name in the results.
    target: u32,
    names: String,
    /// Blocks of each session's slice, and where the slices start.
    first_block: u64,
    slice_blocks: u64,
    /// Blocks of one temp I/O.
    io_blocks: u64,
    /// Temp blocks per execution of each transaction type, and the bytes each of its
    /// passes writes (empty: one pass).
    per_type_blocks: Vec<f64>,
    passes: Vec<u64>,
    sessions: Vec<SessionTemp>,
    /// Host I/O of the temp segment.
    pub(super) io: HostStats,
    stats: TempStats,
}

/// One session's temp work.
#[derive(Clone, Default)]
struct SessionTemp {
    /// Fractions of a block carried to the next execution, per type.
    carry: Vec<f64>,
    /// The current execution's passes, the blocks it writes in all, and those it wrote
    /// while its scans read.
    schedule: Schedule,
    blocks: u64,
    with_scan: u64,
    /// The pending temp I/O is a write (else a read), and when it was issued.
    writing: bool,
    /// The pending write went into the file cache (the session hears by timer).
    buffered: bool,
}

/// Temp figures of the measured window.
#[derive(Clone, Copy, Default)]
struct TempStats {
    write_waits: u64,
    write_wait_ns: u64,
    read_waits: u64,
    read_wait_ns: u64,
    /// Blocks written and read back by the executions that finished their temp work, and
    /// the blocks they wrote while their scans read.
    blocks_written: u64,
    blocks_read: u64,
    blocks_with_scan: u64,
    executions: u64,
    /// Temp reads the file cache served.
    read_hits: u64,
}

/// The file cache's key of a temp block on a target of its own (the data files' blocks
/// are keyed by their numbers).
const TEMP_KEY: u64 = 1 << 62;

impl Temp {
    /// The temp work of `spec`'s characterization, None when no transaction type has any
    /// (the database then runs as it always has). `data`: the data target; `temp`: the
    /// target of `[database] temp` and its blocks, when it names one.
    pub(super) fn new(
        spec: &DbSpec,
        data: (u32, u64),
        temp: Option<(u32, u64)>,
        warmup_ns: u64,
    ) -> Option<Temp> {
        let Some(c) = spec.character.as_ref() else {
            return Temp::for_job(spec, data.0, temp, warmup_ns);
        };
        let per_type_blocks: Vec<f64> = c
            .workload
            .transactions
            .iter()
            .map(|t| t.temp_bytes / BLOCK_BYTES as f64)
            .collect();
        if per_type_blocks.iter().all(|b| *b <= 0.0) {
            return None;
        }
        let segment = c
            .workload
            .segments
            .iter()
            .zip(&c.mix.segments)
            .find(|(s, m)| s.kind == SegmentKind::Temp && m.blocks > 0)
            .map(|(_, m)| (m.first_block, m.blocks));
        let (target, first, blocks, names) = place(spec, data.0, temp, segment, || {
            segment.unwrap_or_else(|| data_room(spec, data.1))
        });
        let io_blocks = c.mix.multiblock_read_count.max(1);
        let n = u64::from(spec.sessions.max(1));
        let slice_blocks = (blocks / n).max(io_blocks);
        let session = SessionTemp {
            carry: vec![0.0; per_type_blocks.len()],
            ..SessionTemp::default()
        };
        Some(Temp {
            target,
            names,
            first_block: first,
            slice_blocks,
            io_blocks,
            per_type_blocks,
            passes: c.temp_passes.clone(),
            sessions: vec![session; spec.sessions as usize],
            io: HostStats::new(warmup_ns),
            stats: TempStats::default(),
        })
    }

    /// The temp area of a job whose sort spills (an index build's runs), None for any other
    /// job or database.
    fn for_job(spec: &DbSpec, data: u32, temp: Option<(u32, u64)>, warmup_ns: u64) -> Option<Temp> {
        let e = spec.job.as_ref()?.extents(spec);
        if !e.spills {
            return None;
        }
        let runs = (
            e.runs_base / BLOCK_BYTES,
            e.sort_bytes.div_ceil(BLOCK_BYTES),
        );
        let (target, first, blocks, names) = place(spec, data, temp, Some(runs), || runs);
        Some(Temp {
            target,
            names,
            first_block: first,
            slice_blocks: blocks.max(1),
            io_blocks: 1,
            per_type_blocks: Vec::new(),
            passes: Vec::new(),
            sessions: Vec::new(),
            io: HostStats::new(warmup_ns),
            stats: TempStats::default(),
        })
    }

    /// The target and first byte of the temp area (a job's sort runs go there).
    pub(super) fn area(&self) -> (u32, u64) {
        (self.target, self.first_block * BLOCK_BYTES)
    }

    /// A job's temp I/O of `bytes` is done: counted as written or read back.
    pub(super) fn job_io(&mut self, write: bool, bytes: u64) {
        let blocks = bytes.div_ceil(BLOCK_BYTES);
        if write {
            self.stats.blocks_written += blocks;
        } else {
            self.stats.blocks_read += blocks;
        }
    }

    /// The blocks the next execution of type `ty` writes (and reads back), its fraction
    /// carried in `carry`.
    fn blocks_of(per_execution: f64, carry: &mut f64) -> u64 {
        let total = per_execution + *carry;
        let n = total.floor().max(0.0);
        *carry = total - n;
        n as u64
    }

    /// The figures restart at `now_ns` (the warm-up is over).
    pub(super) fn reset(&mut self, now_ns: u64) {
        self.io = HostStats::new(now_ns);
        self.stats = TempStats::default();
    }
}

/// Where temp I/O goes: the target `temp` of `[database] temp` when it names one (from its
/// first block, `want`'s blocks at most its own), else `default()` on the `data` target:
/// (target, first block, blocks, its names).
fn place(
    spec: &DbSpec,
    data: u32,
    temp: Option<(u32, u64)>,
    want: Option<(u64, u64)>,
    default: impl FnOnce() -> (u64, u64),
) -> (u32, u64, u64, String) {
    match (temp, spec.temp.as_ref()) {
        (Some((t, have)), Some(p)) => {
            let blocks = want.map_or(have, |(_, b)| b.min(have));
            (t, 0, blocks, p.names.join(","))
        }
        _ => {
            let (first, blocks) = default();
            (data, first, blocks, spec.data.names.join(","))
        }
    }
}

/// The data target's room after the segments and the log files that follow them (blocks),
/// else the segments' own blocks: (first block, blocks).
fn data_room(spec: &DbSpec, target_blocks: u64) -> (u64, u64) {
    let used_bytes = match (spec.log_offset, spec.character.as_ref()) {
        (Some(off), _) => off + spec.log_file_bytes * u64::from(spec.log_groups),
        (None, Some(c)) => c.mix.blocks * BLOCK_BYTES,
        (None, None) => 0,
    };
    let used = used_bytes.div_ceil(BLOCK_BYTES);
    if target_blocks > used {
        (used, target_blocks - used)
    } else {
        let blocks = spec.character.as_ref().map_or(1, |c| c.mix.blocks.max(1));
        (0, blocks)
    }
}

impl DbEngine {
    /// Session `s` starts an execution of type `ty`: its temp work is planned.
    pub(super) fn temp_begin(&mut self, s: u32, ty: usize) {
        let Some(t) = self.temp.as_mut() else {
            return;
        };
        let per = t.per_type_blocks.get(ty).copied().unwrap_or(0.0);
        let sess = &mut t.sessions[s as usize];
        let n = Temp::blocks_of(per, &mut sess.carry[ty]);
        sess.schedule.begin(pass_blocks(&t.passes, n));
        sess.blocks = n;
        sess.with_scan = 0;
    }

    /// Session `s` is at visit `done` of a scan of `visits`: issues the first pass's temp
    /// write that is due, if any (true: the session waits for it).
    pub(super) fn temp_with_scan(
        &mut self,
        s: u32,
        done: usize,
        visits: usize,
        stack: &mut Stack,
    ) -> bool {
        let Some(t) = self.temp.as_mut() else {
            return false;
        };
        let (io_blocks, slice) = (t.io_blocks, t.slice_blocks);
        let sess = &mut t.sessions[s as usize];
        let share = done as f64 / visits.max(1) as f64;
        let Some(io) = sess.schedule.with_scan(share, io_blocks, slice) else {
            return false;
        };
        sess.with_scan += io.blocks;
        self.temp_issue(s, io, stack);
        true
    }

    /// Session `s`'s visits are done: it issues its next temp write or read and true is
    /// returned, or false when its temp work is done (it then commits or goes on).
    pub(super) fn temp_step(&mut self, s: u32, stack: &mut Stack) -> bool {
        let Some(t) = self.temp.as_mut() else {
            return false;
        };
        let (io_blocks, slice) = (t.io_blocks, t.slice_blocks);
        let sess = &mut t.sessions[s as usize];
        let Some(io) = sess.schedule.next(io_blocks, slice) else {
            if sess.blocks > 0 && stack.measuring() {
                t.stats.blocks_written += sess.blocks;
                t.stats.blocks_read += sess.blocks;
                t.stats.blocks_with_scan += sess.with_scan;
                t.stats.executions += 1;
            }
            sess.blocks = 0;
            return false;
        };
        self.temp_issue(s, io, stack);
        true
    }

    /// Session `s` issues temp I/O `io` (through the file cache when it has one) and waits
    /// for it.
    fn temp_issue(&mut self, s: u32, io: TempIo, stack: &mut Stack) {
        let buffer = self.spec.engine == Engine::Postgresql && self.spec.os_cache_blocks > 0;
        let copy_ns = self.spec.os_read_ns;
        let room = self.writebacks < super::oscache::WRITEBACK_MAX;
        let Some(t) = self.temp.as_mut() else {
            return;
        };
        let base = t.first_block + u64::from(s) * t.slice_blocks;
        let sess = &mut t.sessions[s as usize];
        let TempIo {
            write,
            at,
            blocks: n,
        } = io;
        sess.writing = write;
        sess.buffered = write && buffer && room;
        self.sessions[s as usize].wait_start = stack.now();
        let (lba, sectors) = ((base + at) * BLOCK_SECTORS, n * BLOCK_SECTORS);
        let target = t.target;
        // The file cache's keys of these blocks: the data files' own numbers, or apart.
        let key = |b: u64| {
            if target == self.data {
                b
            } else {
                TEMP_KEY | b
            }
        };
        let blocks = base + at..base + at + n;
        if buffer && write {
            for b in blocks.clone() {
                self.os_cache.insert(key(b));
            }
        } else if buffer && blocks.clone().all(|b| self.os_cache.touch(key(b))) {
            // Read back from the file cache: a system call and a copy per block.
            sess.buffered = true;
            if stack.measuring() {
                t.stats.read_hits += 1;
            }
            stack.schedule_db(stack.now() + (copy_ns * n).max(1), DbTimer::Session(s));
            return;
        }
        if sess.buffered {
            self.writebacks += 1;
            stack.schedule_db(stack.now() + (copy_ns * n).max(1), DbTimer::Session(s));
            stack.issue_db_io(DbIo::TempWriteback, target, lba, sectors, true);
        } else if write {
            stack.issue_db_io(DbIo::TempWrite(s), target, lba, sectors, true);
        } else {
            stack.issue_db_io(DbIo::TempRead(s), target, lba, sectors, false);
        }
    }

    /// Session `s`'s temp write or read is done (or its write is in the file cache): the
    /// wait is counted and its work goes on.
    pub(super) fn temp_io_done(&mut self, s: u32, stack: &mut Stack) {
        let waited = stack.now() - self.sessions[s as usize].wait_start;
        if let Some(t) = self.temp.as_mut() {
            let sess = &mut t.sessions[s as usize];
            sess.buffered = false;
            if stack.measuring() {
                let st = &mut t.stats;
                if sess.writing {
                    st.write_waits += 1;
                    st.write_wait_ns += waited;
                } else {
                    st.read_waits += 1;
                    st.read_wait_ns += waited;
                }
            }
        }
        self.advance(s, stack);
    }

    /// Whether session `s` waits for a temp write buffered in the file cache (its timer).
    pub(super) fn temp_buffered(&self, s: u32) -> bool {
        self.temp
            .as_ref()
            .is_some_and(|t| t.sessions[s as usize].buffered)
    }

    /// The temp segment's I/O as a class of its own (None without temp work).
    pub(super) fn temp_class(&self, secs: f64) -> Option<ClassMetrics> {
        let t = self.temp.as_ref()?;
        Some(ClassMetrics {
            name: "temp".into(),
            target: t.names.clone(),
            metrics: t.io.metrics(secs),
            commit: None,
        })
    }

    /// The temp wait events over a window of `total_ns` session time: Oracle's direct path
    /// names, PostgreSQL's `IO:BufFileWrite`/`IO:BufFileRead`.
    pub(super) fn temp_wait_events(&self, total_ns: f64) -> Vec<WaitEvent> {
        let Some(t) = self.temp.as_ref() else {
            return Vec::new();
        };
        let oracle = self.spec.engine == Engine::Oracle;
        let st = &t.stats;
        let names = if oracle {
            ["direct path write temp", "direct path read temp"]
        } else {
            ["IO:BufFileWrite", "IO:BufFileRead"]
        };
        [
            (names[0], st.write_wait_ns, st.write_waits),
            (names[1], st.read_wait_ns, st.read_waits),
        ]
        .into_iter()
        .map(|(event, ns, n)| super::report::wait_event(event, ns, n, total_ns))
        .collect()
    }

    /// The temp figures into the run's parameters: bytes written and read back per second
    /// and per finished execution.
    pub(super) fn temp_parameters(
        &self,
        o: &mut serde_json::Map<String, serde_json::Value>,
        secs: f64,
    ) {
        let Some(t) = self.temp.as_ref() else {
            return;
        };
        let st = &t.stats;
        let per_s = |blocks: u64| round_to(blocks as f64 * BLOCK_BYTES as f64 / secs.max(1e-9), 1);
        o.insert(
            "temp_write_bytes_per_s".into(),
            per_s(st.blocks_written).into(),
        );
        o.insert("temp_read_bytes_per_s".into(), per_s(st.blocks_read).into());
        o.insert("temp_executions".into(), st.executions.into());
        o.insert(
            "temp_bytes_written".into(),
            (st.blocks_written * BLOCK_BYTES).into(),
        );
        o.insert(
            "temp_bytes_read".into(),
            (st.blocks_read * BLOCK_BYTES).into(),
        );
        o.insert(
            "temp_bytes_written_with_scans".into(),
            (st.blocks_with_scan * BLOCK_BYTES).into(),
        );
        o.insert("temp_io_bytes".into(), (t.io_blocks * BLOCK_BYTES).into());
        if st.read_hits > 0 {
            o.insert("temp_reads_from_file_cache".into(), st.read_hits.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Temp;

    #[test]
    fn fractions_of_a_block_carry_so_the_blocks_average_out_exactly() {
        // 2.5 blocks per execution: 2, 3, 2, 3 ... 10 executions write 25 blocks.
        let mut carry = 0.0;
        let blocks: Vec<u64> = (0..10).map(|_| Temp::blocks_of(2.5, &mut carry)).collect();
        assert_eq!(blocks.iter().sum::<u64>(), 25);
        assert_eq!(&blocks[..4], &[2, 3, 2, 3]);
        assert_eq!(Temp::blocks_of(0.0, &mut 0.0), 0);
    }
}
