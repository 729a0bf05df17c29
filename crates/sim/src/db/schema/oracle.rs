//! Oracle's block format for 8 KiB blocks: how many rows a table block and how many keys a
//! B-tree block hold.
//!
//! Sources: Oracle Database Concepts, "Data Blocks" (a block is a header with the
//! transaction's interested transaction list, a table directory, a row directory of 2 bytes
//! per row, then the rows; PCTFREE 10 by default) and "Row Format" (a row header of 3 bytes:
//! flag, lock byte, column count; then per column a length byte, 3 bytes for a column longer
//! than 250 bytes, and its data); the sizes of the header parts are those of the Oracle
//! Server Administrator's Guide's space estimates for tables and indexes ("Estimating Space
//! Required by Nonclustered Tables", "... by Indexes"): cache layer header KCBH 20 bytes,
//! block tail UB4 4, transaction header KTBBH 48 with one ITL entry and KTBIT 24 per further
//! entry, data header KDBH 14, table directory entry KDBT 4, a row piece of at least 11
//! bytes; an index block header of 113 bytes plus 24 per ITL entry (INITRANS 2 for indexes),
//! an index entry of a 2-byte entry header, the 6-byte rowid and a length byte per column.
//! Numbers are stored as in the SQL Reference's "NUMBER Data Type": one exponent byte and
//! one byte per two decimal digits.

use super::BLOCK;

/// Cache layer header (KCBH) and block tail (UB4).
const CACHE_HEADER: u64 = 20;
const TAIL: u64 = 4;
/// Transaction header with its first ITL entry (KTBBH), and each further ITL entry (KTBIT).
const TRANSACTION_HEADER: u64 = 48;
const ITL_ENTRY: u64 = 24;
/// INITRANS of tables (1) and of indexes (2): the ITL entries a block starts with.
const TABLE_INITRANS: u64 = 1;
const INDEX_INITRANS: u64 = 2;
/// Data header (KDBH) and the table directory's entry of a one-table block (KDBT).
const DATA_HEADER: u64 = 14;
const TABLE_DIRECTORY: u64 = 4;
/// Row directory slot per row, row header (flag, lock byte, column count), smallest row
/// piece.
const ROW_SLOT: u64 = 2;
const ROW_HEADER: u64 = 3;
const MIN_ROW_PIECE: u64 = 11;
/// Column length bytes: 1 up to 250 bytes of data, 3 above.
const SHORT_COLUMN_MAX: u64 = 250;
/// Columns of a modelled row: the key, a counter, and a filler holding the rest of the
/// row's bytes (the DPAWS tables as `storlab db` builds them: id, version, filler).
const COLUMNS: u64 = 3;
/// Index block header: fixed part and one ITL entry per INITRANS.
const INDEX_HEADER_FIXED: u64 = 113;
/// Index entry: entry header (flag, lock byte), rowid, and the rowid's length byte (a
/// unique index keeps the rowid as a column).
const INDEX_ENTRY_HEADER: u64 = 2;
const ROWID: u64 = 6;
/// Branch entry: its row header byte and the child's block address.
const BRANCH_ENTRY_HEADER: u64 = 1;
const CHILD_ADDRESS: u64 = 4;
/// PCTFREE of indexes (the default, as for tables): space a built index leaves free in each
/// block.
const INDEX_PCTFREE: u64 = 10;

/// Bytes of a table block available to rows: what the headers leave, less PCTFREE
/// (`fill_pct` = 100 - PCTFREE), less the table directory.
pub fn table_space(fill_pct: u32) -> u64 {
    let header =
        CACHE_HEADER + TAIL + TRANSACTION_HEADER + (TABLE_INITRANS - 1) * ITL_ENTRY + DATA_HEADER;
    let fill = u64::from(fill_pct.clamp(1, 100));
    ((BLOCK - header) * fill).div_ceil(100) - TABLE_DIRECTORY
}

/// Bytes a row of `row_bytes` of column data takes in a table block: its row header, its
/// columns' length bytes, its data (at least the smallest row piece) and its slot in the
/// row directory.
pub fn row_space(row_bytes: u64) -> u64 {
    let long = if row_bytes > SHORT_COLUMN_MAX { 3 } else { 1 };
    let length_bytes = COLUMNS - 1 + long;
    (ROW_HEADER + length_bytes + row_bytes).max(MIN_ROW_PIECE) + ROW_SLOT
}

