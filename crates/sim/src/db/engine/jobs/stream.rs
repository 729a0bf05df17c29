//! A job's stream of large sequential I/Os over one extent of a target: at most
//! `outstanding` in flight, each at most `chunk` bytes, in address order. A stream may be
//! held back by another's progress (a copy writes what it has read; a load reads its input
//! at most a few chunks ahead of what it has written).

/// Which volume a stream's I/O counts under in the job's report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The data target: the files created, the table, the new index.
    Data,
    /// The input file of a copy or a load on its own target.
    Source,
    /// The sort's runs (index-build), on the data target after the index.
    Temp,
}

/// One stream of sequential I/O.
#[derive(Clone, Debug)]
pub(crate) struct Stream {
    pub target: u32,
    pub role: Role,
    pub write: bool,
    /// First byte of the extent on the target, and its bytes.
    pub base: u64,
    pub bytes: u64,
    pub chunk: u64,
    pub outstanding: u32,
    /// Bytes issued and completed, I/Os in flight.
    pub issued: u64,
    pub done: u64,
    pub inflight: u32,
    /// The stream that paces this one (an index into the phase's streams): this one issues
    /// no byte beyond the pacer's completed share (`follows`), or runs at most `outstanding`
    /// chunks ahead of the pacer's completed share (`leads`).
    pub paced: Option<Pace>,
    /// Host CPU the job spends on each byte this stream reads before it counts as done
    /// (rows parsed, blocks visited), ns; 0: none.
    pub cpu_ns_per_byte: f64,
}

/// How a stream is held to another's progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pace {
    /// Issue only what the other stream has completed (in proportion to the two sizes).
    Follows(usize),
    /// Run at most `outstanding` chunks ahead of the other's completed share.
    Leads(usize),
    /// Run at most `outstanding` chunks ahead of the rows the job wants next (a row job's
    /// input).
    Rows,
}

impl Stream {
    pub fn new(
        target: u32,
        role: Role,
        write: bool,
        (base, bytes): (u64, u64),
        chunk: u64,
    ) -> Stream {
        Stream {
            target,
            role,
            write,
            base,
            bytes,
            chunk: chunk.max(512),
            outstanding: 1,
            issued: 0,
            done: 0,
            inflight: 0,
            paced: None,
            cpu_ns_per_byte: 0.0,
        }
    }

    pub fn with_outstanding(mut self, n: u32) -> Stream {
        self.outstanding = n.max(1);
        self
    }

    pub fn paced(mut self, pace: Pace) -> Stream {
        self.paced = Some(pace);
        self
    }

    /// Its reads cost `ns` of host CPU per byte before they count as done.
    pub fn with_cpu(mut self, ns: f64) -> Stream {
        self.cpu_ns_per_byte = ns;
        self
    }

    pub fn finished(&self) -> bool {
        self.done >= self.bytes
    }

    /// Share of the stream completed, 0 to 1 (an empty stream is complete).
    pub fn share_done(&self) -> f64 {
        if self.bytes == 0 {
            1.0
        } else {
            self.done as f64 / self.bytes as f64
        }
    }

    /// The next I/O this stream may issue, given the share `pacer_done` its pacer has
    /// completed: (byte offset on the target, bytes), counted as issued.
    pub fn next_io(&mut self, pacer_done: f64) -> Option<(u64, u64)> {
        if self.inflight >= self.outstanding || self.issued >= self.bytes {
            return None;
        }
        let len = self.chunk.min(self.bytes - self.issued);
        let limit = match self.paced {
            None => self.bytes,
            Some(Pace::Follows(_)) => {
                // Whole chunks of what the pacer completed; the rest when it is done.
                if pacer_done >= 1.0 {
                    self.bytes
                } else {
                    (pacer_done * self.bytes as f64) as u64
                }
            }
            Some(Pace::Leads(_) | Pace::Rows) => {
                let ahead = self.chunk * u64::from(self.outstanding);
                ((pacer_done * self.bytes as f64) as u64).saturating_add(ahead)
            }
        };
        if self.issued + len > limit {
            return None;
        }
        let at = self.base + self.issued;
        self.issued += len;
        self.inflight += 1;
        Some((at, len))
    }

    /// One of its I/Os of `bytes` completed.
    pub fn completed(&mut self, bytes: u64) {
        self.arrived();
        self.credit(bytes);
    }

    /// One of its I/Os completed; its bytes count as done when [`Stream::credit`]ed (after
    /// the CPU that processes them).
    pub fn arrived(&mut self) {
        self.inflight -= 1;
    }

    /// `bytes` of it are done.
    pub fn credit(&mut self, bytes: u64) {
        self.done += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_issues_its_extent_in_chunks_with_its_limit_in_flight() {
        let mut s = Stream::new(0, Role::Data, true, (4096, 2500), 1000).with_outstanding(2);
        assert_eq!(s.next_io(0.0), Some((4096, 1000)));
        assert_eq!(s.next_io(0.0), Some((5096, 1000)));
        assert_eq!(s.next_io(0.0), None, "two in flight");
        s.completed(1000);
        assert_eq!(s.next_io(0.0), Some((6096, 500)));
        s.completed(1000);
        s.completed(500);
        assert!(s.finished());
        assert_eq!(s.next_io(0.0), None);
    }

    #[test]
    fn a_following_stream_writes_only_what_its_pacer_has_done() {
        let mut s = Stream::new(0, Role::Data, true, (0, 4000), 1000)
            .with_outstanding(4)
            .paced(Pace::Follows(0));
        assert_eq!(s.next_io(0.1), None);
        assert_eq!(s.next_io(0.25), Some((0, 1000)));
        assert_eq!(s.next_io(0.25), None);
        assert_eq!(s.next_io(1.0), Some((1000, 1000)));
    }
}
