//! The simulated database on a simulated array: closed-loop sessions, buffer cache, database
//! writer and log writer with group commit, driven through the volumes and disks.

use storlab_core::result::Run;
use storlab_sim::{parse_workload, simulate};

use super::{bare_array, bare_group, opts, run_database, system, ENTERPRISE_RAID5};

pub(super) fn db_run(test: &str, extra: &str, duration_s: u64, seed: u64) -> Run {
    db_run_with(test, extra, opts(duration_s, 5, seed))
}

/// One table of 100-byte rows (the tests' database unless `extra` gives its own), not the
/// suite's declared data set.
pub(super) fn one_table(extra: &str) -> String {
    let mut out = String::new();
    if !extra.contains("tables") {
        out += "tables = 1\n";
    }
    if !extra.contains("row_bytes") {
        out += "row_bytes = 100\n";
    }
    out
}

/// [`db_run`] with its own run options (warm-up, seed).
pub(super) fn db_run_with(test: &str, extra: &str, o: storlab_sim::RunOptions) -> Run {
    let section = format!(
        "test = \"{test}\"\ndata = \"datavol\"\nlog = \"logvol\"\n{}{extra}",
        one_table(extra)
    );
    run_database(ENTERPRISE_RAID5, &section, o)
}

/// Host writes per row the database completed.
pub(super) fn writes_per_row(r: &Run) -> f64 {
    r.metrics.write_iops / r.metrics.rows_per_s.unwrap()
}

/// An event's (% of time, mean ms) among the run's waits; zeros when absent.
pub(super) fn wait(run: &Run, event: &str) -> (f64, f64) {
    run.metrics
        .waits
        .iter()
        .find(|w| w.event == event)
        .map_or((0.0, 0.0), |w| (w.time_pct, w.avg_ms.unwrap_or(0.0)))
}

#[test]
fn a_buffer_cache_holding_the_table_removes_read_waits() {
    // 200,000 rows: 3,279 heap + 549 index blocks, about 30 MiB.
    let small = db_run(
        "dpaws/select-row",
        "sessions = 16\nrows = 200000\nbuffer = \"4MiB\"",
        10,
        1,
    );
    let big = db_run(
        "dpaws/select-row",
        "sessions = 16\nrows = 200000\nbuffer = \"64MiB\"",
        10,
        1,
    );
    let (small_pct, small_ms) = wait(&small, "IO:DataFileRead");
    let (big_pct, _) = wait(&big, "IO:DataFileRead");
    assert!(
        small_pct > 50.0,
        "small cache: reads dominate ({small_pct}%)"
    );
    assert!(small_ms > 0.0);
    // After the warm-up the whole table is cached: nothing left to read.
    assert!(big_pct < 1.0, "big cache: {big_pct}% read waits");
    assert!(big.metrics.read_iops < 1.0, "{}", big.metrics.read_iops);
    let (s, b) = (
        small.metrics.rows_per_s.unwrap(),
        big.metrics.rows_per_s.unwrap(),
    );
    assert!(b > 3.0 * s, "rows/s {s} -> {b}");
}

#[test]
fn read_waits_equal_the_simulated_read_latency() {
    let r = db_run(
        "dpaws/select-row",
        "sessions = 8\nrows = 2000000\nbuffer = \"8MiB\"",
        10,
        2,
    );
    let (_, avg) = wait(&r, "IO:DataFileRead");
    let host_read = r.metrics.read_latency_ms.as_ref().unwrap().mean;
    assert!(
        (avg - host_read).abs() / host_read < 0.02,
        "wait {avg} ms vs device read {host_read} ms"
    );
}

