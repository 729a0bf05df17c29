//! What one operation of a session touches: its block accesses, rows, and whether it
//! commits, for each test.
//!
//! - DPAWS: a random table, a random row (or a range of `range_rows`), read or updated.
//! - `orabench/load-conventional`: `rows_per_commit` rows appended to a random table: the
//!   descent to the primary key's right edge, the leaf written, the heap blocks written (a
//!   block the insert starts is created, not read).
//! - OLTP: 60% read transactions of 5 primary-key reads of the item table, 40% write
//!   transactions updating 2 items and appending 1 row to the history table (no index).
//!
//! Growing tables start with `rows` rows and have room for as many again; the inserts then
//! wrap to the middle (the space of deleted rows reused).

use crate::config::{DbSpec, DbTest};
use crate::db::buffer_cache::BufferCache;
use crate::db::layout::{Layout, NEW_BLOCK};
use crate::rng::Rng;

/// Share of OLTP transactions that write, percent.
const OLTP_WRITE_PCT: u64 = 40;
/// Primary-key reads of an OLTP read transaction; updates and inserts of a write one.
const OLTP_READS: u64 = 5;
const OLTP_UPDATES: u64 = 2;

/// Log bytes of inserting a row besides its data: the heap-insert record (record and
/// block headers, the compact tuple header) and, for an indexed table, the B-tree insert
/// record with its index tuple: about PostgreSQL's WAL record sizes.
const INSERT_LOG_BYTES: u64 = 52;
const INDEX_INSERT_LOG_BYTES: u64 = 64;

/// One planned operation.
#[derive(Clone, Copy)]
pub(super) struct Op {
    pub rows: u64,
    pub commits: bool,
    /// Log the operation generates before its commit record.
    pub log_bytes: u64,
}

fn insert_log(layout: &Layout, table: usize, rows: u64, indexed: bool) -> u64 {
    let row = layout.segments[table].table.row_bytes;
    rows * (INSERT_LOG_BYTES + row + if indexed { INDEX_INSERT_LOG_BYTES } else { 0 })
}

/// Where each growing table's next insert goes.
pub(super) struct Appends {
    next: Vec<u64>,
    initial: u64,
    capacity: Vec<u64>,
}

impl Appends {
    pub fn new(spec: &DbSpec) -> Appends {
        Appends {
            next: vec![spec.rows; spec.tables.len()],
            initial: spec.rows,
            capacity: spec.tables.iter().map(|t| t.rows).collect(),
        }
    }

    /// The first row of `n` rows inserted into `table`.
    fn take(&mut self, table: usize, n: u64) -> u64 {
        if self.next[table] + n > self.capacity[table] {
            self.next[table] = self.initial;
        }
        let first = self.next[table];
        self.next[table] += n;
        first
    }
}

/// A session's next operation, planned an operation early.
pub(super) struct Ahead {
    /// The session's random state the plan was drawn from, and its state after.
    from: Rng,
    to: Rng,
    op: Op,
    plan: Vec<(u64, bool)>,
}

impl Ahead {
    pub fn new() -> Ahead {
        Ahead {
            from: Rng::from_seed(0),
            to: Rng::from_seed(0),
            op: Op {
                rows: 0,
                commits: false,
                log_bytes: 0,
            },
            plan: Vec::new(),
        }
    }
}

/// Plans the session's operation into `out` like [`plan_op`], taking the plan made an
/// operation early (by [`plan_ahead`]) when it was drawn from the same random state.
pub(super) fn take_or_plan(
    spec: &DbSpec,
    layout: &Layout,
    appends: &mut Appends,
    rng: &mut Rng,
    ahead: &mut Ahead,
    out: &mut Vec<(u64, bool)>,
) -> Op {
    if !ahead.plan.is_empty() && ahead.from == *rng {
        std::mem::swap(out, &mut ahead.plan);
        ahead.plan.clear();
        *rng = ahead.to.clone();
        return ahead.op;
    }
    plan_op(spec, layout, appends, rng, out)
}

