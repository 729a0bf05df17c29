//! How long one wait lasts, for the events the server times itself.
//!
//! Sampling pg_stat_activity every 10 ms gives each event's share of session time, but it
//! cannot count waits: a 50 µs WAL fsync seen in one sample looks like a 10 ms one, and a
//! session that fsyncs half the time shows the event in consecutive samples without any
//! single wait spanning them. So the mean of an event comes from the server's own timing of
//! the operation behind it wherever the server keeps one: pg_stat_wal (WAL writes and syncs,
//! 14 to 17), pg_stat_io (client backends' relation reads, writes and fsyncs and, from 18,
//! WAL writes and syncs), pg_stat_database (block reads before 16). Only events without such
//! a timing fall back to the samples (see [`super::WaitTally::top`]).

use std::collections::BTreeMap;

use storlab_core::host_stats::round3;
use storlab_core::result::{PgStatIo, PgStatIoRow, WalStats};

/// Mean wait in ms and the view it comes from, per wait event (`IO:WalSync`).
pub(crate) type WaitMeans = BTreeMap<&'static str, (f64, &'static str)>;

/// Block reads of the workload's database and the time they took (pg_stat_database).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct DbReads {
    pub blocks: u64,
    pub ms: f64,
}

/// Sum of (count, ms) over the rows `keep` selects.
fn total(
    rows: &[PgStatIoRow],
    keep: impl Fn(&PgStatIoRow) -> bool,
    op: impl Fn(&PgStatIoRow) -> (u64, f64),
) -> (u64, f64) {
    rows.iter()
        .filter(|r| keep(r))
        .map(op)
        .fold((0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
}

fn client_relation(r: &PgStatIoRow) -> bool {
    r.backend_type == "client backend" && (r.object == "relation" || r.object == "temp relation")
}

fn wal_normal(r: &PgStatIoRow) -> bool {
    r.object == "wal" && r.context == "normal"
}

fn wal_init(r: &PgStatIoRow) -> bool {
    r.object == "wal" && r.context == "init"
}

fn reads(r: &PgStatIoRow) -> (u64, f64) {
    (r.reads, r.read_ms)
}

fn writes(r: &PgStatIoRow) -> (u64, f64) {
    (r.writes, r.write_ms)
}

fn fsyncs(r: &PgStatIoRow) -> (u64, f64) {
    (r.fsyncs, r.fsync_ms)
}

/// The wait events pg_stat_io times: which rows, which operation.
type Timed = (
    &'static str,
    fn(&PgStatIoRow) -> bool,
    fn(&PgStatIoRow) -> (u64, f64),
);
const PG_STAT_IO_TIMED: [Timed; 5] = [
    ("IO:DataFileRead", client_relation, reads),
    ("IO:DataFileWrite", client_relation, writes),
    ("IO:DataFileSync", client_relation, fsyncs),
    ("IO:WalInitWrite", wal_init, writes),
    ("IO:WalInitSync", wal_init, fsyncs),
];

/// WAL writes and syncs (normal context) from pg_stat_io's `wal` rows, PostgreSQL 18's
/// replacement for pg_stat_wal's counters: every backend type, as pg_stat_wal counted.
pub(crate) fn wal_from_pg_stat_io(io: &PgStatIo, wal: &mut WalStats) {
    let (n_writes, write_ms) = total(&io.rows, wal_normal, writes);
    let (n_syncs, sync_ms) = total(&io.rows, wal_normal, fsyncs);
    wal.writes = n_writes;
    wal.write_ms = round3(write_ms);
    wal.syncs = n_syncs;
    wal.sync_ms = round3(sync_ms);
}

/// The mean of every wait event the window's server counters time; `wal_from` names the view
/// `wal`'s write and sync counts came from (pg_stat_wal, or pg_stat_io on 18). A count without
/// time (track_io_timing or track_wal_io_timing off) gives no mean.
pub(crate) fn server_means(
    wal: &WalStats,
    wal_from: &'static str,
    io: &PgStatIo,
    db_reads: DbReads,
) -> WaitMeans {
    let mut means = WaitMeans::new();
    let mut put = |event: &'static str, (n, ms): (u64, f64), from: &'static str| {
        if n > 0 && ms > 0.0 && !means.contains_key(event) {
            means.insert(event, (round3(ms / n as f64), from));
        }
    };
    if io.unavailable.is_none() {
        for (event, keep, op) in PG_STAT_IO_TIMED {
            put(event, total(&io.rows, keep, op), "pg_stat_io");
        }
    }
    put("IO:WalWrite", (wal.writes, wal.write_ms), wal_from);
    put("IO:WalSync", (wal.syncs, wal.sync_ms), wal_from);
    put(
        "IO:DataFileRead",
        (db_reads.blocks, db_reads.ms),
        "pg_stat_database",
    );
    means
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io_row(who: &str, object: &str, context: &str) -> PgStatIoRow {
        PgStatIoRow {
            backend_type: who.into(),
            object: object.into(),
            context: context.into(),
            ..PgStatIoRow::default()
        }
    }

    #[test]
    fn client_relation_reads_and_wal_syncs_are_timed_per_operation() {
        let io = PgStatIo {
            unavailable: None,
            timing: true,
            rows: vec![
                PgStatIoRow {
                    reads: 400,
                    read_ms: 100.0,
                    ..io_row("client backend", "relation", "normal")
                },
                PgStatIoRow {
                    reads: 100,
                    read_ms: 50.0,
                    ..io_row("client backend", "relation", "bulkread")
                },
                // Not a sampled session: its reads are not the sessions' waits.
                PgStatIoRow {
                    reads: 1000,
                    read_ms: 9000.0,
                    ..io_row("autovacuum worker", "relation", "vacuum")
                },
                PgStatIoRow {
                    writes: 90,
                    write_ms: 9.0,
                    fsyncs: 80,
                    fsync_ms: 40.0,
                    ..io_row("client backend", "wal", "normal")
                },
                PgStatIoRow {
                    writes: 10,
                    write_ms: 1.0,
                    fsyncs: 20,
                    fsync_ms: 10.0,
                    ..io_row("walwriter", "wal", "normal")
                },
                PgStatIoRow {
                    writes: 1,
                    write_ms: 3.0,
                    fsyncs: 1,
                    fsync_ms: 2.0,
                    ..io_row("client backend", "wal", "init")
                },
            ],
        };
        let mut wal = WalStats::default();
        wal_from_pg_stat_io(&io, &mut wal);
        let means = server_means(&wal, "pg_stat_io", &io, DbReads::default());
        assert_eq!(
            means["IO:DataFileRead"],
            (0.3, "pg_stat_io"),
            "150 ms / 500"
        );
        assert_eq!(means["IO:WalWrite"], (0.1, "pg_stat_io"));
        assert_eq!(means["IO:WalSync"], (0.5, "pg_stat_io"));
        assert_eq!(means["IO:WalInitWrite"], (3.0, "pg_stat_io"));
        assert_eq!(means["IO:WalInitSync"], (2.0, "pg_stat_io"));
        assert!(
            !means.contains_key("IO:DataFileWrite"),
            "no writes, no mean"
        );

        assert_eq!((wal.writes, wal.syncs), (100, 100), "normal context only");
        assert_eq!((wal.write_ms, wal.sync_ms), (10.0, 50.0));
    }

    #[test]
    fn older_servers_use_pg_stat_wal_and_pg_stat_database_and_untimed_counts_give_nothing() {
        let old = PgStatIo {
            unavailable: Some("pg_stat_io needs PostgreSQL 16 or later".into()),
            ..PgStatIo::default()
        };
        let wal = WalStats {
            writes: 200,
            write_ms: 4.0,
            syncs: 100,
            sync_ms: 25.0,
            ..WalStats::default()
        };
        let reads = DbReads {
            blocks: 50,
            ms: 10.0,
        };
        let means = server_means(&wal, "pg_stat_wal", &old, reads);
        assert_eq!(means["IO:WalWrite"], (0.02, "pg_stat_wal"));
        assert_eq!(means["IO:WalSync"], (0.25, "pg_stat_wal"));
        assert_eq!(means["IO:DataFileRead"], (0.2, "pg_stat_database"));

        // Counted but not timed (timing settings off): no mean at all.
        let untimed = WalStats {
            write_ms: 0.0,
            sync_ms: 0.0,
            ..wal
        };
        let no_time = DbReads {
            blocks: 50,
            ms: 0.0,
        };
        assert!(server_means(&untimed, "pg_stat_wal", &old, no_time).is_empty());
    }
}
