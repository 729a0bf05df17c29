//! psync: synchronous pread/pwrite, one I/O at a time per worker thread.

use std::time::Instant;

use super::{Worker, WorkerResult, LATE};
use crate::buffer::AlignedBuf;

/// Runs one psync worker until the end of the run or a stop request.
pub(crate) fn run_psync(mut w: Worker) -> WorkerResult {
    let mut r = w.result();
    let mut buf = AlignedBuf::new(w.max_bytes, w.pattern_seed);
    let mut due = w.mean_gap.map(|_| w.next_due(w.start));
    loop {
        if w.stopping() {
            break;
        }
        let now = Instant::now();
        if now >= w.end() {
            break;
        }
        let t0 = match due {
            Some(d) => {
                // Behind schedule (an arrival rate beyond the device), the due times lag the
                // clock: the run still ends at its end, not when the schedule reaches it.
                if d >= w.end() {
                    break;
                }
                if d > now {
                    std::thread::sleep(d - now);
                } else if now - d > LATE && w.measured(d) {
                    r.late += 1;
                }
                due = Some(w.next_due(d));
                d
            }
            None => now,
        };
        let io = w.stream.next_io();
        let (off, len) = ((io.lba * 512) as libc::off_t, (io.sectors * 512) as usize);
        let (gen, expected) = if io.write {
            (
                w.stamp(&mut buf.as_mut_slice()[..len], off as u64),
                Vec::new(),
            )
        } else {
            (0, w.expect(off as u64, len as u64))
        };
        let ptr = buf.as_mut_ptr() as *mut libc::c_void;
        // SAFETY: the buffer holds at least max_bytes >= len bytes and outlives the call.
        let done = unsafe {
            if io.write {
                libc::pwrite(w.fd, ptr, len, off)
            } else {
                libc::pread(w.fd, ptr, len, off)
            }
        };
        r.syscalls += 1;
        if done != len as isize {
            let err = std::io::Error::last_os_error();
            let op = if io.write { "write" } else { "read" };
            r.error = Some(format!(
                "{op} of {len} bytes at offset {off} returned {done}: {err}"
            ));
            break;
        }
        if io.write && w.fdatasync {
            // SAFETY: fd is open for the whole run.
            if unsafe { libc::fdatasync(w.fd) } != 0 {
                r.error = Some(format!(
                    "fdatasync failed: {}",
                    std::io::Error::last_os_error()
                ));
                break;
            }
            r.syscalls += 1;
        }
        if io.write {
            w.written(off as u64, len as u64, gen);
        } else {
            w.check_read(&mut r, &buf.as_slice()[..len], off as u64, &expected);
        }
        w.record(&mut r, io.write, len as u64, t0, Instant::now());
    }
    r
}
