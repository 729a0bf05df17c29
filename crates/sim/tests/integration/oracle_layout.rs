//! The engine chooses the block format: with `engine = "oracle"` the tables and their
//! indexes take the blocks Oracle's format gives (crates/sim/src/db/schema/oracle.rs).

use storlab_sim::db::layout::Layout;
use storlab_sim::db::schema::{oracle, BlockFormat};
use storlab_sim::db::Table;

use super::database::db_run;

fn database_bytes(engine: &str) -> u64 {
    let r = db_run(
        "dpaws/update-row",
        &format!("engine = \"{engine}\"\nrows = 1000000\nsessions = 4"),
        1,
        3,
    );
    r.workload.parameters["database_bytes"]
        .as_u64()
        .expect("database_bytes")
}

/// A million rows of 100 bytes: PostgreSQL 61 rows per page, 16,394 heap pages; Oracle 67
/// rows per block at PCTFREE 10, 14,926 table blocks, an index of 2,360 blocks on a 5-byte
/// NUMBER key.
#[test]
fn the_engine_chooses_the_block_format_of_the_tables() {
    let pg = Table {
        rows: 1_000_000,
        row_bytes: 100,
        fillfactor: 100,
        key_bytes: 8,
        format: BlockFormat::Postgresql,
    };
    let ora = Table {
        fillfactor: 90,
        key_bytes: oracle::number_bytes(1_000_000),
        format: BlockFormat::Oracle,
        ..pg
    };
    assert_eq!(ora.heap_blocks() + ora.index_blocks(), 14_926 + 2_360);
    assert_eq!(
        database_bytes("postgresql"),
        Layout::new(&[pg]).blocks() * 8192
    );
    assert_eq!(
        database_bytes("oracle"),
        Layout::new(&[ora]).blocks() * 8192
    );
}
