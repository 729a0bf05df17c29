//! The order of one execution's temp I/O, as a spilling hash join and sort do it.
//!
//! The work is a list of passes, each writing some blocks to temp. The first pass writes
//! while the transaction scans its tables: a grace hash join splits each input into
//! partitions as it reads it, and a partition's buffer goes to temp when it fills, so its
//! writes follow the scan's reads, in proportion to the share of the scan done (a write is
//! due once a whole temp I/O's worth of the scanned share is unwritten). Each later pass
//! reads back what the pass before it wrote and writes its own output as it goes (a read,
//! then the writes that share of the input produced: the reads lead); after the last pass,
//! its blocks are read back (the partitions joined, the runs merged into the output).
//! Without passes declared, the execution's temp blocks are one pass: written with the scan
//! (or after the visits, when the transaction scans nothing), then read back.
//!
//! Each session writes in a slice of the temp area of its own, a ring: a pass writes after
//! the region of the pass before, whose region it reads.

/// The next temp I/O of an execution: a write or a read of `blocks` from slice block `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TempIo {
    pub write: bool,
    pub at: u64,
    pub blocks: u64,
}

/// One session's temp passes under way.
#[derive(Clone, Debug, Default)]
pub(crate) struct Schedule {
    /// Blocks each pass writes, in order.
    writes: Vec<u64>,
    /// The pass under way (`writes.len()`: the last read-back), and its blocks read and
    /// written so far.
    pass: usize,
    read_done: u64,
    write_done: u64,
    /// Where the pass under way writes, and where it reads (the pass before's region), in
    /// the slice.
    write_at: u64,
    read_at: u64,
}

impl Schedule {
    /// A new execution writing `writes` blocks in its passes (its region follows the last
    /// execution's).
    pub fn begin(&mut self, writes: Vec<u64>) {
        self.writes = writes;
        self.pass = 0;
        self.read_done = 0;
        self.write_done = 0;
        self.read_at = self.write_at;
    }

    fn reads_of(&self, pass: usize) -> u64 {
        pass.checked_sub(1)
            .and_then(|p| self.writes.get(p))
            .copied()
            .unwrap_or(0)
    }

    fn writes_of(&self, pass: usize) -> u64 {
        self.writes.get(pass).copied().unwrap_or(0)
    }

    /// Moves past passes whose work is done; false when the execution's temp work is over.
    fn settle(&mut self, slice: u64) -> bool {
        while self.pass <= self.writes.len()
            && self.read_done >= self.reads_of(self.pass)
            && self.write_done >= self.writes_of(self.pass)
        {
            self.read_at = self.write_at;
            self.write_at = (self.write_at + self.writes_of(self.pass)) % slice.max(1);
            self.pass += 1;
            self.read_done = 0;
            self.write_done = 0;
        }
        self.pass <= self.writes.len()
    }

    /// While the scan is under way with `share` of its visits done: the first pass's write
    /// that is due, if any (at most `io` blocks, in a slice of `slice` blocks).
    pub fn with_scan(&mut self, share: f64, io: u64, slice: u64) -> Option<TempIo> {
        if self.pass != 0 || !self.settle(slice) {
            return None;
        }
        // The first pass may have just ended.
        if self.pass != 0 {
            return None;
        }
        let all = self.writes_of(0);
        let left = all - self.write_done;
        let due = (all as f64 * share.clamp(0.0, 1.0)) as u64;
        let n = left.min(io.max(1));
        (n > 0 && due >= self.write_done + n).then(|| self.write(n, slice))
    }

    /// After the scan: the next temp I/O (at most `io` blocks), None when the execution's
    /// temp work is done.
    pub fn next(&mut self, io: u64, slice: u64) -> Option<TempIo> {
        if !self.settle(slice) {
            return None;
        }
        let (r, w) = (self.reads_of(self.pass), self.writes_of(self.pass));
        // The reads lead: read while the writes have caught up with the share read.
        let read = self.read_done < r
            && (self.write_done >= w
                || u128::from(self.read_done) * u128::from(w)
                    <= u128::from(self.write_done) * u128::from(r));
        if read {
            let at = (self.read_at + self.read_done) % slice.max(1);
            let n = (r - self.read_done).min(io.max(1)).min(slice - at);
            self.read_done += n;
            return Some(TempIo {
                write: false,
                at,
                blocks: n,
            });
        }
        Some(self.write((w - self.write_done).min(io.max(1)), slice))
    }

    /// The pass under way writes `n` blocks (fewer at the slice's end).
    fn write(&mut self, n: u64, slice: u64) -> TempIo {
        let at = (self.write_at + self.write_done) % slice.max(1);
        let n = n.min(slice - at);
        self.write_done += n;
        TempIo {
            write: true,
            at,
            blocks: n,
        }
    }
}

