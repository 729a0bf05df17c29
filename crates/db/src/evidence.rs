//! The statspack of a run: WAL, checkpoint and pg_stat_io snapshots, per-statement block
//! profiles, and wait events sampled from pg_stat_activity every 10 ms.

pub(crate) mod pg_stat_io;
pub(crate) mod settings;
pub(crate) mod statements;
pub(crate) mod wait_means;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use storlab_core::host_stats::round3;
use storlab_core::result::{CheckpointStats, PgStatIo, WaitEvent, WalStats};
use tokio_postgres::Client;

use crate::error::DbError;
use pg_stat_io::IoSnapshot;
use wait_means::{server_means, wal_from_pg_stat_io, DbReads, WaitMeans};

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
    /// Mean waits the server timed itself (pg_stat_wal, pg_stat_io, pg_stat_database).
    pub wait_means: WaitMeans,
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
    /// pg_stat_database of the workload's database: blocks read and the time (ms).
    db_blks_read: i64,
    db_blk_read_ms: f64,
    version_num: i32,
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
        let d = c
            .query_one(
                "SELECT blks_read, blk_read_time FROM pg_stat_database WHERE datname = current_database()",
                &[],
            )
            .await?;
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
            db_blks_read: d.get(0),
            db_blk_read_ms: d.get(1),
            version_num,
        })
    }

    /// WAL, checkpoint and pg_stat_io figures between `self` (earlier) and `later`.
    pub(crate) fn diff(&self, later: &Snapshot, secs: f64) -> ServerWindow {
        let d = |a: i64, b: i64| (b - a).max(0) as u64;
        let bytes = (later.wal_bytes - self.wal_bytes).max(0.0);
        let io = self.io.diff(&later.io);
        let mut wal = WalStats {
            records: d(self.wal_records, later.wal_records),
            full_page_images: d(self.wal_fpi, later.wal_fpi),
            bytes: bytes as u64,
            mb_per_s: round3(bytes / 1e6 / secs.max(1e-9)),
            writes: d(self.wal_write, later.wal_write),
            syncs: d(self.wal_sync, later.wal_sync),
            write_ms: round3(later.wal_write_ms - self.wal_write_ms),
            sync_ms: round3(later.wal_sync_ms - self.wal_sync_ms),
        };
        let wal_from = if later.version_num >= 180_000 {
            // 18 moved WAL write and sync counts from pg_stat_wal to pg_stat_io.
            wal_from_pg_stat_io(&io, &mut wal);
            "pg_stat_io"
        } else {
            "pg_stat_wal"
        };
        let reads = DbReads {
            blocks: d(self.db_blks_read, later.db_blks_read),
            ms: (later.db_blk_read_ms - self.db_blk_read_ms).max(0.0),
        };
        ServerWindow {
            wait_means: server_means(&wal, wal_from, &io, reads),
            wal,
            checkpoints: CheckpointStats {
                timed: d(self.ckpt_timed, later.ckpt_timed),
                requested: d(self.ckpt_req, later.ckpt_req),
                buffers_checkpoint: d(self.buf_ckpt, later.buf_ckpt),
                buffers_clean: d(self.buf_clean, later.buf_clean),
                buffers_backend: d(self.buf_backend, later.buf_backend),
            },
            io,
        }
    }
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
    /// Top `n` events with their share of active time and mean wait: the server's timing
    /// from `means` when it has one, else [`Self::sampled_mean_ms`], else none.
    pub(crate) fn top(&self, n: usize, means: &WaitMeans) -> Vec<WaitEvent> {
        let mut v: Vec<WaitEvent> = self
            .samples
            .iter()
            .map(|(event, &count)| {
                let share = count as f64 / self.total.max(1) as f64;
                // 13 to 16 spell the WAL events `IO:WALSync`, 17 on `IO:WalSync`.
                let timed = means
                    .iter()
                    .find(|(name, _)| name.eq_ignore_ascii_case(event))
                    .map(|(_, mean)| mean);
                let (avg_ms, avg_from) = match timed {
                    Some(&(ms, from)) => (Some(ms), Some(from.to_string())),
                    None => match self.sampled_mean_ms(event, share) {
                        Some(ms) => (Some(ms), Some("samples".to_string())),
                        None => (None, None),
                    },
                };
                WaitEvent {
                    event: event.clone(),
                    time_pct: round3(100.0 * share),
                    avg_ms,
                    avg_from,
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

    /// Mean wait estimated from run lengths (consecutive samples of one session in the
    /// event) times the interval, when the runs show waits that outlast the interval. Waits
    /// much shorter than the interval that take a share `share` of a session's samples
    /// still fall on consecutive samples by chance, in runs of 1 / (1 - share) samples on
    /// average; only runs of at least two samples and twice that length are taken as single
    /// waits. Shorter runs give no estimate: the sampling cannot time those waits.
    pub(crate) fn sampled_mean_ms(&self, event: &str, share: f64) -> Option<f64> {
        let &(runs, len) = self.runs.get(event)?;
        if runs == 0 || share >= 1.0 {
            return None;
        }
        let mean_run = len as f64 / runs as f64;
        let by_chance = 1.0 / (1.0 - share);
        (mean_run >= 2.0 && mean_run >= 2.0 * by_chance)
            .then(|| round3(mean_run * WAIT_SAMPLE.as_secs_f64() * 1e3))
    }
}

/// Samples the active sessions of the workload's database until `stop`.
pub(crate) async fn sample_waits(c: Arc<Client>, stop: Arc<AtomicBool>) -> WaitTally {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A tally of `total` samples, each event with its sample count and completed runs.
    fn tally(total: u64, events: &[(&str, u64, u64, u64)]) -> WaitTally {
        let mut t = WaitTally {
            total,
            ..WaitTally::default()
        };
        for &(event, count, runs, len) in events {
            t.samples.insert(event.into(), count);
            t.runs.insert(event.into(), (runs, len));
        }
        t
    }

    #[test]
    fn server_timings_win_and_short_sampled_waits_get_no_mean() {
        let t = tally(
            1000,
            &[
                // Half the samples, in runs of 2: what sub-ms fsyncs at 50% give by chance.
                ("IO:WALSync", 500, 250, 500),
                ("LWLock:WALWrite", 300, 200, 300),
                // 10% of samples in runs of 8: waits of about 80 ms.
                ("Lock:transactionid", 100, 12, 96),
                ("CPU", 100, 90, 100),
            ],
        );
        let mut means = WaitMeans::new();
        means.insert("IO:WalSync", (0.12, "pg_stat_wal"));
        let top = t.top(5, &means);
        let get = |e: &str| top.iter().find(|w| w.event == e).unwrap();
        let sync = get("IO:WALSync");
        assert_eq!(sync.time_pct, 50.0);
        assert_eq!(
            (sync.avg_ms, sync.avg_from.as_deref()),
            (Some(0.12), Some("pg_stat_wal")),
            "the server's timing, whatever the spelling of the event"
        );
        let lwlock = get("LWLock:WALWrite");
        assert_eq!((lwlock.avg_ms, lwlock.avg_from.as_deref()), (None, None));
        let lock = get("Lock:transactionid");
        assert_eq!(
            (lock.avg_ms, lock.avg_from.as_deref()),
            (Some(80.0), Some("samples"))
        );
        assert_eq!(get("CPU").avg_ms, None);
        assert_eq!(top[0].event, "IO:WALSync", "largest share first");
    }

    #[test]
    fn chance_runs_grow_with_the_share_and_are_not_taken_for_long_waits() {
        // Runs of 4 samples: long waits at a 10% share, chance at 80% (1 / 0.2 = 5).
        let t = tally(1000, &[("E", 100, 25, 100)]);
        assert_eq!(t.sampled_mean_ms("E", 0.1), Some(40.0));
        assert_eq!(t.sampled_mean_ms("E", 0.8), None);
        assert_eq!(t.sampled_mean_ms("E", 1.0), None);
        assert_eq!(t.sampled_mean_ms("missing", 0.1), None);
    }
}
