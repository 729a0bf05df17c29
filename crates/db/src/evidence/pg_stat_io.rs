//! pg_stat_io (PostgreSQL 16+) before and after the measured window: which backends read,
//! wrote, extended and fsynced relation blocks, in which context, and how long it took.
//! Never fails a run: a server without the view, or a failed read, is reported as the reason
//! the figures are missing.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use storlab_core::host_stats::round3;
use storlab_core::result::{PgStatIo, PgStatIoRow};
use tokio_postgres::{Client, Row};

use crate::error::DbError;

/// `server_version_num` of the first release with pg_stat_io.
const FIRST_VERSION_NUM: i32 = 160_000;

/// The columns 16, 17 and 18 share (18 replaced `op_bytes` by `read_bytes`, `write_bytes`
/// and `extend_bytes`, so none of those is read). NULL marks an operation a row cannot do
/// and reads as 0; counts as int8, times (ms) as float8.
const SQL: &str = "SELECT backend_type, object, context,
        coalesce(reads, 0)::int8, coalesce(read_time, 0)::float8,
        coalesce(writes, 0)::int8, coalesce(write_time, 0)::float8,
        coalesce(writebacks, 0)::int8, coalesce(extends, 0)::int8, coalesce(hits, 0)::int8,
        coalesce(evictions, 0)::int8, coalesce(fsyncs, 0)::int8, coalesce(fsync_time, 0)::float8,
        current_setting('track_io_timing')::bool
    FROM pg_stat_io";

/// The pg_stat_io query for a server of `version_num` (`server_version_num`), or None when
/// the server has no pg_stat_io (before 16).
pub(crate) fn pg_stat_io_sql(version_num: i32) -> Option<&'static str> {
    (version_num >= FIRST_VERSION_NUM).then_some(SQL)
}

/// Why a server of `version_num` has no pg_stat_io ("... the server is 15.8"), or None when
/// it has one.
pub(crate) fn too_old(version_num: i32) -> Option<String> {
    (version_num < FIRST_VERSION_NUM).then(|| {
        format!(
            "pg_stat_io needs PostgreSQL 16 or later; the server is {}.{}",
            version_num / 10_000,
            version_num % 10_000
        )
    })
}

/// pg_stat_io's cumulative counters at one moment, or why they could not be read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum IoSnapshot {
    /// The reason there are no counters.
    Unavailable(String),
    /// The view's rows, and whether track_io_timing was on.
    Read {
        rows: Vec<PgStatIoRow>,
        timing: bool,
    },
}

impl IoSnapshot {
    /// Reads pg_stat_io from a server of `version_num`.
    pub(crate) async fn take(c: &Client, version_num: i32) -> IoSnapshot {
        let Some(sql) = pg_stat_io_sql(version_num) else {
            return IoSnapshot::Unavailable(too_old(version_num).unwrap_or_default());
        };
        let read = match c.query(sql, &[]).await {
            Ok(rows) => rows.iter().map(counters).collect::<Result<Vec<_>, _>>(),
            Err(e) => Err(e),
        };
        match read {
            Ok(rows) => IoSnapshot::Read {
                timing: rows.first().is_some_and(|r| r.1),
                rows: rows.into_iter().map(|r| r.0).collect(),
            },
            Err(e) => IoSnapshot::Unavailable(format!(
                "pg_stat_io could not be read: {}",
                DbError::from(e)
            )),
        }
    }

    /// The window between `self` (earlier) and `later`.
    pub(crate) fn diff(&self, later: &IoSnapshot) -> PgStatIo {
        match (self, later) {
            (IoSnapshot::Unavailable(why), _) | (_, IoSnapshot::Unavailable(why)) => PgStatIo {
                unavailable: Some(why.clone()),
                ..PgStatIo::default()
            },
            (
                IoSnapshot::Read { rows: before, .. },
                IoSnapshot::Read {
                    rows: after,
                    timing,
                },
            ) => PgStatIo {
                unavailable: None,
                timing: *timing,
                rows: window_rows(before, after),
            },
        }
    }
}

/// One row of [`SQL`] and its track_io_timing column.
fn counters(r: &Row) -> Result<(PgStatIoRow, bool), tokio_postgres::Error> {
    let n = |i: usize| r.try_get::<_, i64>(i).map(|v| v.max(0) as u64);
    let row = PgStatIoRow {
        backend_type: r.try_get(0)?,
        object: r.try_get(1)?,
        context: r.try_get(2)?,
        reads: n(3)?,
        read_ms: r.try_get(4)?,
        writes: n(5)?,
        write_ms: r.try_get(6)?,
        writebacks: n(7)?,
        extends: n(8)?,
        hits: n(9)?,
        evictions: n(10)?,
        fsyncs: n(11)?,
        fsync_ms: r.try_get(12)?,
    };
    Ok((row, r.try_get(13)?))
}

