//! Fixed-size jobs run to completion on the simulated database (create a tablespace, copy a
//! file, load rows by direct path or conventionally, build an index, update or delete every
//! row committing in batches), reported as elapsed time.
//!
//! A job is a sequence of phases, each a few streams of large sequential I/O on the
//! database's targets ([`stream`]): created files written by direct path, an input file
//! read, a table scanned with multiblock reads, sorted runs written and read back once, an
//! index written by direct path. Jobs that change rows ([`rows`]) go through the database's
//! own paths: each block they change is a buffer-cache access whose dirty victims the
//! database writer writes, their redo (and undo, with the Oracle engine) goes to the log
//! writer, and each commit waits for its log write (`log file sync`).
//!
//! A job spends the host CPU per block and row the database spends for transactions, and
//! a row job waits for index leaf reads and for free buffers ([`work`]).
//!
//! Simplifications: creating a file and copying one spend no database CPU (the host's
//! kernel does the work); the direct-path writes of a load or an index log one small
//! space-management record per MiB ([`DIRECT_REDO_BYTES_PER_MIB`]); the sort writes its
//! runs as the scan fills them and reads them back in one merge pass. A direct-path load
//! writes the table's blocks only: the index maintenance a real one does at its end (the
//! new keys sorted, then merged into the index) is the work of `job/index-build`, not part
//! of the load's elapsed time.

mod append;
mod report;
mod rows;
mod stream;
mod work;

use storlab_core::result::JobVolumeIo;

use super::{DbEngine, DbIo};
use crate::config::database::{JobExtents, JobKind, JobSpec};
use crate::config::DbSpec;
use crate::engine::SimTime;
use crate::model::Stack;
use rows::RowWork;
use stream::{Pace, Role, Stream};
use work::{CpuWork, JobWork};

pub(crate) use report::mark_run;

/// Redo of a direct-path write: a space-management record per MiB of formatted blocks
/// (extent allocation, the high-water mark moving), bytes.
pub const DIRECT_REDO_BYTES_PER_MIB: u64 = 256;

/// A job in progress.
pub(crate) struct JobRun {
    spec: JobSpec,
    ext: JobExtents,
    /// The phases' streams, and the phase under way.
    phases: Vec<Vec<Stream>>,
    phase: usize,
    /// Rows changed and committed in batches (conventional load, update, delete).
    rows: Option<RowWork>,
    /// The job's last commit is waiting for its log write.
    final_commit: bool,
    /// When the job started and finished.
    started: SimTime,
    finished: Option<SimTime>,
    /// The time limit it runs under (the run's measured window), ns.
    limit_ns: u64,
    /// I/O by role: data, source, temp.
    io: [JobVolumeIo; 3],
    redo_bytes: u64,
    commits: u64,
    /// Redo of direct-path writes not yet a whole record.
    direct_carry: u64,
    /// Its CPU, index leaf reads and free-buffer waits.
    work: JobWork,
}

impl JobRun {
    /// The job of `db` on the targets the database uses (`source`: the input's own target,
    /// when it is not the data target).
    pub(crate) fn new(db: &DbSpec, job: &JobSpec, data: u32, source: Option<u32>) -> JobRun {
        let ext = job.extents(db);
        let (phases, rows) = phases(db, job, &ext, data, source);
        let volume = |role: &str| JobVolumeIo {
            role: role.into(),
            ..JobVolumeIo::default()
        };
        JobRun {
            spec: job.clone(),
            ext,
            phases,
            phase: 0,
            rows,
            final_commit: false,
            started: SimTime(0),
            limit_ns: 0,
            finished: None,
            io: [volume("data"), volume("source"), volume("temp")],
            redo_bytes: 0,
            commits: 0,
            direct_carry: 0,
            work: JobWork::default(),
        }
    }

    /// The sort's runs go to the temp area: `target`, from byte `base`.
    pub(crate) fn place_temp(&mut self, (target, base): (u32, u64)) {
        for s in self.phases.iter_mut().flatten() {
            if s.role == Role::Temp {
                s.target = target;
                s.base = base;
            }
        }
    }

    /// Stream `i` of the current phase writes or reads the sort's runs.
    pub(crate) fn temp_stream(&self, i: u32) -> bool {
        self.phases
            .get(self.phase)
            .and_then(|p| p.get(i as usize))
            .is_some_and(|s| s.role == Role::Temp)
    }

