//! From the runs of a users sweep to its points, its answer and its knee.
//!
//! The answer (`max_users`) is the largest user count measured whose statistic stays at or
//! under the target while every smaller count measured does too (a count past a miss does
//! not count even if noise brings it back under).
//!
//! The knee is Kleinrock's optimal number of users, N* = (D + Z) / D_max: where the
//! throughput curve's two asymptotes meet, N / (D + Z) with no queueing and 1 / D_max with
//! the bottleneck saturated. D is the smallest mean response time measured (at 1 user, with
//! no queueing, unless a cold cache slowed it), Z the think time, D_max the largest service
//! demand of a station, each measured by the utilisation law (demand = utilisation /
//! throughput) at the point of highest throughput: the host CPUs (their busy time divided by
//! their number) and every device. When no utilisation was measured, or the throughput
//! curve has flattened (half again as many users gained less than 10%) more than 10% short
//! of what the measured stations allow (an unmeasured station is the bottleneck), D_max is
//! 1 / the highest throughput measured (named `throughput`): at least the true D_max, so
//! N* is then a lower bound.

use storlab_core::histogram::round_to;
use storlab_core::result::{DeviceUtil, Knee, Run, UsersPoint, UsersSweep};

use super::{users_of, SweepSpec};

/// What the knee needs besides the runs.
#[derive(Clone, Debug, Default)]
pub struct Setting {
    /// Each user's think time, ms.
    pub think_ms: f64,
    /// The CPUs of a real server (None: a simulated run's own, or unknown).
    pub host_cpus: Option<u32>,
    /// A simulated array's destage operations outstanding at most, per RAID group.
    pub destage_slots: Vec<(String, u32)>,
}

/// Devices kept per point, busiest first.
const DEVICES_KEPT: usize = 3;

/// The chosen statistic of a run's transaction response time, ms.
pub fn statistic(run: &Run, stat: &str) -> Option<f64> {
    let t = run.metrics.tx_latency_ms.as_ref()?;
    Some(match stat {
        "mean" => t.mean,
        "p99" => t.p99,
        _ => t.p95,
    })
}

/// Whether a run meets the target (a run without transaction times never does).
pub fn passes(run: &Run, spec: &SweepSpec) -> bool {
    statistic(run, &spec.statistic).is_some_and(|v| v <= spec.max_response_ms)
}

/// The target over a run's statistic (above 1: the run met the target with room to spare).
pub fn headroom(run: &Run, spec: &SweepSpec) -> Option<f64> {
    let v = statistic(run, &spec.statistic)?;
    (v > 0.0).then(|| spec.max_response_ms / v)
}

/// Transactions per second of every type together.
pub fn tx_per_s(run: &Run) -> f64 {
    let m = &run.metrics;
    if !m.transactions.is_empty() {
        return m.transactions.iter().map(|t| t.tx_per_s).sum();
    }
    m.tx_per_min.map_or(0.0, |t| t / 60.0)
}

/// Host CPUs busy, percent: the simulated database's CPU time per transaction (its `CPU`
/// wait) over its CPUs, or a real server's CPU per transaction over `host_cpus`.
fn cpu_util_pct(run: &Run, host_cpus: Option<u32>) -> Option<f64> {
    let x = tx_per_s(run);
    let (cpu_ms, cpus) = match &run.db {
        Some(db) => (db.server_cpu_ns_per_op? / 1e6, f64::from(host_cpus?)),
        None => {
            let cpu = run.metrics.waits.iter().find(|w| w.event == "CPU")?;
            let cpus = run.workload.parameters.get("cpus")?.as_f64()?;
            (cpu.avg_ms?, cpus)
        }
    };
    (cpus > 0.0).then(|| round_to(100.0 * x * cpu_ms / 1e3 / cpus, 1))
}

/// The busiest devices: a simulated array's disks, or the block devices under a real server.
fn busiest_devices(run: &Run) -> Vec<DeviceUtil> {
    let mut all: Vec<DeviceUtil> = run
        .devices
        .iter()
        .map(|d| (d.name.clone(), d.util_pct))
        .chain(
            run.iostat
                .iter()
                .map(|d| (d.device.clone(), d.avg.util_pct)),
        )
        .filter(|d| d.1 > 0.0)
        .map(|(name, util_pct)| DeviceUtil { name, util_pct })
        .collect();
    all.sort_by(|a, b| b.util_pct.total_cmp(&a.util_pct));
    all.truncate(DEVICES_KEPT);
    all
}