/// Blocks each pass of `passes` (bytes each pass writes; empty: one pass) writes when the
/// execution writes `blocks` in all: shares of the whole, rounded so they add up.
pub(crate) fn pass_blocks(passes: &[u64], blocks: u64) -> Vec<u64> {
    let total: u64 = passes.iter().sum();
    if passes.is_empty() || total == 0 {
        return vec![blocks];
    }
    let mut out = Vec::with_capacity(passes.len());
    let (mut cum, mut given) = (0u128, 0u64);
    for p in passes {
        cum += u128::from(*p);
        let upto = (cum * u128::from(blocks) / u128::from(total)) as u64;
        out.push(upto - given);
        given = upto;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole order of an execution: the writes with a scan of `visits` visits (one
    /// check per visit), then the rest; each I/O as (write, blocks, visits done when
    /// issued: `visits` after the scan).
    fn timeline(s: &mut Schedule, visits: u64, io: u64, slice: u64) -> Vec<(bool, u64, u64)> {
        let mut out = Vec::new();
        for v in 0..visits {
            while let Some(t) = s.with_scan(v as f64 / visits as f64, io, slice) {
                out.push((t.write, t.blocks, v));
            }
        }
        while let Some(t) = s.next(io, slice) {
            out.push((t.write, t.blocks, visits));
        }
        out
    }

    #[test]
    fn the_partitions_are_written_while_the_scan_reads_and_read_back_after() {
        // One pass of 80 blocks in I/Os of 8 over a scan of 800 visits.
        let mut s = Schedule::default();
        s.begin(vec![80]);
        let t = timeline(&mut s, 800, 8, 1000);
        let writes: Vec<_> = t.iter().filter(|x| x.0).collect();
        let reads: Vec<_> = t.iter().filter(|x| !x.0).collect();
        assert_eq!(writes.len(), 10);
        assert_eq!(reads.len(), 10);
        // Each write when its eighth of ten of the scan is done: after 80, 160 ... visits;
        // the last one at the scan's end.
        let at: Vec<u64> = writes.iter().map(|w| w.2).collect();
        assert_eq!(at, vec![80, 160, 240, 320, 400, 480, 560, 640, 720, 800]);
        // Every read after every write.
        let first_read = t.iter().position(|x| !x.0).expect("reads");
        assert!(t[first_read..].iter().all(|x| !x.0));
    }

    #[test]
    fn a_second_pass_reads_the_first_and_writes_its_own_interleaved() {
        // Three passes of 16 blocks in I/Os of 4: 16 written with the scan; then 16 read and
        // 16 written alternately (read first), twice; then 16 read.
        let mut s = Schedule::default();
        s.begin(vec![16, 16, 16]);
        let t = timeline(&mut s, 100, 4, 1000);
        let kinds: String = t.iter().map(|x| if x.0 { 'w' } else { 'r' }).collect();
        assert_eq!(kinds, "wwww".to_owned() + "rwrwrwrw" + "rwrwrwrw" + "rrrr");
        // Three of the first pass's writes go with the scan, the last as it ends.
        assert!(t[..3].iter().all(|x| x.2 < 100), "{t:?}");
    }

    #[test]
    fn each_pass_reads_where_the_pass_before_wrote() {
        let mut s = Schedule::default();
        s.begin(vec![8, 8]);
        let slice = 100;
        let mut ios = Vec::new();
        while let Some(t) = s.next(8, slice) {
            ios.push(t);
        }
        let at: Vec<(bool, u64)> = ios.iter().map(|t| (t.write, t.at)).collect();
        assert_eq!(at, vec![(true, 0), (false, 0), (true, 8), (false, 8)]);
        // The next execution writes after them; a write does not run past the slice.
        s.begin(vec![90]);
        let t = s.next(64, slice).expect("a write");
        assert_eq!((t.at, t.blocks), (16, 64));
        let t = s.next(64, slice).expect("a write");
        assert_eq!((t.at, t.blocks), (80, 20));
        let t = s.next(64, slice).expect("a write");
        assert_eq!((t.at, t.blocks), (0, 6));
    }

    #[test]
    fn passes_scale_to_the_execution_s_blocks_and_add_up() {
        assert_eq!(pass_blocks(&[], 25), vec![25]);
        assert_eq!(pass_blocks(&[640, 64], 704), vec![640, 64]);
        let b = pass_blocks(&[3, 3, 1], 10);
        assert_eq!(b.iter().sum::<u64>(), 10);
        assert_eq!(b, vec![4, 4, 2]);
    }
}
