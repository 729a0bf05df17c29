//! One snapshot of a live server's cumulative statistics, read in one read-only transaction
//! (with `stats_fetch_consistency = snapshot`, so every view in it shows the same moment).
//!
//! Per version: pg_stat_io from 16 (its reads and writes count blocks in 16 and 17, and
//! operations with `read_bytes`/`write_bytes` beside them from 18); pg_stat_checkpointer from
//! 17 (before: the checkpoint columns of pg_stat_bgwriter); pg_stat_wal's `wal_records`
//! and `wal_bytes` in every supported version (15 to 18).

use std::collections::HashMap;

use tokio_postgres::Client;

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

const DB_SQL: &str = "SELECT /* storlab capture */ xact_commit::float8, xact_rollback::float8, \
     blks_read::float8, blks_hit::float8, tup_inserted::float8, temp_bytes::float8 FROM pg_stat_database WHERE datname = current_database()";

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
    format!("SELECT {TAG} {wal}, {ckpt}, {written}")
}

/// User tables (heap and TOAST blocks) and indexes with their accesses and sizes.
const REL_SQL: &str = "SELECT /* storlab capture */ t.relid::oid::int8, \
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
        "SELECT {TAG} userid::int8::text || '/' || coalesce(queryid::text, 'hidden') || '/' || toplevel::text, \
         calls::float8, total_exec_time, shared_blks_hit::float8, shared_blks_read::float8, \
         shared_blks_dirtied::float8, shared_blks_written::float8, wal_bytes::float8, \
         temp_blks_written::float8 \
         FROM {schema}.pg_stat_statements \
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
           AND toplevel \
           AND coalesce(query, '') NOT LIKE '%storlab capture%'"
    )
}

impl Snapshot {
    /// Reads every counter in one read-only transaction; `statements` is the schema of
    /// pg_stat_statements when it can be read.
    pub(crate) async fn take(
        c: &mut Client,
        version_num: i32,
        statements: Option<&str>,
    ) -> Result<Snapshot, DbError> {
        let tx = c.build_transaction().read_only(true).start().await?;
        tx.batch_execute("SET LOCAL stats_fetch_consistency = snapshot")
            .await?;
        let d = tx.query_one(DB_SQL, &[]).await?;
        let w = tx.query_one(&cluster_sql(version_num), &[]).await?;
        let mut snap = Snapshot {
            db: DbCounters {
                commits: d.get(0),
                rollbacks: d.get(1),
                blks_read: d.get(2),
                blks_hit: d.get(3),
                tup_inserted: d.get(4),
                temp_bytes: d.get(5),
            },
            cluster: ClusterCounters {
                wal_records: w.get::<_, Option<f64>>(0).unwrap_or(0.0),
                wal_bytes: w.get::<_, Option<f64>>(1).unwrap_or(0.0),
                checkpoints: w.get::<_, Option<f64>>(2).unwrap_or(0.0),
                blocks_written: w.get::<_, Option<f64>>(3).unwrap_or(0.0),
            },
            ..Snapshot::default()
        };
        for r in tx.query(REL_SQL, &[]).await? {
            let oid = r.get::<_, i64>(0) as u32;
            snap.relations.insert(
                oid,
                RelCounters {
                    name: r.get(1),
                    index: r.get(2),
                    tablespace: r.get::<_, Option<String>>(3).unwrap_or_default(),
                    bytes: r.get::<_, Option<i64>>(4).unwrap_or(0).max(0) as u64,
                    heap_blocks: r.get::<_, Option<f64>>(5).unwrap_or(0.0),
                    accesses: r.get(6),
                    seq_scans: r.get(7),
                },
            );
        }
        if let Some(schema) = statements {
            let mut map = HashMap::new();
            for r in tx.query(&statements_sql(schema), &[]).await? {
                let e: &mut StatementCounters = map.entry(r.get::<_, String>(0)).or_default();
                e.calls += r.get::<_, f64>(1);
                e.exec_ms += r.get::<_, f64>(2);
                e.hit += r.get::<_, f64>(3);
                e.read += r.get::<_, f64>(4);
                e.dirtied += r.get::<_, f64>(5);
                e.written += r.get::<_, f64>(6);
                e.wal_bytes += r.get::<_, f64>(7);
                e.temp_written += r.get::<_, f64>(8);
            }
            snap.statements = Some(map);
        }
        tx.commit().await?;
        Ok(snap)
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
    fn each_version_reads_its_own_views() {
        assert!(cluster_sql(150_000).contains("buffers_backend"));
        assert!(!cluster_sql(150_000).contains("pg_stat_io"));
        assert!(cluster_sql(160_000).contains("sum(writes)"));
        assert!(cluster_sql(170_000).contains("pg_stat_checkpointer"));
        assert!(cluster_sql(180_000).contains("write_bytes"));
    }
}