/// One point of the sweep.
pub fn point(users: u32, run: &Run, spec: &SweepSpec, setting: &Setting) -> UsersPoint {
    UsersPoint {
        users,
        tx_per_s: round_to(tx_per_s(run), 1),
        rows_per_s: run.metrics.rows_per_s,
        response_ms: run.metrics.tx_latency_ms.unwrap_or_default(),
        passes: passes(run, spec),
        cpu_util_pct: cpu_util_pct(run, setting.host_cpus),
        devices: busiest_devices(run),
        stations: super::stations::stations(run, &setting.destage_slots),
        steady: run.steady,
        partial: run.partial,
    }
}

/// The sweep's points, answer and knee.
pub fn summarize(spec: &SweepSpec, runs: &[Run], setting: &Setting) -> UsersSweep {
    let think_ms = setting.think_ms;
    let mut points: Vec<UsersPoint> = runs
        .iter()
        .filter_map(|r| Some(point(users_of(r)?, r, spec, setting)))
        .collect();
    points.sort_by_key(|p| p.users);
    let max_users = points
        .iter()
        .take_while(|p| p.passes)
        .last()
        .map(|p| p.users);
    let knee = knee(&points, think_ms);
    UsersSweep {
        statistic: spec.statistic.clone(),
        max_response_ms: spec.max_response_ms,
        think_ms,
        max_users,
        knee_users: knee.as_ref().map(|k| k.n_star.round().max(1.0) as u32),
        knee,
        points,
    }
}

/// Whether the largest count measured has reached the knee the points give (or no knee can
/// be told yet).
pub fn past_knee(done: &[(u32, Run)], spec: &SweepSpec, setting: &Setting) -> bool {
    let runs: Vec<Run> = done.iter().map(|p| p.1.clone()).collect();
    let s = summarize(spec, &runs, setting);
    let largest = s.points.last().map_or(0, |p| p.users);
    s.knee_users.is_none_or(|k| largest >= k)
}

/// The think time of a simulated database's run, ms (its parameters' `think_ns`).
pub fn sim_think_ms(run: &Run) -> f64 {
    run.workload
        .parameters
        .get("think_ns")
        .and_then(serde_json::Value::as_f64)
        .map_or(0.0, |ns| ns / 1e6)
}

/// Kleinrock's N* from the points (see the module's documentation).
pub fn knee(points: &[UsersPoint], think_ms: f64) -> Option<Knee> {
    // No transaction is faster than its demand: the fastest mean measured (a point with a
    // cold cache would overstate it).
    let demand_ms = points
        .iter()
        .filter(|p| p.tx_per_s > 0.0)
        .map(|p| p.response_ms.mean)
        .min_by(f64::total_cmp)?;
    // Utilisations are most exact where the throughput is highest.
    let top = points
        .iter()
        .filter(|p| p.tx_per_s > 0.0)
        .max_by(|a, b| a.tx_per_s.total_cmp(&b.tx_per_s))?;
    let measured = bottleneck(top);
    let bound = ("throughput".to_string(), 1e3 / top.tx_per_s);
    let (bottleneck, d_max) = match measured {
        // The throughput stopped growing short of what the measured stations allow: an
        // unmeasured station (a host port, a link the run does not report) is the bottleneck.
        Some(m) if saturated(points) && bound.1 > m.1 * SATURATION_GAIN => bound,
        Some(m) => m,
        None => bound,
    };
    if d_max <= 0.0 || !(demand_ms + think_ms).is_finite() {
        return None;
    }
    Some(Knee {
        n_star: round_to((demand_ms + think_ms) / d_max, 2),
        demand_ms: round_to(demand_ms, 4),
        bottleneck_demand_ms: round_to(d_max, 4),
        bottleneck,
    })
}

/// The measured station with the largest service demand per transaction at `top` (name,
/// ms), the deepest in the stack among those tied with it; None when nothing was measured.
fn bottleneck(top: &UsersPoint) -> Option<(String, f64)> {
    let per_tx = |util_pct: f64| util_pct / 100.0 / top.tx_per_s * 1e3;
    // (name, demand ms, depth: the deeper in the stack, the larger)
    let stations: Vec<(String, f64, u8)> = top
        .cpu_util_pct
        .map(|u| ("cpu".to_string(), per_tx(u), 0))
        .into_iter()
        .chain(top.stations.iter().map(|s| {
            let depth = match s.name.as_str() {
                "log writer" => 1,
                n if n.starts_with("destage ") => 3,
                _ => 2,
            };
            (s.name.clone(), per_tx(s.util_pct), depth)
        }))
        .chain(
            top.devices
                .iter()
                .map(|d| (d.name.clone(), per_tx(d.util_pct), 4)),
        )
        .filter(|s| s.1 > 0.0)
        .collect();
    let largest = stations.iter().map(|s| s.1).fold(0.0, f64::max);
    stations
        .into_iter()
        .filter(|s| s.1 >= TIED * largest)
        .max_by(|a, b| a.2.cmp(&b.2).then(a.1.total_cmp(&b.1)))
        .map(|s| (s.0, s.1))
}

