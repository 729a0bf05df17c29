//! Every PostgreSQL major at hand: the system's server (15 on Debian bookworm) and the newer
//! ones `make test` installs (16, 17, 18; scripts/pg-newer.sh, listed in
//! STORLAB_TEST_PG_BINS). Their statistics views differ: pg_stat_io from 16, WAL event names
//! from 17, WAL I/O counts moved from pg_stat_wal to pg_stat_io in 18.

use storlab_db::cluster::{find_binaries, Binaries, Cluster, ClusterSpec};
use storlab_db::run_db;

use super::{kept, one, options, query_i64, scratch, serial};

/// Bin directories of the newer majors, from STORLAB_TEST_PG_BINS (colon-separated).
const BINS_VAR: &str = "STORLAB_TEST_PG_BINS";

fn servers() -> Vec<Binaries> {
    let mut all = vec![find_binaries(None).expect("the system's PostgreSQL server binaries")];
    match std::env::var_os(BINS_VAR) {
        Some(list) if !list.is_empty() => {
            for dir in std::env::split_paths(&list) {
                all.push(
                    find_binaries(Some(&dir))
                        .unwrap_or_else(|e| panic!("{BINS_VAR} lists {}: {e}", dir.display())),
                );
            }
        }
        _ => eprintln!(
            "{BINS_VAR} is not set: only the system's PostgreSQL is tested (make test sets it)"
        ),
    }
    all
}

#[test]
fn every_major_reports_wal_io_pg_stat_io_and_server_timed_waits() {
    let _s = serial();
    for bins in servers() {
        let dir = scratch();
        let cluster = Cluster::start(
            &bins,
            &ClusterSpec {
                data_dir: dir.path().join("data"),
                max_connections: 60,
                ..ClusterSpec::default()
            },
        )
        .unwrap_or_else(|e| panic!("PostgreSQL {}: {e}", bins.version));
        let dsn = cluster.conninfo("postgres");
        let num = query_i64(&dsn, "SELECT current_setting('server_version_num')::int8");
        let at = format!("PostgreSQL {} ({})", bins.version, bins.bindir.display());
        let run = one(run_db(&options(kept(dsn), "dpaws", "update-row", 1_000))
            .unwrap_or_else(|e| panic!("{at}: {e}")));
        let db = run.db.as_ref().expect("database evidence");
        assert!(
            db.server_version.starts_with(&bins.version),
            "{at}: {}",
            db.server_version
        );
        // The server's own I/O settings, read from it even over --dsn: 18's asynchronous I/O
        // method among them, and none of 18's names on older servers.
        let setting = |name: &str| db.settings.get(name).map(String::as_str);
        assert_eq!(setting("track_wal_io_timing"), Some("on"), "{at}");
        assert!(
            setting("wal_sync_method").is_some(),
            "{at}: {:?}",
            db.settings
        );
        assert_eq!(
            setting("io_method").is_some(),
            num >= 180_000,
            "{at}: {:?}",
            db.settings
        );

        // Committed updates write and sync WAL, counted and timed on every major (from
        // pg_stat_io on 18, where pg_stat_wal no longer counts them).
        let wal = &db.wal;
        assert!(
            wal.writes > 0 && wal.syncs > 0 && wal.write_ms > 0.0 && wal.sync_ms > 0.0,
            "{at}: {wal:?}"
        );

        // The WAL sync wait's mean is the server's own timing of the syncs, not a multiple of
        // the 10 ms sampling interval.
        let sync = run
            .metrics
            .waits
            .iter()
            .find(|w| w.event.eq_ignore_ascii_case("IO:WalSync"))
            .unwrap_or_else(|| panic!("{at}: no WAL sync wait in {:?}", run.metrics.waits));
        let from = if num >= 180_000 {
            "pg_stat_io"
        } else {
            "pg_stat_wal"
        };
        assert_eq!(sync.avg_from.as_deref(), Some(from), "{at}");
        let avg = sync.avg_ms.expect("a mean");
        assert!(avg > 0.0 && avg < 5.0, "{at}: {avg} ms per WAL sync");
        if num < 180_000 {
            let per_sync = wal.sync_ms / wal.syncs as f64;
            assert!(
                (avg - per_sync).abs() < 1e-3 + per_sync * 1e-3,
                "{at}: {avg} vs {per_sync}"
            );
        }

        let io = db.pg_stat_io.as_ref().expect("a pg_stat_io section");
        if num >= 160_000 {
            assert_eq!(io.unavailable, None, "{at}");
            assert!(
                io.timing,
                "{at}: storlab's settings turn track_io_timing on"
            );
            assert!(
                io.rows.iter().any(|r| r.backend_type == "client backend"
                    && r.object == "relation"
                    && r.hits > 0),
                "{at}: updates hit shared buffers: {:?}",
                io.rows
            );
        } else {
            assert!(io.unavailable.is_some(), "{at}");
        }
        cluster.stop().unwrap();
    }
}