/// What each (backend type, object, context) did between the cumulative rows `before` and
/// `after`: rows that did nothing are dropped, the rest ordered by [`busiest_first`]. A row
/// missing before counts from zero; a counter that went down (stats reset) counts as 0.
pub(crate) fn window_rows(before: &[PgStatIoRow], after: &[PgStatIoRow]) -> Vec<PgStatIoRow> {
    let key = |r: &PgStatIoRow| (r.backend_type.clone(), r.object.clone(), r.context.clone());
    let earlier: BTreeMap<_, &PgStatIoRow> = before.iter().map(|r| (key(r), r)).collect();
    let zero = PgStatIoRow::default();
    let mut rows: Vec<PgStatIoRow> = after
        .iter()
        .map(|a| minus(a, earlier.get(&key(a)).copied().unwrap_or(&zero)))
        .filter(|r| {
            r.reads + r.writes + r.writebacks + r.extends + r.hits + r.evictions + r.fsyncs > 0
        })
        .collect();
    rows.sort_by(busiest_first);
    rows
}

fn minus(a: &PgStatIoRow, b: &PgStatIoRow) -> PgStatIoRow {
    let ms = |x: f64, y: f64| round3((x - y).max(0.0));
    PgStatIoRow {
        backend_type: a.backend_type.clone(),
        object: a.object.clone(),
        context: a.context.clone(),
        reads: a.reads.saturating_sub(b.reads),
        read_ms: ms(a.read_ms, b.read_ms),
        writes: a.writes.saturating_sub(b.writes),
        write_ms: ms(a.write_ms, b.write_ms),
        writebacks: a.writebacks.saturating_sub(b.writebacks),
        extends: a.extends.saturating_sub(b.extends),
        hits: a.hits.saturating_sub(b.hits),
        evictions: a.evictions.saturating_sub(b.evictions),
        fsyncs: a.fsyncs.saturating_sub(b.fsyncs),
        fsync_ms: ms(a.fsync_ms, b.fsync_ms),
    }
}

/// Most reads + writes first, then most extends, then most hits; ties by name.
fn busiest_first(a: &PgStatIoRow, b: &PgStatIoRow) -> Ordering {
    let weight = |r: &PgStatIoRow| (r.reads + r.writes, r.extends, r.hits);
    weight(b).cmp(&weight(a)).then_with(|| {
        (&a.backend_type, &a.object, &a.context).cmp(&(&b.backend_type, &b.object, &b.context))
    })
}

/// One line of the compact report's pg_stat_io table.
#[derive(Clone, Debug, PartialEq)]
pub struct IoLine {
    /// `backend type / object / context`, e.g. `client backend / relation / normal`.
    pub name: String,
    /// Read operations.
    pub reads: u64,
    /// Mean time of one read, ms (None without track_io_timing or reads).
    pub read_avg_ms: Option<f64>,
    /// Write operations.
    pub writes: u64,
    /// Mean time of one write, ms (None without track_io_timing or writes).
    pub write_avg_ms: Option<f64>,
    /// Relation extensions.
    pub extends: u64,
    /// Buffer hits.
    pub hits: u64,
    /// Buffer evictions.
    pub evictions: u64,
    /// fsync calls.
    pub fsyncs: u64,
}

/// The statspack view of pg_stat_io: the busiest rows and how many were left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IoSummary {
    /// At most the asked-for number of rows, most reads + writes first.
    pub lines: Vec<IoLine>,
    /// Rows with activity not in `lines`.
    pub more: usize,
}

/// The `top` busiest rows of `io` by reads + writes, with mean ms per read and per write
/// when track_io_timing was on.
pub fn io_summary(io: &PgStatIo, top: usize) -> IoSummary {
    let mut rows: Vec<&PgStatIoRow> = io.rows.iter().collect();
    rows.sort_by(|a, b| busiest_first(a, b));
    let avg = |ms: f64, n: u64| (io.timing && n > 0).then(|| round3(ms / n as f64));
    IoSummary {
        more: rows.len().saturating_sub(top),
        lines: rows
            .into_iter()
            .take(top)
            .map(|r| IoLine {
                name: format!("{} / {} / {}", r.backend_type, r.object, r.context),
                reads: r.reads,
                read_avg_ms: avg(r.read_ms, r.reads),
                writes: r.writes,
                write_avg_ms: avg(r.write_ms, r.writes),
                extends: r.extends,
                hits: r.hits,
                evictions: r.evictions,
                fsyncs: r.fsyncs,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests;
