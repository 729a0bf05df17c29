//! Schema arithmetic: how many blocks a table and its B-tree index occupy and how deep the
//! index is, from row sizes and the engine's block format ([`BlockFormat`]): PostgreSQL's
//! page layout and its default fill factors, or Oracle's block format, PCTFREE and B-tree
//! entries ([`oracle`]). A point lookup then costs `btree_levels` index blocks plus one heap
//! block; a range of n rows costs the descent plus n / rows-per-leaf leaf blocks plus the
//! heap blocks the rows lie in.

pub mod oracle;

/// Page size (bytes).
pub const BLOCK: u64 = 8192;
/// Page header (PageHeaderData).
const PAGE_HEADER: u64 = 24;
/// Line pointer per item (ItemIdData).
const LINE_POINTER: u64 = 4;
/// Heap tuple header (HeapTupleHeaderData, 23 bytes, aligned).
const HEAP_TUPLE_HEADER: u64 = 24;
/// Index tuple header (IndexTupleData).
const INDEX_TUPLE_HEADER: u64 = 8;
/// B-tree special space (BTPageOpaqueData).
const BTREE_SPECIAL: u64 = 16;
/// Default fill factors of B-tree leaf pages and of internal pages (built by CREATE INDEX).
const BTREE_LEAF_FILL: f64 = 0.90;
const BTREE_INTERNAL_FILL: f64 = 0.70;

fn maxalign(n: u64) -> u64 {
    n.div_ceil(8) * 8
}

/// Whose block format a table's blocks follow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockFormat {
    /// PostgreSQL's page layout: page header, line pointers, 24-byte tuple headers.
    #[default]
    Postgresql,
    /// Oracle's block format: block, transaction (ITL) and data headers, a row directory,
    /// 3-byte row headers with column length bytes ([`oracle`]).
    Oracle,
}

impl BlockFormat {
    pub fn is_postgresql(&self) -> bool {
        *self == BlockFormat::Postgresql
    }
}

/// A table: rows of `row_bytes` of column data, with a heap fill factor (percent: with
/// Oracle's format, 100 - PCTFREE) and a B-tree primary key of `key_bytes`, in `format`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Table {
    pub rows: u64,
    pub row_bytes: u64,
    pub fillfactor: u32,
    pub key_bytes: u64,
    #[serde(skip_serializing_if = "BlockFormat::is_postgresql")]
    pub format: BlockFormat,
}

impl Table {
    /// A PostgreSQL table of `rows` rows of `row_bytes`, packed full (fill factor 100), on an
    /// 8-byte key.
    pub fn full_postgresql(rows: u64, row_bytes: u64) -> Table {
        Table {
            rows,
            row_bytes,
            fillfactor: 100,
            key_bytes: 8,
            format: BlockFormat::Postgresql,
        }
    }

    /// Rows per heap block.
    pub fn rows_per_block(&self) -> u64 {
        if self.format == BlockFormat::Oracle {
            return oracle::rows_per_block(self.row_bytes, self.fillfactor);
        }
        let usable = ((BLOCK - PAGE_HEADER) as f64 * f64::from(self.fillfactor.clamp(10, 100))
            / 100.0) as u64;
        (usable / (LINE_POINTER + maxalign(HEAP_TUPLE_HEADER + self.row_bytes))).max(1)
    }

    /// Heap blocks.
    pub fn heap_blocks(&self) -> u64 {
        heap_blocks(self.rows, self.rows_per_block())
    }

    /// Entries per B-tree leaf block.
    pub fn keys_per_leaf(&self) -> u64 {
        match self.format {
            BlockFormat::Oracle => oracle::keys_per_leaf(self.key_bytes),
            BlockFormat::Postgresql => per_index_block(self.key_bytes, BTREE_LEAF_FILL),
        }
    }

    /// Keys per leaf and children per internal block of the index grown at its right edge
    /// (keys inserted in increasing order): PostgreSQL splits the right-most page leaving
    /// the fill factor on its left half (90% of a leaf, 70% of an internal page, as an index
    /// build fills them); Oracle splits it 90-10 and the old block stays full
    /// ([`oracle::right_edge_capacity`]).
    pub fn right_edge_capacity(&self) -> (u64, u64) {
        match self.format {
            BlockFormat::Oracle => oracle::right_edge_capacity(self.key_bytes),
            BlockFormat::Postgresql => (self.keys_per_leaf(), self.fanout()),
        }
    }

    /// Children per internal (branch) block.
    fn fanout(&self) -> u64 {
        match self.format {
            BlockFormat::Oracle => oracle::branch_fanout(self.key_bytes),
            BlockFormat::Postgresql => per_index_block(self.key_bytes, BTREE_INTERNAL_FILL),
        }
    }

