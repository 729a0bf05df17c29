//! Oracle mechanics beyond the log writer's triggers, each in isolation on a simulated
//! array: the `log buffer space` wait; scans' multiblock and direct path reads.

use storlab_core::character::{Characterization, Engine};
use storlab_core::result::{Run, WaitEvent};
use storlab_sim::config::character_workload;
use storlab_sim::db::scan_path::multiblock_read_count;
use storlab_sim::simulate;

use super::oracle_engine::{class, run_split};
use super::{opts, system, ENTERPRISE_RAID5};

fn wait<'a>(r: &'a Run, event: &str) -> Option<&'a WaitEvent> {
    r.metrics.waits.iter().find(|w| w.event == event)
}

/// Sessions loading 1,000 rows per commit generate 286 bytes of redo a row (100-byte rows:
/// 100 + 52 + 64 bytes of change, 70 of undo) into a 256 KiB log buffer. The log writer,
/// always busy, writes what the buffer holds, and the sessions wait for space in it (`log
/// buffer space`): the rows per second are the log's write bandwidth over the redo per row,
/// and doubling the sessions adds none.
#[test]
fn a_full_log_buffer_makes_sessions_wait_and_caps_them_at_the_log_bandwidth() {
    let run = |sessions: u32| {
        run_split(
            &format!(
                "test = \"orabench/load-conventional\"\nsessions = {sessions}\nrows = 2000000\nrow_bytes = 100\n\
                 rows_per_commit = 1000\nlog_buffer = \"256KiB\"\nbuffer = \"256MiB\""
            ),
            10,
            2,
        )
    };
    let (four, eight) = (run(4), run(8));
    for r in [&four, &eight] {
        let space = wait(r, "log buffer space").expect("sessions wait for log buffer space");
        assert!(space.time_pct > 20.0, "{:?}", r.metrics.waits);
        let lgwr = wait(r, "log file parallel write").expect("the log writer's writes");
        assert!(
            lgwr.time_pct > 95.0,
            "the log writer is always busy: {lgwr:?}"
        );
        // The log device's write bandwidth at the writes' size, one write at a time.
        let log = &class(r, "log").metrics;
        let write_bytes = log.write_mbps * 1e6 / log.write_iops;
        let bandwidth = write_bytes / (lgwr.avg_ms.unwrap_or(0.0) / 1e3);
        assert!(
            (log.write_mbps * 1e6 - bandwidth).abs() < 0.05 * bandwidth,
            "log writes {} MB/s; one at a time of {write_bytes:.0} bytes: {:.3} MB/s",
            log.write_mbps,
            bandwidth / 1e6
        );
        let redo_per_row = 100.0 + 52.0 + 64.0 + 70.0 + 50.0 / 1000.0;
        let rows = r.metrics.rows_per_s.unwrap_or(0.0);
        assert!(
            (rows * redo_per_row - log.write_mbps * 1e6).abs() < 0.05 * log.write_mbps * 1e6,
            "{rows} rows/s of {redo_per_row} bytes of redo; the log writes {} MB/s",
            log.write_mbps
        );
    }
    let (a, b) = (
        four.metrics.rows_per_s.unwrap_or(0.0),
        eight.metrics.rows_per_s.unwrap_or(0.0),
    );
    assert!(
        (b - a).abs() < 0.05 * a && a > 0.0,
        "4 sessions {a} rows/s, 8 sessions {b}"
    );
}

/// An Oracle characterization of one scanning transaction (`scan_blocks` consecutive blocks
/// of a table of `table`) with a buffer cache of `buffer`, run with Oracle's default
/// multiblock read count.
fn scans(scan_blocks: u32, table: &str, buffer: &str) -> Run {
    scans_with(scan_blocks, table, buffer, "").unwrap_or_else(|e| panic!("{e}"))
}

