//! The version gate and the window arithmetic on rows built here, and the query itself on the
//! real PostgreSQL server of this machine.

use super::*;
use crate::cluster::tests::{one_cluster_test_at_a_time, scratch};
use crate::cluster::{find_binaries, Cluster, ClusterSpec};

/// A row with reads and writes and their times; everything else 0.
fn row(
    who: &str,
    context: &str,
    reads: u64,
    read_ms: f64,
    writes: u64,
    write_ms: f64,
) -> PgStatIoRow {
    PgStatIoRow {
        backend_type: who.into(),
        object: "relation".into(),
        context: context.into(),
        reads,
        read_ms,
        writes,
        write_ms,
        ..PgStatIoRow::default()
    }
}

#[test]
fn the_query_is_gated_at_16_and_the_same_for_16_17_and_18() {
    for v in [130_000, 140_011, 150_000, 150_008, 159_999] {
        assert_eq!(pg_stat_io_sql(v), None, "{v}");
    }
    for v in [160_000, 160_004, 170_000, 170_005, 180_000, 180_001] {
        assert_eq!(pg_stat_io_sql(v), Some(SQL), "{v}");
        assert_eq!(too_old(v), None, "{v}");
    }
    assert_eq!(
        too_old(150_008).as_deref(),
        Some("pg_stat_io needs PostgreSQL 16 or later; the server is 15.8")
    );
    // 16 and 17 have op_bytes, 18 has read_bytes, write_bytes and extend_bytes instead.
    assert!(!SQL.contains("_bytes"), "{SQL}");
    for column in [
        "reads",
        "read_time",
        "writes",
        "write_time",
        "writebacks",
        "extends",
        "hits",
        "evictions",
        "fsyncs",
        "fsync_time",
    ] {
        assert!(SQL.contains(&format!("coalesce({column}, 0)")), "{column}");
    }
}

#[test]
fn the_window_subtracts_drops_idle_rows_and_puts_most_reads_plus_writes_first() {
    let before = vec![
        row("client backend", "normal", 100, 50.0, 10, 1.0),
        row("checkpointer", "normal", 0, 0.0, 400, 80.0),
        row("autovacuum worker", "vacuum", 7, 3.0, 0, 0.0),
    ];
    let mut after = vec![
        row("client backend", "normal", 130, 62.5, 12, 1.5),
        row("checkpointer", "normal", 0, 0.0, 460, 92.25),
        row("autovacuum worker", "vacuum", 7, 3.0, 0, 0.0),
    ];
    after[1].fsyncs = 3;
    after[1].fsync_ms = 4.5;
    let rows = window_rows(&before, &after);
    let mut checkpointer = row("checkpointer", "normal", 0, 0.0, 60, 12.25);
    checkpointer.fsyncs = 3;
    checkpointer.fsync_ms = 4.5;
    assert_eq!(
        rows,
        vec![
            checkpointer,
            row("client backend", "normal", 30, 12.5, 2, 0.5),
        ],
        "60 writes before 30 + 2; the idle autovacuum row is dropped"
    );
}

#[test]
fn a_new_row_counts_from_zero_and_a_reset_counter_never_goes_negative() {
    let before = vec![row("client backend", "normal", 500, 90.0, 40, 8.0)];
    let mut bulk = row("client backend", "bulkread", 64, 6.0, 0, 0.0);
    bulk.evictions = 64;
    let after = vec![
        // pg_stat_reset_shared('io') between the snapshots.
        row("client backend", "normal", 20, 3.0, 45, 9.0),
        bulk.clone(),
    ];
    assert_eq!(
        window_rows(&before, &after),
        vec![bulk, row("client backend", "normal", 0, 0.0, 5, 1.0)]
    );
}

#[test]
fn an_unreadable_side_reports_why_instead_of_empty_figures() {
    let read = IoSnapshot::Read {
        rows: vec![row("client backend", "normal", 1, 0.1, 0, 0.0)],
        timing: true,
    };
    let why = too_old(150_008).unwrap_or_default();
    let missing = IoSnapshot::Unavailable(why.clone());
    for (a, b) in [(&missing, &missing), (&read, &missing), (&missing, &read)] {
        let io = a.diff(b);
        assert_eq!(io.unavailable.as_deref(), Some(why.as_str()));
        assert!(io.rows.is_empty());
    }
    let later = IoSnapshot::Read {
        rows: vec![row("client backend", "normal", 5, 0.9, 0, 0.0)],
        timing: true,
    };
    let io = read.diff(&later);
    assert_eq!(io.unavailable, None);
    assert!(io.timing);
    assert_eq!(
        io.rows,
        vec![row("client backend", "normal", 4, 0.8, 0, 0.0)]
    );
}