    /// The next I/O any stream of the current phase may issue: (stream, offset, bytes).
    fn next_io(&mut self) -> Option<(usize, u64, u64)> {
        let rows_done = self.rows.as_ref().map_or(1.0, RowWork::share_wanted);
        let streams = self.phases.get_mut(self.phase)?;
        for i in 0..streams.len() {
            let pacer = match streams[i].paced {
                Some(Pace::Follows(p)) => streams.get(p).map_or(1.0, Stream::share_done),
                // A leading stream is held back only while the stream it feeds has work:
                // when that one idles, the next chunk goes (so neither waits for the other).
                Some(Pace::Leads(p)) => streams
                    .get(p)
                    .filter(|f| f.inflight > 0 || f.finished())
                    .map_or(1.0, Stream::share_done),
                Some(Pace::Rows) => rows_done,
                None => 1.0,
            };
            if let Some((at, len)) = streams[i].next_io(pacer) {
                return Some((i, at, len));
            }
        }
        None
    }

    fn phase_done(&self) -> bool {
        self.phases
            .get(self.phase)
            .is_none_or(|p| p.iter().all(Stream::finished))
    }

    /// Share of the job's work done, 0 to 1: rows committed, or bytes moved.
    pub(crate) fn share_done(&self) -> f64 {
        if self.finished.is_some() {
            return 1.0;
        }
        if let Some(r) = &self.rows {
            return r.share_committed();
        }
        let (done, all) = self
            .phases
            .iter()
            .flatten()
            .fold((0, 0), |(d, a), s| (d + s.done, a + s.bytes));
        if all == 0 {
            0.0
        } else {
            // The last commit is still to come.
            (done as f64 / all as f64).min(0.999_999)
        }
    }
}

/// The phases of `job` on the data target and its input's own target (when not the data
/// target), and the rows it changes in batches (row jobs).
fn phases(
    db: &DbSpec,
    job: &JobSpec,
    ext: &JobExtents,
    data: u32,
    source: Option<u32>,
) -> (Vec<Vec<Stream>>, Option<RowWork>) {
    let src = source.unwrap_or(data);
    let chunk = job.write_bytes;
    let n = job.outstanding;
    let heap = heap_extent(db);
    let mut rows = None;
    let phases = match job.kind {
        JobKind::CreateTablespace => vec![(0..u64::from(job.files))
            .map(|f| {
                Stream::new(
                    data,
                    Role::Data,
                    true,
                    (f * job.size_bytes, job.size_bytes),
                    chunk,
                )
                .with_outstanding(n)
            })
            .collect()],
        JobKind::CopyFile | JobKind::LoadDirect => {
            let role = if source.is_some() {
                Role::Source
            } else {
                Role::Data
            };
            let out = if job.kind == JobKind::CopyFile {
                (ext.scratch_base, job.size_bytes)
            } else {
                heap
            };
            let cpu = if job.kind == JobKind::LoadDirect {
                table_cpu_ns(db) / ext.input_bytes.max(1) as f64
            } else {
                0.0
            };
            vec![vec![
                Stream::new(src, role, false, (ext.input_base, ext.input_bytes), chunk)
                    .with_outstanding(n)
                    .paced(Pace::Leads(1))
                    .with_cpu(cpu),
                Stream::new(data, Role::Data, true, out, chunk)
                    .with_outstanding(n)
                    .paced(Pace::Follows(0)),
            ]]
        }
        JobKind::IndexBuild => {
            let cpu = table_cpu_ns(db) / heap.1.max(1) as f64;
            index_phases(ext, heap, data, job, cpu)
        }
        JobKind::LoadConventional | JobKind::UpdateAll | JobKind::DeleteAll => {
            let (input, role, at) = if job.kind == JobKind::LoadConventional {
                let role = if source.is_some() {
                    Role::Source
                } else {
                    Role::Data
                };
                (src, role, (ext.input_base, ext.input_bytes))
            } else {
                (data, Role::Data, heap)
            };
            let moved = (job.kind == JobKind::UpdateAll && ext.index_bytes > 0)
                .then_some((ext.scratch_base / 8192, ext.index_bytes / 8192));
            rows = Some(RowWork::new(db, job.kind, at.1, moved));
            vec![vec![Stream::new(input, role, false, at, chunk)
                .with_outstanding(n)
                .paced(Pace::Rows)]]
        }
    };
    (phases, rows)
}

/// `db`'s job writes sort runs to temp (an index build whose sort does not fit).
pub(crate) fn spills(db: &DbSpec) -> bool {
    db.job.as_ref().is_some_and(|j| j.extents(db).spills)
}

