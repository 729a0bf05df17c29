//! Integration tests of the simulator: whole systems built from configuration text, run
//! through the public API, checked against analytic results, RAID arithmetic and the
//! published reference case.

mod analytic;
mod array_limits;
mod bottlenecks;
mod builtin_character;
mod caches;
mod character;
mod database;
mod db_suites;
mod determinism;
mod docs;
mod examples_sweep;
mod failures;
mod file_cache;
mod front_end;
mod host_layer;
mod job_mechanics;
mod jobs;
mod log_writer_cpu;
mod lun_carving;
mod measured_profile;
mod mva;
mod oracle_checkpoint;
mod oracle_engine;
mod oracle_free_buffers;
mod oracle_layout;
mod oracle_mechanics;
mod query_keys;
mod raid_ops;
mod redundancy_sets;
mod reference_case1;
mod several_arrays;
mod table_sizing;
mod temp_io;
mod transactions;
mod warmup;
mod workloads;
mod write_gathering;

use storlab_core::result::Run;
use storlab_sim::{
    parse_array, parse_workload, profile_workload, simulate, RunOptions, SystemSpec,
};

pub const MIDRANGE_RAID5: &str = include_str!("../../../../examples/arrays/midrange-raid5.toml");
pub const MIDRANGE_RAID10: &str = include_str!("../../../../examples/arrays/midrange-raid10.toml");
pub const ENTERPRISE_RAID5: &str =
    include_str!("../../../../examples/arrays/enterprise-raid5.toml");
pub const EVAGROUP_VRAID5: &str = include_str!("../../../../examples/arrays/evagroup-vraid5.toml");
pub const ASM_PRFG: &str = include_str!("../../../../examples/arrays/asm-prfg.toml");
pub const ASM_NOPRFG: &str = include_str!("../../../../examples/arrays/asm-noprfg.toml");
pub const MIDRANGE_RAID5_LIMITS: &str =
    include_str!("../../../../examples/arrays/midrange-raid5-limits.toml");

pub fn system(text: &str) -> SystemSpec {
    parse_array(text, "test.toml").unwrap_or_else(|e| panic!("{e}"))
}

pub fn opts(duration_s: u64, warmup_s: u64, seed: u64) -> RunOptions {
    RunOptions {
        duration_ns: duration_s * 1_000_000_000,
        warmup_ns: warmup_s * 1_000_000_000,
        seed,
        warmup_auto: false,
        stop: None,
    }
}

/// Runs a built-in profile.
pub fn run_profile(s: &SystemSpec, profile: &str, o: RunOptions) -> Run {
    let w = profile_workload(profile, s).unwrap_or_else(|e| panic!("{e}"));
    simulate(s, &w, o).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a built-in profile with failures given as `--fail` arguments (`disk@time`,
/// `controller:N@time` ...).
pub fn run_failing(s: &SystemSpec, profile: &str, fails: &[&str], o: RunOptions) -> Run {
    let w = profile_workload(profile, s).unwrap_or_else(|e| panic!("{e}"));
    let f: Vec<_> = fails
        .iter()
        .map(|f| storlab_sim::parse_failure_arg(f, s).unwrap_or_else(|e| panic!("{f}: {e}")))
        .collect();
    storlab_sim::simulate_with(s, &w, &f, None, o).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a workload file given as text.
pub fn run_workload(s: &SystemSpec, workload: &str, o: RunOptions) -> Run {
    let w = parse_workload(workload, "w.toml", s).unwrap_or_else(|e| panic!("{e}"));
    simulate(s, &w, o).unwrap_or_else(|e| panic!("{e}"))
}

/// A one-group array without caches and with negligible controller and link costs, so the
/// disks alone decide the result.
pub fn bare(level: &str, disks: u32, model: &str, stripe_unit: &str) -> String {
    format!(
        r#"name = "bare-{level}"
[host]
links = 8
link_mbps = 100000
link_latency = "0"
[controllers]
count = 1
overhead = "0"
write_policy = "write-through"
mirror_writes = false
write_cache = "0"
sequential_trigger = 0
[[raid_groups]]
name = "g"
level = "{level}"
disks = {disks}
disk_model = "{model}"
stripe_unit = "{stripe_unit}"
read_cache = false
write_cache = false
"#
    )
}

/// Sum over devices of a per-device rate.
pub fn device_sum(run: &Run, f: impl Fn(&storlab_core::result::DeviceMetrics) -> f64) -> f64 {
    run.devices.iter().map(f).sum()
}
