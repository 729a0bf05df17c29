//! The summary of each case's rounds (medians and min-max of the ratios), its JSON and the
//! printed table with the goals met or not.

use serde_json::{json, Value};

use super::support::{opt, run_json, thousands, verdict, Spread};
use super::{Case, Measured, Round, BLOCK};

/// storlab's IO/s over fio's (median of the rounds): the minimum, and the goal.
const MINIMUM_RATIO: f64 = 0.97;
const GOAL_RATIO: f64 = 1.0;
/// storlab's CPU per I/O over fio's (median of the rounds): at most this.
const CPU_GOAL_RATIO: f64 = 1.0;
/// What each tool's CPU per I/O covers (printed with the table and kept in io.json).
pub const STORLAB_CPU: &str = "storlab: process user+system CPU from the end of the warm-up to the end of the window (monitor thread included) / I/Os completed in the window";
const SCHED_CPU: &str = "run time of each tool's I/O threads (storlab: every thread but the monitor; fio: its job processes) by the kernel scheduler's count (/proc/.../schedstat, read every 100 ms by the same watcher process for both), from 0.5 s after the ramp to 0.5 s before the end, per second, over the tool's IO/s";
pub const FIO_CPU: &str = "fio: job thread's user+system CPU from the end of the ramp to the end of the job ((usr_cpu + sys_cpu) / 100 * job_runtime; parent process excluded) / I/Os completed in the window";

/// The medians of one case's rounds.
pub struct Summary {
    ratio: Option<Spread>,
    /// The IO/s ratio of the rounds where storlab ran first, and of those where fio did.
    ratio_storlab_first: Option<Spread>,
    ratio_fio_first: Option<Spread>,
    cpu_ratio: Option<Spread>,
    /// The CPU ratio of the rounds where both tools ran on the same CPU.
    cpu_ratio_same_cpu: Option<Spread>,
    /// The ratio of the I/O threads' scheduler CPU per I/O.
    sched_cpu_ratio: Option<Spread>,
    storlab_sched_cpu: Option<Spread>,
    fio_sched_cpu: Option<Spread>,
    storlab_iops: Option<Spread>,
    fio_iops: Option<Spread>,
    storlab_cpu: Option<Spread>,
    fio_cpu: Option<Spread>,
}

pub fn summarize(rounds: &[Round]) -> Summary {
    type Pick = fn(&Round) -> Option<&Measured>;
    let storlab: Pick = |r| r.storlab.as_ref().ok();
    let fio: Pick = |r| r.fio.as_ref().ok();
    let spread =
        |pick: Pick, f: fn(&Measured) -> f64| Spread::of(rounds.iter().filter_map(pick).map(f));
    let sched = |pick: Pick| {
        Spread::of(
            rounds
                .iter()
                .filter_map(pick)
                .filter_map(Measured::sched_cpu_ns_per_io),
        )
    };
    let by_order = |fio_first: bool| {
        Spread::of(
            rounds
                .iter()
                .filter(|r| r.fio_first == fio_first)
                .filter_map(Round::iops_ratio),
        )
    };
    Summary {
        ratio: Spread::of(rounds.iter().filter_map(Round::iops_ratio)),
        ratio_storlab_first: by_order(false),
        ratio_fio_first: by_order(true),
        cpu_ratio: Spread::of(rounds.iter().filter_map(Round::cpu_ratio)),
        cpu_ratio_same_cpu: Spread::of(
            rounds
                .iter()
                .filter(|r| r.same_cpu())
                .filter_map(Round::cpu_ratio),
        ),
        sched_cpu_ratio: Spread::of(rounds.iter().filter_map(Round::sched_cpu_ratio)),
        storlab_sched_cpu: sched(storlab),
        fio_sched_cpu: sched(fio),
        storlab_iops: spread(storlab, |m| m.iops),
        fio_iops: spread(fio, |m| m.iops),
        storlab_cpu: spread(storlab, |m| m.cpu_ns_per_io),
        fio_cpu: spread(fio, |m| m.cpu_ns_per_io),
    }
}

