//! The Oracle engine's mechanics, each in isolation on a simulated array: undo, the log
//! writer's triggers (commit, 3 s, a third of the log buffer), group commit, multiplexed log
//! members, log groups alternating across switches, and the archiver reading the previous
//! group.

use storlab_core::result::{ClassMetrics, Run};
use storlab_sim::db::undo;
use storlab_sim::{parse_workload, simulate};

use super::database::db_run;
use super::{opts, system, ENTERPRISE_RAID5};

/// The enterprise array with its volumes split: tables on four ranks, the log's two members
/// on one rank each, the archive on the log rank.
fn split_array() -> String {
    let head = ENTERPRISE_RAID5
        .split("[[volumes]]")
        .next()
        .expect("the array has volumes");
    format!(
        "{head}
[[volumes]]
name = \"tables\"
kind = \"stripe\"
stripe = \"1m\"
luns = [\"data-0\", \"data-1\", \"data-2\", \"data-3\"]
[[volumes]]
name = \"loga\"
kind = \"concat\"
luns = [\"data-4\"]
[[volumes]]
name = \"logb\"
kind = \"concat\"
luns = [\"data-5\"]
[[volumes]]
name = \"arch\"
kind = \"concat\"
luns = [\"log\"]
"
    )
}

pub(super) fn run_split(extra: &str, duration_s: u64, warmup_s: u64) -> Run {
    let s = system(&split_array());
    let text = format!(
        "name = \"db\"\n[database]\ndata = \"tables\"\nlog = \"loga\"\nengine = \"oracle\"\n{extra}\n"
    );
    let w = parse_workload(&text, "db.toml", &s).unwrap_or_else(|e| panic!("{e}"));
    simulate(&s, &w, opts(duration_s, warmup_s, 3)).unwrap_or_else(|e| panic!("{e}"))
}

pub(super) fn class<'a>(r: &'a Run, name: &str) -> &'a ClassMetrics {
    r.classes
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no class {name}"))
}

/// Log writes (on the group's first member) in the measured window, and their mean size.
fn log_writes(r: &Run, secs: f64) -> (f64, f64) {
    let m = &class(r, "log").metrics;
    let writes = m.write_iops * secs;
    (writes, m.write_mbps * 1e6 * secs / writes.max(1.0))
}

/// With a buffer cache far smaller than the table every changed block is written once, so
/// the data written per updated row counts the blocks each update dirties. A 1,000-row range
/// update of 100-byte rows changes about 16 table blocks; Oracle's undo adds 1,000 records of
/// 120 bytes, 120,000 bytes in undo blocks of 8,100: 15 more blocks, so the data written per
/// row about doubles.
#[test]
fn undo_doubles_the_blocks_a_range_update_writes() {
    let extra = "sessions = 4\nrows = 2000000\nrange_rows = 1000\nbuffer = \"8MiB\"";
    let pg = db_run("dpaws/update-range", extra, 20, 4);
    let ora = db_run(
        "dpaws/update-range",
        &format!("{extra}\nengine = \"oracle\""),
        20,
        4,
    );
    let per_row = |r: &Run| {
        class(r, "data").metrics.write_mbps * 1e6 / r.metrics.rows_per_s.unwrap() / 8192.0
    };
    let (p, o) = (per_row(&pg), per_row(&ora));
    let undo_blocks = 1000.0 * undo::UPDATE_RECORD_BYTES as f64 / undo::BLOCK_RECORD_BYTES as f64;
    let expect = (p * 1000.0 + undo_blocks) / (p * 1000.0);
    assert!(
        (o / p - expect).abs() < 0.15 * expect,
        "blocks written per row: postgresql {p:.4}, oracle {o:.4}: ratio {:.2}, expected {expect:.2}",
        o / p
    );
    // And the log carries the undo's redo: 120 bytes more per row.
    let redo = |r: &Run| r.metrics.wal_mb_per_s.unwrap() * 1e6 / r.metrics.rows_per_s.unwrap();
    let extra_redo = redo(&ora) - redo(&pg);
    assert!(
        (extra_redo - 120.0).abs() < 30.0,
        "redo per row {:.0} -> {:.0}",
        redo(&pg),
        redo(&ora)
    );
}

/// One session loads 100,000 rows per commit: 28.6 MB of redo per transaction (100-byte
/// rows: 100 + 52 + 64 bytes of change and 70 of undo a row). With a 6 MiB log buffer the
/// writer writes each time a third of it (2 MiB) is unwritten, so its writes are about
/// 2 MiB, not one per commit.
#[test]
fn a_third_of_the_log_buffer_starts_a_write_of_that_size() {
    let r = run_split(
        "test = \"orabench/load-conventional\"\nsessions = 1\nrows = 2000000\n\
         rows_per_commit = 100000\nlog_buffer = \"6MiB\"\nbuffer = \"64MiB\"",
        20,
        2,
    );
    let (writes, size) = log_writes(&r, 20.0);
    let third = (6u64 << 20) as f64 / 3.0;
    let commits = r.metrics.tx_per_min.unwrap() / 3.0;
    assert!(
        writes > 3.0 * commits,
        "{writes} writes for {commits} commits"
    );
    assert!(
        size > 0.85 * third && size <= third * 1.001,
        "mean log write {size:.0} bytes; a third of the buffer is {third:.0}"
    );
}

/// One session updates 20 million rows in one transaction that outlasts the window, reading
/// the table block by block: its redo trickles into a log buffer too large (1 GiB) for a
/// third of it to fill, so the log writer writes only on its 3 s timeout: 10 writes in 30 s.
/// With a buffer cache (`buffer`) that holds every block the transaction changes and log
/// files (4 GiB) that the incremental checkpoint's target (90% of one) never reaches, the
/// database writer writes none of its blocks: it would first have the log writer write
/// their redo (the write-ahead rule).
fn one_long_transaction(buffer: &str) -> Run {
    run_split(
        &format!(
            "test = \"dpaws/update-range\"\ntables = 1\nrow_bytes = 100\nsessions = 1\n\
             rows = 20000000\nrange_rows = 20000000\nlog_buffer = \"1GiB\"\n\
             buffer = \"{buffer}\"\ncpu_per_row = 0\ncpu_per_block = 0\n\
             log_file_size = \"4GiB\""
        ),
        30,
        12,
    )
}

#[test]
fn with_no_commit_and_little_redo_the_log_writer_writes_every_3_seconds() {
    let r = one_long_transaction("4GiB");
    let (writes, _) = log_writes(&r, 30.0);
    assert_eq!(r.metrics.tx_per_min, Some(0.0), "no commit in the window");
    assert!(r.metrics.rows_per_s.unwrap_or(0.0) == 0.0);
    assert!(
        (writes - 10.0).abs() <= 1.0,
        "{writes} log writes in 30 s; the 3 s timeout gives 10"
    );
}

/// The same transaction with a 4 MiB buffer cache: the database writer writes its changed
/// blocks soon after their change, and before each such write the log writer must write the
/// change's redo (the write-ahead rule), so the log is written far more often than every 3 s.
#[test]
fn the_writer_writing_a_long_transactions_blocks_makes_the_log_writer_write() {
    let r = one_long_transaction("4MiB");
    let (writes, _) = log_writes(&r, 30.0);
    let posts = r.workload.parameters["dbwr_log_posts_per_s"]
        .as_f64()
        .unwrap_or(0.0);
    assert!(writes > 100.0, "{writes} log writes in 30 s");
    assert!(
        posts * 30.0 > 0.9 * (writes - 11.0),
        "{posts} posts/s: the writer's posts start nearly all of the {writes} writes"
    );
}

/// 80 sessions committing single-row updates: commits arriving while a write is in flight
/// ride on the next one (fewer writes than commits), and every commit's redo is written:
/// each write covers whole 512-byte redo blocks from the last one written, so the bytes
/// written lie between the redo generated and that plus one block a write.
#[test]
fn group_commit_batches_commits_and_conserves_redo() {
    let r = run_split(
        "test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\nsessions = 80\nrows = 1000000\nbuffer = \"64MiB\"",
        10,
        3,
    );
    let log = class(&r, "log");
    let commit = log.commit.as_ref().expect("commit figures");
    let commits = commit.commits_per_s * 10.0;
    let (writes, _) = log_writes(&r, 10.0);
    assert!(
        commit.mean_batch > 2.0,
        "{commits} commits in {writes} writes"
    );
    // Redo of a row update: 150 bytes of change, 120 of undo, a 50-byte commit record.
    let generated = commits * (150.0 + 120.0 + 50.0);
    let written = r.metrics.wal_mb_per_s.unwrap() * 1e6 * 10.0;
    assert!(
        written >= 0.98 * generated && written <= 1.02 * (generated + 512.0 * writes),
        "written {written:.0} bytes; generated {generated:.0}, {writes} writes"
    );
}

/// Two members per group on their own ranks: each gets every log write (the same count and
/// bytes); with 1 MiB groups the log switches often, the groups alternate (0, 1, 2, 0 ...),
/// each switch queues the group just filled for the archiver, which reads it from the first
/// member only (the second has no reads) while the writer fills the next.
#[test]
fn members_get_every_write_groups_alternate_and_the_archiver_reads_the_previous_group() {
    let r = run_split(
        "test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\nsessions = 40\nrows = 1000000\nbuffer = \"64MiB\"\n\
         log_members = [\"logb\"]\narchive = \"arch\"\nlog_file_size = \"1MiB\"\nlog_files = 3",
        10,
        2,
    );
    let (a, b) = (&class(&r, "log").metrics, &class(&r, "log2").metrics);
    assert!(a.write_iops > 10.0);
    // The same writes, but for one issued to both members that completes on one of them
    // only by the end of the 10 s window.
    assert!(
        (a.write_iops - b.write_iops).abs() <= 0.1 + 1e-9,
        "{a:?} {b:?}"
    );
    assert!(
        (a.write_mbps - b.write_mbps).abs() <= 0.1 + 1e-9,
        "{a:?} {b:?}"
    );
    assert_eq!(b.read_iops, 0.0, "the archiver reads one member");
    assert!(class(&r, "archive").metrics.read_iops > 0.0);
    let switches: Vec<u32> = r
        .events
        .iter()
        .filter(|e| e.kind == "log switch")
        .map(|e| e.detail.trim_start_matches("to group ").parse().unwrap())
        .collect();
    let archived: Vec<u32> = r
        .events
        .iter()
        .filter(|e| e.kind == "archive")
        .map(|e| {
            let g = e.detail.trim_start_matches("group ");
            g.split(' ').next().unwrap().parse().unwrap()
        })
        .collect();
    assert!(switches.len() > 5, "{switches:?}");
    for w in switches.windows(2) {
        assert_eq!(w[1], (w[0] + 1) % 3, "groups in turn: {switches:?}");
    }
    // Each switch hands the group it leaves to the archiver.
    assert_eq!(archived.len(), switches.len());
    for (to, from) in switches.iter().zip(&archived) {
        assert_eq!(*from, (to + 2) % 3, "switch to {to} archives {from}");
    }
    assert!(r
        .events
        .iter()
        .filter(|e| e.kind == "archive")
        .all(|e| e.detail.ends_with("from loga")));
}

/// With the table in the buffer cache, dirty blocks leave it only through checkpoints, and
/// Oracle's come from the checkpoint queue: the incremental checkpoint (blocks first changed
/// 90% of a log file ago) and each switch's (the blocks first changed before it, written
/// lazily before the group is reused). Without
/// a timed checkpoint the queue then writes nearly every block changed.
#[test]
fn the_checkpoint_queue_writes_the_changed_blocks_of_a_cached_table() {
    let r = run_split(
        "test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\nsessions = 4\nrows = 2000000\nbuffer = \"512MiB\"\n\
         log_file_size = \"8MiB\"\ncheckpoint_interval = 0",
        30,
        5,
    );
    let queue_per_s = r.workload.parameters["checkpoint_queue_blocks_per_s"]
        .as_f64()
        .expect("the checkpoint queue's figure");
    let writes_per_s = class(&r, "data").metrics.write_iops;
    let switches = r
        .events
        .iter()
        .filter(|e| e.kind == "log switch" && e.t_s >= 5.0)
        .count();
    assert!(switches >= 5, "{switches} switches");
    // Nearly every data write is the queue's (the writer coalesces few: the blocks are
    // random); the rest are the writer's cleaning ahead of the clock hand (90% here).
    assert!(
        queue_per_s > 0.8 * writes_per_s && writes_per_s > 100.0,
        "checkpoint queue {queue_per_s} blocks/s of {writes_per_s} writes/s"
    );
}

/// Oracle runs no timed full checkpoint: `checkpoint_interval` (PostgreSQL's
/// checkpoint_timeout) does not flush the buffer cache; without a log switch and with the
/// queue's targets far off, the changed blocks of a cached table stay dirty in it.
#[test]
fn oracle_flushes_no_dirty_buffer_at_the_checkpoint_interval() {
    let r = run_split(
        "test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\nsessions = 4\nrows = 2000000\nbuffer = \"512MiB\"\n\
         log_file_size = \"4GiB\"\ncheckpoint_interval = \"2s\"",
        20,
        5,
    );
    let kinds = |kind: &str| r.events.iter().filter(|e| e.kind == kind).count();
    assert_eq!(kinds("log switch"), 0, "the log does not switch");
    assert_eq!(kinds("checkpoint"), 0, "no checkpoint every 2 s");
    let writes_per_s = class(&r, "data").metrics.write_iops;
    assert!(writes_per_s < 10.0, "{writes_per_s} data writes/s");
}
