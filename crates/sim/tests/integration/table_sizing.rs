//! The built-in tests' tables are sized for what they hold: a table that receives inserts
//! reserves room for as many rows again, one that never grows reserves nothing, so a
//! database fits the LUNs that held it.

use storlab_sim::db::layout::Layout;
use storlab_sim::db::Table;
use storlab_sim::parse_workload;

use super::database::db_run;
use super::{system, ENTERPRISE_RAID5};

fn table(rows: u64, row_bytes: u64) -> Table {
    Table::full_postgresql(rows, row_bytes)
}

/// The OLTP mix's bytes: its item table (100-byte rows) at `rows`, its history table
/// (24-byte rows, appended) with room for `rows` more; `item_room` gives the item table the
/// same room.
fn oltp_bytes(rows: u64, item_room: bool) -> u64 {
    let item = if item_room { 2 * rows } else { rows };
    Layout::new(&[table(item, 100), table(2 * rows, 24)]).blocks() * 8192
}

/// The OLTP mix's page space as the sessions lay it out: the item table's primary key and
/// heap at `rows`, the history table's heap (it has no index) with room for `rows` more.
fn oltp_planned_bytes(rows: u64) -> u64 {
    let item = Layout::new(&[table(rows, 100)]).blocks();
    (item + table(2 * rows, 24).heap_blocks()) * 8192
}

fn parse_oltp(rows: u64) -> Result<(), String> {
    let s = system(ENTERPRISE_RAID5);
    let text = format!(
        "name = \"db\"\n[database]\ntest = \"oltp/medium\"\ndata = \"datavol\"\n\
         log = \"logvol\"\nrows = {rows}\n"
    );
    parse_workload(&text, "db.toml", &s)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The OLTP mix only updates and reads its item table: it reserves no room; the history
/// table it appends to does, and has no index. DPAWS's tables never grow.
#[test]
fn only_tables_that_receive_inserts_reserve_room() {
    let r = db_run("oltp/medium", "rows = 1000000", 1, 3);
    assert_eq!(
        r.workload.parameters["database_bytes"].as_u64(),
        Some(oltp_planned_bytes(1_000_000))
    );
    assert!(oltp_planned_bytes(1_000_000) < oltp_bytes(1_000_000, false));
    let r = db_run("dpaws/update-row", "rows = 1000000", 1, 3);
    let dpaws = Layout::new(&[table(1_000_000, 100)]).blocks() * 8192;
    assert_eq!(
        r.workload.parameters["database_bytes"].as_u64(),
        Some(dpaws)
    );
}

/// The largest OLTP database whose page space, as the sessions lay it out, fits the data
/// volume is accepted and one row more is not; reserving room in its item table too would not
/// have fit.
#[test]
fn an_oltp_database_that_fits_its_volume_at_its_size_is_accepted() {
    let err = parse_oltp(50_000_000_000).expect_err("50 billion rows do not fit");
    let have: u64 = err
        .rsplit("the data target has ")
        .next()
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no size in {err}"));
    // The most rows whose tables fit (bisection: the bytes grow with the rows).
    let (mut lo, mut hi) = (1u64, 50_000_000_000);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if oltp_planned_bytes(mid) <= have {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    assert!(
        oltp_bytes(lo, true) > have,
        "the old sizing would have fit too"
    );
    parse_oltp(lo).unwrap_or_else(|e| panic!("{lo} rows: {e}"));
    assert!(parse_oltp(lo + 1).is_err());
}

/// `row_bytes` as one size per table sizes each table at its own row size; a list whose
/// length is not the table count is refused with the key named.
#[test]
fn row_bytes_can_give_each_tables_size() {
    let r = db_run(
        "dpaws/update-row",
        "rows = 100000\ntables = 3\nrow_bytes = [20, 200, 800]",
        1,
        3,
    );
    let each = Layout::new(&[table(100_000, 20), table(100_000, 200), table(100_000, 800)]);
    assert_eq!(
        r.workload.parameters["database_bytes"].as_u64(),
        Some(each.blocks() * 8192)
    );
    let s = system(ENTERPRISE_RAID5);
    let text = "name = \"db\"\n[database]\ntest = \"dpaws/update-row\"\ndata = \"datavol\"\n\
                log = \"logvol\"\ntables = 4\nrow_bytes = [20, 200, 800]\n";
    let err = parse_workload(text, "db.toml", &s).expect_err("3 sizes for 4 tables");
    let msg = err.to_string();
    assert!(
        msg.contains("row_bytes") && msg.contains("3 sizes for 4 tables"),
        "{msg}"
    );
}
