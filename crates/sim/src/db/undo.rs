//! Oracle's undo: every row a transaction changes leaves an undo record (what it takes to put
//! the row back) in an undo block of the transaction's undo segment, and the change of the
//! undo block is itself logged. Each session's transactions use an undo segment of their own
//! (automatic undo management gives about one segment per concurrent transaction), a ring of
//! `SEGMENT_BLOCKS - 1` undo blocks behind a segment header (the transaction table, changed
//! when a transaction starts and when it commits). The undo segments follow the tables on the
//! data target.
//!
//! The arithmetic, from the layout of Oracle's undo records (block dumps, as Jonathan Lewis's
//! *Oracle Core*, ch. 2-3, shows them): an undo block of 8 KiB keeps about 8,100 bytes for
//! records after its cache and undo-block headers; the undo record of an updated row is about
//! 100 bytes of headers (undo record header, the table operation's header and the row's
//! address) plus the before image of the changed columns, taken as 20 bytes (a counter or a
//! short string): `UPDATE_RECORD_BYTES` = 120, so about 67 updated rows fill an undo block; an
//! inserted row's undo record holds only its address (a "delete row" operation), about 70
//! bytes, so about 115 inserted rows fill one. Consecutive transactions of a segment go on
//! filling its current block (one transaction at a time writes in it); a block a record does
//! not fit in starts the next one, formatted new (no read). The redo of the undo change is
//! about the undo record itself (the change vector carries it).

use crate::db::layout::NEW_BLOCK;
use storlab_core::character::Engine;

/// Blocks of one session's undo segment: its header and a ring of undo blocks (8 MiB).
pub const SEGMENT_BLOCKS: u64 = 1024;
/// Bytes of an 8 KiB undo block that hold records.
pub const BLOCK_RECORD_BYTES: u64 = storlab_core::character::ORACLE_UNDO_BLOCK_RECORD_BYTES;
/// Undo record of an updated row, and of an inserted row, bytes.
pub const UPDATE_RECORD_BYTES: u64 = storlab_core::character::ORACLE_UNDO_UPDATE_RECORD_BYTES;
pub const INSERT_RECORD_BYTES: u64 = 70;

/// Blocks of the undo segments of `sessions` sessions (none without Oracle's undo).
pub fn region_blocks(engine: Engine, sessions: u32) -> u64 {
    match engine {
        Engine::Oracle => u64::from(sessions) * SEGMENT_BLOCKS,
        Engine::Postgresql => 0,
    }
}

#[derive(Debug, Clone, Copy)]
struct Segment {
    /// The current undo block (0 .. SEGMENT_BLOCKS - 1 in the ring) and bytes used in it.
    block: u64,
    used: u64,
}

/// The undo segments of every session, from block `base` of the page space.
#[derive(Debug, Clone)]
pub struct Undo {
    base: u64,
    segments: Vec<Segment>,
    /// Undo blocks started (formatted new) and undo bytes written, so far.
    pub blocks_started: u64,
    pub bytes: u64,
}

impl Undo {
    pub fn new(base: u64, sessions: u32) -> Undo {
        Undo {
            base,
            segments: vec![
                // Full, at the ring's end: the first record starts block 0.
                Segment {
                    block: SEGMENT_BLOCKS - 2,
                    used: BLOCK_RECORD_BYTES,
                };
                sessions as usize
            ],
            blocks_started: 0,
            bytes: 0,
        }
    }

    /// The first block of the undo segments (they run to the end of the page space).
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Session `s`'s transaction leaves `records` undo records of `record_bytes` each: the
    /// blocks it changes go to `out` as (block, modified) entries, the segment header first,
    /// then each undo block once (a block it starts flagged [`NEW_BLOCK`]). Returns the undo
    /// bytes (the redo the undo changes generate, about as much).
    pub fn record(
        &mut self,
        s: u32,
        records: u64,
        record_bytes: u64,
        out: &mut Vec<(u64, bool)>,
    ) -> u64 {
        let seg_base = self.base + u64::from(s) * SEGMENT_BLOCKS;
        let seg = &mut self.segments[s as usize];
        out.push((seg_base, true));
        let ring = SEGMENT_BLOCKS - 1;
        let mut current_listed = false;
        for _ in 0..records {
            if seg.used + record_bytes > BLOCK_RECORD_BYTES {
                seg.block = (seg.block + 1) % ring;
                seg.used = 0;
                self.blocks_started += 1;
                out.push(((seg_base + 1 + seg.block) | NEW_BLOCK, true));
                current_listed = true;
            } else if !current_listed {
                out.push((seg_base + 1 + seg.block, true));
                current_listed = true;
            }
            seg.used += record_bytes;
        }
        let bytes = records * record_bytes;
        self.bytes += bytes;
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updated_rows_fill_an_undo_block_every_67_records() {
        let mut u = Undo::new(1000, 2);
        let mut out = Vec::new();
        // The first record starts a block; 67 fit in it (67 * 120 = 8,040 of 8,100).
        let bytes = u.record(1, 1, UPDATE_RECORD_BYTES, &mut out);
        assert_eq!(bytes, 120);
        assert_eq!(out, vec![(2024, true), ((2025 | NEW_BLOCK), true)]);
        for _ in 0..66 {
            out.clear();
            u.record(1, 1, UPDATE_RECORD_BYTES, &mut out);
            assert_eq!(out, vec![(2024, true), (2025, true)]);
        }
        out.clear();
        u.record(1, 1, UPDATE_RECORD_BYTES, &mut out);
        assert_eq!(out[1], (2026 | NEW_BLOCK, true));
        assert_eq!(u.blocks_started, 2);
    }

    #[test]
    fn a_large_transaction_lists_each_undo_block_once_and_the_ring_wraps() {
        let mut u = Undo::new(0, 1);
        let mut out = Vec::new();
        // 10,000 updated rows: 1.2 MB of undo, 150 blocks of 67 records (the last partly).
        u.record(0, 10_000, UPDATE_RECORD_BYTES, &mut out);
        assert_eq!(out.len(), 1 + 10_000usize.div_ceil(67));
        assert!(out[1..].iter().all(|&(b, w)| w && b & NEW_BLOCK != 0));
        for _ in 0..10 {
            out.clear();
            u.record(0, 10_000, UPDATE_RECORD_BYTES, &mut out);
            assert!(out[1..]
                .iter()
                .all(|&(b, _)| (1..SEGMENT_BLOCKS).contains(&(b & !NEW_BLOCK))));
        }
    }
}