/// [`scans`] with the `[database]` keys in `db`.
fn scans_with(scan_blocks: u32, table: &str, buffer: &str, db: &str) -> Result<Run, String> {
    let text = format!(
        "name = \"scan\"\nengine = \"oracle\"\nsessions = 4\n\
         [[transactions]]\nname = \"scan\"\nweight = 1.0\nlogical_reads = {scan_blocks}\n\
         scan_share = 1.0\ncpu_ms = 0.1\n\
         [[segments]]\nname = \"t\"\nkind = \"table\"\nsize = \"{table}\"\nshare = 1.0\n\
         [instance]\ncpus = 8\nbuffer_cache = \"{buffer}\"\n"
    );
    let s = system(ENTERPRISE_RAID5);
    let c = Characterization::from_toml(&text, "c.toml").unwrap_or_else(|e| panic!("{e}"));
    let mbrc = multiblock_read_count(Engine::Oracle, 8192);
    let db: toml::Table = toml::from_str(db).map_err(|e| e.to_string())?;
    let w = character_workload(&c, db, "c.toml", &s, mbrc).map_err(|e| e.to_string())?;
    simulate(&s, &w, opts(10, 5, 3)).map_err(|e| e.to_string())
}

fn param(r: &Run, key: &str) -> f64 {
    r.workload.parameters[key].as_f64().unwrap_or(0.0)
}

/// Scans of 1,024 blocks of a 4 GiB table under a 1 GiB buffer cache (under a tenth of it:
/// read through the cache) read 1 MiB, 128 blocks, at a time: Oracle's default
/// `db_file_multiblock_read_count` for 8 KiB blocks, reported as `db file scattered read`.
#[test]
fn oracle_scans_read_1_mib_at_a_time_through_the_buffer_cache() {
    let r = scans(1024, "4g", "1g");
    assert_eq!(multiblock_read_count(Engine::Oracle, 8192), 128);
    let per_read = param(&r, "blocks_per_multiblock_read");
    assert!(
        per_read > 100.0 && per_read <= 128.0,
        "{per_read} blocks a read"
    );
    assert!(
        wait(&r, "db file scattered read").is_some(),
        "{:?}",
        r.metrics.waits
    );
    assert!(
        wait(&r, "direct path read").is_none(),
        "{:?}",
        r.metrics.waits
    );
}

/// A 32 MiB table fits a 64 MiB buffer cache. Scans of 800 blocks (under a tenth of the
/// cache's 8,192) go through it, so after the warm-up they read nothing; scans of 2,000
/// blocks read direct path, bypassing the cache: every one reads its blocks from the
/// device again, 128 at a time.
#[test]
fn scans_over_a_tenth_of_the_buffer_cache_read_direct_and_bypass_it() {
    let cached = scans(800, "32m", "64m");
    assert_eq!(class(&cached, "data").metrics.read_iops, 0.0);
    assert!(wait(&cached, "direct path read").is_none());
    let direct = scans(2000, "32m", "64m");
    let event = wait(&direct, "direct path read").expect("direct path reads");
    assert!(event.time_pct > 50.0, "{:?}", direct.metrics.waits);
    assert!(wait(&direct, "db file scattered read").is_none());
    let tx_per_s: f64 = direct.metrics.transactions.iter().map(|t| t.tx_per_s).sum();
    let blocks_per_s = param(&direct, "direct_read_blocks_per_s");
    assert!(
        (blocks_per_s - 2000.0 * tx_per_s).abs() < 0.02 * blocks_per_s && tx_per_s > 1.0,
        "{blocks_per_s} blocks/s read direct for {tx_per_s} scans/s of 2,000 blocks"
    );
    let data = &class(&direct, "data").metrics;
    assert!(
        (data.read_mbps * 1e6 / 8192.0 - blocks_per_s).abs() < 0.02 * blocks_per_s,
        "{} MB/s read",
        data.read_mbps
    );
    let per_read = data.read_mbps * 1e6 / 8192.0 / data.read_iops;
    assert!(
        per_read > 100.0 && per_read <= 128.0,
        "{per_read} blocks a read"
    );
}

