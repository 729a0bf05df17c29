//! The calibration sweep: short `storlab io` runs (the library, O_DIRECT, psync) on one
//! scratch file in the work directory, reduced to the few figures the device fit needs.

use std::path::Path;

use storlab_core::result::Run;
use storlab_core::{BlockSizeWeight, ByteSize, IoProfile};
use storlab_io::sweep::{run_sweep, LoadPoint};
use storlab_io::{run_io, IoOptions, SyncMode};

use super::fit::Measurements;
use crate::error::CliError;

/// Size of the scratch file.
const FILE_BYTES: u64 = 256 << 20;
/// Measured time of each point, and its warm-up.
const POINT_NS: u64 = 2_000_000_000;
const POINT_WARMUP_NS: u64 = 500_000_000;
/// Outstanding 8 KiB random reads of the read points.
pub const READ_DEPTHS: [u32; 3] = [1, 4, 16];
/// Sizes of the synchronous sequential (WAL-like) writes, KiB.
pub const WAL_WRITE_KIB: [u64; 3] = [8, 32, 128];

/// The sweep's runs (result schema) and what the fit takes from them.
pub struct Calibration {
    pub runs: Vec<Run>,
    pub measured: Measurements,
}

fn options(file: &Path, profile: IoProfile) -> IoOptions {
    let mut o = IoOptions::single(file.to_path_buf(), profile);
    o.size_bytes = Some(FILE_BYTES);
    o.duration_ns = POINT_NS;
    o.warmup_ns = POINT_WARMUP_NS;
    o.sync = SyncMode::Dsync;
    o.keep = true;
    o
}

fn builtin(name: &str) -> Result<IoProfile, CliError> {
    IoProfile::builtin(name)
        .ok_or_else(|| CliError::Failed(format!("built-in profile {name} is missing")))
}

/// One synchronous write stream at queue depth 1 (O_DSYNC), `kib` per write.
fn sync_writes(base: &str, kib: u64) -> Result<IoProfile, CliError> {
    let mut p = builtin(base)?;
    p.name = format!(
        "{}-{kib}k-dsync",
        &base[..base.find('-').unwrap_or(base.len())]
    );
    p.block_sizes = vec![BlockSizeWeight {
        size: ByteSize(kib << 10),
        weight: 1.0,
    }];
    p.jobs = 1;
    p.iodepth = 1;
    p.sync_writes = true;
    Ok(p)
}

fn stopped() -> Result<(), CliError> {
    if storlab_io::signal::stop_requested() {
        return Err(CliError::Failed(
            "interrupted during the calibration".into(),
        ));
    }
    Ok(())
}

/// Runs the sweep in `dir`: 8 KiB random reads at each of [`READ_DEPTHS`], 8 KiB random
/// O_DSYNC writes at depth 1, then sequential O_DSYNC writes of each of [`WAL_WRITE_KIB`].
/// The scratch file is removed afterwards, also when a run fails.
pub fn calibrate(dir: &Path) -> Result<Calibration, CliError> {
    let file = dir.join("storlab-io.calibrate.dat");
    let result = sweep(&file);
    if file.exists() {
        let _ = storlab_io::safety::remove_ours(&file);
    }
    result
}

fn sweep(file: &Path) -> Result<Calibration, CliError> {
    let points: Vec<LoadPoint> = READ_DEPTHS
        .iter()
        .map(|&k| LoadPoint::Outstanding(k))
        .collect();
    let reads = run_sweep(&options(file, builtin("randread-8k")?), &points, None)?;
    let mut runs = reads.runs;
    stopped()?;
    if runs.len() != READ_DEPTHS.len() {
        return Err(CliError::Failed("the read sweep stopped early".into()));
    }
    let read_iops: Vec<(u32, f64)> = READ_DEPTHS
        .iter()
        .zip(&runs)
        .map(|(&k, r)| (k, r.metrics.iops))
        .collect();
    let read_latency_qd1_ms = runs[0].metrics.latency_ms.mean;
    let random = run_io(&options(file, sync_writes("randwrite-8k", 8)?))?;
    stopped()?;
    let sync_write_latency_ms = random.metrics.latency_ms.mean;
    runs.push(random);
    let mut wal_writes = Vec::new();
    for kib in WAL_WRITE_KIB {
        let run = run_io(&options(file, sync_writes("seqwrite-8k", kib)?))?;
        stopped()?;
        wal_writes.push((kib << 10, run.metrics.latency_ms.mean));
        runs.push(run);
    }
    Ok(Calibration {
        runs,
        measured: Measurements {
            read_iops,
            read_latency_qd1_ms,
            sync_write_latency_ms,
            wal_writes,
        },
    })
}
