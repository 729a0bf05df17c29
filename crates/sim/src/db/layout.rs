//! The built-in tests' tables in a page space: one segment per table, each its B-tree primary
//! key (metapage, then the levels root first) followed by its heap, segments one after another
//! from block 0. It sizes the tables (what the data files must hold, what a job writes); the
//! sessions plan on the test's characterization ([`crate::db::workload_mix`]), which lays the
//! same segments out.

use super::Table;

/// One table's blocks in the page space.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub table: Table,
    /// First block of each index level, root first, and blocks per level.
    pub level_base: Vec<u64>,
    pub level_blocks: Vec<u64>,
    /// First heap block.
    pub heap_base: u64,
    pub rows_per_block: u64,
}

impl Segment {
    /// First block after the segment.
    pub fn end(&self) -> u64 {
        self.heap_base + self.table.heap_blocks()
    }
}

/// The page space of a set of tables.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub segments: Vec<Segment>,
}

impl Layout {
    pub fn new(tables: &[Table]) -> Layout {
        let mut next = 0;
        let segments = tables
            .iter()
            .map(|t| {
                // Block `next` is the index metapage.
                next += 1;
                let level_blocks = t.index_level_blocks();
                let mut level_base = Vec::with_capacity(level_blocks.len());
                for n in &level_blocks {
                    level_base.push(next);
                    next += n;
                }
                let s = Segment {
                    table: *t,
                    level_base,
                    level_blocks,
                    heap_base: next,
                    rows_per_block: t.rows_per_block(),
                };
                next = s.end();
                s
            })
            .collect();
        Layout { segments }
    }

    /// Blocks of the whole page space.
    pub fn blocks(&self) -> u64 {
        self.segments.last().map_or(0, Segment::end)
    }
}

/// Marks a block of a plan that the operation creates (a new heap block of an insert): a
/// miss allocates a buffer without reading the block.
pub const NEW_BLOCK: u64 = 1 << 63;

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: u64, row_bytes: u64) -> Table {
        Table::full_postgresql(rows, row_bytes)
    }

    #[test]
    fn segments_follow_one_another_without_overlap() {
        let l = Layout::new(&[table(200_000, 14), table(200_000, 805)]);
        let (a, b) = (&l.segments[0], &l.segments[1]);
        assert_eq!(a.level_base[0], 1, "block 0 is the first metapage");
        assert_eq!(b.level_base[0], a.end() + 1);
        let blocks = |t: &Table| t.heap_blocks() + t.index_blocks();
        assert_eq!(l.blocks(), blocks(&a.table) + blocks(&b.table));
        // Wider rows: fewer per block, more heap blocks.
        assert!(b.rows_per_block < a.rows_per_block);
    }
}
