//! Buffer pins in isolation: sessions changing the same block take turns, each holding it
//! for the CPU of one block visit and one row (`cpu_per_block` + `cpu_per_row`). Concurrent
//! inserts into a table all extend its primary key's right edge (and its last heap block):
//! however many sessions insert, one table takes at most 1 / (hold time) inserts a second.

use storlab_core::result::Run;

use super::database::{db_run, wait};

/// Conventional load of one row per commit into `tables` tables by `sessions` sessions, each
/// change holding its block 1 ms (900 us per block, 100 us per row), on 64 CPUs (no run
/// queue) with a buffer cache holding everything.
fn load(tables: u32, sessions: u32) -> Run {
    db_run(
        "orabench/load-conventional",
        &format!(
            "tables = {tables}\nsessions = {sessions}\nrows = 10000\nrows_per_commit = 1\n\
             buffer = \"256MiB\"\ncpus = 64\ncpu_per_block = \"900us\"\ncpu_per_row = \"100us\""
        ),
        10,
        3,
    )
}

#[test]
fn inserts_into_one_right_edge_reach_at_most_one_per_hold_time() {
    let hot = load(1, 16);
    let rows = hot.metrics.rows_per_s.unwrap();
    // A 1 ms hold: at most 1,000 changes of a block a second, and 16 sessions keep the edge
    // busy. Every few hundred keys the edge moves to a new leaf, and the inserts that drew
    // keys beyond the full one change the new leaf beside those still queued for the old:
    // at most a session's worth per leaf more, a few percent.
    assert!(
        (900.0..=1_050.0).contains(&rows),
        "16 sessions on one right edge: {rows} rows/s, not about 1,000"
    );
    let (busy_pct, busy_ms) = wait(&hot, "LWLock:BufferContent");
    assert!(
        busy_pct > 50.0 && busy_ms > 1.0,
        "the sessions queue for the edge: {busy_pct}% of their time, {busy_ms} ms each"
    );
    // One session never waits for itself; sixteen tables give sixteen edges.
    let (alone_pct, _) = wait(&load(1, 1), "LWLock:BufferContent");
    assert_eq!(alone_pct, 0.0, "one session waited for a pin");
    let spread = load(16, 16).metrics.rows_per_s.unwrap();
    assert!(
        spread > 2.0 * rows,
        "16 tables: {spread} rows/s against {rows} on one"
    );
}
