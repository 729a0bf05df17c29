//! The log archiver (Oracle's ARCn, PostgreSQL's archive_command): after each log switch the
//! filled log file is copied, one chunk at a time (read from the log, then written to the
//! archive target), files in switch order, one chunk in flight. A log file still waiting to
//! be archived cannot be reused: the log writer holds a write into it until the copy is done
//! ("log file switch (archiving needed)").

use std::collections::VecDeque;

/// One archive I/O to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveIo {
    /// Read `bytes` at byte `offset` of the log space.
    Read { offset: u64, bytes: u64 },
    /// Write `bytes` at byte `offset` of the archive target.
    Write { offset: u64, bytes: u64 },
}

#[derive(Debug, Clone, Copy)]
struct Job {
    file: u32,
    /// Bytes of the file copied so far.
    done: u64,
    /// Where the copy goes on the archive target.
    dest: u64,
    /// The read of the current chunk is done; its write is in flight.
    writing: bool,
}

/// The archiver's state.
#[derive(Debug, Clone)]
pub struct Archiver {
    file_bytes: u64,
    chunk: u64,
    /// Archive slots on the target (a ring of file-sized slots).
    slots: u64,
    next_slot: u64,
    queue: VecDeque<u32>,
    job: Option<Job>,
    /// Files archived, bytes copied.
    pub files: u64,
    pub bytes: u64,
}

impl Archiver {
    /// Copies files of `file_bytes` in chunks of `chunk` bytes onto `slots` file-sized slots.
    pub fn new(file_bytes: u64, chunk: u64, slots: u64) -> Archiver {
        assert!(file_bytes > 0 && chunk > 0 && slots > 0);
        Archiver {
            file_bytes,
            chunk: chunk.min(file_bytes),
            slots,
            next_slot: 0,
            queue: VecDeque::new(),
            job: None,
            files: 0,
            bytes: 0,
        }
    }

    /// Log file `file` (its index in the ring) was filled; returns the I/O to start when the
    /// archiver was idle.
    pub fn enqueue(&mut self, file: u32) -> Option<ArchiveIo> {
        self.queue.push_back(file);
        if self.job.is_some() {
            return None;
        }
        self.start_next()
    }

    fn start_next(&mut self) -> Option<ArchiveIo> {
        let file = self.queue.pop_front()?;
        let dest = self.next_slot % self.slots * self.file_bytes;
        self.next_slot += 1;
        self.job = Some(Job {
            file,
            done: 0,
            dest,
            writing: false,
        });
        Some(self.read_of(file, 0))
    }

    fn read_of(&self, file: u32, done: u64) -> ArchiveIo {
        ArchiveIo::Read {
            offset: u64::from(file) * self.file_bytes + done,
            bytes: self.chunk.min(self.file_bytes - done),
        }
    }

    /// The I/O in flight finished: the next one to issue, and the file whose copy just
    /// completed, if any.
    pub fn io_done(&mut self) -> (Option<ArchiveIo>, Option<u32>) {
        let Some(mut job) = self.job else {
            return (None, None);
        };
        let bytes = self.chunk.min(self.file_bytes - job.done);
        if !job.writing {
            job.writing = true;
            self.job = Some(job);
            return (
                Some(ArchiveIo::Write {
                    offset: job.dest + job.done,
                    bytes,
                }),
                None,
            );
        }
        job.done += bytes;
        job.writing = false;
        self.bytes += bytes;
        if job.done < self.file_bytes {
            self.job = Some(job);
            return (Some(self.read_of(job.file, job.done)), None);
        }
        self.files += 1;
        self.job = None;
        (self.start_next(), Some(job.file))
    }

    /// True while log file `file` waits for (or is in) its copy.
    pub fn pending(&self, file: u32) -> bool {
        self.job.is_some_and(|j| j.file == file) || self.queue.contains(&file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_copied_chunk_by_chunk_read_then_write() {
        let mut a = Archiver::new(4 << 20, 1 << 20, 8);
        let first = a.enqueue(2).unwrap();
        assert_eq!(
            first,
            ArchiveIo::Read {
                offset: 8 << 20,
                bytes: 1 << 20
            }
        );
        assert!(a.pending(2) && !a.pending(1));
        let mut ios = vec![first];
        let finished = loop {
            let (next, done) = a.io_done();
            if let Some(f) = done {
                assert!(next.is_none());
                break f;
            }
            ios.push(next.unwrap());
        };
        assert_eq!(finished, 2);
        // Four chunks: read, write, read, write ...
        assert_eq!(ios.len(), 8);
        assert_eq!(
            ios[1],
            ArchiveIo::Write {
                offset: 0,
                bytes: 1 << 20
            }
        );
        assert_eq!(
            ios[7],
            ArchiveIo::Write {
                offset: 3 << 20,
                bytes: 1 << 20
            }
        );
        assert!(!a.pending(2));
        assert_eq!((a.files, a.bytes), (1, 4 << 20));
    }

    #[test]
    fn files_queue_in_switch_order_onto_a_ring_of_slots() {
        let mut a = Archiver::new(1 << 20, 1 << 20, 2);
        assert!(a.enqueue(0).is_some());
        assert!(a.enqueue(1).is_none(), "one file at a time");
        assert!(a.pending(1));
        a.io_done(); // the write of file 0
        let (next, done) = a.io_done();
        assert_eq!(done, Some(0));
        assert_eq!(
            next,
            Some(ArchiveIo::Read {
                offset: 1 << 20,
                bytes: 1 << 20
            })
        );
        let (w, _) = a.io_done();
        assert_eq!(
            w,
            Some(ArchiveIo::Write {
                offset: 1 << 20,
                bytes: 1 << 20
            })
        );
        a.io_done();
        // The third file goes back to slot 0.
        a.enqueue(0);
        assert_eq!(
            a.io_done().0,
            Some(ArchiveIo::Write {
                offset: 0,
                bytes: 1 << 20
            })
        );
    }
}
