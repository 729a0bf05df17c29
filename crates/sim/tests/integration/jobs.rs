//! Fixed-size jobs run to completion: each job's I/O by the arithmetic, its elapsed time
//! against the disk's data-sheet rate, the time limit, and bad keys.

use super::*;
use storlab_core::result::{JobOutcome, JobVolumeIo};
use storlab_sim::db::schema::BlockFormat;
use storlab_sim::db::Table;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

/// Three single-disk JBOD groups `g-0`, `g-1`, `g-2` of hdd-10k without caches.
fn three_disks() -> SystemSpec {
    system(&bare("jbod", 1, "hdd-10k", "64k").replace("disks = 1", "count = 3\ndisks = 1"))
}

/// Runs job `test` with data on `g-0`, log on `g-1` and these `[database]` lines, under a
/// time limit of `limit_s`.
pub(crate) fn job(test: &str, keys: &str, limit_s: u64) -> Run {
    let w = format!("[database]\ntest = \"{test}\"\ndata = \"g-0\"\nlog = \"g-1\"\n{keys}\n");
    run_workload(&three_disks(), &w, opts(limit_s, 0, 1))
}

pub(crate) fn outcome(run: &Run) -> &JobOutcome {
    run.metrics.job.as_ref().expect("a job reports its outcome")
}

fn volume<'a>(run: &'a Run, role: &str) -> &'a JobVolumeIo {
    outcome(run)
        .volumes
        .iter()
        .find(|v| v.role == role)
        .unwrap_or_else(|| panic!("no {role} volume in {:?}", outcome(run).volumes))
}

/// `bytes` rounded up to whole 512-byte sectors.
fn sectors(bytes: u64) -> u64 {
    bytes.div_ceil(512) * 512
}

pub(crate) fn elapsed(run: &Run) -> f64 {
    run.metrics
        .elapsed_s
        .expect("a job reports its elapsed time")
}

#[test]
fn creating_1_gib_writes_1_gib_in_writes_of_the_stated_size() {
    let run = job(
        "job/create-tablespace",
        "size = \"1GiB\"\nwrite_size = \"512KiB\"",
        600,
    );
    let o = outcome(&run);
    assert!(o.complete && o.done_pct == 100.0, "{o:?}");
    let data = volume(&run, "data");
    assert_eq!(data.write_bytes, GIB);
    assert_eq!(data.writes, GIB / (512 << 10));
    assert_eq!(data.read_bytes, 0);
    // The disk under the data target wrote exactly that, over the job's elapsed time.
    let d = &run.devices[0];
    let written = d.mbps * 1e6 * elapsed(&run);
    assert!((written / GIB as f64 - 1.0).abs() < 0.01, "{written}");
    // The window is the job's time; a job has no warm-up, and says how it ended.
    assert!((run.workload.duration_s - elapsed(&run)).abs() < 1e-6);
    assert_eq!(run.workload.warmup_s, 0.0);
    assert!(!run.steady);
    assert!(run
        .steady_reason
        .as_deref()
        .is_some_and(|r| r.starts_with("job: ran to completion")));
}

#[test]
fn creating_a_file_on_one_disk_takes_size_over_the_disks_sequential_rate() {
    // hdd-10k: 80 MB/s on its outer zone, 6 ms per revolution and 0.3 ms per head switch
    // (one per track): 80 MB/s x 6 / 6.3 sustained. Two writes in flight keep the disk
    // streaming (no revolution lost between commands). Tolerance 10%: cylinder seeks and
    // the command overheads the analytic figure leaves out.
    let run = job(
        "job/create-tablespace",
        "size = \"1GiB\"\noutstanding = 2",
        600,
    );
    let rate = 80e6 * 6.0 / 6.3;
    let analytic_s = GIB as f64 / rate;
    let e = elapsed(&run);
    assert!(
        (e - analytic_s).abs() / analytic_s < 0.10,
        "{e} s vs analytic {analytic_s} s"
    );
}

