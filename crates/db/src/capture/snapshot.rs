//! One snapshot of a live server's cumulative statistics, read by one statement (the session
//! has `stats_fetch_consistency = snapshot`, so every view in it shows the same moment).
//!
//! The capture sends nothing but its tagged statements between its two snapshots: no
//! `BEGIN`, `SET` or `COMMIT`, which pg_stat_statements would count among the workload's
//! statements when `pg_stat_statements.track_utility` is on (and, from 16, in the same
//! entries as the workload's own `BEGIN` and `COMMIT`, where no filter can tell them apart).
//! Before each snapshot it asks for its own pending statistics to be flushed
//! (`pg_stat_force_next_flush()`), so that every transaction it committed before the
//! snapshot is in pg_stat_database's counters and its own transactions in the window are
//! known exactly.
//!
//! Per version: pg_stat_io from 16 (its reads and writes count blocks in 16 and 17, and
//! operations with `read_bytes`/`write_bytes` beside them from 18); pg_stat_checkpointer from
//! 17 (before: the checkpoint columns of pg_stat_bgwriter); pg_stat_wal's `wal_records`
//! and `wal_bytes` in every supported version (15 to 18).

use std::collections::HashMap;

use tokio_postgres::{Client, Statement};

use crate::error::DbError;

/// The comment every query of a capture carries, so that its own statements can be told
/// apart in pg_stat_statements and left out.
pub(crate) const TAG: &str = "/* storlab capture */";

/// pg_stat_database of the connected database.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct DbCounters {
    pub commits: f64,
    pub rollbacks: f64,
    pub blks_read: f64,
    pub blks_hit: f64,
    pub tup_inserted: f64,
    /// Bytes written to temporary files (sorts and hashes beyond `work_mem`).
    pub temp_bytes: f64,
}

/// Cluster-wide WAL, checkpoint and relation-write counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ClusterCounters {
    pub wal_records: f64,
    pub wal_bytes: f64,
    pub checkpoints: f64,
    /// Relation blocks written by every process: pg_stat_io (16+), else the buffers written
    /// by the checkpointer, the background writer and the backends (pg_stat_bgwriter).
    pub blocks_written: f64,
}

/// pg_stat_statements summed over the connected database's top-level statements, the
/// capture's own left out.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct StatementCounters {
    pub calls: f64,
    pub exec_ms: f64,
    pub hit: f64,
    pub read: f64,
    pub dirtied: f64,
    pub written: f64,
    pub wal_bytes: f64,
    /// Blocks the statements wrote to temporary files (sorts and hashes beyond
    /// `work_mem`), every pass of a multi-pass sort counted.
    pub temp_written: f64,
}

/// One user relation's block accesses (heap and TOAST, or index).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RelCounters {
    pub name: String,
    pub index: bool,
    pub tablespace: String,
    pub bytes: u64,
    pub heap_blocks: f64,
    pub accesses: f64,
    pub seq_scans: f64,
}

/// Everything read at one moment.
#[derive(Clone, Debug, Default)]
pub(crate) struct Snapshot {
    pub db: DbCounters,
    pub cluster: ClusterCounters,
    /// By (userid, dbid, queryid, toplevel); none without pg_stat_statements.
    pub statements: Option<HashMap<String, StatementCounters>>,
    pub relations: HashMap<u32, RelCounters>,
}

/// The statement that asks for the capture's own pending statistics to be flushed when it
/// ends (a request to its own backend: nothing is written to the database). It reads one
/// row of pg_class: a backend whose only pending statistics are its transaction counts
/// (the samples of pg_stat_activity leave nothing else) skips even a forced flush, and
/// the read gives it a relation's counts to flush with them.
pub(crate) const FLUSH_SQL: &str = "SELECT /* storlab capture */ pg_stat_force_next_flush() \
     FROM (SELECT 1 FROM pg_catalog.pg_class LIMIT 1) AS one";

const DB_SQL: &str = "SELECT xact_commit::float8, xact_rollback::float8, \
     blks_read::float8, blks_hit::float8, tup_inserted::float8, temp_bytes::float8 \
     FROM pg_stat_database WHERE datname = current_database()";

