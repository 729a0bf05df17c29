//! The simulated database over the host's file cache (`os_cache`): buffer misses it serves,
//! victim and database-writer writes copied into it and written back in the background.

use storlab_core::result::Run;
use storlab_sim::parse_workload;

use super::database::{db_run, db_run_with, wait, writes_per_row};
use super::{opts, system, ENTERPRISE_RAID5};

/// The parameters' measured figure `key`.
fn param(run: &Run, key: &str) -> f64 {
    run.workload.parameters[key].as_f64().unwrap_or(-1.0)
}

/// `test` run twice with the same seed: without a file cache, and with one of `size` that
/// takes 3 us per block copied.
fn without_and_with_file_cache(test: &str, base: &str, size: &str, seed: u64) -> (Run, Run) {
    let none = db_run(test, base, 10, seed);
    let cached = db_run(
        test,
        &format!("{base}\nos_cache = \"{size}\"\nos_read = \"3us\""),
        10,
        seed,
    );
    (none, cached)
}

#[test]
fn the_host_file_cache_serves_buffer_misses_without_device_reads() {
    // 200,000 rows (about 30 MiB) behind a 4 MiB buffer: most blocks miss the buffer.
    let base = "sessions = 16\nrows = 200000\nbuffer = \"4MiB\"";
    let (none, cached) = without_and_with_file_cache("dpaws/select-row", base, "64MiB", 1);
    assert!(none.metrics.read_iops > 100.0, "{}", none.metrics.read_iops);
    // The warm-up read the table into the file cache: no device reads, every miss served.
    assert!(
        cached.metrics.read_iops < 1.0,
        "{}",
        cached.metrics.read_iops
    );
    assert!(param(&cached, "os_cache_hit_pct") > 99.0);
    // The buffer cache is the same size: its hit ratio barely moves (the order sessions
    // touch blocks in changes with the timing).
    let (bn, bc) = (
        param(&none, "buffer_hit_pct"),
        param(&cached, "buffer_hit_pct"),
    );
    assert!(
        bn > 0.0 && (bn - bc).abs() < 2.0,
        "buffer hits {bn}% vs {bc}%"
    );
    // Reads are still DataFileRead waits, as PostgreSQL reports them, of the file-cache time.
    let (_, ms) = wait(&cached, "IO:DataFileRead");
    assert!((ms - 0.003).abs() < 1e-9, "{ms} ms");
    let (n, c) = (
        none.metrics.rows_per_s.unwrap(),
        cached.metrics.rows_per_s.unwrap(),
    );
    assert!(c > 3.0 * n, "rows/s {n} -> {c}");

    // A file cache too small for the table serves about its share of the misses.
    let small = db_run(
        "dpaws/select-row",
        &format!("{base}\nos_cache = \"12MiB\""),
        10,
        1,
    );
    let hit = param(&small, "os_cache_hit_pct");
    assert!(hit > 15.0 && hit < 60.0, "{hit}% of misses");
    assert!(small.metrics.read_iops > 0.3 * none.metrics.read_iops);
}

#[test]
fn the_host_file_cache_absorbs_reads_but_writes_still_reach_the_devices() {
    // Updates: the file cache serves the reads, while every dirtied block is still written to
    // the devices (the model writes through the file cache, as the checkpoint's fsync forces).
    let base = "sessions = 16\nrows = 200000\nbuffer = \"4MiB\"";
    let (none, cached) = without_and_with_file_cache("dpaws/update-row", base, "64MiB", 3);
    assert!(none.metrics.read_iops > 100.0);
    assert!(
        cached.metrics.read_iops < 1.0,
        "{}",
        cached.metrics.read_iops
    );
    let (n, c) = (writes_per_row(&none), writes_per_row(&cached));
    assert!(
        n > 0.0 && c > 0.5 * n && c < 2.0 * n,
        "writes per row {n} vs {c}"
    );
}

#[test]
fn a_bad_file_cache_size_names_the_key() {
    let s = system(ENTERPRISE_RAID5);
    let text = "[database]\ntest = \"dpaws/select-row\"\ntables = 1\nrow_bytes = 100\ndata = \"datavol\"\nlog = \"logvol\"\nos_cache = \"lots\"\n";
    let e = parse_workload(text, "db.toml", &s).unwrap_err().to_string();
    assert!(e.contains("os_cache"), "{e}");
}

#[test]
fn a_warm_file_cache_starts_holding_the_database() {
    // No warm-up: a cold file cache must read the table from the devices first, a warm one
    // (as right after loading the tables through it) serves every buffer miss at once.
    let run = |warm: bool| {
        let extra = format!(
            "sessions = 16\nrows = 200000\nbuffer = \"4MiB\"\nos_cache = \"64MiB\"\nos_cache_warm = {warm}"
        );
        db_run_with("dpaws/select-row", &extra, opts(2, 0, 1))
    };
    let (cold, warm) = (run(false), run(true));
    assert!(cold.metrics.read_iops > 100.0, "{}", cold.metrics.read_iops);
    assert_eq!(warm.metrics.read_iops, 0.0);
    assert!(param(&warm, "os_cache_hit_pct") == 100.0);
}

#[test]
fn a_dirty_victim_written_through_the_file_cache_costs_a_copy_not_a_device_write() {
    // A small buffer: sessions evict dirty blocks the writer has not cleaned yet. Without a
    // file cache they wait for the device write; with one, for the system call and copy
    // (`os_read`), and the device still receives the block in the background.
    let base = "sessions = 16\nrows = 200000\nbuffer = \"2MiB\"\ndbwr_outstanding = 1";
    let (direct, buffered) = without_and_with_file_cache("dpaws/update-row", base, "64MiB", 4);
    let (direct_pct, direct_ms) = wait(&direct, "IO:DataFileWrite");
    let (buffered_pct, buffered_ms) = wait(&buffered, "IO:DataFileWrite");
    assert!(
        direct_pct > 0.0 && direct_ms > 0.05,
        "device writes: {direct_ms} ms"
    );
    assert!(buffered_pct > 0.0, "victims are still written");
    assert!(
        (buffered_ms - 0.003).abs() < 0.0005,
        "through the file cache: {buffered_ms} ms"
    );
    assert!(
        writes_per_row(&buffered) > 0.5 * writes_per_row(&direct),
        "written back to the devices: {} vs {} writes per row",
        writes_per_row(&buffered),
        writes_per_row(&direct)
    );
}

#[test]
fn the_writer_writes_through_the_file_cache_at_copy_speed() {
    // Checkpoints every 2 s hand the writer every dirty block of a 64 MiB buffer, and it has
    // one write in flight: without a file cache it waits for the device on each write; with
    // one, each write is a copy and the devices get the blocks in the background.
    let base = "sessions = 16\nrows = 2000000\nbuffer = \"64MiB\"\ndbwr_outstanding = 1\n\
                checkpoint_interval = \"2s\"";
    let (direct, buffered) = without_and_with_file_cache("dpaws/update-row", base, "1GiB", 6);
    let (d, b) = (
        param(&direct, "writer_blocks_per_s"),
        param(&buffered, "writer_blocks_per_s"),
    );
    assert!(d > 0.0, "the writer writes: {d} blocks/s");
    assert!(
        b > 2.0 * d,
        "writer: {b} blocks/s through the file cache, {d} without"
    );
    assert!(
        buffered.metrics.write_iops > 0.5 * direct.metrics.write_iops,
        "written back to the devices: {} vs {} writes/s",
        buffered.metrics.write_iops,
        direct.metrics.write_iops
    );
}
