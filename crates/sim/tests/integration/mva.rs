//! The simulated database's sessions and host CPUs as a closed queueing network, checked
//! against exact mean value analysis (MVA).
//!
//! The network: N sessions, each thinking Z between transactions (a delay station), then one
//! CPU burst of mean D on `cpus` host CPUs (a FCFS station with `cpus` servers). The table
//! fits the buffer cache, and `select-row` commits nothing, so no transaction waits for a
//! disk: the CPU is the only queueing station. With `variability = "exponential"` think
//! times and bursts are exponential, the case MVA solves exactly; its throughput and
//! response time must agree within 5% at every N, below, at and beyond saturation.

use storlab_core::result::Run;

use super::database::{db_run_with, wait};
use super::opts;

/// Exact MVA of a think-time station `z_ms` and one FCFS station of `servers` servers with
/// service demand `d_ms` (the load-dependent form: rate min(j, servers) / d with j
/// present). Returns (throughput per ms, response time ms) for `n` users.
fn mva(n: u32, z_ms: f64, d_ms: f64, servers: u32) -> (f64, f64) {
    let n = n as usize;
    // p[j]: probability of j users at the station, with the population so far.
    let mut p = vec![0.0; n + 1];
    p[0] = 1.0;
    let (mut x, mut r) = (0.0, 0.0);
    for pop in 1..=n {
        let time_of = |j: usize| j as f64 * d_ms / j.min(servers as usize) as f64;
        r = (1..=pop).map(|j| time_of(j) * p[j - 1]).sum::<f64>();
        x = pop as f64 / (z_ms + r);
        for j in (1..=pop).rev() {
            p[j] = x * d_ms / j.min(servers as usize) as f64 * p[j - 1];
        }
        p[0] = 1.0 - p[1..=pop].iter().sum::<f64>();
    }
    (x, r)
}

/// The simulated network: `sessions` sessions, think `z_ms`, CPU burst `d_ms` per
/// transaction on `cpus` CPUs, every block in the buffer cache.
fn simulated(sessions: u32, z_ms: f64, d_ms: f64, cpus: u32) -> Run {
    let extra = format!(
        "sessions = {sessions}\nrows = 1000\nbuffer = \"64MiB\"\nthink = \"{z_ms}ms\"\n\
         client_cpu = \"{d_ms}ms\"\ncpu_per_block = \"0\"\ncpu_per_row = \"0\"\n\
         cpu_per_statement = \"0\"\ncpu_per_commit = \"0\"\n\
         cpus = {cpus}\nvariability = \"exponential\""
    );
    // Long enough for about 40,000 transactions (the mean of 40,000 exponential draws is
    // within 1.5% of its expectation 997 times in 1000).
    let (x_per_ms, _) = mva(sessions, z_ms, d_ms, cpus);
    let duration_s = (40.0 / x_per_ms).ceil() as u64;
    db_run_with("dpaws/select-row", &extra, opts(duration_s, 5, 29))
}

fn tx_per_ms(r: &Run) -> f64 {
    let count: u64 = r.metrics.transactions.iter().map(|t| t.count).sum();
    count as f64 / (r.workload.duration_s * 1e3)
}

fn response_ms(r: &Run) -> f64 {
    r.metrics.tx_latency_ms.expect("tx_latency_ms").mean
}

/// Asserts the simulated network against MVA at each population.
fn check_against_mva(z_ms: f64, d_ms: f64, cpus: u32, populations: &[u32]) {
    for &n in populations {
        let run = simulated(n, z_ms, d_ms, cpus);
        assert_eq!(
            wait(&run, "IO:DataFileRead"),
            (0.0, 0.0),
            "the table must fit the cache: no reads in the window"
        );
        let (x, r) = mva(n, z_ms, d_ms, cpus);
        let (sx, sr) = (tx_per_ms(&run), response_ms(&run));
        let err = |a: f64, b: f64| (a - b).abs() / b;
        assert!(
            err(sx, x) < 0.05 && err(sr, r) < 0.05,
            "N={n} Z={z_ms} ms D={d_ms} ms on {cpus} CPU(s): simulated {:.1} tx/s and \
             {sr:.3} ms, MVA {:.1} tx/s and {r:.3} ms",
            sx * 1e3,
            x * 1e3
        );
    }
}

#[test]
fn one_cpu_matches_mean_value_analysis_below_at_and_beyond_saturation() {
    // N* = (D + Z) / D = 10 sessions.
    check_against_mva(9.0, 1.0, 1, &[1, 4, 8, 10, 12, 16, 30]);
}

#[test]
fn four_cpus_match_the_multi_server_mean_value_analysis() {
    // N* = (D + Z) / (D / 4) = 40 sessions.
    check_against_mva(36.0, 4.0, 4, &[1, 20, 40, 48, 80]);
}

#[test]
fn the_cpus_saturate_at_the_session_count_the_cpu_demand_gives() {
    // D = 2 ms on 2 CPUs, Z = 18 ms: the asymptotes meet at N* = (2 + 18) / 1 = 20. Below
    // N* the CPUs are far from busy; well beyond it they are busy all the time, throughput
    // is the CPUs' 1000 tx/s and each added session only adds its burst to the run queue.
    let busy = |n: u32| {
        let run = simulated(n, 18.0, 2.0, 2);
        // Utilisation law: U = X D / servers, with D the mean burst the run measured.
        let cpu_pct = 100.0 * tx_per_ms(&run) * wait(&run, "CPU").1 / 2.0;
        (tx_per_ms(&run) * 1e3, cpu_pct, response_ms(&run))
    };
    let (x5, u5, _) = busy(5);
    let (x60, u60, r60) = busy(60);
    assert!(
        (u5 - 25.0).abs() < 2.5,
        "5 sessions: CPUs {u5:.1}% busy, not about 25%"
    );
    assert!(u60 > 99.0, "60 sessions: CPUs only {u60:.1}% busy");
    assert!(
        (x60 - 1000.0).abs() / 1000.0 < 0.02,
        "60 sessions: {x60:.0} tx/s, not 1000"
    );
    assert!(x60 / x5 > 3.9, "throughput grew only {:.2} times", x60 / x5);
    // Beyond saturation: R = N / X_max - Z = 60 ms - 18 ms.
    assert!(
        (r60 - 42.0).abs() / 42.0 < 0.05,
        "60 sessions: {r60:.1} ms, not 42 ms"
    );
}

#[test]
fn the_mva_of_the_test_has_the_textbook_values() {
    // One user: no queueing. Many: the bottleneck's rate, R = N D - Z.
    let (x1, r1) = mva(1, 9.0, 1.0, 1);
    assert!((x1 - 0.1).abs() < 1e-12 && (r1 - 1.0).abs() < 1e-12);
    let (x100, r100) = mva(100, 9.0, 1.0, 1);
    assert!((x100 - 1.0).abs() < 1e-6 && (r100 - 91.0).abs() < 1e-3);
    // Four servers with one user each never queue.
    let (_, r4) = mva(4, 1e9, 4.0, 4);
    assert!((r4 - 4.0).abs() < 1e-9);
}
