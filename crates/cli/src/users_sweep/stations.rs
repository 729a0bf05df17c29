//! The stations of a run other than the host CPUs and the devices, each with how busy it was
//! over the measured window: what the utilisation law needs to find a bottleneck that is
//! not a disk.
//!
//! - The log writer of a simulated database writes one log write at a time, so its busy
//!   share is its writes per second times the mean time of one write: Oracle's `log file
//!   parallel write` reports it directly; for PostgreSQL it is the `log` class's writes per
//!   second times their mean latency.
//! - A RAID group's destage keeps at most a fixed number of disk operations outstanding
//!   (`destage_queue_per_disk` x its disks); by Little's law the mean number in flight is
//!   the destage operations per second times their mean time, and its share of that limit
//!   is how busy the way out of the write cache is. A full write cache (host writes waiting
//!   for NVS) with idle disks shows here.
//! - The array's components (back-end loops, controller processors, internal links) report
//!   their own busy time, the mean over their servers.

use storlab_core::result::{DeviceUtil, Run};

/// Oracle's name of the log writer's own write time.
const LOG_WRITER_WAIT: &str = "log file parallel write";

/// Busy shares above this are rounding or a window edge: a station is at most fully busy.
const FULL_PCT: f64 = 100.0;

/// The stations of `run` other than its CPUs and devices, busiest first; `destage_slots`:
/// each RAID group's destage operations outstanding at most (a simulated array's).
pub fn stations(run: &Run, destage_slots: &[(String, u32)]) -> Vec<DeviceUtil> {
    let mut all: Vec<DeviceUtil> = log_writer(run)
        .into_iter()
        .chain(destage(run, destage_slots))
        .chain(
            run.components
                .iter()
                .map(|c| station(c.name.clone(), c.util_pct)),
        )
        .filter(|s| s.util_pct > 0.0)
        .collect();
    all.sort_by(|a, b| b.util_pct.total_cmp(&a.util_pct));
    all
}

fn station(name: String, util_pct: f64) -> DeviceUtil {
    DeviceUtil {
        name,
        util_pct: storlab_core::histogram::round_to(util_pct.min(FULL_PCT), 1),
    }
}

/// The simulated log writer's busy share, percent.
fn log_writer(run: &Run) -> Option<DeviceUtil> {
    run.sim.as_ref()?;
    let waits = &run.metrics.waits;
    let pct = match waits.iter().find(|w| w.event == LOG_WRITER_WAIT) {
        Some(w) => w.time_pct,
        None => {
            let log = run.classes.iter().find(|c| c.name == "log")?;
            let write_ms = log.metrics.write_latency_ms.as_ref()?.mean;
            log.metrics.write_iops * write_ms / 1e3 * 100.0
        }
    };
    Some(station("log writer".into(), pct))
}

/// Each RAID group's destage, its share of the operations it may keep outstanding, percent.
fn destage<'a>(run: &'a Run, slots: &'a [(String, u32)]) -> impl Iterator<Item = DeviceUtil> + 'a {
    run.arrays.iter().filter_map(move |g| {
        let limit = slots.iter().find(|s| s.0 == g.name)?.1;
        let in_flight = g.destage_iops * g.destage_delay_ms / 1e3;
        (limit > 0).then(|| {
            station(
                format!("destage {}", g.name),
                100.0 * in_flight / f64::from(limit),
            )
        })
    })
}
