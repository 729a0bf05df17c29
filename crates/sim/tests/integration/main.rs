//! Integration tests of the simulator: whole systems built from configuration text, run
//! through the public API, checked against analytic results, RAID arithmetic and the
//! published reference case.

mod analytic;
mod array_limits;
mod bottlenecks;
mod buffer_pins;
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
mod fuzz_regressions;
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
mod selects_writes;
mod several_arrays;
mod table_sizing;
mod temp_io;
mod test_sequence;
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
    bare_array(
        &format!("bare-{level}"),
        &[bare_group("g", level, disks, model, stripe_unit)],
    )
}

/// An array of `groups` ([`bare_group`]) without caches and with negligible controller and
/// link costs, so the disks alone decide the result.
pub fn bare_array(name: &str, groups: &[String]) -> String {
    format!(
        r#"name = "{name}"
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
{}"#,
        groups.concat()
    )
}

/// A RAID group of a [`bare_array`]: no read or write cache.
pub fn bare_group(name: &str, level: &str, disks: u32, model: &str, stripe_unit: &str) -> String {
    format!(
        r#"[[raid_groups]]
name = "{name}"
level = "{level}"
disks = {disks}
disk_model = "{model}"
stripe_unit = "{stripe_unit}"
read_cache = false
write_cache = false
"#
    )
}

/// Runs a simulated database on `array`: `section` holds the `[database]` keys, one a line.
pub fn run_database(array: &str, section: &str, o: RunOptions) -> Run {
    let s = system(array);
    run_workload(&s, &format!("name = \"db\"\n[database]\n{section}\n"), o)
}

/// Replays `trace`, SPC lines (`asu,lba,bytes,r|w,seconds`), open loop at its own pace; `file`
/// names it in messages.
pub fn replay_spc(s: &SystemSpec, trace: String, file: &str, o: RunOptions) -> Run {
    let reader = storlab_sim::trace::TraceReader::new(
        std::io::Cursor::new(trace.into_bytes()),
        storlab_sim::trace::TraceFormat::Spc,
        file,
    );
    let source = storlab_sim::TraceSource {
        feed: Box::new(reader),
        file: file.into(),
        mode: storlab_sim::TraceMode::OpenLoop { speed: 1.0 },
        map: Vec::new(),
    };
    let w = storlab_sim::WorkloadSpec {
        name: "trace".into(),
        streams: Vec::new(),
        database: None,
    };
    storlab_sim::simulate_with(s, &w, &[], Some(source), o).unwrap_or_else(|e| panic!("{e}"))
}

/// Sum over devices of a per-device rate.
pub fn device_sum(run: &Run, f: impl Fn(&storlab_core::result::DeviceMetrics) -> f64) -> f64 {
    run.devices.iter().map(f).sum()
}