/// The WAL and checkpoint query of a version.
fn cluster_sql(version_num: i32) -> String {
    let wal = "(SELECT wal_records::float8 FROM pg_stat_wal), \
               (SELECT wal_bytes::float8 FROM pg_stat_wal)";
    let ckpt = if version_num >= 170_000 {
        "(SELECT (num_timed + num_requested)::float8 FROM pg_stat_checkpointer)"
    } else {
        "(SELECT (checkpoints_timed + checkpoints_req)::float8 FROM pg_stat_bgwriter)"
    };
    let written = if version_num >= 180_000 {
        "(SELECT coalesce(sum(write_bytes), 0)::float8 / current_setting('block_size')::float8 \
         FROM pg_stat_io WHERE object = 'relation')"
    } else if version_num >= 160_000 {
        "(SELECT coalesce(sum(writes), 0)::float8 FROM pg_stat_io WHERE object = 'relation')"
    } else {
        "(SELECT (buffers_checkpoint + buffers_clean + buffers_backend)::float8 \
         FROM pg_stat_bgwriter)"
    };
    format!("SELECT {wal}, {ckpt}, {written}")
}

/// User tables (heap and TOAST blocks) and indexes with their accesses and sizes.
const REL_SQL: &str = "SELECT t.relid::oid::int8, \
     quote_ident(t.schemaname) || '.' || quote_ident(t.relname), false, \
     coalesce(ts.spcname, dts.spcname)::text, pg_table_size(t.relid)::int8, \
     (pg_relation_size(t.relid) / current_setting('block_size')::int8)::float8, \
     (coalesce(t.heap_blks_read, 0) + coalesce(t.heap_blks_hit, 0) + \
      coalesce(t.toast_blks_read, 0) + coalesce(t.toast_blks_hit, 0))::float8, \
     coalesce(s.seq_scan, 0)::float8 \
     FROM pg_statio_user_tables t JOIN pg_class c ON c.oid = t.relid \
     LEFT JOIN pg_stat_user_tables s ON s.relid = t.relid \
     LEFT JOIN pg_tablespace ts ON ts.oid = c.reltablespace \
     CROSS JOIN (SELECT spcname FROM pg_tablespace WHERE oid = (SELECT dattablespace FROM \
       pg_database WHERE datname = current_database())) dts \
     UNION ALL \
     SELECT i.indexrelid::oid::int8, quote_ident(i.schemaname) || '.' || quote_ident(i.indexrelname), \
     true, coalesce(ts.spcname, dts.spcname)::text, pg_relation_size(i.indexrelid)::int8, 0::float8, \
     (coalesce(i.idx_blks_read, 0) + coalesce(i.idx_blks_hit, 0))::float8, 0::float8 \
     FROM pg_statio_user_indexes i JOIN pg_class c ON c.oid = i.indexrelid \
     LEFT JOIN pg_tablespace ts ON ts.oid = c.reltablespace \
     CROSS JOIN (SELECT spcname FROM pg_tablespace WHERE oid = (SELECT dattablespace FROM \
       pg_database WHERE datname = current_database())) dts";

/// pg_stat_statements of the connected database, top level only (nested statements are
/// inside their callers' counters), the capture's own queries left out. A role without
/// pg_read_all_stats sees other roles' entries without their query id: those are summed per
/// role.
fn statements_sql(schema: &str) -> String {
    format!(
        "SELECT userid::int8::text || '/' || coalesce(queryid::text, 'hidden') || '/' || toplevel::text, \
         calls::float8, total_exec_time, shared_blks_hit::float8, shared_blks_read::float8, \
         shared_blks_dirtied::float8, shared_blks_written::float8, wal_bytes::float8, \
         temp_blks_written::float8 \
         FROM {schema}.pg_stat_statements \
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
           AND toplevel \
           AND coalesce(query, '') NOT LIKE '%storlab capture%'"
    )
}

/// Columns of each part of [`snapshot_sql`]'s one row, in order.
const DB_COLS: usize = 6;
const CLUSTER_COLS: usize = 4;
const REL_COLS: usize = 8;