/// Blocks of the data target the buffer cache must cover for `db`'s job: up to the end of
/// the updated column's index (update-all with `indexed_update`), else none.
pub(crate) fn cached_blocks(db: &DbSpec) -> u64 {
    db.job.as_ref().map_or(0, |j| {
        let e = j.extents(db);
        if j.kind == JobKind::UpdateAll && e.index_bytes > 0 {
            (e.scratch_base + e.index_bytes) / 8192
        } else {
            0
        }
    })
}

/// CPU of processing every row and heap block of the job's table once (a load formatting
/// them, an index build scanning them), ns.
fn table_cpu_ns(db: &DbSpec) -> f64 {
    db.tables.first().map_or(0.0, |t| {
        (db.cpu_ns_per_row * t.rows + db.cpu_ns_per_block * t.heap_blocks()) as f64
    })
}

/// The heap of the database's first table (the job's table): first byte and bytes.
fn heap_extent(db: &DbSpec) -> (u64, u64) {
    let layout = crate::db::layout::Layout::new(&db.tables);
    layout.segments.first().map_or((0, 0), |s| {
        (s.heap_base * 8192, s.table.heap_blocks() * 8192)
    })
}

/// An index build's phases: the table scanned (its sorted runs written as the scan fills
/// them when the sort does not fit in memory), then the runs merged (read once) while the
/// index is written by direct path. `cpu`: the scan's CPU per byte.
fn index_phases(
    ext: &JobExtents,
    heap: (u64, u64),
    data: u32,
    job: &JobSpec,
    cpu: f64,
) -> Vec<Vec<Stream>> {
    let chunk = job.write_bytes;
    let n = job.outstanding;
    let scan = Stream::new(data, Role::Data, false, heap, chunk)
        .with_outstanding(n)
        .with_cpu(cpu);
    let index = (ext.scratch_base, ext.index_bytes);
    // On the data target until the temp area places them ([`JobRun::place_temp`]).
    let runs = (ext.runs_base, ext.sort_bytes);
    if !ext.spills {
        let write = Stream::new(data, Role::Data, true, index, chunk).with_outstanding(n);
        return vec![vec![scan], vec![write]];
    }
    vec![
        vec![
            scan,
            Stream::new(data, Role::Temp, true, runs, chunk)
                .with_outstanding(n)
                .paced(Pace::Follows(0)),
        ],
        vec![
            Stream::new(data, Role::Temp, false, runs, chunk)
                .with_outstanding(n)
                .paced(Pace::Leads(1)),
            Stream::new(data, Role::Data, true, index, chunk)
                .with_outstanding(n)
                .paced(Pace::Follows(0)),
        ],
    ]
}

impl DbEngine {
    /// The database runs a job (not sessions in a loop).
    pub(crate) fn runs_job(&self) -> bool {
        self.job.is_some()
    }

