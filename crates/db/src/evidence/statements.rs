//! Per-statement block profiles of the window, from two snapshots of pg_stat_statements.
//!
//! The counters are never reset: other users' statistics (and storlab's own from before)
//! stay as they were. Only the connected role's statements in the connected database are
//! read, and the window's figures are the differences between the two snapshots.

use std::collections::HashMap;

use storlab_core::host_stats::round3;
use storlab_core::result::StatementStats;
use tokio_postgres::Client;

use crate::error::DbError;

/// Cumulative counters of one statement (summed over its entries: top-level and nested).
#[derive(Clone, Debug, Default)]
struct Counters {
    query: String,
    calls: i64,
    total_ms: f64,
    rows: f64,
    hit: f64,
    read: f64,
    dirtied: f64,
    written: f64,
    wal_bytes: f64,
}

/// Where the window's statements come from.
#[derive(Clone, Debug)]
pub(crate) enum Statements {
    /// pg_stat_statements, in this schema.
    In(String),
    /// Not readable on this server, and why: the result has no per-statement profile.
    Unavailable(String),
}

impl Statements {
    /// The note a result carries when the per-statement profile is left out.
    pub(crate) fn note(&self) -> Option<String> {
        match self {
            Statements::In(_) => None,
            Statements::Unavailable(why) => Some(format!("no per-statement block profile: {why}")),
        }
    }
}

/// pg_stat_statements of this role and database at one moment, by query id.
#[derive(Clone, Debug, Default)]
pub(crate) struct StatementsSnapshot(HashMap<i64, Counters>);

impl StatementsSnapshot {
    /// Reads the connected role's entries in the connected database (none when the
    /// extension cannot be read).
    pub(crate) async fn take(c: &Client, from: &Statements) -> Result<StatementsSnapshot, DbError> {
        let Statements::In(ext) = from else {
            return Ok(StatementsSnapshot::default());
        };
        let sql = format!(
            "SELECT queryid, query, calls, total_exec_time, rows::float8,
                    shared_blks_hit::float8, shared_blks_read::float8,
                    shared_blks_dirtied::float8, shared_blks_written::float8, wal_bytes::float8
             FROM {ext}.pg_stat_statements
             WHERE userid = (SELECT oid FROM pg_roles WHERE rolname = current_user)
               AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
               AND queryid IS NOT NULL"
        );
        let mut out: HashMap<i64, Counters> = HashMap::new();
        for r in c.query(&sql, &[]).await? {
            let e = out.entry(r.get(0)).or_default();
            if e.query.is_empty() {
                e.query = r.get::<_, Option<String>>(1).unwrap_or_default();
            }
            e.calls += r.get::<_, i64>(2);
            e.total_ms += r.get::<_, f64>(3);
            e.rows += r.get::<_, f64>(4);
            e.hit += r.get::<_, f64>(5);
            e.read += r.get::<_, f64>(6);
            e.dirtied += r.get::<_, f64>(7);
            e.written += r.get::<_, f64>(8);
            e.wal_bytes += r.get::<_, f64>(9);
        }
        Ok(StatementsSnapshot(out))
    }

    /// The `top` statements by execution time between `self` (earlier) and `later`, per
    /// call; storlab's own monitoring queries (on pg_stat_*) left out.
    pub(crate) fn top(&self, later: &StatementsSnapshot, top: usize) -> Vec<StatementStats> {
        let zero = Counters::default();
        let mut window: Vec<Counters> = later
            .0
            .iter()
            .filter_map(|(id, a)| {
                let b = self.0.get(id).unwrap_or(&zero);
                let calls = a.calls - b.calls;
                let monitoring = a.query.to_ascii_lowercase().contains("pg_stat");
                (calls > 0 && !monitoring).then(|| Counters {
                    query: a.query.clone(),
                    calls,
                    total_ms: (a.total_ms - b.total_ms).max(0.0),
                    rows: (a.rows - b.rows).max(0.0),
                    hit: (a.hit - b.hit).max(0.0),
                    read: (a.read - b.read).max(0.0),
                    dirtied: (a.dirtied - b.dirtied).max(0.0),
                    written: (a.written - b.written).max(0.0),
                    wal_bytes: (a.wal_bytes - b.wal_bytes).max(0.0),
                })
            })
            .collect();
        window.sort_by(|a, b| b.total_ms.total_cmp(&a.total_ms));
        window.truncate(top);
        window.into_iter().map(stats).collect()
    }
}

fn stats(d: Counters) -> StatementStats {
    let per = |v: f64| round3(v / d.calls.max(1) as f64);
    let mut query = d.query.split_whitespace().collect::<Vec<_>>().join(" ");
    if query.len() > 120 {
        let cut = (0..=120)
            .rev()
            .find(|&i| query.is_char_boundary(i))
            .unwrap_or(0);
        query.truncate(cut);
        query.push('…');
    }
    StatementStats {
        query,
        calls: d.calls as u64,
        mean_ms: per(d.total_ms),
        rows_per_call: per(d.rows),
        shared_blks_hit: per(d.hit),
        shared_blks_read: per(d.read),
        shared_blks_dirtied: per(d.dirtied),
        shared_blks_written: per(d.written),
        wal_bytes: per(d.wal_bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(entries: &[(i64, &str, i64, f64)]) -> StatementsSnapshot {
        StatementsSnapshot(
            entries
                .iter()
                .map(|&(id, q, calls, ms)| {
                    let c = Counters {
                        query: q.into(),
                        calls,
                        total_ms: ms,
                        rows: calls as f64,
                        ..Counters::default()
                    };
                    (id, c)
                })
                .collect(),
        )
    }

    #[test]
    fn the_window_is_the_difference_of_two_snapshots() {
        let before = snap(&[(1, "UPDATE a", 10, 5.0), (2, "SELECT b", 4, 100.0)]);
        let after = snap(&[
            (1, "UPDATE a", 30, 25.0),
            (2, "SELECT b", 4, 100.0),
            (3, "SELECT c", 2, 8.0),
            (4, "SELECT * FROM pg_stat_activity", 9, 90.0),
        ]);
        let top = before.top(&after, 10);
        let names: Vec<&str> = top.iter().map(|s| s.query.as_str()).collect();
        assert_eq!(
            names,
            ["UPDATE a", "SELECT c"],
            "unchanged and monitoring left out"
        );
        assert_eq!(top[0].calls, 20);
        assert_eq!(top[0].mean_ms, 1.0);
        assert_eq!(top[1].mean_ms, 4.0);
        assert_eq!(before.top(&after, 1).len(), 1);
    }
}
