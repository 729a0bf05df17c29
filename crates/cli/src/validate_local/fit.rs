//! Fitting a simulated device to the calibration sweep, from first principles.
//!
//! The fitted device is the simulator's SSD model (`kind = "ssd"`): dies working in parallel,
//! each behind its own channel, and a host interface shared by every command. The rules:
//!
//! 1. **Page** = 8 KiB, PostgreSQL's block: one database I/O is one page on one die.
//! 2. **Bandwidth** `B` (MB/s): from the synchronous sequential writes of WAL-like sizes, the
//!    slope of latency against size (least squares: what one more byte costs); when the slope
//!    is not positive, the largest write's own rate. The interface carried the fastest read
//!    point too, so `interface_mbps = max(B, best read MB/s)`; `channel_mbps` is the same.
//! 3. **Parallelism** `n` = IOPS at the deepest read point over IOPS at depth 1, rounded
//!    (the best ratio of any depth, 1 to 64): `channels = n`, one die each. A device that does
//!    not scale with queue depth gets one die.
//! 4. **Read time**: the mean depth-1 8 KiB read latency less the page's two transfers
//!    (channel and interface): `read_us = L_read - 2 x 8 KiB / interface`.
//! 5. **Program time**: the mean depth-1 8 KiB O_DSYNC random write latency less the same two
//!    transfers, at most what lets the `n` dies together write as fast as the sweep's fastest
//!    synced write did (`n x 8 KiB / program >= best bytes per second of one synced write`):
//!    a synced write's latency holds the device's cache flush, which a noisy or loaded machine
//!    stretches to many milliseconds, and a device slower than what it was seen to write would
//!    leave the file cache's write-back, and the database's sessions behind it, queued for the
//!    whole run. `write_amplification = 1`, since the measurement already holds whatever
//!    garbage collection and cache flushing the device does.
//!    A sweep whose fastest synced write ran at [`MIN_SYNC_WRITE_MBPS`] or less is refused
//!    instead: no device writes that slowly (a disk writes 8 to 128 KiB synced in a seek and
//!    a revolution, ~15 ms on a 7,200 rpm drive: 8.7 MB/s for 128 KiB), so the flushes were
//!    stretched by other load, and dies fitted to it would hold the file cache's write-back,
//!    and the sessions behind it, for the whole run (0 rows/s for select-row).
//! 6. No controller stage (`controller_us = 0`), a deep command queue (256), and the file
//!    system's size as capacity.
//!
//! The array around it adds nothing of its own: one single-disk JBOD group without read or
//! write cache (write-through), no controller overhead, a host link without latency whose
//! bandwidth is the fitted interface's, and one volume, `local`, on the LUN `disk`.
//! Times are floored at 1 us and capped at a second, and the interface's rate held within
//! the simulator's bounds, so any measurement, however fast, slow or noisy, gives a valid model.

use storlab_sim::config::limits::MBPS_RANGE;
use storlab_sim::device::ssd::SsdParams;

/// Bytes of a database block (and of the fitted flash page).
const BLOCK_BYTES: f64 = 8192.0;
/// Longest read or program time a model takes (a second), us.
const MAX_TIME_US: f64 = 1e6;

/// Rule 5's bound: a sweep whose fastest synced write ran at this rate or less, MB/s, was
/// too noisy to fit.
pub const MIN_SYNC_WRITE_MBPS: f64 = 5.0;

/// What the calibration sweep measured (means over each run's measured window).
#[derive(Clone, Debug, PartialEq)]
pub struct Measurements {
    /// (outstanding 8 KiB random reads, IOPS), depth 1 first.
    pub read_iops: Vec<(u32, f64)>,
    /// Mean latency of 8 KiB random reads at depth 1, ms.
    pub read_latency_qd1_ms: f64,
    /// Mean latency of 8 KiB random O_DSYNC writes at depth 1, ms.
    pub sync_write_latency_ms: f64,
    /// (bytes per write, mean latency ms) of sequential O_DSYNC writes at depth 1.
    pub wal_writes: Vec<(u64, f64)>,
}

/// The fitted model and the figures it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub ssd: SsdParams,
    /// Sequential write bandwidth, MB/s (rule 2, before the read floor).
    pub write_mbps: f64,
    /// Best read rate of the sweep, MB/s.
    pub read_mbps: f64,
    /// IOPS(deepest) / IOPS(1), unrounded.
    pub scaling: f64,
}

