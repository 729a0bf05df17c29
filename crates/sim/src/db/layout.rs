//! The database's page space: one segment per table, each its B-tree primary key (metapage,
//! then the levels root first) followed by its heap, segments one after another from block 0.
//! An operation's block accesses follow from the layout: the index descent to the first key,
//! the leaves its keys span, then the heap blocks its rows lie in.

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
    fn index_block(&self, level: usize, key: u64) -> u64 {
        self.level_base[level] + key * self.level_blocks[level] / self.table.rows
    }

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

    /// Appends to `out` the block accesses of an operation on `rows` rows of table `table`
    /// from `key` (0-based), with the heap blocks marked written when `write`.
    pub fn plan(&self, table: usize, key: u64, rows: u64, write: bool, out: &mut Vec<(u64, bool)>) {
        let s = &self.segments[table];
        let last = key + rows.max(1) - 1;
        let levels = s.level_blocks.len();
        for l in 0..levels - 1 {
            out.push((s.index_block(l, key), false));
        }
        for b in s.index_block(levels - 1, key)..=s.index_block(levels - 1, last) {
            out.push((b, false));
        }
        for b in key / s.rows_per_block..=last / s.rows_per_block {
            out.push((s.heap_base + b, write));
        }
    }
}

/// Marks a block of a plan that the operation creates (a new heap block of an insert): a
/// miss allocates a buffer without reading the block.
pub const NEW_BLOCK: u64 = 1 << 63;

impl Layout {
    /// Appends to `out` the accesses of inserting `rows` rows at row `first` of table `table`
    /// (its end): with `indexed`, the descent to the key's leaf and the leaf written; then the
    /// heap blocks written. The right-edge leaf and the last heap blocks are marked
    /// [`NEW_BLOCK`]: the insert (or a concurrent one, which the real database serialises
    /// with its relation-extension lock) creates them, so a miss allocates a buffer and
    /// reads nothing.
    pub fn plan_append(
        &self,
        table: usize,
        first: u64,
        rows: u64,
        indexed: bool,
        out: &mut Vec<(u64, bool)>,
    ) {
        let s = &self.segments[table];
        let last = first + rows.max(1) - 1;
        if indexed {
            let levels = s.level_blocks.len();
            for l in 0..levels - 1 {
                out.push((s.index_block(l, first), false));
            }
            for b in s.index_block(levels - 1, first)..=s.index_block(levels - 1, last) {
                out.push((b | NEW_BLOCK, true));
            }
        }
        for b in first / s.rows_per_block..=last / s.rows_per_block {
            out.push(((s.heap_base + b) | NEW_BLOCK, true));
        }
    }
}

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

    #[test]
    fn a_point_plan_descends_then_reads_one_heap_block() {
        let l = Layout::new(&[table(1_000_000, 100), table(1_000_000, 100)]);
        let mut out = Vec::new();
        l.plan(1, 123_456, 1, true, &mut out);
        let s = &l.segments[1];
        assert_eq!(out.len(), s.level_blocks.len() + 1);
        assert_eq!(out[0], (s.level_base[0], false), "the root first");
        let heap = out[out.len() - 1];
        assert_eq!(heap, (s.heap_base + 123_456 / s.rows_per_block, true));
        assert!(out
            .iter()
            .all(|&(b, _)| b >= s.level_base[0] && b < s.end()));
    }

    #[test]
    fn appends_write_the_right_edge_leaf_and_the_last_heap_blocks_as_new() {
        let l = Layout::new(&[table(1_000, 100)]);
        let s = &l.segments[0];
        let rpb = s.rows_per_block;
        let mut out = Vec::new();
        // Two rows across a block boundary: both heap blocks, written and new.
        l.plan_append(0, 3 * rpb - 1, 2, true, &mut out);
        let heap: Vec<_> = out
            .iter()
            .filter(|&&(b, _)| b & !NEW_BLOCK >= s.heap_base)
            .collect();
        assert_eq!(
            heap,
            [
                &((s.heap_base + 2) | NEW_BLOCK, true),
                &((s.heap_base + 3) | NEW_BLOCK, true)
            ]
        );
        // The descent reads the upper levels and writes the (new) leaf.
        let levels = s.level_blocks.len();
        assert_eq!(out.len(), levels + 2);
        assert!(out[..levels - 1]
            .iter()
            .all(|&(b, w)| !w && b & NEW_BLOCK == 0));
        assert_eq!(out[levels - 1].0 & NEW_BLOCK, NEW_BLOCK);
        out.clear();
        l.plan_append(0, 2 * rpb + 2, 2, false, &mut out);
        assert_eq!(out, [((s.heap_base + 2) | NEW_BLOCK, true)], "no index");
    }

    #[test]
    fn a_range_plan_spans_its_leaves_and_heap_blocks() {
        let l = Layout::new(&[table(1_000_000, 100)]);
        let s = &l.segments[0];
        let mut out = Vec::new();
        l.plan(0, 0, 10_000, false, &mut out);
        let heap = out.iter().filter(|&&(b, _)| b >= s.heap_base).count() as u64;
        assert_eq!(heap, 10_000u64.div_ceil(s.rows_per_block));
        let leaves = out.len() as u64 - heap - (s.level_blocks.len() as u64 - 1);
        let per_leaf = s.table.keys_per_leaf();
        assert!(
            leaves >= 10_000 / per_leaf && leaves <= 10_000 / per_leaf + 2,
            "{leaves}"
        );
        assert!(out.iter().all(|&(_, w)| !w));
    }
}
