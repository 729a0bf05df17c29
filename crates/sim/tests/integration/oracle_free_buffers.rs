//! Oracle's free buffer waits, in isolation: a buffer handed to the database writer stays
//! pinned until its write completes, so when the writer cannot keep up with the blocks the
//! sessions dirty, sessions find no free buffer within their scan and wait for the writer
//! (`free buffer waits`), and the writer's backlog never exceeds the cache.

use storlab_core::result::Run;

use super::{bare_array, bare_group, opts, run_database};

/// One data disk of `model`, no caches, the log on its own NVMe drive.
fn one_disk_array(model: &str) -> String {
    bare_array(
        "one-disk",
        &[
            bare_group("data", "jbod", 1, model, "64k"),
            bare_group("log", "jbod", 1, "ssd-nvme", "64k"),
        ],
    )
}

/// Random single-row updates over a 2,000,000-row table (about 200 MiB) through a 16 MiB
/// cache (2,048 buffers): nearly every buffer the sessions take is one they dirtied, so
/// the cache can free buffers only as fast as the writer writes them, here with two
/// writes in flight against the sessions' 16 reads.
fn update_run(model: &str, dbwr_outstanding: u32) -> Run {
    let section = format!(
        "test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\ndata = \"data\"\n\
         log = \"log\"\nengine = \"oracle\"\nsessions = 16\nrows = 2000000\n\
         buffer = \"16MiB\"\ndbwr_outstanding = {dbwr_outstanding}"
    );
    run_database(&one_disk_array(model), &section, opts(20, 5, 3))
}

fn parameter(r: &Run, key: &str) -> f64 {
    r.workload.parameters[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no {key}"))
}

fn free_buffer_wait_pct(r: &Run) -> f64 {
    r.metrics
        .waits
        .iter()
        .find(|w| w.event == "free buffer waits")
        .map_or(0.0, |w| w.time_pct)
}

const CACHE_BLOCKS: f64 = 16.0 * 1024.0 / 8.0;

/// A 7,200 rpm disk with two writes in flight writes fewer blocks a second than the
/// sessions' 16 reads bring in: they wait for free buffers, and the blocks handed to the writer and not
/// yet written stay within the cache (each one a pinned buffer).
#[test]
fn a_slow_data_disk_makes_sessions_wait_for_free_buffers_and_bounds_the_backlog() {
    let r = update_run("hdd-7k2", 2);
    let waits_per_s = parameter(&r, "free_buffer_waits_per_s");
    assert!(waits_per_s > 10.0, "{waits_per_s} free buffer waits/s");
    let pct = free_buffer_wait_pct(&r);
    assert!(pct > 5.0, "free buffer waits {pct}% of the sessions' time");
    let backlog = parameter(&r, "writer_backlog_max_blocks");
    assert!(
        backlog > 0.0 && backlog <= CACHE_BLOCKS,
        "the writer's largest backlog {backlog} blocks against a cache of {CACHE_BLOCKS}"
    );
    // The sessions never write a buffer themselves.
    assert_eq!(parameter(&r, "dirty_victim_pct"), 0.0);
}

/// On an NVMe data drive with the writer's default 64 writes in flight the writer keeps
/// up: no session waits for a free buffer.
#[test]
fn a_fast_data_drive_gives_no_free_buffer_waits() {
    let r = update_run("ssd-nvme", 64);
    assert_eq!(parameter(&r, "free_buffer_waits_per_s"), 0.0);
    assert_eq!(free_buffer_wait_pct(&r), 0.0);
    assert!(parameter(&r, "writer_backlog_max_blocks") <= CACHE_BLOCKS);
}