/// Fits the device; the reason when the sweep has no usable depth-1 read point, or when its
/// fastest synced write was too slow to be the device's (rule 5).
pub fn fit(m: &Measurements, capacity_gb: f64) -> Result<Fit, String> {
    let no_reads = || "the calibration measured no reads at depth 1".to_string();
    let iops1 = m
        .read_iops
        .iter()
        .find(|(k, _)| *k == 1)
        .ok_or_else(no_reads)?
        .1;
    if !(iops1 > 0.0 && m.read_latency_qd1_ms > 0.0) {
        return Err(no_reads());
    }
    if let Some(mbps) = best_write_mbps(m).filter(|&mbps| mbps <= MIN_SYNC_WRITE_MBPS) {
        return Err(format!(
            "the calibration was too noisy to fit a device: its fastest synced write ran at \
             {mbps:.2} MB/s, and one at {MIN_SYNC_WRITE_MBPS} MB/s or less is not a device's \
             speed but flushes stretched by other load; rerun on a quieter machine"
        ));
    }
    let scaling = m
        .read_iops
        .iter()
        .map(|(_, iops)| iops / iops1)
        .fold(1.0, f64::max);
    let dies = (scaling.round() as u32).clamp(1, 64);
    let read_mbps = m
        .read_iops
        .iter()
        .map(|(_, iops)| iops * BLOCK_BYTES / 1e6)
        .fold(0.0, f64::max);
    let write_mbps = write_bandwidth_mbps(&m.wal_writes).unwrap_or(read_mbps);
    let interface_mbps = write_mbps.max(read_mbps).clamp(1.0, MBPS_RANGE.1);
    let transfers_us = 2.0 * BLOCK_BYTES / interface_mbps;
    let floor = |x: f64| ((x * 10.0).round().max(10.0) / 10.0).min(MAX_TIME_US);
    let program_max_us =
        best_write_mbps(m).map_or(f64::INFINITY, |mbps| f64::from(dies) * BLOCK_BYTES / mbps);
    let program_us = (m.sync_write_latency_ms * 1e3 - transfers_us).min(program_max_us);
    let ssd = SsdParams {
        capacity_gb: (capacity_gb * 10.0).round().max(1.0) / 10.0,
        page_kib: 8,
        channels: dies,
        dies_per_channel: 1,
        read_us: floor(m.read_latency_qd1_ms * 1e3 - transfers_us),
        program_us: floor(program_us),
        write_amplification: 1.0,
        channel_mbps: interface_mbps.round(),
        interface_mbps: interface_mbps.round(),
        controller_us: 0.0,
        queue_depth: 256,
    };
    Ok(Fit {
        ssd,
        write_mbps,
        read_mbps,
        scaling,
    })
}

/// Rule 5: the fastest synced write of the sweep (random 8 KiB, or sequential of any size),
/// bytes of one write over its mean latency, MB/s. `None` without a usable point.
pub fn best_write_mbps(m: &Measurements) -> Option<f64> {
    m.wal_writes
        .iter()
        .copied()
        .chain([(BLOCK_BYTES as u64, m.sync_write_latency_ms)])
        .filter(|&(b, ms)| b > 0 && ms > 0.0 && ms.is_finite())
        .map(|(b, ms)| b as f64 / (ms * 1e-3) / 1e6)
        .reduce(f64::max)
}

/// Rule 2: MB/s from the slope of latency (ms) against size (bytes); the largest write's
/// rate when the slope is not positive. `None` without a usable point.
pub fn write_bandwidth_mbps(points: &[(u64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(b, ms)| *b > 0 && *ms > 0.0)
        .map(|&(b, ms)| (b as f64, ms))
        .collect();
    let n = pts.len() as f64;
    if pts.is_empty() {
        return None;
    }
    let mean_x = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    if sxx > 0.0 && sxy > 0.0 {
        let ms_per_byte = sxy / sxx;
        // bytes per ms x 1e3 = bytes per s; / 1e6 = MB/s.
        return Some(1e-3 / ms_per_byte);
    }
    let (bytes, ms) = pts
        .iter()
        .copied()
        .fold((0.0, 0.0), |a, p| if p.0 > a.0 { p } else { a });
    Some(bytes / (ms * 1e-3) / 1e6)
}

/// The fitted model as an array file: one single-disk JBOD group (LUN `disk`) without
/// cache, and the volume `local` on it.
pub fn array_toml(fit: &Fit, source: &str) -> String {
    let s = &fit.ssd;
    format!(
        "# Fitted by `storlab validate --local` from a short storlab io sweep on {source}.\n\
         # Rules: crates/cli/src/validate_local/fit.rs. Reuse it: storlab sim --array THIS ...\n\
         name = \"local\"\n\
         description = \"this machine's disk as a fitted SSD model: {dies} dies, {read:?} us read, \
         {program:?} us program, {mbps:?} MB/s\"\n\n\
         [host]\nlinks = 1\nlink_mbps = {mbps:?}\nlink_latency = \"0us\"\n\n\
         [controllers]\ncount = 1\nwrite_policy = \"write-through\"\nmirror_writes = false\n\
         overhead = \"0us\"\n\n\
         [[raid_groups]]\nname = \"disk\"\nlevel = \"jbod\"\ndisks = 1\ndisk_model = \"fitted\"\n\
         read_cache = false\nwrite_cache = false\n\n\
         [[volumes]]\nname = \"local\"\nkind = \"concat\"\nluns = [\"disk\"]\n\n\
         [disk_models.fitted]\nkind = \"ssd\"\ncapacity_gb = {cap:?}\npage_kib = {page}\n\
         channels = {dies}\ndies_per_channel = {dpc}\nread_us = {read:?}\nprogram_us = {program:?}\n\
         write_amplification = {wa:?}\nchannel_mbps = {chan:?}\ninterface_mbps = {mbps:?}\n\
         controller_us = {ctrl:?}\nqueue_depth = {qd}\n",
        dies = s.channels * s.dies_per_channel,
        dpc = s.dies_per_channel,
        read = s.read_us,
        program = s.program_us,
        mbps = s.interface_mbps,
        chan = s.channel_mbps,
        cap = s.capacity_gb,
        page = s.page_kib,
        wa = s.write_amplification,
        ctrl = s.controller_us,
        qd = s.queue_depth,
    )
}

#[cfg(test)]
mod tests;