/// The `n` columns of `sql`'s rows, each as one array (NULL when there are no rows).
fn arrays_of(sql: &str, n: usize) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
    let aggs: Vec<String> = names.iter().map(|c| format!("array_agg({c})")).collect();
    format!(
        "SELECT {} FROM ({sql}) AS q({})",
        aggs.join(", "),
        names.join(", ")
    )
}

/// The one statement of a snapshot: one row with the database's and the cluster's counters,
/// then the relations' columns as arrays, then (with `statements`, the schema of
/// pg_stat_statements) the statements' columns as arrays.
fn snapshot_sql(version_num: i32, statements: Option<&str>) -> String {
    let mut sql = format!(
        "SELECT {TAG} * FROM ({DB_SQL}) AS d, ({}) AS w, ({}) AS r",
        cluster_sql(version_num),
        arrays_of(REL_SQL, REL_COLS)
    );
    if let Some(schema) = statements {
        sql.push_str(&format!(
            ", ({}) AS s",
            arrays_of(&statements_sql(schema), 9)
        ));
    }
    sql
}

/// Column `i` of `row`, an array, each NULL element (and a NULL array) read as empty.
fn column<'a, T: tokio_postgres::types::FromSql<'a>>(
    row: &'a tokio_postgres::Row,
    i: usize,
) -> Vec<Option<T>> {
    row.get::<_, Option<Vec<Option<T>>>>(i).unwrap_or_default()
}

fn relations(row: &tokio_postgres::Row, at: usize) -> HashMap<u32, RelCounters> {
    let oids = column::<i64>(row, at);
    let names = column::<String>(row, at + 1);
    let index = column::<bool>(row, at + 2);
    let spaces = column::<String>(row, at + 3);
    let bytes = column::<i64>(row, at + 4);
    let heap = column::<f64>(row, at + 5);
    let accesses = column::<f64>(row, at + 6);
    let scans = column::<f64>(row, at + 7);
    let f = |v: &[Option<f64>], k: usize| v.get(k).copied().flatten().unwrap_or(0.0);
    let mut map = HashMap::new();
    for (k, oid) in oids.iter().enumerate() {
        let Some(oid) = oid else { continue };
        map.insert(
            *oid as u32,
            RelCounters {
                name: names.get(k).cloned().flatten().unwrap_or_default(),
                index: index.get(k).copied().flatten().unwrap_or(false),
                tablespace: spaces.get(k).cloned().flatten().unwrap_or_default(),
                bytes: bytes.get(k).copied().flatten().unwrap_or(0).max(0) as u64,
                heap_blocks: f(&heap, k),
                accesses: f(&accesses, k),
                seq_scans: f(&scans, k),
            },
        );
    }
    map
}

fn statements(row: &tokio_postgres::Row, at: usize) -> HashMap<String, StatementCounters> {
    let keys = column::<String>(row, at);
    let v: Vec<Vec<Option<f64>>> = (1..9).map(|i| column::<f64>(row, at + i)).collect();
    let f = |i: usize, k: usize| v[i].get(k).copied().flatten().unwrap_or(0.0);
    let mut map = HashMap::new();
    for (k, key) in keys.into_iter().enumerate() {
        let e: &mut StatementCounters = map.entry(key.unwrap_or_default()).or_default();
        e.calls += f(0, k);
        e.exec_ms += f(1, k);
        e.hit += f(2, k);
        e.read += f(3, k);
        e.dirtied += f(4, k);
        e.written += f(5, k);
        e.wal_bytes += f(6, k);
        e.temp_written += f(7, k);
    }
    map
}

impl Snapshot {
    /// Prepares the statement of a snapshot (before the window: a statement's preparation is
    /// a transaction of its own); `statements` is the schema of pg_stat_statements when it
    /// can be read.
    pub(crate) async fn prepare(
        c: &Client,
        version_num: i32,
        statements: Option<&str>,
    ) -> Result<Statement, DbError> {
        Ok(c.prepare(&snapshot_sql(version_num, statements)).await?)
    }