pub fn case_json(case: &Case, args: &[String], rounds: &[Round], s: &Summary) -> Value {
    let median = |x: Option<Spread>| x.map(|s| s.median);
    let r = median(s.ratio);
    let c = median(s.cpu_ratio);
    json!({
        "case": case.name, "rw": "randread", "block_bytes": BLOCK, "direct": true, "jobs": 1,
        "iodepth": case.iodepth, "engine": case.fio_engine,
        "ratio": Spread::json(s.ratio),
        "ratio_storlab_first": Spread::json(s.ratio_storlab_first),
        "ratio_fio_first": Spread::json(s.ratio_fio_first),
        "cpu_ratio": Spread::json(s.cpu_ratio),
        "cpu_ratio_same_cpu": Spread::json(s.cpu_ratio_same_cpu),
        "sched_cpu_ratio": Spread::json(s.sched_cpu_ratio),
        "storlab_sched_cpu_ns_per_io": Spread::json(s.storlab_sched_cpu),
        "fio_sched_cpu_ns_per_io": Spread::json(s.fio_sched_cpu),
        "sched_cpu_goal_met": median(s.sched_cpu_ratio).map(|c| c <= CPU_GOAL_RATIO),
        "minimum_ratio": MINIMUM_RATIO, "goal_ratio": GOAL_RATIO, "cpu_goal_ratio": CPU_GOAL_RATIO,
        "minimum_met": r.map(|r| r >= MINIMUM_RATIO),
        "goal_met": r.map(|r| r >= GOAL_RATIO),
        "cpu_goal_met": c.map(|c| c <= CPU_GOAL_RATIO),
        "storlab_iops": Spread::json(s.storlab_iops),
        "fio_iops": Spread::json(s.fio_iops),
        "storlab_cpu_ns_per_io": Spread::json(s.storlab_cpu),
        "fio_cpu_ns_per_io": Spread::json(s.fio_cpu),
        "fio_command": format!("fio {}", args.join(" ")),
        "rounds": rounds.iter().enumerate().map(|(i, r)| json!({
            "round": i + 1, "first": if r.fio_first { "fio" } else { "storlab" },
            "storlab": run_json(&r.storlab, Measured::json),
            "fio": run_json(&r.fio, Measured::json),
            "ratio": r.iops_ratio(), "cpu_ratio": r.cpu_ratio(), "same_cpu": r.same_cpu(),
            "sched_cpu_ratio": r.sched_cpu_ratio(),
        })).collect::<Vec<_>>(),
    })
}

pub fn print_table(cases: &[(&Case, Summary)]) {
    let median = |x: Option<Spread>| x.map(|s| s.median);
    println!();
    println!(
        "{:<26} {:>12} {:>12} {:>26} {:>13} {:>11} {:>26}",
        "case (medians of rounds)",
        "storlab IO/s",
        "fio IO/s",
        "IO/s ratio (min-max)",
        "storlab ns/IO",
        "fio ns/IO",
        "CPU/IO ratio (min-max)"
    );
    for (case, s) in cases {
        println!(
            "{:<26} {:>12} {:>12} {:>26} {:>13} {:>11} {:>26}",
            case.name,
            opt(median(s.storlab_iops), thousands),
            opt(median(s.fio_iops), thousands),
            Spread::ratio_text(s.ratio),
            opt(median(s.storlab_cpu), thousands),
            opt(median(s.fio_cpu), thousands),
            Spread::ratio_text(s.cpu_ratio),
        );
    }
    println!("(ratios are storlab / fio, the median of the per-round ratios; lower CPU/IO is better for storlab)");
    println!("CPU per I/O, {STORLAB_CPU};\n            {FIO_CPU}");
    for (case, s) in cases {
        println!(
            "{:<26} CPU/IO ratio of the rounds where both ran on the same CPU: {}",
            case.name,
            Spread::ratio_text(s.cpu_ratio_same_cpu)
        );
    }
    for (case, s) in cases {
        println!(
            "{:<26} IO/s ratio by order: storlab first {}, fio first {}",
            case.name,
            Spread::ratio_text(s.ratio_storlab_first),
            Spread::ratio_text(s.ratio_fio_first)
        );
    }
    println!("scheduler CPU per I/O: {SCHED_CPU}");
    for (case, s) in cases {
        let c = median(s.sched_cpu_ratio);
        println!(
            "{:<26} scheduler CPU/IO storlab {} ns, fio {} ns, ratio {}: at most {CPU_GOAL_RATIO:.2}x fio's {}",
            case.name,
            opt(median(s.storlab_sched_cpu), thousands),
            opt(median(s.fio_sched_cpu), thousands),
            Spread::ratio_text(s.sched_cpu_ratio),
            verdict(c.map(|c| c <= CPU_GOAL_RATIO)),
        );
    }
    for (case, s) in cases {
        let (r, c) = (median(s.ratio), median(s.cpu_ratio));
        println!(
            "{:<26} IO/s ratio: minimum {MINIMUM_RATIO:.2}x {}, goal {GOAL_RATIO:.2}x {}; CPU/IO at most {CPU_GOAL_RATIO:.2}x fio's {}",
            case.name,
            verdict(r.map(|r| r >= MINIMUM_RATIO)),
            verdict(r.map(|r| r >= GOAL_RATIO)),
            verdict(c.map(|c| c <= CPU_GOAL_RATIO)),
        );
    }
}