#[test]
fn updates_commit_through_the_log_with_group_commit() {
    let one = db_run(
        "dpaws/update-row",
        "sessions = 1\nrows = 200000\nbuffer = \"64MiB\"",
        10,
        3,
    );
    let many = db_run(
        "dpaws/update-row",
        "sessions = 64\nrows = 200000\nbuffer = \"64MiB\"",
        10,
        3,
    );
    for r in [&one, &many] {
        assert!(r.metrics.tx_per_min.unwrap() > 0.0);
        assert!(r.metrics.wal_mb_per_s.unwrap() > 0.0);
        assert!(r.metrics.commit_ms.as_ref().unwrap().mean > 0.0);
        assert!(wait(r, "IO:WALSync").0 > 0.0);
    }
    // One session: one 8 KiB log write per commit (two blocks when its 200 bytes cross a
    // block boundary: 8,192 + 200 on average). Many: commits share writes, so log bytes per
    // transaction fall and throughput rises far more than the log writes do.
    let bytes_per_tx =
        |r: &Run| r.metrics.wal_mb_per_s.unwrap() * 1e6 * 60.0 / r.metrics.tx_per_min.unwrap();
    assert!(
        (bytes_per_tx(&one) - 8392.0).abs() < 60.0,
        "{}",
        bytes_per_tx(&one)
    );
    assert!(
        bytes_per_tx(&many) < 0.5 * 8192.0,
        "{}",
        bytes_per_tx(&many)
    );
    assert!(many.metrics.tx_per_min.unwrap() > 10.0 * one.metrics.tx_per_min.unwrap());
    // Selects write no log and commit nothing.
    let sel = db_run("dpaws/select-row", "sessions = 4\nrows = 200000", 5, 3);
    assert!(sel.metrics.tx_per_min.is_none() && sel.metrics.wal_mb_per_s.is_none());
}

#[test]
fn the_writer_keeps_buffers_clean_and_checkpoints_run() {
    let base = "sessions = 32\nrows = 2000000\nbuffer = \"128MiB\"\ncheckpoint_interval = \"5s\"";
    let writer = db_run("dpaws/update-row", base, 10, 4);
    let starved = db_run(
        "dpaws/update-row",
        &format!("{base}\ndbwr_outstanding = 1\ndbwr_interval = \"60s\""),
        10,
        4,
    );
    assert!(
        writer.events.iter().any(|e| e.kind == "checkpoint"),
        "a checkpoint ran"
    );
    // Without a working writer, sessions find dirty victims and write them themselves.
    let (with, without) = (
        wait(&writer, "IO:DataFileWrite").0,
        wait(&starved, "IO:DataFileWrite").0,
    );
    assert!(
        without > 10.0,
        "sessions writing victims without the writer: {without}%"
    );
    assert!(with < 2.0, "with the writer: {with}%");
    let ranges = db_run(
        "dpaws/update-range",
        "sessions = 8\nrows = 200000\nrange_rows = 100",
        10,
        4,
    );
    let rows = db_run("dpaws/update-row", "sessions = 8\nrows = 200000", 10, 4);
    // A range moves 100 rows per commit: far more rows per second than single-row updates.
    assert!(ranges.metrics.rows_per_s.unwrap() > 5.0 * rows.metrics.rows_per_s.unwrap());
}

#[test]
fn database_runs_are_deterministic() {
    let a = db_run(
        "dpaws/update-row",
        "sessions = 16\nrows = 500000\nbuffer = \"8MiB\"",
        5,
        9,
    );
    let b = db_run(
        "dpaws/update-row",
        "sessions = 16\nrows = 500000\nbuffer = \"8MiB\"",
        5,
        9,
    );
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}

#[test]
fn bad_database_sections_name_the_key() {
    let s = system(ENTERPRISE_RAID5);
    for (extra, key) in [
        ("test = \"dpaws/delete-all\"\ntables = 1\nrow_bytes = 100\ndata = \"datavol\"\nlog = \"logvol\"", "database.test"),
        ("test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\ndata = \"nosuch\"\nlog = \"logvol\"", "database.data"),
        ("test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\ndata = \"datavol\"\nlog = \"logvol\"\nsessions = 0", "database.sessions"),
        ("test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\ndata = \"datavol\"\nlog = \"logvol\"\nrows = 100000000000", "database.rows"),
        ("test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\ndata = \"datavol\"\nlog = \"logvol\"\ncolour = 1", "database"),
        ("test = \"dpaws/update-row\"\ntables = 1\ndata = \"datavol\"\nlog = \"logvol\"\nrow_bytes = [805, 14]", "database.row_bytes"),
        ("test = \"dpaws/update-row\"\nrow_bytes = 100\ndata = \"datavol\"\nlog = \"logvol\"\ntables = 0", "database.tables"),
        // The log on one of the data volume's LUNs would overlap the data.
        ("test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\ndata = \"datavol\"\nlog = \"data-0\"", "database.log"),
    ] {
        let text = format!("[database]\n{extra}\n");
        let e = parse_workload(&text, "db.toml", &s).unwrap_err().to_string();
        assert!(e.contains("db.toml") && e.contains(key), "{extra}: {e}");
    }
}

