//! Why selects write: PostgreSQL's hint bits (the first reader of a tuple a committed
//! transaction changed sets them and dirties the page, with a full-page image in the WAL
//! when data checksums are on) and Oracle's write-ahead rule (the database writer has the log
//! writer write a cleaned-out block's redo before it writes the block). Each on a small
//! database that runs an update test, then selects (`[database] after`).

use storlab_core::result::Run;
use storlab_sim::{parse_workload, simulate};

use super::oracle_engine::{class, run_split};
use super::{opts, system, ENTERPRISE_RAID5};

fn param(r: &Run, key: &str) -> f64 {
    r.workload.parameters[key].as_f64().unwrap_or(0.0)
}

/// PostgreSQL's select-row over 2 tables of 1,000,000 rows of 100 bytes (about 13,000 heap
/// blocks) with an 8 MiB buffer cache and a checkpoint every 2 s, with `extra` keys.
fn pg_select_row(extra: &str) -> Run {
    let s = system(ENTERPRISE_RAID5);
    let text = format!(
        "name = \"db\"\n[database]\ndata = \"datavol\"\nlog = \"logvol\"\n\
         test = \"dpaws/select-row\"\nsessions = 8\ntables = 2\nrows = 1000000\n\
         row_bytes = 100\nrange_rows = 10000\nbuffer = \"8MiB\"\n\
         checkpoint_interval = \"2s\"\n{extra}\n"
    );
    let w = parse_workload(&text, "db.toml", &s).unwrap_or_else(|e| panic!("{e}"));
    simulate(&s, &w, opts(5, 2, 3)).unwrap_or_else(|e| panic!("{e}"))
}

const AFTER_UPDATES: &str =
    "after = [{ test = \"dpaws/update-range\", sessions = 4, duration = \"10s\" }]";

/// Update range changes heap blocks whose tuples nobody has hinted; the checkpoints write
/// them clean; the selects that read them after set the hints and dirty them again, so the
/// select test writes data blocks. On a fresh database the same selects write nothing. Hints
/// are not WAL-logged without data checksums (PostgreSQL 15's initdb default): no log write.
#[test]
fn selects_after_updates_set_hint_bits_and_write_the_pages_again() {
    let fresh = pg_select_row("");
    let after = pg_select_row(AFTER_UPDATES);
    for r in [&fresh, &after] {
        assert!(
            r.metrics.rows_per_s.unwrap_or(0.0) > 100.0,
            "{:?}",
            r.metrics
        );
    }
    assert_eq!(class(&fresh, "data").metrics.write_iops, 0.0);
    assert_eq!(param(&fresh, "hints_set_per_s"), 0.0);
    let dirtied = param(&after, "hint_dirtied_blocks_per_s");
    assert!(dirtied > 20.0, "{dirtied} blocks/s dirtied by hints");
    assert!(param(&after, "hints_set_per_s") >= dirtied);
    let data = &class(&after, "data").metrics;
    assert!(
        data.write_iops > 0.0,
        "the pages hints dirtied are written: {data:?}"
    );
    assert_eq!(param(&after, "hint_fpi_per_s"), 0.0);
    assert_eq!(after.workload.parameters["hints_wal_logged"], false);
    assert_eq!(class(&after, "log").metrics.write_iops, 0.0);
}

/// With data checksums (`data_checksums = "on"`, or PostgreSQL 18's initdb default) the
/// first hint on a page since the last checkpoint began writes a full-page image to the WAL,
/// one per page at most per checkpoint: at most one per block dirtied, and the WAL writer
/// writes them (every 200 ms) though the selects commit nothing.
#[test]
fn with_data_checksums_a_hint_writes_one_full_page_image_per_page() {
    for extra in ["data_checksums = \"on\"", "postgresql_version = 18"] {
        let r = pg_select_row(&format!("{AFTER_UPDATES}\n{extra}"));
        assert_eq!(r.workload.parameters["hints_wal_logged"], true, "{extra}");
        let dirtied = param(&r, "hint_dirtied_blocks_per_s");
        let images = param(&r, "hint_fpi_per_s");
        assert!(
            images > 20.0 && images <= dirtied,
            "{images} FPI/s of {dirtied}"
        );
        let fpi_bytes = param(&r, "hint_fpi_bytes_per_s");
        assert!(
            (fpi_bytes - images * 8242.0).abs() <= 0.01 * fpi_bytes,
            "{fpi_bytes}"
        );
        let log = &class(&r, "log").metrics;
        // The images go to the WAL: about 8 KiB each, in the WAL writer's writes.
        assert!(log.write_iops > 1.0, "{log:?}");
        assert!(
            log.write_mbps * 1e6 >= 0.8 * fpi_bytes,
            "{} MB/s of WAL for {fpi_bytes} bytes/s of images",
            log.write_mbps
        );
    }
    let off = pg_select_row(&format!("{AFTER_UPDATES}\npostgresql_version = 17"));
    assert_eq!(off.workload.parameters["hints_wal_logged"], false);
}

/// Oracle: a select that cleans out blocks dirties them and generates the cleanouts' redo;
/// before the database writer writes such a block it has the log writer write that redo
/// (the write-ahead rule), so the log is written more often than the log writer's 3 s
/// timeout alone writes it, and the writer's deferred writes wait for those log writes.
#[test]
fn the_writer_has_a_cleaned_out_blocks_redo_written_before_the_block() {
    let r = run_split(
        &format!(
            "test = \"dpaws/select-row\"\nsessions = 8\ntables = 2\nrows = 1000000\n\
             row_bytes = 100\nrange_rows = 10000\nbuffer = \"8MiB\"\n{AFTER_UPDATES}"
        ),
        5,
        2,
    );
    assert!(param(&r, "delayed_cleanouts_per_s") > 20.0);
    let posts = param(&r, "dbwr_log_posts_per_s");
    let waits = param(&r, "dbwr_log_waits_per_s");
    assert!(
        posts > 1.0 && waits >= posts,
        "{posts} posts/s, {waits} waits/s"
    );
    assert!(param(&r, "dbwr_log_wait_ms") > 0.0);
    let log = &class(&r, "log").metrics;
    assert!(
        log.write_iops > 1.0,
        "more log writes than the 3 s timeout's: {log:?}"
    );
}
