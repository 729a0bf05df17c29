//! The statspack of a run: WAL, checkpoint and pg_stat_io snapshots, per-statement block
//! profiles, and wait events sampled from pg_stat_activity every 10 ms.

pub(crate) mod pg_stat_io;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use storlab_core::host_stats::round3;
use storlab_core::result::{CheckpointStats, PgStatIo, StatementStats, WaitEvent, WalStats};
use tokio_postgres::Client;

use crate::error::DbError;
use pg_stat_io::IoSnapshot;

/// Sampling interval of the wait sampler.
pub(crate) const WAIT_SAMPLE: Duration = Duration::from_millis(10);

/// What the server's cumulative views say about the measured window.
pub(crate) struct ServerWindow {
    /// pg_stat_wal (or the WAL position before 14).
    pub wal: WalStats,
    /// pg_stat_bgwriter, or pg_stat_checkpointer from 17.
    pub checkpoints: CheckpointStats,
    /// pg_stat_io, or why the server has none.
    pub io: PgStatIo,
}

/// Cumulative counters at one moment.
#[derive(Clone, Debug)]
pub(crate) struct Snapshot {
    wal_records: i64,
    wal_fpi: i64,
    wal_bytes: f64,
    wal_write: i64,
    wal_sync: i64,
    wal_write_ms: f64,
    wal_sync_ms: f64,
    ckpt_timed: i64,
    ckpt_req: i64,
    buf_ckpt: i64,
    buf_clean: i64,
    buf_backend: i64,
    io: IoSnapshot,
}

impl Snapshot {
    /// Reads the counters; `version_num` is the server's (`server_version_num`): pg_stat_wal
    /// exists from 14 (earlier: bytes from the WAL position only), its write and sync
    /// counters until 17; checkpoints move to pg_stat_checkpointer in 17; pg_stat_io from 16
    /// (its absence or failure never fails the run).
    pub(crate) async fn take(c: &Client, version_num: i32) -> Result<Snapshot, DbError> {
        let wal_sql = if version_num >= 180_000 {
            "SELECT wal_records, wal_fpi, wal_bytes::float8, 0::bigint, 0::bigint, 0::float8, 0::float8 FROM pg_stat_wal"
        } else if version_num >= 140_000 {
            "SELECT wal_records, wal_fpi, wal_bytes::float8, wal_write, wal_sync, wal_write_time, wal_sync_time FROM pg_stat_wal"
        } else {
            "SELECT 0::bigint, 0::bigint, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8, 0::bigint, 0::bigint, 0::float8, 0::float8"
        };
        let ckpt_sql = if version_num >= 170_000 {
            "SELECT c.num_timed, c.num_requested, c.buffers_written, b.buffers_clean, 0::bigint FROM pg_stat_checkpointer c, pg_stat_bgwriter b"
        } else {
            "SELECT checkpoints_timed, checkpoints_req, buffers_checkpoint, buffers_clean, buffers_backend FROM pg_stat_bgwriter"
        };
        let w = c.query_one(wal_sql, &[]).await?;
        let b = c.query_one(ckpt_sql, &[]).await?;
        Ok(Snapshot {
            wal_records: w.get(0),
            wal_fpi: w.get(1),
            wal_bytes: w.get(2),
            wal_write: w.get(3),
            wal_sync: w.get(4),
            wal_write_ms: w.get(5),
            wal_sync_ms: w.get(6),
            ckpt_timed: b.get(0),
            ckpt_req: b.get(1),
            buf_ckpt: b.get(2),
            buf_clean: b.get(3),
            buf_backend: b.get(4),
            io: IoSnapshot::take(c, version_num).await,
        })
    }

    /// WAL, checkpoint and pg_stat_io figures between `self` (earlier) and `later`.
    pub(crate) fn diff(&self, later: &Snapshot, secs: f64) -> ServerWindow {
        let d = |a: i64, b: i64| (b - a).max(0) as u64;
        let bytes = (later.wal_bytes - self.wal_bytes).max(0.0);
        ServerWindow {
            wal: WalStats {
                records: d(self.wal_records, later.wal_records),
                full_page_images: d(self.wal_fpi, later.wal_fpi),
                bytes: bytes as u64,
                mb_per_s: round3(bytes / 1e6 / secs.max(1e-9)),
                writes: d(self.wal_write, later.wal_write),
                syncs: d(self.wal_sync, later.wal_sync),
                write_ms: round3(later.wal_write_ms - self.wal_write_ms),
                sync_ms: round3(later.wal_sync_ms - self.wal_sync_ms),
            },
            checkpoints: CheckpointStats {
                timed: d(self.ckpt_timed, later.ckpt_timed),
                requested: d(self.ckpt_req, later.ckpt_req),
                buffers_checkpoint: d(self.buf_ckpt, later.buf_ckpt),
                buffers_clean: d(self.buf_clean, later.buf_clean),
                buffers_backend: d(self.buf_backend, later.buf_backend),
            },
            io: self.io.diff(&later.io),
        }
    }
}