/// Stations whose demands are within this share of the largest are saturated together.
const TIED: f64 = 0.98;

/// Throughput gained by half again as many users, at most, on a saturated curve.
const SATURATION_GAIN: f64 = 1.1;

/// The throughput curve has flattened: half again as many users (or more) as some point
/// added less than 10% to its throughput.
fn saturated(points: &[UsersPoint]) -> bool {
    points.iter().any(|a| {
        points.iter().any(|b| {
            f64::from(b.users) >= 1.5 * f64::from(a.users)
                && a.tx_per_s > 0.0
                && b.tx_per_s < SATURATION_GAIN * a.tx_per_s
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use storlab_core::LatencySummaryMs;

    fn at(users: u32, tx_per_s: f64, mean: f64, cpu: Option<f64>) -> UsersPoint {
        UsersPoint {
            users,
            tx_per_s,
            rows_per_s: None,
            response_ms: LatencySummaryMs {
                mean,
                ..Default::default()
            },
            passes: true,
            cpu_util_pct: cpu,
            devices: Vec::new(),
            stations: Vec::new(),
            steady: true,
            partial: false,
        }
    }

    #[test]
    fn the_knee_is_where_the_asymptotes_meet() {
        // D = 1 ms, Z = 9 ms, the CPU's demand 1 ms: N* = 10.
        let points = [
            at(1, 100.0, 1.0, Some(10.0)),
            at(20, 1000.0, 11.0, Some(100.0)),
        ];
        let k = knee(&points, 9.0).expect("a knee");
        assert_eq!((k.n_star, k.bottleneck.as_str()), (10.0, "cpu"));
        // Without utilisations: 1 / the highest throughput, a lower bound.
        let points = [at(1, 100.0, 1.0, None), at(8, 500.0, 6.0, None)];
        let k = knee(&points, 9.0).expect("a knee");
        assert_eq!((k.n_star, k.bottleneck.as_str()), (5.0, "throughput"));
        // Flat throughput with the CPU half busy: a bottleneck nobody measured, so the
        // throughput bound; the demand is the fastest response (a cold cache at 1 user).
        let points = [
            at(1, 50.0, 20.0, Some(5.0)),
            at(8, 400.0, 1.0, Some(40.0)),
            at(16, 500.0, 3.0, Some(50.0)),
            at(32, 520.0, 20.0, Some(52.0)),
        ];
        let k = knee(&points, 9.0).expect("a knee");
        assert_eq!(k.bottleneck, "throughput");
        assert_eq!(k.demand_ms, 1.0);
        assert_eq!(k.n_star, 5.2);
    }

    fn with_stations(mut p: UsersPoint, stations: &[(&str, f64)]) -> UsersPoint {
        p.stations = stations
            .iter()
            .map(|&(name, util_pct)| DeviceUtil {
                name: name.into(),
                util_pct,
            })
            .collect();
        p.devices = vec![DeviceUtil {
            name: "data-0.d6".into(),
            util_pct: 34.0,
        }];
        p
    }

    #[test]
    fn a_station_that_is_not_a_disk_can_be_the_bottleneck() {
        // The log writer busy 100% at 2,000 tx/s: D_max = 0.5 ms; D = 4 ms, Z = 50 ms:
        // N* = 108, though the disks are 34% busy and the throughput has not flattened.
        let points = [
            with_stations(at(1, 18.0, 4.0, Some(1.0)), &[("log writer", 2.0)]),
            with_stations(at(60, 1000.0, 6.0, Some(8.0)), &[("log writer", 50.0)]),
            with_stations(at(100, 2000.0, 40.0, Some(16.0)), &[("log writer", 100.0)]),
        ];
        let k = knee(&points, 50.0).expect("a knee");
        assert_eq!((k.n_star, k.bottleneck.as_str()), (108.0, "log writer"));
        assert_eq!(k.bottleneck_demand_ms, 0.5);
        // The log writer saturated because its writes wait for a full write cache: the
        // destage, tied with it and deeper in the stack, is named.
        let points = [with_stations(
            at(100, 2000.0, 40.0, Some(16.0)),
            &[("destage data-0", 100.0), ("log writer", 99.5)],
        )];
        let k = knee(&points, 50.0).expect("a knee");
        assert_eq!(k.bottleneck, "destage data-0");
        // A controller's processors, well ahead of the log writer.
        let points = [with_stations(
            at(100, 2000.0, 40.0, Some(16.0)),
            &[("controller 0 processors", 90.0), ("log writer", 60.0)],
        )];
        let k = knee(&points, 50.0).expect("a knee");
        assert_eq!(k.bottleneck, "controller 0 processors");
    }
}
