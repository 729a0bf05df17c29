//! Group commit: committers hand their log records to one log writer and wait until the
//! record is durable; the writer takes every record waiting, writes them as one sequential
//! synchronous write, and wakes them. Commit latency (ask to durable) is measured by the
//! committers, log-write latency by the writer, as databases report `log file sync` and
//! `log file parallel write` separately.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::{Worker, WorkerResult};
use crate::buffer::AlignedBuf;

#[derive(Default)]
struct State {
    next_ticket: u64,
    queued: u64,
    queued_bytes: u64,
    durable: u64,
    writer_done: bool,
}

/// The shared log of one group-commit class.
#[derive(Default)]
pub(crate) struct CommitLog {
    state: Mutex<State>,
    to_writer: Condvar,
    to_committers: Condvar,
}

impl CommitLog {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One committer: commit (wait for durability), think, repeat.
pub(crate) fn run_committer(
    w: Worker,
    log: Arc<CommitLog>,
    record_bytes: u64,
    think: Duration,
) -> WorkerResult {
    let mut r = w.result();
    while !w.stopping() && Instant::now() < w.end() {
        let t0 = Instant::now();
        let mut s = log.lock();
        s.next_ticket += 1;
        let ticket = s.next_ticket;
        s.queued += 1;
        s.queued_bytes += record_bytes;
        log.to_writer.notify_one();
        while s.durable < ticket && !s.writer_done {
            s = log.to_committers.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        let committed = s.durable >= ticket;
        drop(s);
        if !committed {
            break;
        }
        w.record(&mut r, true, record_bytes, t0, Instant::now());
        if !think.is_zero() {
            std::thread::sleep(think);
        }
    }
    r
}

/// The log writer: batches waiting records into one sequential write in [lo, hi) sectors.
pub(crate) fn run_log_writer(
    w: Worker,
    log: Arc<CommitLog>,
    committers: u32,
    record_bytes: u64,
    lo: u64,
    hi: u64,
) -> WorkerResult {
    let mut r = w.result();
    let max_batch = (committers as u64 * record_bytes).div_ceil(4096) * 4096;
    let mut buf = AlignedBuf::new(max_batch as usize, w.pattern_seed);
    let mut cursor = lo * 512;
    loop {
        let mut s = log.lock();
        while s.queued == 0 && !w.stopping() && Instant::now() < w.end() {
            let (guard, _) = log
                .to_writer
                .wait_timeout(s, Duration::from_millis(20))
                .unwrap_or_else(|e| e.into_inner());
            s = guard;
        }
        if s.queued == 0 {
            s.writer_done = true;
            log.to_committers.notify_all();
            break;
        }
        let (batch_bytes, last) = (s.queued_bytes, s.next_ticket);
        s.queued = 0;
        s.queued_bytes = 0;
        drop(s);
        // O_DIRECT needs whole blocks: a batch is padded to 4 KiB, as a log writer pads its
        // last block.
        let len = batch_bytes.div_ceil(4096) * 4096;
        if cursor + len > hi * 512 {
            cursor = lo * 512;
        }
        let t0 = Instant::now();
        // SAFETY: buf holds max_batch >= len bytes.
        let n = unsafe {
            libc::pwrite(
                w.fd,
                buf.as_mut_ptr() as *const libc::c_void,
                len as usize,
                cursor as libc::off_t,
            )
        };
        r.syscalls += 1;
        let mut ok = n == len as isize;
        if ok && w.fdatasync {
            // SAFETY: fd is open for the whole run.
            ok = unsafe { libc::fdatasync(w.fd) } == 0;
            r.syscalls += 1;
        }
        if !ok {
            r.error = Some(format!(
                "log write of {len} bytes at {cursor}: {}",
                std::io::Error::last_os_error()
            ));
        }
        w.record(&mut r, true, len, t0, Instant::now());
        cursor += len;
        let mut s = log.lock();
        if ok {
            s.durable = last;
        } else {
            s.writer_done = true;
        }
        log.to_committers.notify_all();
        if !ok {
            break;
        }
    }
    r
}