/// Forgets the statement counters (the window starts clean).
pub(crate) async fn reset_statements(c: &Client) -> Result<(), DbError> {
    c.batch_execute("SELECT pg_stat_statements_reset()").await?;
    Ok(())
}

/// The heaviest statements of the window in `schema`'s workload, per call.
pub(crate) async fn statements(c: &Client, top: i64) -> Result<Vec<StatementStats>, DbError> {
    let rows = c
        .query(
            "SELECT query, calls, mean_exec_time, rows::float8, shared_blks_hit::float8, shared_blks_read::float8,
                    shared_blks_dirtied::float8, shared_blks_written::float8, wal_bytes::float8
             FROM pg_stat_statements
             WHERE query NOT ILIKE '%pg_stat%' AND calls > 0
             ORDER BY total_exec_time DESC LIMIT $1",
            &[&top],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            let calls: i64 = r.get(1);
            let per = |v: f64| round3(v / calls.max(1) as f64);
            let mut query: String = r.get(0);
            query = query.split_whitespace().collect::<Vec<_>>().join(" ");
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
                calls: calls as u64,
                mean_ms: round3(r.get(2)),
                rows_per_call: per(r.get(3)),
                shared_blks_hit: per(r.get(4)),
                shared_blks_read: per(r.get(5)),
                shared_blks_dirtied: per(r.get(6)),
                shared_blks_written: per(r.get(7)),
                wal_bytes: per(r.get(8)),
            }
        })
        .collect())
}

/// Wait samples: counts per event and run lengths (consecutive samples of one session).
#[derive(Default)]
pub(crate) struct WaitTally {
    samples: BTreeMap<String, u64>,
    /// Completed runs per event (number, total samples).
    runs: BTreeMap<String, (u64, u64)>,
    total: u64,
}

impl WaitTally {
    /// Top `n` events with share of active time and estimated mean wait.
    pub(crate) fn top(&self, n: usize) -> Vec<WaitEvent> {
        let mut v: Vec<WaitEvent> = self
            .samples
            .iter()
            .map(|(event, &count)| {
                let (runs, len) = self.runs.get(event).copied().unwrap_or((0, 0));
                let avg_samples = if runs > 0 {
                    len as f64 / runs as f64
                } else {
                    1.0
                };
                WaitEvent {
                    event: event.clone(),
                    time_pct: round3(100.0 * count as f64 / self.total.max(1) as f64),
                    avg_ms: round3(avg_samples * WAIT_SAMPLE.as_secs_f64() * 1e3),
                }
            })
            .collect();
        v.sort_by(|a, b| {
            b.time_pct
                .total_cmp(&a.time_pct)
                .then(a.event.cmp(&b.event))
        });
        v.truncate(n);
        v
    }
}

/// Samples the active sessions of the workload's database until `stop`.
pub(crate) async fn sample_waits(c: Client, stop: Arc<AtomicBool>) -> WaitTally {
    let mut t = WaitTally::default();
    let mut current: BTreeMap<i32, (String, u64)> = BTreeMap::new();
    let Ok(stmt) = c
        .prepare(
            "SELECT pid, coalesce(wait_event_type || ':' || wait_event, 'CPU')
             FROM pg_stat_activity
             WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid()
               AND datname = current_database()",
        )
        .await
    else {
        return t;
    };
    let mut tick = tokio::time::interval(WAIT_SAMPLE);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    while !stop.load(Ordering::Relaxed) {
        tick.tick().await;
        let Ok(rows) = c.query(&stmt, &[]).await else {
            break;
        };
        let mut seen: BTreeMap<i32, String> = BTreeMap::new();
        for r in rows {
            let pid: i32 = r.get(0);
            let event: String = r.get(1);
            *t.samples.entry(event.clone()).or_default() += 1;
            t.total += 1;
            seen.insert(pid, event);
        }
        // Close runs that ended; extend the ones that go on.
        let ended: Vec<i32> = current
            .keys()
            .copied()
            .filter(|p| seen.get(p) != current.get(p).map(|x| &x.0))
            .collect();
        for p in ended {
            if let Some((event, len)) = current.remove(&p) {
                let e = t.runs.entry(event).or_default();
                e.0 += 1;
                e.1 += len;
            }
        }
        for (pid, event) in seen {
            current.entry(pid).or_insert((event, 0)).1 += 1;
        }
    }
    for (_, (event, len)) in current {
        let e = t.runs.entry(event).or_default();
        e.0 += 1;
        e.1 += len;
    }
    t
}