    /// Blocks on each index level, root first, leaves last.
    pub fn index_level_blocks(&self) -> Vec<u64> {
        let fanout = self.fanout();
        let mut levels = vec![self.rows.div_ceil(self.keys_per_leaf()).max(1)];
        while levels[levels.len() - 1] > 1 {
            levels.push(levels[levels.len() - 1].div_ceil(fanout));
        }
        levels.reverse();
        levels
    }

    /// Index levels from root to leaf (1 = the root is the only leaf).
    pub fn index_levels(&self) -> u32 {
        self.index_level_blocks().len() as u32
    }

    /// Index blocks: leaves, internal blocks and the metapage (Oracle: the index segment's
    /// header block).
    pub fn index_blocks(&self) -> u64 {
        self.index_level_blocks().iter().sum::<u64>() + 1
    }
}

fn per_index_block(key_bytes: u64, fill: f64) -> u64 {
    let usable = ((BLOCK - PAGE_HEADER - BTREE_SPECIAL) as f64 * fill) as u64;
    (usable / (LINE_POINTER + maxalign(INDEX_TUPLE_HEADER + key_bytes))).max(2)
}

/// Blocks of `rows` rows at `per_block` rows each.
pub fn heap_blocks(rows: u64, per_block: u64) -> u64 {
    rows.div_ceil(per_block.max(1))
}

/// Levels of a B-tree over `rows` keys with `per_leaf` keys per leaf and `fanout` children
/// per internal block.
pub fn btree_levels(rows: u64, per_leaf: u64, fanout: u64) -> u32 {
    let mut blocks = rows.div_ceil(per_leaf.max(1)).max(1);
    let mut levels = 1;
    while blocks > 1 {
        blocks = blocks.div_ceil(fanout.max(2));
        levels += 1;
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pgbench_accounts: aid, bid, abalance int4 and filler char(84) (85 bytes with its
    /// varlena header) = 97 bytes of data, int4 primary key.
    fn pgbench_accounts(scale: u64) -> Table {
        Table {
            key_bytes: 4,
            ..Table::full_postgresql(100_000 * scale, 97)
        }
    }

    #[test]
    fn pgbench_accounts_matches_postgresql_page_counts() {
        // PostgreSQL after pgbench -i -s 1: 1,640 heap pages, 276 index pages, depth 2.
        let t = pgbench_accounts(1);
        assert_eq!(t.rows_per_block(), 61);
        assert_eq!(t.heap_blocks(), 1_640);
        assert_eq!(t.keys_per_leaf(), 366);
        assert_eq!(t.index_blocks(), 276);
        assert_eq!(t.index_levels(), 2);
        // Scale 100: 10 million rows, three levels.
        assert_eq!(pgbench_accounts(100).index_levels(), 3);
    }

    #[test]
    fn fill_factor_and_row_size_change_rows_per_block() {
        let mut t = pgbench_accounts(1);
        t.fillfactor = 50;
        assert_eq!(t.rows_per_block(), 30);
        t.fillfactor = 100;
        t.row_bytes = 8_000;
        assert_eq!(t.rows_per_block(), 1);
    }

    /// A million rows of 100 bytes: PostgreSQL 61 rows per page ((8192 - 24) / (4 + 128)),
    /// Oracle 67 per block (7292 / 108 at PCTFREE 10, see `oracle`); the Oracle index on a
    /// 5-byte NUMBER key: 425 keys per leaf, 2,353 leaves, 555 children per branch block.
    #[test]
    fn a_tables_blocks_follow_its_engines_block_format() {
        let pg = Table::full_postgresql(1_000_000, 100);
        assert_eq!(pg.rows_per_block(), 61);
        assert_eq!(pg.heap_blocks(), 16_394);
        let ora = Table {
            fillfactor: 90,
            key_bytes: oracle::number_bytes(1_000_000),
            format: BlockFormat::Oracle,
            ..pg
        };
        assert_eq!(ora.rows_per_block(), 67);
        assert_eq!(ora.heap_blocks(), 14_926);
        assert_eq!(ora.index_level_blocks(), vec![1, 5, 2_353]);
        assert_eq!(ora.index_blocks(), 2_360);
        // PCTFREE 0 packs more rows: 8102 / 108 = 75.
        assert_eq!(
            Table {
                fillfactor: 100,
                ..ora
            }
            .rows_per_block(),
            75
        );
    }

    #[test]
    fn btree_depth_grows_by_one_per_factor_of_fanout() {
        assert_eq!(btree_levels(1, 100, 100), 1);
        assert_eq!(btree_levels(100, 100, 100), 1);
        assert_eq!(btree_levels(101, 100, 100), 2);
        assert_eq!(btree_levels(10_000, 100, 100), 2);
        assert_eq!(btree_levels(10_001, 100, 100), 3);
        assert_eq!(btree_levels(1_000_000, 100, 100), 3);
        assert_eq!(btree_levels(1_000_001, 100, 100), 4);
    }
}
