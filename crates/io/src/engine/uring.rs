//! io_uring: one ring per worker, `depth` I/Os in flight, submission and completion batched
//! in one system call per wait. Synchronous writes with fdatasync are a write linked to a
//! data-sync fsync; the I/O completes with the fsync.

use std::time::{Duration, Instant};

use io_uring::{opcode, squeue, types, IoUring};

use super::{Worker, WorkerResult, LATE};
use crate::buffer::AlignedBuf;

/// Completions handled before the ring is refilled.
const REAP_MAX: usize = 4;

#[derive(Clone)]
struct Slot {
    t0: Instant,
    write: bool,
    len: u32,
    off: u64,
    /// Verify mode: generation written, or expected by a read.
    gen: u64,
    expected: Vec<Option<u64>>,
    /// Completions still expected (2 for a write + fsync).
    pending: u8,
}

/// Runs one io_uring worker until the end of the run or a stop request.
pub(crate) fn run_uring(mut w: Worker) -> WorkerResult {
    let mut r = w.result();
    let depth = w.depth.max(1) as usize;
    let entries = (depth * 2).next_power_of_two() as u32;
    // Cooperative task running: completions are processed when the ring is entered rather
    // than by interrupting the thread (fewer inter-processor interrupts); plain setup when
    // the kernel does not know the flags.
    let built = IoUring::builder()
        .setup_coop_taskrun()
        .setup_single_issuer()
        .build(entries);
    let mut ring = match built.or_else(|_| IoUring::new(entries)) {
        Ok(ring) => ring,
        Err(e) => {
            r.error = Some(format!(
                "cannot set up io_uring with {entries} entries: {e}"
            ));
            return r;
        }
    };
    let mut bufs: Vec<AlignedBuf> = (0..depth)
        .map(|i| AlignedBuf::new(w.max_bytes, w.pattern_seed ^ i as u64))
        .collect();
    let mut slots: Vec<Option<Slot>> = vec![None; depth];
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut due = w.mean_gap.map(|_| w.next_due(w.start));
    let mut stopping = false;
    loop {
        let now = Instant::now();
        if w.stopping() || now >= w.end() || due.is_some_and(|d| d >= w.end()) {
            stopping = true;
        }
        while !stopping && !free.is_empty() {
            let t0 = match due {
                Some(d) if d > now => break,
                Some(d) => {
                    if now - d > LATE && w.measured(d) {
                        r.late += 1;
                    }
                    due = Some(w.next_due(d));
                    d
                }
                None => now,
            };
            let Some(slot) = free.pop() else { break };
            let mut io = w.stream.next_io();
            if w.verify.is_some() {
                // Verify mode: never two I/Os in flight on the same bytes (a read racing a
                // write would look torn).
                let overlaps = |io: &storlab_core::stream::NextIo| {
                    slots.iter().flatten().any(|s| {
                        io.lba * 512 < s.off + s.len as u64 && s.off < (io.lba + io.sectors) * 512
                    })
                };
                while overlaps(&io) {
                    io = w.stream.next_io();
                }
            }
            let len = (io.sectors * 512) as u32;
            let off = io.lba * 512;
            let (gen, expected) = if io.write {
                (
                    w.stamp(&mut bufs[slot].as_mut_slice()[..len as usize], off),
                    Vec::new(),
                )
            } else {
                (0, w.expect(off, len as u64))
            };
            let fd = types::Fd(w.fd);
            let ptr = bufs[slot].as_mut_ptr();
            let rw = if io.write {
                opcode::Write::new(fd, ptr, len)
                    .offset(io.lba * 512)
                    .build()
            } else {
                opcode::Read::new(fd, ptr, len).offset(io.lba * 512).build()
            };
            let sync = io.write && w.fdatasync;
            let rw = if sync {
                rw.flags(squeue::Flags::IO_LINK)
            } else {
                rw
            };
            // SAFETY: the buffer stays alive and untouched until this slot's completion.
            unsafe {
                let mut sq = ring.submission();
                let _ = sq.push(&rw.user_data(slot as u64));
                if sync {
                    let fsync = opcode::Fsync::new(fd)
                        .flags(types::FsyncFlags::DATASYNC)
                        .build();
                    let _ = sq.push(&fsync.user_data(slot as u64));
                }
            }
            slots[slot] = Some(Slot {
                t0,
                write: io.write,
                len,
                pending: 1 + sync as u8,
                off,
                gen,
                expected,
            });
        }
        let inflight = depth - free.len();
        if inflight == 0 {
            if stopping {
                break;
            }
            if let Some(d) = due {
                std::thread::sleep(d.saturating_duration_since(Instant::now()));
            }
            continue;
        }
        // Completions already waiting: submit without blocking and reap them, so the device
        // queue is topped up a few I/Os at a time instead of in waves of the whole depth.
        let ready = !ring.completion().is_empty();
        let submitted = match due.filter(|_| !free.is_empty() && !stopping) {
            _ if ready => ring.submit(),
            // Open loop with room: wait for a completion or the next arrival, whichever first.
            Some(d) => {
                let wait = d
                    .saturating_duration_since(Instant::now())
                    .max(Duration::from_micros(1));
                let ts = types::Timespec::new()
                    .sec(wait.as_secs())
                    .nsec(wait.subsec_nanos());
                let args = types::SubmitArgs::new().timespec(&ts);
                ring.submitter().submit_with_args(1, &args)
            }
            None => ring.submit_and_wait(1),
        };
        r.syscalls += 1;
        if let Err(e) = submitted {
            if e.raw_os_error() != Some(libc::ETIME) && e.raw_os_error() != Some(libc::EINTR) {
                r.error = Some(format!("io_uring submit failed: {e}"));
                break;
            }
        }
        // Copied out (on the stack: no allocation per reap) so the completion queue's head
        // moves on before the slots are handled.
        let mut done = [(0u64, 0i32); REAP_MAX];
        let mut n_done = 0;
        for (c, d) in ring.completion().take(REAP_MAX).zip(done.iter_mut()) {
            *d = (c.user_data(), c.result());
            n_done += 1;
        }
        let t1 = Instant::now();
        for &(data, res) in &done[..n_done] {
            let slot = data as usize;
            let Some(mut s) = slots[slot].take() else {
                continue;
            };
            // A synced write completes twice: the write (its length), then the fsync (0).
            let fsync_completion = s.pending == 1 && w.fdatasync && s.write;
            let ok = res >= 0 && (fsync_completion || res as u32 == s.len);
            if !ok {
                let err = std::io::Error::from_raw_os_error(-res.min(0));
                let op = if s.write { "write" } else { "read" };
                r.error = Some(format!("{op} of {} bytes returned {res}: {err}", s.len));
            }
            s.pending -= 1;
            if s.pending == 0 {
                if s.write {
                    w.written(s.off, s.len as u64, s.gen);
                } else {
                    w.check_read(
                        &mut r,
                        &bufs[slot].as_slice()[..s.len as usize],
                        s.off,
                        &s.expected,
                    );
                }
                w.record(&mut r, s.write, s.len as u64, s.t0, t1);
                free.push(slot);
            } else {
                slots[slot] = Some(s);
            }
        }
        if r.error.is_some() {
            stopping = true;
        }
    }
    r
}
