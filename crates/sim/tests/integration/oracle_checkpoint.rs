//! Oracle's log-switch checkpoints, in isolation on a simulated array: a switch's
//! checkpoint is lazy (its writes follow the log, not all at the switch), the incremental
//! checkpoint keeps the checkpoint position within 90% of a log file of the log's end, and
//! a group the log needs again before its checkpoint completed makes the committing
//! sessions wait (`log file switch (checkpoint incomplete)`).

use storlab_core::result::{Run, WaitEvent};

use super::oracle_engine::{class, run_split};

fn wait<'a>(r: &'a Run, event: &str) -> Option<&'a WaitEvent> {
    r.metrics.waits.iter().find(|w| w.event == event)
}

fn switches(r: &Run) -> usize {
    r.events.iter().filter(|e| e.kind == "log switch").count()
}

/// A cached table updated by 4 sessions thinking 10 ms between rows, over 1 MiB log files:
/// between switches the incremental checkpoint writes what changed 90% of a file ago, so
/// at each switch most of the blocks changed during the file just filled are still dirty.
/// Written at the switch, they would go to the array's write cache within a second, many
/// times the window's mean write rate; the lazy checkpoint spreads them over the next
/// file, and no second carries twice the mean.
const THINKING: &str =
    "test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\nsessions = 4\nthink = \"10ms\"\n\
     rows = 2000000\nbuffer = \"512MiB\"\nlog_file_size = \"1MiB\"\ncheckpoint_interval = 0";

#[test]
fn a_log_switch_does_not_write_the_whole_dirty_set_at_once() {
    let r = run_split(THINKING, 30, 5);
    let in_window = r
        .events
        .iter()
        .filter(|e| e.kind == "log switch" && e.t_s >= 5.0)
        .count();
    assert!(in_window >= 3, "{in_window} switches in the window");
    let writes: Vec<f64> = r.series.iter().map(|p| p.write_iops).collect();
    let mean = writes.iter().sum::<f64>() / writes.len().max(1) as f64;
    let peak = writes.iter().copied().fold(0.0, f64::max);
    assert!(mean > 100.0, "{mean} writes/s");
    assert!(
        peak < 2.0 * mean,
        "peak {peak} writes/s in a second against a mean of {mean}: {writes:?}"
    );
}

/// The incremental checkpoint's log target: at every writer round of the window the
/// checkpoint position (the oldest change not on disk) is within 90% of a log file of the
/// log's end, plus the redo of a round (200 ms, about 3% of a file here) and the writes in
/// flight; and close to it, since only the blocks due are written.
#[test]
fn the_checkpoint_position_stays_within_90_percent_of_a_log_file() {
    let r = run_split(THINKING, 30, 5);
    let lag_pct = r.workload.parameters["checkpoint_lag_max_pct"]
        .as_f64()
        .expect("the checkpoint lag");
    assert!(
        (88.0..=100.0).contains(&lag_pct),
        "largest lag {lag_pct}% of a log file"
    );
    assert!(wait(&r, "log file switch (checkpoint incomplete)").is_none());
}

/// Two groups of 1 MiB, 40 sessions updating a cached table, and a writer with one write
/// in flight: the log needs each group again one file later, before the writer has
/// written the blocks its redo changed. The log writer's first write into the group waits
/// for them ("Checkpoint not complete"), and the committing sessions with it: their time
/// goes to `log file switch (checkpoint incomplete)` rather than `log file sync`.
#[test]
fn a_group_reused_before_its_checkpoint_completed_makes_the_committers_wait() {
    let r = run_split(
        "test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\nsessions = 40\nrows = 2000000\nbuffer = \"512MiB\"\n\
         log_file_size = \"1MiB\"\nlog_files = 2\ncheckpoint_interval = 0\ndbwr_outstanding = 1",
        10,
        2,
    );
    let held = wait(&r, "log file switch (checkpoint incomplete)")
        .expect("committers wait for the checkpoint");
    assert!(held.time_pct > 20.0, "{:?}", r.metrics.waits);
    assert!(held.avg_ms.unwrap_or(0.0) > 1.0, "{held:?}");
    let sync = wait(&r, "log file sync").map_or(0.0, |w| w.time_pct);
    assert!(sync < held.time_pct, "{:?}", r.metrics.waits);
    let holds = r
        .events
        .iter()
        .filter(|e| e.kind == "checkpoint not complete")
        .count();
    assert!(holds >= 2 && switches(&r) >= 4, "{holds} holds");
    assert!(class(&r, "data").metrics.write_iops > 0.0);
}
