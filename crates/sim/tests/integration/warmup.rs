//! `--warmup auto`: the warm-up lasts until the series is steady, on whole simulated seconds,
//! deterministically; a run that reaches the limit first is measured and marked not steady.

use storlab_core::result::Run;
use storlab_core::steady::{self, Sample, Verdict, CRITERIA};
use storlab_sim::{parse_workload, simulate, RunOptions};

use super::database::db_run_with;
use super::{opts, run_profile, system, ASM_NOPRFG, MIDRANGE_RAID5};

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

/// The per-second samples of a run's measured window.
fn samples(run: &Run) -> Vec<Sample> {
    run.series.iter().map(Sample::of_point).collect()
}

#[test]
fn a_destage_sawtooth_is_steady_over_whole_cycles() {
    // RAID 5 random 8 KiB writes with destage on at the high watermark and off at the low
    // one (not paced): once the write cache is full, throughput swings a few percent in
    // destage cycles minutes long.
    let s =
        system(&MIDRANGE_RAID5.replace("[controllers]", "[controllers]\npaced_destage = false"));
    let long = run_profile(&s, "randwrite-8k", opts(700, 20, 1));
    let all = samples(&long);
    // Some minutes of it are not flat: judged a minute at a time, the verdict would depend
    // on the phase.
    let minutes = (60..=all.len()).step_by(10);
    let sloped = minutes
        .filter(|&end| !steady::check(&all[..end], "IOPS", &CRITERIA).is_steady())
        .count();
    assert!(sloped > 0, "no minute of the sawtooth is sloped");
    let cycle = steady::cycle::find(steady::cycle::settled(&long_iops(&all)), 10)
        .expect("the destage cycle");
    assert!(cycle.swing_pct > 2.0, "{cycle:?}");
    // Judged over whole cycles, it is steady: the 700 s window, and every window that holds
    // a whole cycle after the same run's earlier seconds.
    assert!(long.steady, "{:?}", long.steady_reason);
    let p = cycle.period_s;
    for start in (p..all.len() - p).step_by(20) {
        let (before, window) = all.split_at(start);
        let v = steady::check_measured(before, &window[..p], "IOPS", &CRITERIA);
        assert!(v.is_steady(), "from {start} s: {v:?}");
    }
    // A window shorter than the cycle is not, whatever its phase, once the seconds before it
    // hold the cycle twice, and it says what to do.
    for start in (2 * p..all.len() - 40).step_by(20) {
        let (before, window) = all.split_at(start);
        let short = steady::check_measured(before, &window[..40], "IOPS", &CRITERIA);
        let Verdict::Unsteady(reason) = short else {
            panic!(
                "40 s of a {} s cycle judged steady (from {start} s)",
                cycle.period_s
            )
        };
        assert!(reason.starts_with("IOPS swings +-"), "{reason}");
        assert!(
            reason.contains(&format!("measure at least {p} s")),
            "{reason}"
        );
    }
    // --warmup auto with a window of a whole cycle: steady.
    let auto_run = run_profile(&s, "randwrite-8k", auto(cycle.period_s as u64, 600, 1));
    assert!(auto_run.steady, "{:?}", auto_run.steady_reason);
}

fn long_iops(s: &[Sample]) -> Vec<f64> {
    s.iter().map(|x| x.throughput).collect()
}

#[test]
fn a_buffer_cache_still_filling_is_not_steady() {
    // The RAID 5 vs RAID 10 study's database (15 tables of 2,000,000 rows, 256 MiB of buffer
    // cache): after 5 s of warm-up the buffer cache is still filling and rows/s still
    // climbing, whatever cycles the array has.
    let s = system(MIDRANGE_RAID5);
    let text = "name = \"db\"\n[database]\ntest = \"dpaws/update-row\"\ndata = \"datavol\"\n\
                log = \"datavol\"\nsessions = 80\ntables = 15\nrows = 2000000\n\
                row_bytes = [14, 805]\nbuffer = \"256MiB\"\n";
    let w = parse_workload(text, "db.toml", &s).unwrap_or_else(|e| panic!("{e}"));
    let early = simulate(&s, &w, opts(10, 5, 1)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!early.steady);
    let reason = early.steady_reason.unwrap_or_default();
    assert!(reason.starts_with("rows/s still rising"), "{reason}");
}

#[test]
fn the_end_of_a_start_up_transient_is_no_cycle() {
    // SSDs mirrored with HDDs under a 60/40 OLTP mix: the write cache takes writes at 11,600
    // IO/s for 25 s, then throughput swings and falls until about 90 s. The swings after the
    // fill are no steady cycle: the automatic warm-up goes on past them.
    let s = system(ASM_NOPRFG);
    let text = include_str!("../../../../examples/workloads/asm-oltp.toml");
    let w = parse_workload(text, "asm-oltp.toml", &s).unwrap_or_else(|e| panic!("{e}"));
    let run = simulate(&s, &w, auto(20, 600, 1)).unwrap_or_else(|e| panic!("{e}"));
    let warmup = run.workload.warmup_s;
    assert!(warmup > 80.0, "warm-up ended at {warmup} s");
    assert!(run.steady, "{:?}", run.steady_reason);
}
