//! storlab-sim: a deterministic discrete-event simulator of storage arrays.
//!
//! It owns the models of disks (HDD mechanics, SSD parallelism), RAID layouts and their
//! per-request disk-operation plans, controller caches (read cache with prefetch, write-back
//! cache with destage), host links, and synthetic workloads, and it reports in the common
//! result schema. It must never touch the OS clock, the file system or any global random
//! source: callers pass configuration text in and get results out, and the same inputs and
//! seed always give the same bytes of output. (clippy.toml forbids the clock and thread_rng.)

pub mod cache;
pub mod config;
pub mod db;
pub mod device;
pub mod divisor;
pub mod engine;
pub mod metrics;
pub mod model;
pub mod raid;
pub mod rng;
pub mod slab;
#[cfg(test)]
mod test_dir;
pub mod trace;
pub mod volume;

use storlab_core::profile::IOGEN_MATRIX;
use storlab_core::result::Run;

pub use config::{
    parse_array, parse_failure_arg, parse_workload, profile_workload, ConfigError, FailureSpec,
    SystemSpec, WorkloadSpec,
};
pub use model::{Model, RunOptions, TraceMode, TraceSource};

/// Simulates `workload` on `system`, with the failure events of the array file.
pub fn simulate(
    system: &SystemSpec,
    workload: &WorkloadSpec,
    opts: RunOptions,
) -> Result<Run, ConfigError> {
    simulate_with(system, workload, &system.failures, None, opts)
}

/// Simulates `workload` (and an optional trace replay) on `system` with the given failures.
pub fn simulate_with(
    system: &SystemSpec,
    workload: &WorkloadSpec,
    failures: &[FailureSpec],
    trace: Option<TraceSource>,
    opts: RunOptions,
) -> Result<Run, ConfigError> {
    check_run_length(&opts)?;
    check_after(workload, &opts)?;
    config::check_outstanding(workload, &workload.name)?;
    check_fits(system, workload)?;
    let mut model = Model::new(system, workload, failures, opts)
        .map_err(|e| ConfigError::invalid(&system.file, "disk_models", e))?;
    if let Some(t) = trace {
        model = model.with_trace(t);
    }
    model.run()
}

/// Runs every profile of the IOgen matrix on `system`, one run each.
pub fn simulate_matrix(system: &SystemSpec, opts: RunOptions) -> Result<Vec<Run>, ConfigError> {
    IOGEN_MATRIX
        .iter()
        .map(|name| simulate(system, &profile_workload(name, system)?, opts))
        .collect()
}

/// A write larger than the whole write cache could never be admitted.
fn check_fits(system: &SystemSpec, workload: &WorkloadSpec) -> Result<(), ConfigError> {
    // The smallest write cache of a write-back controller holding a write-cached group.
    let nvs_pages = (system.groups.iter())
        .filter(|g| g.write_cache)
        .map(|g| system.controller_spec(g.controller))
        .filter(|c| c.write_policy == config::WritePolicy::WriteBack)
        .map(|c| c.write_cache_pages)
        .min();
    let Some(nvs_pages) = nvs_pages else {
        return Ok(());
    };
    let nvs_bytes = nvs_pages * config::resolve::PAGE_SECTORS * 512;
    for (i, s) in workload.streams.iter().enumerate() {
        let max = s.profile.max_block_bytes();
        if s.profile.read_pct < 100.0 && max > nvs_bytes / 2 {
            return Err(ConfigError::invalid(
                &workload.name,
                format!("streams[{i}].block_sizes"),
                format!(
                    "a {max}-byte write needs more than half of the {nvs_bytes}-byte write cache of {}",
                    system.name
                ),
            ));
        }
    }
    Ok(())
}

/// The tests a database runs before its own (`after`) each run a while, before a fixed
/// warm-up, and the whole run stays within [`config::limits::MAX_SIM_TIME_NS`].
fn check_after(workload: &WorkloadSpec, opts: &RunOptions) -> Result<(), ConfigError> {
    let Some(d) = workload.database.as_ref().filter(|d| !d.after.is_empty()) else {
        return Ok(());
    };
    let bad = |reason: String| ConfigError::invalid(&workload.name, "database.after", reason);
    if opts.warmup_auto {
        if let Some(i) = d.after.iter().position(|p| p.duration_ns.is_none()) {
            return Err(bad(format!(
                "with --warmup auto each test before the section's needs a duration (test {i}, \
                 {}: {{ test = \"{}\", duration = \"120s\" }}), or give --warmup a duration \
                 (then each test's default)",
                d.after[i].test.name(),
                d.after[i].test.name()
            )));
        }
    }
    let durations = config::after_durations_ns(&d.after, opts.warmup_ns);
    if let Some(i) = durations.iter().position(|&ns| ns == 0) {
        return Err(bad(format!(
            "test {} ({}) would run 0 s: give it a duration ({{ test = \"{}\", duration = \
             \"120s\" }}) or the run a warm-up",
            i,
            d.after[i].test.name(),
            d.after[i].test.name()
        )));
    }
    let total = durations
        .iter()
        .fold(opts.warmup_ns.saturating_add(opts.duration_ns), |a, b| {
            a.saturating_add(*b)
        });
    if total > config::limits::MAX_SIM_TIME_NS {
        return Err(bad(format!(
            "the tests before the section's, its warm-up and the measured window must be at \
             most {} s (7 days of simulated time); got {} s",
            config::limits::MAX_SIM_TIME_NS / 1_000_000_000,
            total as f64 / 1e9
        )));
    }
    Ok(())
}

/// The warm-up and the measured window together stay within
/// [`config::limits::MAX_SIM_TIME_NS`] (7 days of simulated time).
fn check_run_length(opts: &RunOptions) -> Result<(), ConfigError> {
    let max = config::limits::MAX_SIM_TIME_NS;
    let key = if opts.duration_ns > max {
        "--duration"
    } else if opts.warmup_auto {
        "--warmup-max"
    } else {
        "--warmup"
    };
    match opts.duration_ns.checked_add(opts.warmup_ns) {
        Some(t) if t <= max => Ok(()),
        _ => Err(ConfigError::invalid(
            "run options",
            key,
            format!(
                "the warm-up plus the measured window must be at most {} s (7 days of simulated \
                 time); got {} s + {} s",
                max / 1_000_000_000,
                opts.warmup_ns as f64 / 1e9,
                opts.duration_ns as f64 / 1e9
            ),
        )),
    }
}
