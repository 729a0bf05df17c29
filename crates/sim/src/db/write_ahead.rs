//! Oracle's write-ahead rule for the database writer: before DBWR writes a dirty block, the
//! redo describing the block's last change must be on disk. DBWR compares each buffer's
//! last change (its redo byte address) with what LGWR has written; when the redo is not yet
//! written it posts LGWR to write up to it and waits for that write before it writes the
//! block. This is why a query that cleans out blocks causes log writes: the cleanout's redo
//! must be written before the cleaned-out block is.
//!
//! The model tracks which blocks have a change whose redo is not on disk in two sets, each a
//! bit per block of the page space and the list of its blocks: those changed since the last
//! log write began (`pending`: a log write must still be started for them), and those
//! changed before the log write in flight began, which covers them (`inflight`: its
//! completion puts their redo on disk). A log write that covers all the redo generated so far
//! moves the first set into the second; its completion clears the second.
//!
//! Sources: Oracle Database Concepts, "Database Writer Process (DBW)" and "Log Writer
//! Process (LGWR)": the redo of a dirty buffer's changes goes to disk before the buffer
//! (the write-ahead protocol); a DBW that finds it unwritten signals LGWR and waits for it,
//! and "before DBW writes a modified buffer" is among LGWR's triggers; Oracle 7.2's
//! "Internals of Recovery" states the same rule for DBWR and LGWR.

/// Blocks whose last change's redo is not on disk yet.
#[derive(Debug, Clone)]
pub struct RedoOnDisk {
    pending: Vec<u64>,
    pending_list: Vec<u64>,
    inflight: Vec<u64>,
    inflight_list: Vec<u64>,
}

/// What the redo of a write's blocks needs before the write may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedoNeed {
    /// All of it is on disk: the write may go.
    OnDisk,
    /// Some is in the log write in flight: wait for it to complete.
    InFlight,
    /// Some is in no log write yet: post the log writer, then wait.
    Unwritten,
}

fn bit(v: &[u64], b: u64) -> bool {
    v.get((b / 64) as usize)
        .is_some_and(|w| w >> (b % 64) & 1 != 0)
}

impl RedoOnDisk {
    /// Nothing unwritten, over a page space of `pages` blocks.
    pub fn new(pages: u64) -> RedoOnDisk {
        let words = pages.div_ceil(64) as usize;
        RedoOnDisk {
            pending: vec![0; words],
            pending_list: Vec::new(),
            inflight: vec![0; words],
            inflight_list: Vec::new(),
        }
    }

    /// `block` changed: its redo is not written.
    #[inline]
    pub fn changed(&mut self, block: u64) {
        let (w, m) = ((block / 64) as usize, 1u64 << (block % 64));
        if let Some(word) = self.pending.get_mut(w) {
            if *word & m == 0 {
                *word |= m;
                self.pending_list.push(block);
            }
        }
    }

    /// A log write began that covers all the redo generated so far.
    pub fn write_began(&mut self) {
        for &b in &self.pending_list {
            let (w, m) = ((b / 64) as usize, 1u64 << (b % 64));
            self.pending[w] &= !m;
            if self.inflight[w] & m == 0 {
                self.inflight[w] |= m;
                self.inflight_list.push(b);
            }
        }
        self.pending_list.clear();
    }

    /// The log write in flight completed: the redo it covered is on disk.
    pub fn write_done(&mut self) {
        for &b in &self.inflight_list {
            self.inflight[(b / 64) as usize] &= !(1u64 << (b % 64));
        }
        self.inflight_list.clear();
    }

    /// What the redo of blocks `first` to `first + blocks - 1` needs before their write.
    pub fn need(&self, first: u64, blocks: u64) -> RedoNeed {
        let mut need = RedoNeed::OnDisk;
        for b in first..first + blocks {
            if bit(&self.pending, b) {
                return RedoNeed::Unwritten;
            }
            if bit(&self.inflight, b) {
                need = RedoNeed::InFlight;
            }
        }
        need
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_may_be_written_once_the_write_covering_its_redo_is_done() {
        let mut r = RedoOnDisk::new(1000);
        assert_eq!(r.need(0, 16), RedoNeed::OnDisk);
        r.changed(5);
        r.changed(5);
        assert_eq!(r.need(0, 16), RedoNeed::Unwritten);
        assert_eq!(r.need(6, 10), RedoNeed::OnDisk);
        r.write_began();
        assert_eq!(r.need(0, 16), RedoNeed::InFlight);
        // Changed again while the write is in flight: the next write must cover it.
        r.changed(5);
        r.changed(700);
        r.write_done();
        assert_eq!(r.need(0, 16), RedoNeed::Unwritten);
        r.write_began();
        r.write_done();
        assert_eq!(r.need(0, 1000), RedoNeed::OnDisk);
    }
}
