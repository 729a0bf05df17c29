//! A job's CPU (the database's CPU per block and per row), its index maintenance (a delete
//! changes every index, an update only the updated column's, a conventional load fills the
//! primary key at its right edge) and its free-buffer waits when the database writer falls
//! behind.

use super::jobs::{elapsed, job, outcome};
use storlab_sim::db::schema::{oracle, BlockFormat};
use storlab_sim::db::Table;

fn table(rows: u64, row_bytes: u64) -> Table {
    Table::full_postgresql(rows, row_bytes)
}

#[test]
fn an_index_build_spends_the_cpu_of_its_rows_and_blocks() {
    let rows = 200_000;
    let keys = format!("rows = {rows}\nrow_bytes = 100\nsort_memory = \"1GiB\"");
    let free = job(
        "job/index-build",
        &format!("{keys}\ncpu_per_row = \"0s\"\ncpu_per_block = \"0s\""),
        600,
    );
    let busy = job(
        "job/index-build",
        &format!("{keys}\ncpu_per_row = \"50us\"\ncpu_per_block = \"5us\""),
        600,
    );
    // 200,000 rows x 50 us + every heap block x 5 us.
    let cpu_s = (rows as f64 * 50e-6) + table(rows, 100).heap_blocks() as f64 * 5e-6;
    let o = outcome(&busy);
    assert!(o.complete);
    assert!((o.cpu_s - cpu_s).abs() < 1e-3, "{} vs {cpu_s}", o.cpu_s);
    assert_eq!(outcome(&free).cpu_s, 0.0);
    // The scan of a 23 MB table takes a fraction of a second: the CPU sets the pace.
    assert!(elapsed(&free) < 0.2 * cpu_s, "{}", elapsed(&free));
    assert!(
        elapsed(&busy) >= cpu_s,
        "{} s, cpu {cpu_s} s",
        elapsed(&busy)
    );
}

#[test]
fn each_batch_of_an_update_spends_its_cpu_before_its_commit() {
    let keys = "rows = 50000\nrows_per_commit = 10000\ncpu_per_row = \"100us\"";
    let run = job("job/update-all", keys, 600);
    let o = outcome(&run);
    let blocks = table(50_000, 100).heap_blocks();
    let cpu_s = 50_000.0 * 100e-6 + blocks as f64 * 5e-6;
    assert!((o.cpu_s - cpu_s).abs() < 1e-3, "{} vs {cpu_s}", o.cpu_s);
    assert!(elapsed(&run) >= cpu_s, "{} s", elapsed(&run));
    assert_eq!(o.commits, 5);
}

#[test]
fn a_delete_changes_the_primary_keys_leaves_and_an_update_only_an_indexed_column() {
    let rows = 50_000;
    let delete = job("orabench/delete-batched", &format!("rows = {rows}"), 600);
    let leaves = *table(rows, 100)
        .index_level_blocks()
        .last()
        .expect("a leaf level");
    let o = outcome(&delete);
    // Every leaf, once per batch (a leaf shared by two batches twice): 50 batches.
    assert!(
        o.index_blocks >= leaves && o.index_blocks <= leaves + 50,
        "{} leaves changed of {leaves}",
        o.index_blocks
    );
    assert!(o.index_reads >= leaves / 2, "{} reads", o.index_reads);
    let keys = format!("rows = {rows}\nrows_per_commit = 10000");
    let plain = job("job/update-all", &keys, 600);
    assert_eq!(outcome(&plain).index_blocks, 0);
    assert_eq!(outcome(&plain).index_reads, 0);
    let indexed = job(
        "job/update-all",
        &format!("{keys}\nindexed_update = true"),
        600,
    );
    let o = outcome(&indexed);
    // Each row's entry leaves its old value's leaf for its new value's.
    assert_eq!(o.index_blocks, 2 * rows);
    assert!(o.index_reads > 0);
    assert!(elapsed(&indexed) > elapsed(&plain));
}

#[test]
fn a_job_waits_for_free_buffers_when_the_writer_falls_behind() {
    // 61 rows per block: 10,000 rows dirty 164 blocks per batch; a 1 MiB cache of 128
    // buffers lets the writer hold 51 before the job waits; one write in flight.
    let keys = "rows = 200000\nrows_per_commit = 10000\ndbwr_outstanding = 1";
    let small = job("job/update-all", &format!("{keys}\nbuffer = \"1MiB\""), 600);
    let o = outcome(&small);
    assert!(o.complete);
    assert!(
        o.free_buffer_waits > 0 && o.free_buffer_wait_s > 0.0,
        "{o:?}"
    );
    let large = job("job/update-all", &format!("{keys}\nbuffer = \"1GiB\""), 600);
    assert_eq!(outcome(&large).free_buffer_waits, 0);
    assert!(elapsed(&small) > elapsed(&large));
}