    /// Flushes the capture's own pending statistics, then reads every counter with `stmt`
    /// (from [`Snapshot::prepare`]; `statements`: whether it reads pg_stat_statements).
    pub(crate) async fn take(
        c: &Client,
        stmt: &Statement,
        statements: bool,
    ) -> Result<Snapshot, DbError> {
        c.batch_execute(FLUSH_SQL).await?;
        let r = c.query_one(stmt, &[]).await?;
        let w = DB_COLS;
        let opt = |i: usize| r.get::<_, Option<f64>>(i).unwrap_or(0.0);
        let at = DB_COLS + CLUSTER_COLS;
        Ok(Snapshot {
            db: DbCounters {
                commits: opt(0),
                rollbacks: opt(1),
                blks_read: opt(2),
                blks_hit: opt(3),
                tup_inserted: opt(4),
                temp_bytes: opt(5),
            },
            cluster: ClusterCounters {
                wal_records: opt(w),
                wal_bytes: opt(w + 1),
                checkpoints: opt(w + 2),
                blocks_written: opt(w + 3),
            },
            relations: relations(&r, at),
            statements: statements.then(|| self::statements(&r, at + REL_COLS)),
        })
    }
}

/// The statements' counters between two snapshots: per entry, those that exist in both (or
/// appeared in between); an entry whose calls went down was reset or evicted and replaced,
/// and counts from zero. Returns the sums and whether any entry was reset.
pub(crate) fn statements_delta(
    before: &HashMap<String, StatementCounters>,
    after: &HashMap<String, StatementCounters>,
) -> (StatementCounters, bool) {
    let mut sum = StatementCounters::default();
    let mut reset = false;
    let zero = StatementCounters::default();
    for (key, a) in after {
        let mut b = before.get(key).copied().unwrap_or(zero);
        if a.calls < b.calls {
            reset = true;
            b = zero;
        }
        sum.calls += a.calls - b.calls;
        sum.exec_ms += (a.exec_ms - b.exec_ms).max(0.0);
        sum.hit += (a.hit - b.hit).max(0.0);
        sum.read += (a.read - b.read).max(0.0);
        sum.dirtied += (a.dirtied - b.dirtied).max(0.0);
        sum.written += (a.written - b.written).max(0.0);
        sum.wal_bytes += (a.wal_bytes - b.wal_bytes).max(0.0);
        sum.temp_written += (a.temp_written - b.temp_written).max(0.0);
    }
    (sum, reset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(calls: f64, hit: f64) -> StatementCounters {
        StatementCounters {
            calls,
            hit,
            ..StatementCounters::default()
        }
    }

    #[test]
    fn statement_deltas_count_new_entries_whole_and_reset_ones_from_zero() {
        let before: HashMap<String, StatementCounters> = [
            ("a".to_string(), entry(10.0, 100.0)),
            ("b".to_string(), entry(50.0, 500.0)),
        ]
        .into();
        let after: HashMap<String, StatementCounters> = [
            ("a".to_string(), entry(15.0, 160.0)),
            ("b".to_string(), entry(3.0, 30.0)),
            ("c".to_string(), entry(2.0, 8.0)),
        ]
        .into();
        let (d, reset) = statements_delta(&before, &after);
        assert!(reset);
        assert_eq!(d.calls, 5.0 + 3.0 + 2.0);
        assert_eq!(d.hit, 60.0 + 30.0 + 8.0);
        let (_, reset) = statements_delta(&before, &before);
        assert!(!reset);
    }

    #[test]
    fn a_snapshot_is_one_tagged_statement() {
        let sql = snapshot_sql(150_000, Some("\"public\""));
        assert!(sql.starts_with(&format!("SELECT {TAG}")), "{sql}");
        assert_eq!(sql.matches(';').count(), 0, "{sql}");
        assert!(sql.contains("\"public\".pg_stat_statements"), "{sql}");
        assert!(!snapshot_sql(150_000, None).contains("pg_stat_statements"));
    }

    #[test]
    fn each_version_reads_its_own_views() {
        assert!(cluster_sql(150_000).contains("buffers_backend"));
        assert!(!cluster_sql(150_000).contains("pg_stat_io"));
        assert!(cluster_sql(160_000).contains("sum(writes)"));
        assert!(cluster_sql(170_000).contains("pg_stat_checkpointer"));
        assert!(cluster_sql(180_000).contains("write_bytes"));
    }
}