#[test]
fn logs_on_the_data_target_follow_the_data() {
    let s = system(ENTERPRISE_RAID5);
    let text = "[database]\ntest = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\ndata = \"datavol\"\nlog = \"datavol\"\nrows = 200000\nsessions = 8\n";
    let w = parse_workload(text, "db.toml", &s).unwrap();
    let db = w.database.as_ref().unwrap();
    let t = &db.tables[0];
    let data_bytes = (t.heap_blocks() + t.index_blocks()) * 8192;
    let offset = db.log_offset.expect("shared target");
    assert!(
        offset >= data_bytes && offset.is_multiple_of(1 << 20),
        "{offset} vs {data_bytes}"
    );
    let r = simulate(&s, &w, opts(5, 2, 1)).unwrap();
    assert!(r.metrics.tx_per_min.unwrap() > 0.0);
    // The per-second rows add up to the window's rate.
    assert_eq!(r.series.len(), 5);
    let mean = r.series.iter().map(|p| p.rows_per_s.unwrap()).sum::<f64>() / 5.0;
    let rate = r.metrics.rows_per_s.unwrap();
    assert!((mean - rate).abs() / rate < 0.001, "{mean} vs {rate}");
}

#[test]
fn cached_sessions_are_limited_by_the_host_cpus() {
    // The table fits the buffer cache: after the warm-up every operation is CPU only, and 32
    // sessions queue for the CPUs. Throughput = CPUs / CPU time per operation, the server's
    // (its blocks, its row, its statement; a read commits nothing) and, with `client_cpu`, a
    // load generator's on the same CPUs.
    for (cpus, client_us) in [(2u32, 0.0), (4, 0.0), (2, 10.0)] {
        let r = db_run(
            "dpaws/select-row",
            &format!("sessions = 32\nrows = 200000\nbuffer = \"64MiB\"\ncpus = {cpus}\ncpu_per_block = \"5us\"\ncpu_per_row = \"2us\"\n\
                cpu_per_statement = \"10us\"\ncpu_per_commit = \"1ms\"\nclient_cpu = \"{client_us}us\""),
            10,
            6,
        );
        let levels = r.workload.parameters["index_levels"].as_u64().unwrap() as f64;
        let per_op_s = (levels + 1.0) * 5e-6 + 2e-6 + 10e-6 + client_us * 1e-6;
        let expect = f64::from(cpus) / per_op_s;
        let got = r.metrics.rows_per_s.unwrap();
        assert!(
            (got - expect).abs() / expect < 0.02,
            "{cpus} CPUs, client {client_us} us: {got} rows/s vs {expect}"
        );
        assert!(wait(&r, "CPU:RunQueue").0 > 50.0, "sessions wait for CPUs");
    }
}

#[test]
fn sessions_spread_over_every_table_of_the_suite() {
    // Three tables of 200,000 rows from 14 to 805 bytes: heap blocks follow each table's row
    // size, and a cache that holds one table's blocks but not three misses on the others.
    let s = system(ENTERPRISE_RAID5);
    let text = "[database]\ntest = \"dpaws/select-row\"\ndata = \"datavol\"\nlog = \"logvol\"\n\
                tables = 3\nrows = 200000\nrow_bytes = [14, 805]\nsessions = 16\n";
    let w = parse_workload(text, "db.toml", &s).unwrap();
    let db = w.database.as_ref().unwrap();
    let sizes: Vec<u64> = db.tables.iter().map(|t| t.row_bytes).collect();
    assert_eq!(sizes, [14, 409, 805]);
    let one = db_run(
        "dpaws/select-row",
        "sessions = 16\nrows = 200000\nrow_bytes = 805\nbuffer = \"200MiB\"",
        10,
        4,
    );
    let three = db_run(
        "dpaws/select-row",
        "sessions = 16\ntables = 3\nrows = 200000\nrow_bytes = 805\nbuffer = \"200MiB\"",
        10,
        4,
    );
    let heap = |r: &Run| r.workload.parameters["heap_blocks"].as_u64().unwrap();
    assert_eq!(heap(&three), 3 * heap(&one));
    // One table (about 180 MB) stays cached after the warm-up; three do not.
    assert!(
        one.metrics.read_iops < 0.05 * three.metrics.read_iops,
        "{} vs {}",
        one.metrics.read_iops,
        three.metrics.read_iops
    );
    assert!(three.metrics.read_iops > 100.0);
}