#[test]
fn two_files_created_at_once_on_one_disk_take_longer_than_one() {
    let one = job(
        "job/create-tablespace",
        "size = \"256MiB\"\noutstanding = 2",
        600,
    );
    let two = job(
        "job/create-tablespace",
        "size = \"256MiB\"\noutstanding = 2\nfiles = 2",
        600,
    );
    assert_eq!(volume(&two, "data").write_bytes, 2 * 256 * MIB);
    // They share the disk: at least twice the time of one (and the seeks between them).
    assert!(
        elapsed(&two) > 2.0 * elapsed(&one),
        "two {} s, one {} s",
        elapsed(&two),
        elapsed(&one)
    );
}

#[test]
fn a_copy_reads_and_writes_equal_bytes_on_its_two_volumes() {
    let run = job(
        "job/copy-file",
        "size = \"256MiB\"\nsource = \"g-2\"\noutstanding = 4",
        600,
    );
    let src = volume(&run, "source");
    let dst = volume(&run, "data");
    assert_eq!(src.read_bytes, 256 * MIB);
    assert_eq!(dst.write_bytes, 256 * MIB);
    assert_eq!((src.write_bytes, dst.read_bytes), (0, 0));
    assert_eq!(src.target, "g-2");
    // The source disk only read and the data disk only wrote.
    let disk = |name: &str| {
        run.devices
            .iter()
            .find(|d| d.name.starts_with(name))
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(disk("g-2").write_iops, 0.0);
    assert_eq!(disk("g-0").read_iops, 0.0);
    assert!(outcome(&run).complete);
}

#[test]
fn a_direct_load_writes_the_tables_blocks_once_with_little_redo() {
    let rows = 200_000;
    let run = job(
        "job/load-direct",
        &format!("rows = {rows}\nrow_bytes = 300\nsource = \"g-2\""),
        600,
    );
    let table = Table {
        rows,
        row_bytes: 300,
        fillfactor: 100,
        key_bytes: 8,
        format: BlockFormat::Postgresql,
    };
    let table_bytes = table.heap_blocks() * 8192;
    assert_eq!(volume(&run, "data").write_bytes, table_bytes);
    assert_eq!(volume(&run, "data").read_bytes, 0);
    // The input file, its last read rounded up to a whole sector.
    assert_eq!(volume(&run, "source").read_bytes, sectors(rows * 300));
    let o = outcome(&run);
    assert_eq!(o.commits, 1);
    assert!(
        o.redo_bytes * 1000 < table_bytes,
        "redo {} of a {table_bytes}-byte table",
        o.redo_bytes
    );
    assert!(o.complete);
}

#[test]
fn a_conventional_load_logs_every_row_and_commits_every_interval() {
    let rows = 20_000;
    let per_commit = 100;
    let run = job(
        "job/load-conventional",
        &format!("rows = {rows}\nrow_bytes = 300\nrows_per_commit = {per_commit}"),
        600,
    );
    let o = outcome(&run);
    assert!(o.complete, "{o:?}");
    let commits = rows / per_commit;
    assert_eq!(o.commits, commits);
    // Defaults: 150 log bytes per row, 50 per commit record; PostgreSQL: no undo; each
    // row's key and each new leaf's branch entry a 64-byte B-tree insert record (366 keys
    // per leaf: 54 new leaves).
    assert_eq!(o.redo_bytes, rows * 150 + commits * 50 + (rows + 54) * 64);
    // One session: each commit waits for a log write of its own.
    let log = run
        .classes
        .iter()
        .find(|c| c.name == "log")
        .expect("log class");
    assert!(log.metrics.ios >= commits, "{} log writes", log.metrics.ios);
    // Its input file came from the data target.
    assert_eq!(volume(&run, "data").read_bytes, sectors(rows * 300));
    // With Oracle's undo, each row's undo record adds to the redo.
    let oracle = job(
        "job/load-conventional",
        &format!(
            "rows = {rows}\nrow_bytes = 300\nrows_per_commit = {per_commit}\nengine = \"oracle\""
        ),
        600,
    );
    assert!(outcome(&oracle).redo_bytes > o.redo_bytes);
}

#[test]
fn an_update_and_a_delete_of_every_row_commit_per_interval() {
    let update = job(
        "job/update-all",
        "rows = 50000\nrows_per_commit = 10000",
        600,
    );
    assert_eq!(outcome(&update).commits, 5);
    let delete = job("orabench/delete-batched", "rows = 50000", 600);
    // The real suite's batch: 1,000 rows per commit.
    assert_eq!(outcome(&delete).commits, 50);
    // Both read the whole table with multiblock reads.
    let table = Table {
        rows: 50_000,
        row_bytes: 100,
        fillfactor: 100,
        key_bytes: 8,
        format: BlockFormat::Postgresql,
    };
    assert_eq!(
        volume(&update, "data").read_bytes,
        table.heap_blocks() * 8192
    );
}

#[test]
fn an_index_build_spills_its_sort_only_when_it_does_not_fit() {
    let keys = "rows = 2000000\nrow_bytes = 100";
    let fits = job(
        "job/index-build",
        &format!("{keys}\nsort_memory = \"1GiB\""),
        600,
    );
    assert!(outcome(&fits).volumes.iter().all(|v| v.role != "temp"));
    let spills = job(
        "job/index-build",
        &format!("{keys}\nsort_memory = \"1MiB\""),
        600,
    );
    let temp = volume(&spills, "temp");
    assert!(temp.write_bytes > 0);
    assert_eq!(
        temp.write_bytes, temp.read_bytes,
        "runs written and read once"
    );
    assert_eq!(
        volume(&spills, "data").write_bytes,
        volume(&fits, "data").write_bytes,
        "the same index"
    );
    assert!(elapsed(&spills) > elapsed(&fits));
}

#[test]
fn a_job_that_cannot_finish_in_time_is_reported_incomplete() {
    let run = job("job/create-tablespace", "size = \"1GiB\"", 2);
    let o = outcome(&run);
    assert!(!o.complete);
    assert!(o.done_pct > 0.0 && o.done_pct < 100.0, "{}", o.done_pct);
    assert_eq!(elapsed(&run), 2.0);
    assert_eq!(o.limit_s, 2.0);
    assert!(run
        .steady_reason
        .as_deref()
        .is_some_and(|r| r.contains("incomplete")));
}

#[test]
fn bad_job_keys_name_the_key_and_the_bound() {
    let s = three_disks();
    let bad = |keys: &str| {
        let w = format!(
            "[database]\ntest = \"job/create-tablespace\"\ndata = \"g-0\"\nlog = \"g-1\"\n{keys}\n"
        );
        match parse_workload(&w, "w.toml", &s) {
            Ok(_) => panic!("{keys} accepted"),
            Err(e) => e.to_string(),
        }
    };
    let e = bad("files = 0");
    assert!(e.contains("w.toml") && e.contains("database.files"), "{e}");
    assert!(e.contains("64"), "{e}");
    let e = bad("write_size = \"12KiB\"");
    assert!(
        e.contains("database.write_size") && e.contains("8 KiB"),
        "{e}"
    );
    let e = bad("size = \"1TiB\"");
    assert!(
        e.contains("database.size") && e.contains("data target"),
        "{e}"
    );
    let e = bad("sessions = 4");
    assert!(e.contains("database.sessions"), "{e}");
    // A test that is not a job refuses a job's keys.
    let w = "[database]\ntest = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\ndata = \"g-0\"\nlog = \"g-1\"\nfiles = 2\n";
    let e = parse_workload(w, "w.toml", &s).err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("files")));
}