#[test]
fn the_summary_keeps_the_busiest_rows_with_mean_ms_per_read_and_write() {
    let mut quiet = row("background writer", "normal", 0, 0.0, 0, 0.0);
    quiet.extends = 9;
    let io = PgStatIo {
        unavailable: None,
        timing: true,
        rows: vec![
            quiet,
            row("client backend", "normal", 400, 100.0, 0, 0.0),
            row("checkpointer", "normal", 0, 0.0, 1000, 250.0),
            row("autovacuum worker", "vacuum", 10, 1.0, 10, 3.0),
        ],
    };
    let s = io_summary(&io, 2);
    assert_eq!(s.more, 2);
    let names: Vec<&str> = s.lines.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "checkpointer / relation / normal",
            "client backend / relation / normal"
        ]
    );
    assert_eq!(s.lines[0].write_avg_ms, Some(0.25));
    assert_eq!(s.lines[0].read_avg_ms, None, "no reads, no mean");
    assert_eq!(s.lines[1].read_avg_ms, Some(0.25));
    assert_eq!(s.lines[1].reads, 400);
    let all = io_summary(&io, 10);
    assert_eq!(all.more, 0);
    assert_eq!(all.lines[2].name, "autovacuum worker / relation / vacuum");
    assert_eq!(all.lines[3].extends, 9, "extends only: last");
}

#[test]
fn without_track_io_timing_the_summary_has_counts_but_no_means() {
    let io = PgStatIo {
        unavailable: None,
        timing: false,
        rows: vec![row("client backend", "normal", 400, 0.0, 20, 0.0)],
    };
    let line = &io_summary(&io, 5).lines[0];
    assert_eq!((line.reads, line.writes), (400, 20));
    assert_eq!((line.read_avg_ms, line.write_avg_ms), (None, None));
    assert!(io_summary(&PgStatIo::default(), 5).lines.is_empty());
}

/// pg_stat_io's columns in 16 and 17, and in 18 (`op_bytes` gone, three `_bytes` added).
const COLUMNS_16_17: &str = "backend_type text, object text, context text,
    reads int8, read_time float8, writes int8, write_time float8, writebacks int8,
    writeback_time float8, extends int8, extend_time float8, op_bytes int8, hits int8,
    evictions int8, reuses int8, fsyncs int8, fsync_time float8, stats_reset timestamptz";
const COLUMNS_18: &str = "backend_type text, object text, context text,
    reads int8, read_bytes numeric, read_time float8, writes int8, write_bytes numeric,
    write_time float8, writebacks int8, writeback_time float8, extends int8,
    extend_bytes numeric, extend_time float8, hits int8, evictions int8, reuses int8,
    fsyncs int8, fsync_time float8, stats_reset timestamptz";

/// The server here may be older than 16: the view's column layouts of 16/17 and of 18 are
/// built as tables on it (searched before pg_catalog), so the real server parses, casts and
/// returns what the query asks of each layout; NULL cells are what the view shows for an
/// operation a row cannot do.
#[test]
fn the_query_runs_on_the_columns_of_16_17_and_18_on_a_real_server() {
    let _one = one_cluster_test_at_a_time();
    let dir = scratch();
    let bins = find_binaries(None).expect("PostgreSQL server binaries");
    let spec = ClusterSpec {
        data_dir: dir.path().join("data"),
        ..ClusterSpec::default()
    };
    let cluster = Cluster::start(&bins, &spec).expect("start");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let config = cluster.conninfo("postgres").parse().expect("conninfo");
        let c = crate::driver::connect(&config)
            .await
            .expect("connect");
        let num: i32 = c
            .query_one("SHOW server_version_num", &[])
            .await
            .expect("version")
            .get::<_, String>(0)
            .parse()
            .expect("number");
        match (too_old(num), IoSnapshot::take(&c, num).await) {
            (Some(why), taken) => assert_eq!(taken, IoSnapshot::Unavailable(why)),
            (None, taken) => assert!(matches!(taken, IoSnapshot::Read { .. }), "{taken:?}"),
        }
        for (schema, version, columns) in [("v16", 160_004, COLUMNS_16_17), ("v18", 180_000, COLUMNS_18)] {
            c.batch_execute(&format!(
                "CREATE SCHEMA {schema}; CREATE TABLE {schema}.pg_stat_io ({columns});
                 SET search_path = {schema}, pg_catalog;
                 INSERT INTO pg_stat_io (backend_type, object, context, reads, read_time, writes,
                     write_time, writebacks, extends, hits, evictions, fsyncs, fsync_time)
                 VALUES ('client backend', 'relation', 'normal', 10, 2.5, 3, 0.75, 0, 4, 90, 1, 0, 0),
                        ('checkpointer', 'relation', 'normal', NULL, NULL, 50, 20, 50, NULL, NULL, NULL, 2, 1.5);"
            ))
            .await
            .expect("layout");
            let before = IoSnapshot::take(&c, version).await;
            let IoSnapshot::Read { rows, timing } = &before else {
                panic!("{schema}: {before:?}");
            };
            assert_eq!(rows.len(), 2, "{schema}");
            assert!(*timing, "storlab's clusters run with track_io_timing on");
            c.batch_execute(
                "UPDATE pg_stat_io SET reads = reads + 6, read_time = read_time + 1.5, hits = hits + 30
                     WHERE backend_type = 'client backend';",
            )
            .await
            .expect("update");
            let io = before.diff(&IoSnapshot::take(&c, version).await);
            let mut expected = row("client backend", "normal", 6, 1.5, 0, 0.0);
            expected.hits = 30;
            assert_eq!(io.rows, vec![expected], "{schema}: the idle checkpointer row is dropped");
        }
    });
    cluster.stop().expect("stop");
}