/// For the single-row tests, whose next operation depends only on the session's random
/// numbers, plans that operation on a copy of them (the session's own draws do not change)
/// and starts loading its blocks' page-table entries, so that when it starts (an operation
/// later) its buffer lookups do not wait for memory. The plan is kept for
/// [`take_or_plan`].
pub(super) fn plan_ahead(
    spec: &DbSpec,
    layout: &Layout,
    appends: &mut Appends,
    rng: &Rng,
    cache: &BufferCache,
    ahead: &mut Ahead,
) {
    if !matches!(spec.test, DbTest::UpdateRow | DbTest::SelectRow) {
        return;
    }
    ahead.from.clone_from(rng);
    ahead.to.clone_from(rng);
    ahead.op = plan_op(spec, layout, appends, &mut ahead.to, &mut ahead.plan);
    prefetch_ahead(cache, ahead);
}

/// Starts loading the page-table entries of the operation planned ahead (none planned: no
/// effect). A hint only. [`plan_ahead`] does it a whole operation early; a session does it
/// again each time it waits, so the entries are still in the processor's cache when the
/// next operation looks them up.
#[inline]
pub(super) fn prefetch_ahead(cache: &BufferCache, ahead: &Ahead) {
    for &(entry, _) in &ahead.plan {
        cache.prefetch_entry(entry & !NEW_BLOCK);
    }
}

/// Plans session's next operation into `out` (cleared first).
pub(super) fn plan_op(
    spec: &DbSpec,
    layout: &Layout,
    appends: &mut Appends,
    rng: &mut Rng,
    out: &mut Vec<(u64, bool)>,
) -> Op {
    out.clear();
    let rows = spec.rows;
    // The tables point operations use: all, less the OLTP history (the last).
    let point_tables = layout.segments.len() - usize::from(spec.test.oltp());
    let pick = |rng: &mut Rng| {
        if point_tables > 1 {
            rng.below(point_tables as u64) as usize
        } else {
            0
        }
    };
    match spec.test {
        DbTest::UpdateRow | DbTest::SelectRow | DbTest::UpdateRange | DbTest::SelectRange => {
            let table = pick(rng);
            let n = if spec.test.ranged() {
                spec.range_rows.min(rows)
            } else {
                1
            };
            let key = rng.below(rows - n + 1);
            layout.plan(table, key, n, spec.test.writes(), out);
            let writes = spec.test.writes();
            Op {
                rows: n,
                commits: writes,
                log_bytes: if writes {
                    n * spec.log_bytes_per_row
                } else {
                    0
                },
            }
        }
        DbTest::LoadConventional => {
            let table = pick(rng);
            let n = spec.rows_per_commit;
            let first = appends.take(table, n);
            layout.plan_append(table, first, n, true, out);
            Op {
                rows: n,
                commits: true,
                log_bytes: insert_log(layout, table, n, true),
            }
        }
        DbTest::OltpMedium | DbTest::OltpHeavy => {
            let item = pick(rng);
            if rng.below(100) < OLTP_WRITE_PCT {
                for _ in 0..OLTP_UPDATES {
                    layout.plan(item, rng.below(rows), 1, true, out);
                }
                let history = layout.segments.len() - 1;
                let first = appends.take(history, 1);
                layout.plan_append(history, first, 1, false, out);
                Op {
                    rows: OLTP_UPDATES + 1,
                    commits: true,
                    log_bytes: OLTP_UPDATES * spec.log_bytes_per_row
                        + insert_log(layout, history, 1, false),
                }
            } else {
                for _ in 0..OLTP_READS {
                    layout.plan(item, rng.below(rows), 1, false, out);
                }
                Op {
                    rows: OLTP_READS,
                    commits: false,
                    log_bytes: 0,
                }
            }
        }
    }
}