    /// Its job has finished: the run ends.
    #[inline]
    pub(crate) fn job_over(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.finished.is_some())
    }

    /// Starts the job: its first I/Os, the writer's rounds and (Oracle) the log writer's
    /// timeout.
    pub(super) fn start_job(&mut self, stack: &mut Stack) {
        if let Some(job) = self.job.as_mut() {
            job.started = stack.now();
            job.limit_ns = stack.opts().duration_ns;
        }
        stack.note(
            "job",
            "database",
            self.job.as_ref().map_or_else(String::new, |j| j.describe()),
        );
        self.start_background(stack);
        self.pump_job(stack);
    }

    /// One of the job's I/Os completed.
    pub(super) fn job_io_done(&mut self, stream: u32, write: bool, bytes: u64, stack: &mut Stack) {
        let Some(job) = self.job.as_mut() else {
            return;
        };
        let Some(s) = job
            .phases
            .get_mut(job.phase)
            .and_then(|p| p.get_mut(stream as usize))
        else {
            return;
        };
        let cpu = (!write && s.cpu_ns_per_byte > 0.0)
            .then(|| (bytes as f64 * s.cpu_ns_per_byte).round() as u64)
            .filter(|c| *c > 0);
        if cpu.is_some() {
            s.arrived();
        } else {
            s.completed(bytes);
        }
        if s.role == Role::Temp {
            if let Some(t) = self.temp.as_mut() {
                t.job_io(write, bytes);
            }
        }
        let v = &mut job.io[s.role as usize];
        if write {
            v.write_bytes += bytes;
            v.writes += 1;
        } else {
            v.read_bytes += bytes;
            v.reads += 1;
        }
        let direct = write && s.role == Role::Data && job.spec.kind.writes_direct();
        if direct {
            job.direct_carry += bytes;
            let records = job.direct_carry >> 20;
            job.direct_carry &= (1 << 20) - 1;
            if records > 0 {
                let redo = records * DIRECT_REDO_BYTES_PER_MIB;
                job.redo_bytes += redo;
                let step = self.log.append(redo);
                self.log_step(step, stack);
            }
        }
        if let Some(cpu) = cpu {
            let work = CpuWork::Chunk {
                stream: stream as usize,
                bytes,
            };
            self.job_cpu(cpu, work, stack);
        }
        self.pump_job(stack);
    }

    /// Issues what the job may issue now, changes the rows its reads made available, and
    /// moves to the next phase (or the last commit) when the current one is done.
    pub(super) fn pump_job(&mut self, stack: &mut Stack) {
        loop {
            let Some(job) = self.job.as_mut() else {
                return;
            };
            if job.finished.is_some() || job.final_commit {
                return;
            }
            while let Some((i, at, len)) = job.next_io() {
                let s = &job.phases[job.phase][i];
                let (target, write) = (s.target, s.write);
                stack.issue_db_io(
                    DbIo::Job(i as u32),
                    target,
                    at / 512,
                    len.div_ceil(512),
                    write,
                );
            }
            if self.job_rows_step(stack) {
                return;
            }
            let Some(job) = self.job.as_mut() else {
                return;
            };
            if !job.phase_done() || job.rows.as_ref().is_some_and(|r| !r.all_committed()) {
                return;
            }
            job.phase += 1;
            if job.phase < job.phases.len() {
                continue;
            }
            self.job_last_commit(stack);
            return;
        }
    }

    /// The job's work is all done: jobs that logged redo commit it and wait for its write;
    /// the others are finished now.
    fn job_last_commit(&mut self, stack: &mut Stack) {
        let Some(job) = self.job.as_mut() else {
            return;
        };
        if job.rows.is_some() || !job.spec.kind.writes_direct() {
            job.finished = Some(stack.now());
            return;
        }
        job.final_commit = true;
        self.job_commit(self.spec.log_bytes_per_commit, stack);
    }

    /// The job commits `bytes` of redo and waits for the log writer.
    pub(super) fn job_commit(&mut self, bytes: u64, stack: &mut Stack) {
        if let Some(job) = self.job.as_mut() {
            job.redo_bytes += bytes;
            job.commits += 1;
        }
        self.sessions[0].wait_start = stack.now();
        let step = self.log.commit(0, bytes);
        self.log_step(step, stack);
    }

    /// The job's commit is durable (the log writer released its one session).
    pub(super) fn job_committed(&mut self, stack: &mut Stack) {
        let Some(job) = self.job.as_mut() else {
            return;
        };
        if job.final_commit {
            job.final_commit = false;
            job.finished = Some(stack.now());
            return;
        }
        if let Some(r) = job.rows.as_mut() {
            r.committed_batch();
            if r.all_committed() {
                job.finished = Some(stack.now());
                return;
            }
        }
        self.pump_job(stack);
    }
}

impl JobKind {
    /// The job writes formatted blocks by direct path, logging only space management.
    fn writes_direct(self) -> bool {
        matches!(self, JobKind::LoadDirect | JobKind::IndexBuild)
    }
}

impl JobRun {
    /// What the job does, in its own terms.
    pub(crate) fn describe(&self) -> String {
        let j = &self.spec;
        let mib = |b: u64| format!("{} MiB", b >> 20);
        match j.kind {
            JobKind::CreateTablespace => format!(
                "{} file(s) of {} in writes of {}, {} in flight each",
                j.files,
                mib(j.size_bytes),
                storlab_core::ByteSize(j.write_bytes),
                j.outstanding
            ),
            JobKind::CopyFile => format!(
                "copy {} in I/Os of {}, {} in flight",
                mib(j.size_bytes),
                storlab_core::ByteSize(j.write_bytes),
                j.outstanding
            ),
            JobKind::LoadDirect => format!(
                "load {} bytes of input into {} bytes of table blocks by direct path",
                self.ext.input_bytes,
                self.phases
                    .first()
                    .and_then(|p| p.get(1))
                    .map_or(0, |s| s.bytes)
            ),
            JobKind::IndexBuild => format!(
                "index of {} bytes, sort of {} bytes in {} of memory{}",
                self.ext.index_bytes,
                self.ext.sort_bytes,
                storlab_core::ByteSize(j.sort_memory_bytes),
                if self.ext.spills {
                    ": sorted runs written and read once"
                } else {
                    ""
                }
            ),
            _ => self
                .rows
                .as_ref()
                .map_or_else(String::new, |r| r.describe(j.kind)),
        }
    }
}