/// Data and log on NVMe, the archive on one nearline disk without write cache.
fn archive_array() -> String {
    bare_array(
        "archive-test",
        &[
            bare_group("data", "raid0", 4, "ssd-nvme", "64k"),
            bare_group("log", "jbod", 1, "ssd-nvme", "64k"),
            bare_group("arch", "jbod", 1, "hdd-7k2", "64k"),
        ],
    )
}

fn archive_run(extra: &str) -> Run {
    let section = format!(
        "test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\ndata = \"data\"\n\
         log = \"log\"\nrows = 1000000\nbuffer = \"256MiB\"\nlog_file_size = \"16MiB\"\n\
         log_files = 2\n{extra}"
    );
    run_database(&archive_array(), &section, opts(10, 5, 9))
}

#[test]
fn archiving_copies_every_filled_log_file_and_holds_the_log_when_behind() {
    let class = |r: &Run, name: &str| {
        r.classes
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.metrics.clone())
    };
    // A modest log rate: the archiver keeps up, nothing waits for it.
    let calm = archive_run("sessions = 2\nlog_bytes_per_row = 2000\narchive = \"arch\"");
    let a = class(&calm, "archive").expect("an archive class");
    // Every chunk read is written (at most one 1 MiB chunk apart over the 10 s window).
    assert!(a.read_mbps > 0.5, "{a:?}");
    assert!((a.read_mbps - a.write_mbps).abs() <= 0.11, "{a:?}");
    assert_eq!(wait(&calm, "LogSwitch:ArchiveNeeded").0, 0.0);
    // The host's figures are the sum of the database's roles: data, log and archive.
    let m = &calm.metrics;
    let sum = |f: fn(&storlab_core::result::Metrics) -> f64| {
        calm.classes.iter().map(|c| f(&c.metrics)).sum::<f64>()
    };
    assert_eq!(calm.classes.len(), 3, "{:?}", calm.classes);
    assert!((m.iops - sum(|c| c.iops)).abs() < 0.01, "{m:?}");
    assert!((m.read_mbps - sum(|c| c.read_mbps)).abs() < 0.01, "{m:?}");
    assert!((m.write_mbps - sum(|c| c.write_mbps)).abs() < 0.01, "{m:?}");
    let per_second: f64 = calm.series.iter().map(|p| p.iops).sum();
    assert!(
        (per_second / 10.0 - m.iops).abs() < 0.01 * m.iops,
        "{per_second}"
    );
    // 64 sessions writing 2,000 bytes of log per row outrun one nearline disk: log writes
    // wait for the archiver to free their file.
    let heavy = "sessions = 64\nlog_bytes_per_row = 2000";
    let free = archive_run(heavy);
    let held = archive_run(&format!("{heavy}\narchive = \"arch\""));
    assert!(class(&free, "archive").is_none());
    let (pct, avg_ms) = wait(&held, "LogSwitch:ArchiveNeeded");
    assert!(pct > 10.0 && avg_ms > 0.0, "{pct}% {avg_ms} ms");
    let (f, h) = (
        free.metrics.rows_per_s.unwrap(),
        held.metrics.rows_per_s.unwrap(),
    );
    assert!(h < 0.95 * f, "rows/s {f} without archiving, {h} with");
    // The log cannot outrun its archive for long: the log rate comes down to the copy rate.
    let log = class(&held, "log").unwrap().write_mbps;
    let copied = class(&held, "archive").unwrap().write_mbps;
    assert!(log < 1.3 * copied, "log {log} MB/s, archive {copied} MB/s");
    // The archive cannot share LUNs with the data or the log.
    let s = system(&archive_array());
    let e = parse_workload(
        "[database]\ntest = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\ndata = \"data\"\nlog = \"log\"\narchive = \"log\"\n",
        "db.toml",
        &s,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("database.archive"), "{e}");
}
