//! `--warmup auto`: the warm-up lasts until the series is steady, on whole simulated seconds,
//! deterministically; a run that reaches the limit first is measured and marked not steady.

use storlab_core::result::Run;
use storlab_sim::RunOptions;

use super::database::db_run_with;
use super::{opts, run_profile, system, MIDRANGE_RAID5};

fn auto(duration_s: u64, max_s: u64, seed: u64) -> RunOptions {
    RunOptions {
        warmup_auto: true,
        ..opts(duration_s, max_s, seed)
    }
}

fn json(run: &Run) -> String {
    serde_json::to_string(run).expect("serialize")
}

#[test]
fn a_database_warms_up_until_steady_and_says_so() {
    let db = "sessions = 40\nrows = 200000\nbuffer = \"64MiB\"";
    let a = db_run_with("dpaws/update-row", db, auto(20, 600, 3));
    let warmup = a.workload.warmup_s;
    assert!(a.workload.warmup_auto);
    assert!(a.steady, "{:?}", a.steady_reason);
    // At least one full window of the steady-state test, on a whole second, below the limit.
    assert!((60.0..600.0).contains(&warmup), "warm-up {warmup} s");
    assert_eq!(warmup.fract(), 0.0);
    assert_eq!(a.workload.duration_s, 20.0);
    assert_eq!(a.series.len(), 20);
    // Same seed, same bytes.
    let b = db_run_with("dpaws/update-row", db, auto(20, 600, 3));
    assert_eq!(json(&a), json(&b));
}

#[test]
fn a_warmup_limit_reached_first_is_measured_and_marked_unsteady() {
    let s = system(MIDRANGE_RAID5);
    let run = run_profile(&s, "randwrite-8k", auto(10, 3, 1));
    assert_eq!(run.workload.warmup_s, 3.0);
    assert!(run.metrics.ios > 0);
    assert!(!run.steady);
    let reason = run.steady_reason.unwrap_or_default();
    assert!(
        reason.starts_with("no steady state within the 3 s warm-up limit: only 3 one-second"),
        "{reason}"
    );
}

#[test]
fn a_fixed_warmup_still_reports_whether_the_window_was_steady() {
    let s = system(MIDRANGE_RAID5);
    // The write cache fills during the first seconds: throughput falls, then holds.
    let early = run_profile(&s, "randwrite-8k", opts(10, 0, 1));
    assert!(!early.steady);
    assert!(!early.workload.warmup_auto);
    let reason = early.steady_reason.unwrap_or_default();
    assert!(reason.starts_with("IOPS still falling"), "{reason}");
}