/// Rows per table block.
pub fn rows_per_block(row_bytes: u64, fill_pct: u32) -> u64 {
    (table_space(fill_pct) / row_space(row_bytes)).max(1)
}

/// Bytes of an index block available to entries after its header and PCTFREE.
fn index_space() -> u64 {
    let header = INDEX_HEADER_FIXED + INDEX_INITRANS * ITL_ENTRY;
    (BLOCK - header) * (100 - INDEX_PCTFREE) / 100
}

/// Keys per leaf block of a unique B-tree on a key of `key_bytes`: each entry its header,
/// the key with its length byte, the rowid with its length byte, and its row-directory slot.
pub fn keys_per_leaf(key_bytes: u64) -> u64 {
    let entry = leaf_entry_bytes(key_bytes) + ROW_SLOT;
    (index_space() / entry).max(2)
}

/// Bytes of a leaf entry as it is stored and logged: its header, the key with its length
/// byte, the rowid with its length byte.
pub fn leaf_entry_bytes(key_bytes: u64) -> u64 {
    INDEX_ENTRY_HEADER + 1 + key_bytes + 1 + ROWID
}

/// Keys per leaf and children per branch block of an index grown at its right edge
/// (increasing keys): a block that fills with the highest key splits 90-10, the new key
/// alone going to the new block, so the old one stays full; PCTFREE applies only when an
/// index is built.
pub fn right_edge_capacity(key_bytes: u64) -> (u64, u64) {
    let full = BLOCK - INDEX_HEADER_FIXED - INDEX_INITRANS * ITL_ENTRY;
    let leaf = leaf_entry_bytes(key_bytes) + ROW_SLOT;
    let branch = BRANCH_ENTRY_HEADER + CHILD_ADDRESS + 1 + key_bytes + ROW_SLOT;
    ((full / leaf).max(2), (full / branch).max(2))
}

/// Children per branch block: each entry its header byte, the child's address, the key with
/// its length byte, and its row-directory slot.
pub fn branch_fanout(key_bytes: u64) -> u64 {
    let entry = BRANCH_ENTRY_HEADER + CHILD_ADDRESS + 1 + key_bytes + ROW_SLOT;
    (index_space() / entry).max(2)
}

/// Bytes of an Oracle NUMBER holding the integer `value`: an exponent byte and one byte per
/// two decimal digits (at most: pairs of trailing zeros are not stored).
pub fn number_bytes(value: u64) -> u64 {
    let digits = value.max(1).ilog10() as u64 + 1;
    1 + digits.div_ceil(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_block_holds_what_the_headers_and_pctfree_leave() {
        // 8192 - (20 + 4 + 48 + 14) = 8106; 90% of it rounded up, less the table directory.
        assert_eq!(table_space(90), 7296 - 4);
        assert_eq!(table_space(100), 8106 - 4);
        // 100 bytes in 3 short columns: 3 + 3 + 100 + 2 = 108 bytes; 7292 / 108 = 67.
        assert_eq!(row_space(100), 108);
        assert_eq!(rows_per_block(100, 90), 67);
        // A long filler takes a 3-byte length; a tiny row is padded to the smallest piece.
        assert_eq!(row_space(805), 3 + 5 + 805 + 2);
        assert_eq!(row_space(4), 11 + 2);
    }

    #[test]
    fn index_blocks_hold_entries_of_rowid_and_key() {
        // (8192 - 113 - 48) * 0.9 = 7227 bytes; a 5-byte key: 2 + (1 + 5) + (1 + 6) + 2 =
        // 17 bytes.
        assert_eq!(index_space(), 7227);
        assert_eq!(keys_per_leaf(5), 425);
        // Branch entries: 1 + 4 + 6 + 2 = 13 bytes.
        assert_eq!(branch_fanout(5), 555);
        // Grown at the right edge the blocks stay full: 8031 / 17 and 8031 / 13.
        assert_eq!(right_edge_capacity(5), (472, 617));
    }

    #[test]
    fn numbers_take_a_byte_per_two_digits_and_an_exponent_byte() {
        assert_eq!(number_bytes(9), 2);
        assert_eq!(number_bytes(99), 2);
        assert_eq!(number_bytes(123), 3);
        assert_eq!(number_bytes(31_900_000), 5);
        assert_eq!(number_bytes(128_000_000), 6);
    }
}
