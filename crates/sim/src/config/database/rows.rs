//! How many rows a table's row takes and a range operation touches: `row_bytes` (one size,
//! or a spread over the tables) and `range_rows` (the test's rows per statement unless
//! given), and the table a row size makes in the engine's block format.

use serde::Deserialize;

use storlab_core::character::Engine;

use super::keys_table::ROW_SIZE;
use super::DbTest;
use crate::db::schema::{oracle, BlockFormat};
use crate::db::Table;
use storlab_core::keys::Bounds;

/// Row size of every table, `[smallest, largest]` spread evenly over the tables (DPAWS:
/// 14 to 805 bytes), or one size per table (a list as long as `tables`, longer than 2).
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum RowBytes {
    One(u64),
    Spread([u64; 2]),
    Each(Vec<u64>),
}

impl RowBytes {
    pub(super) fn of_table(&self, k: u64, tables: u64) -> u64 {
        match self {
            RowBytes::One(b) => *b,
            RowBytes::Spread([lo, hi]) if tables > 1 => {
                lo + (hi.saturating_sub(*lo)) * k / (tables - 1)
            }
            RowBytes::Spread([lo, _]) => *lo,
            RowBytes::Each(sizes) => sizes[k as usize],
        }
    }

    /// Why the sizes are not acceptable for `tables` tables, if they are not.
    pub(super) fn check(&self, tables: u64) -> Result<(), String> {
        let ok = |b: &u64| matches!(ROW_SIZE.bounds, Bounds::Int(lo, hi) if (lo..=hi).contains(b));
        let range = || {
            format!(
                "must be {}, [smallest, largest] or one size per table, in that range",
                ROW_SIZE.describe_bounds()
            )
        };
        match self {
            RowBytes::One(b) if ok(b) => Ok(()),
            RowBytes::Spread([lo, hi]) if ok(lo) && ok(hi) && lo <= hi => Ok(()),
            RowBytes::Each(sizes) if sizes.len() as u64 != tables => Err(format!(
                "a list of {} sizes for {tables} tables: give [smallest, largest] or one size \
                 per table",
                sizes.len()
            )),
            RowBytes::Each(sizes) if sizes.iter().all(ok) => Ok(()),
            _ => Err(range()),
        }
    }
}

/// Rows per range operation: as given (at most `rows`), else the test's rows per statement
/// (DPAWS range tests: 10,000, as `storlab db` runs them).
pub(super) fn range_rows(test: DbTest, given: Option<u64>, rows: u64) -> Result<u64, String> {
    match given {
        Some(n) if n > rows => Err(format!("must be 1 to rows ({rows}); got {n}")),
        Some(n) => Ok(n),
        None if test.def().rows_per_op > rows => Err(format!(
            "{} touches {} rows per operation but the tables have {rows}: raise rows or set \
             range_rows",
            test.name(),
            test.def().rows_per_op
        )),
        None => Ok(test.def().rows_per_op.max(1)),
    }
}

/// A table of `rows` rows of `row_bytes` in `engine`'s block format: PostgreSQL's pages
/// filled to 100% with a bigint key, or Oracle's blocks with the default PCTFREE of 10 and a
/// NUMBER key as wide as the largest key.
pub(super) fn engine_table(engine: Engine, rows: u64, row_bytes: u64) -> Table {
    match engine {
        Engine::Postgresql => Table {
            rows,
            row_bytes,
            fillfactor: 100,
            key_bytes: 8,
            format: BlockFormat::Postgresql,
        },
        Engine::Oracle => Table {
            rows,
            row_bytes,
            fillfactor: 100 - ORACLE_PCTFREE,
            key_bytes: oracle::number_bytes(rows),
            format: BlockFormat::Oracle,
        },
    }
}

/// Oracle's default PCTFREE (Concepts, "Data Blocks": 10 percent of each block left free for
/// updates).
const ORACLE_PCTFREE: u32 = 10;