/// `db_file_multiblock_read_count` in `[database]` sets the reads' size, within its bounds.
#[test]
fn the_multiblock_read_count_is_a_database_key() {
    let r = scans_with(1024, "4g", "1g", "db_file_multiblock_read_count = 32")
        .unwrap_or_else(|e| panic!("{e}"));
    let per_read = param(&r, "blocks_per_multiblock_read");
    assert!(
        per_read > 28.0 && per_read <= 32.0,
        "{per_read} blocks a read"
    );
    for bad in ["0", "1025"] {
        let key = format!("db_file_multiblock_read_count = {bad}");
        let e = scans_with(1024, "4g", "1g", &key).expect_err("out of bounds");
        assert!(
            e.contains("db_file_multiblock_read_count") && e.contains("1024"),
            "{e}"
        );
    }
}

/// An Oracle mix of queries (10 blocks each) and updates changing `changed` blocks, over a
/// 64 MiB table and a 16 MiB buffer cache (2,048 frames: a commit cleans out at most 204).
fn cleanouts(changed: u32) -> (Run, f64) {
    let text = format!(
        "name = \"cleanout\"\nengine = \"oracle\"\nsessions = 4\n\
         [[transactions]]\nname = \"update\"\nweight = 0.05\nlogical_reads = {changed}\n\
         blocks_changed = {changed}\nredo_bytes = {redo}\ncpu_ms = 0.1\n\
         [[transactions]]\nname = \"query\"\nweight = 0.95\nlogical_reads = 10\ncpu_ms = 0.1\n\
         [[segments]]\nname = \"t\"\nkind = \"table\"\nsize = \"64m\"\nshare = 1.0\n\
         [instance]\ncpus = 8\nbuffer_cache = \"16m\"\n",
        redo = changed * 200
    );
    let s = system(ENTERPRISE_RAID5);
    let c = Characterization::from_toml(&text, "c.toml").unwrap_or_else(|e| panic!("{e}"));
    let mbrc = multiblock_read_count(Engine::Oracle, 8192);
    let w = character_workload(&c, toml::Table::new(), "c.toml", &s, mbrc)
        .unwrap_or_else(|e| panic!("{e}"));
    let r = simulate(&s, &w, opts(10, 5, 3)).unwrap_or_else(|e| panic!("{e}"));
    let updates = r
        .metrics
        .transactions
        .iter()
        .find(|t| t.name == "update")
        .map_or(0.0, |t| t.tx_per_s);
    (r, updates)
}

/// Delayed block cleanout. An update that changes 1,000 blocks commits with at most a tenth
/// of the 2,048-frame buffer cache cleaned out; the rest of its blocks keep their committed
/// but uncleaned transaction, and the queries that visit them later clean them out, each
/// visit dirtying its block and generating redo. An update of 100 blocks (under the tenth)
/// leaves only the blocks the cache evicted or the writer wrote before its commit.
#[test]
fn commits_beyond_a_tenth_of_the_cache_leave_blocks_that_queries_clean_out() {
    let (big, big_rate) = cleanouts(1000);
    let (small, small_rate) = cleanouts(100);
    assert!(
        big_rate > 0.0 && small_rate > 0.0,
        "{big_rate} {small_rate}"
    );
    let left = param(&big, "cleanouts_left_per_s");
    // About 940 distinct blocks of 8,192 a transaction, at most 204 cleaned out.
    assert!(
        left > 0.6 * 1000.0 * big_rate,
        "{left} blocks/s left uncleaned by {big_rate} updates/s of 1,000 blocks"
    );
    let delayed = param(&big, "delayed_cleanouts_per_s");
    assert!(
        delayed > 0.1 * left && delayed <= 1.2 * left,
        "{delayed} delayed cleanouts/s of {left} left/s"
    );
    let small_left = param(&small, "cleanouts_left_per_s");
    assert!(
        small_left < 0.3 * 100.0 * small_rate,
        "{small_left} blocks/s left uncleaned by {small_rate} updates/s of 100 blocks"
    );
    assert!(param(&big, "redo_wastage_bytes_per_s") > 0.0);
}
