//! What one operation of a session touches: its block accesses, rows, and whether it
//! commits, planned from the test's transaction mix as `storlab_core::dbtest::mix` declares
//! it:
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

use storlab_core::dbtest::mix::{self, Rows, Shape, Target};

use crate::config::database::insert_log_bytes;
use crate::config::{DbSpec, DbTest};
use crate::db::buffer_cache::BufferCache;
use crate::db::layout::{Layout, NEW_BLOCK};
use crate::rng::Rng;

fn insert_log(layout: &Layout, table: usize, rows: u64, indexed: bool) -> u64 {
    insert_log_bytes(layout.segments[table].table.row_bytes, rows, indexed)
}

/// One planned operation.
#[derive(Clone, Copy)]
pub(super) struct Op {
    pub rows: u64,
    pub commits: bool,
    /// Log the operation generates before its commit record.
    pub log_bytes: u64,
    /// Its transaction type (index into the test's mix).
    pub tx_type: usize,
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
                tx_type: 0,
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

/// Plans session's next operation into `out` (cleared first): a transaction of the test's
/// declared mix ([`storlab_core::dbtest::mix`]). The random draws, in order: the table of the
/// transaction (when there are several), its type (when the mix has several), then each
/// key-reached statement's first key.
pub(super) fn plan_op(
    spec: &DbSpec,
    layout: &Layout,
    appends: &mut Appends,
    rng: &mut Rng,
    out: &mut Vec<(u64, bool)>,
) -> Op {
    out.clear();
    let types = spec.test.def().mix;
    let rows = spec.rows;
    // The tables the test's statements pick from: all, less the history table (the last).
    let history = layout.segments.len() - 1;
    let point_tables = layout.segments.len() - usize::from(mix::has_history(types));
    let table = if point_tables > 1 {
        rng.below(point_tables as u64) as usize
    } else {
        0
    };
    let tx_type = if types.len() > 1 {
        mix::pick(types, rng.below(100))
    } else {
        0
    };
    let Some(ty) = types.get(tx_type) else {
        return Op {
            rows: 0,
            commits: false,
            log_bytes: 0,
            tx_type,
        };
    };
    let mut op = Op {
        rows: 0,
        commits: ty.writes(),
        log_bytes: 0,
        tx_type,
    };
    for st in ty.statements {
        let (t, indexed) = match st.target {
            Target::Tables => (table, true),
            Target::History => (history, false),
        };
        let n = match st.rows {
            Rows::One => 1,
            Rows::Range => spec.range_rows.min(rows),
            Rows::PerCommit => spec.rows_per_commit,
        };
        for _ in 0..st.times {
            match st.shape {
                Shape::Key => {
                    let key = rng.below(rows - n + 1);
                    layout.plan(t, key, n, st.writes, out);
                    if st.writes {
                        op.log_bytes += n * spec.log_bytes_per_row;
                    }
                }
                Shape::Append => {
                    let first = appends.take(t, n);
                    layout.plan_append(t, first, n, indexed, out);
                    op.log_bytes += insert_log(layout, t, n, indexed);
                }
            }
            op.rows += n;
        }
    }
    op
}