#[test]
fn indexed_update_is_refused_outside_update_all() {
    let s = super::system(
        &super::bare("jbod", 1, "hdd-10k", "64k").replace("disks = 1", "count = 3\ndisks = 1"),
    );
    let w = "[database]\ntest = \"orabench/delete-batched\"\ndata = \"g-0\"\nlog = \"g-1\"\n\
             indexed_update = true\n";
    let e = super::parse_workload(w, "w.toml", &s)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains("database.indexed_update") && e.contains("job/update-all"),
        "{e}"
    );
}

#[test]
fn an_index_builds_sort_runs_take_the_temp_path() {
    let keys = "rows = 2000000\nrow_bytes = 100\nsort_memory = \"1MiB\"";
    let on_data = job("job/index-build", keys, 600);
    let on_temp = job("job/index-build", &format!("{keys}\ntemp = \"g-2\""), 600);
    let runs = |run: &storlab_core::result::Run| {
        outcome(run)
            .volumes
            .iter()
            .find(|v| v.role == "temp")
            .cloned()
            .expect("a temp volume")
    };
    let (d, t) = (runs(&on_data), runs(&on_temp));
    assert_eq!(d.write_bytes, t.write_bytes);
    assert_eq!((d.target.as_str(), t.target.as_str()), ("g-0", "g-2"));
    // The temp class carries the runs, written and read back once, wherever they go.
    for (run, target) in [(&on_data, "g-0"), (&on_temp, "g-2")] {
        let class = run
            .classes
            .iter()
            .find(|c| c.name == "temp")
            .expect("a temp class");
        assert_eq!(class.target, target);
        let written = class.metrics.write_mbps * 1e6 * elapsed(run);
        assert!(
            (written / d.write_bytes as f64 - 1.0).abs() < 0.01,
            "{written} of {}",
            d.write_bytes
        );
    }
    // The disk of g-2 did the runs' I/O and nothing else; g-0 none of it.
    let disk = |run: &storlab_core::result::Run, name: &str| {
        run.devices
            .iter()
            .find(|x| x.name.starts_with(name))
            .map_or(0.0, |x| x.mbps)
    };
    assert_eq!(disk(&on_data, "g-2"), 0.0);
    assert!(disk(&on_temp, "g-2") > 0.0);
}

/// Index blocks a conventional load of `rows` rows changes, `per_commit` to a batch, with
/// `per_leaf` keys to a leaf and one branch block above the leaves: each batch its leaves
/// and, when it starts a leaf after the first, the branch block; and the leaves started.
fn right_edge_blocks(rows: u64, per_commit: u64, per_leaf: u64) -> (u64, u64) {
    let blocks = (0..rows.div_ceil(per_commit))
        .map(|b| {
            let (first, end) = (b * per_commit, ((b + 1) * per_commit).min(rows));
            let leaves = (end - 1) / per_leaf - first / per_leaf + 1;
            let splits = (end - 1) / per_leaf - (first.max(1) - 1) / per_leaf;
            leaves + u64::from(splits > 0)
        })
        .sum();
    (blocks, (rows - 1) / per_leaf)
}

#[test]
fn a_conventional_load_fills_the_primary_key_at_its_right_edge() {
    let (rows, per_commit) = (20_000, 100);
    let keys = format!("rows = {rows}\nrow_bytes = 300\nrows_per_commit = {per_commit}");
    let pg = job("job/load-conventional", &keys, 600);
    // PostgreSQL: 366 keys of 8 bytes per leaf (90% full), 55 leaves under the root; each
    // key a 64-byte insert record, and each new leaf's entry in the root one more.
    let per_leaf = table(rows, 300).keys_per_leaf();
    assert_eq!(per_leaf, 366);
    let (blocks, splits) = right_edge_blocks(rows, per_commit, per_leaf);
    let o = outcome(&pg);
    assert_eq!(o.index_blocks, blocks);
    // Every leaf the load changes it formatted itself and kept in the buffer cache.
    assert_eq!(o.index_reads, 0);
    let commits = rows / per_commit;
    assert_eq!(
        o.redo_bytes,
        rows * 150 + commits * 50 + (rows + splits) * 64
    );
    // Oracle: full leaves after 90-10 splits (501 keys of 4 bytes), each key logged as an
    // insert-leaf-row change (64 bytes and the 14-byte entry) with an undo record (70 and
    // the entry) beside the row's own (70).
    let ora = job(
        "job/load-conventional",
        &format!("{keys}\nengine = \"oracle\""),
        600,
    );
    let key = oracle::number_bytes(rows);
    let entry = oracle::leaf_entry_bytes(key);
    let t = Table {
        key_bytes: key,
        format: BlockFormat::Oracle,
        ..table(rows, 300)
    };
    let per_leaf = t.right_edge_capacity().0;
    assert_eq!((entry, per_leaf), (14, 501));
    let (blocks, splits) = right_edge_blocks(rows, per_commit, per_leaf);
    let o = outcome(&ora);
    assert_eq!(o.index_blocks, blocks);
    let undo = rows * (70 + 70 + entry);
    let redo = rows * 150 + commits * 50 + (rows + splits) * (64 + entry) + undo;
    assert_eq!(o.redo_bytes, redo);
}
