//! An `iostat -x` view of the block devices behind a benchmark's target.
//!
//! [`devices_for_path`] finds the block devices that hold a file, directory or device node:
//! the file system's device, its whole disk when that is a partition, and the devices under
//! device-mapper (LVM, dm-crypt, multipath) and md RAID, as `/sys` lists them.
//! [`DiskSampler`] reads `/proc/diskstats` whenever the benchmark's own loop asks (about once
//! a second; it has no thread) and summarizes each device as min / avg / max of the interval
//! figures plus one whole-run figure. This module only reads `/proc` and `/sys`; it never
//! reads the clock: callers pass the elapsed time.
//!
//! # Definitions
//!
//! For an interval of Δt seconds between two readings, Δ being a counter's increase:
//!
//! | field | formula | unit |
//! |---|---|---|
//! | `r_s`, `w_s` | Δreads / Δt, Δwrites / Δt | completed requests (after merging) per second |
//! | `rmb_s`, `wmb_s` | Δsectors × 512 / 10^6 / Δt | MB/s, MB = 10^6 bytes (iostat's MB is 2^20) |
//! | `r_await_ms`, `w_await_ms` | Δread_ms / Δreads, 0 when no reads | ms per request, queued + serviced |
//! | `aqu_sz` | Δweighted_io_ms / (Δt × 1000) | mean number of requests queued or in service |
//! | `util_pct` | Δio_ms / (Δt × 1000) × 100, capped at 100 | % of time with at least one request in flight |
//!
//! `util_pct` near 100 saturates a disk that serves one request at a time; SSDs, NVMe drives
//! and arrays serve many at once and can do more at 100 %. When Δt is not a positive finite
//! number, rates, `aqu_sz` and `util_pct` are 0 (awaits need no Δt).
//!
//! Counters wrap: the millisecond counters are 32-bit on every kernel and all counters are
//! 32-bit on 32-bit kernels. A reading below the previous one counts as a wrap at 2^32 when
//! the previous value fits in 32 bits, else at 2^64 (`wrapping_sub`).
//!
//! # Formats
//!
//! `/proc/diskstats` lines are `major minor name` and 11 counters (14 fields, kernels before
//! 4.18), then 4 discard counters (18 fields, 4.18+) and 2 flush counters (20 fields, 5.5+).
//! Fields past the 14th are checked to be numbers and otherwise ignored.

use std::collections::BTreeMap;
use std::path::PathBuf;

mod devices;
#[cfg(test)]
mod devices_tests;
mod sampler;
#[cfg(test)]
mod tests;

pub use devices::devices_for_path;
pub use sampler::DiskSampler;
pub use storlab_core::result::IostatFigures;

/// Where the kernel publishes per-device I/O counters.
const PROC_DISKSTATS: &str = "/proc/diskstats";
/// Bytes per sector in `/proc/diskstats`, whatever the device's own sector size.
const SECTOR_BYTES: f64 = 512.0;

/// Identifies a block device.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct BlockDevice {
    /// Kernel name as `/proc/diskstats` shows it: "vda", "sda1", "dm-0", "nvme0n1p2".
    pub name: String,
    /// Device number, major part.
    pub major: u32,
    /// Device number, minor part.
    pub minor: u32,
}

/// What can go wrong finding devices or reading their counters. All are fatal to the
/// operation that returned them; a failed [`DiskSampler::sample`] leaves the sampler as it was.
#[derive(Debug, thiserror::Error)]
pub enum DiskstatsError {
    /// A file under `/proc` or `/sys` (or the benchmark path itself) could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The path's file system has no block device under it.
    #[error(
        "path {} is on a filesystem without a block device (tmpfs, overlay...): {what}; \
         give a file on a disk-backed file system or a block device",
        path.display()
    )]
    NoBlockDevice {
        /// The path asked about.
        path: PathBuf,
        /// The file system type and source found in `/proc/self/mountinfo`.
        what: String,
    },
    /// A line of `/proc/diskstats` is not `major minor name` and at least 11 counters.
    #[error("malformed line {line_no} of /proc/diskstats ({reason}): {line:?}")]
    Parse {
        /// 1-based line number.
        line_no: usize,
        /// The line as read.
        line: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `dev` file in `/sys` does not hold `MAJOR:MINOR`.
    #[error("malformed {}: {content:?} (expected MAJOR:MINOR)", path.display())]
    SysfsValue {
        /// The file.
        path: PathBuf,
        /// What it holds.
        content: String,
    },
    /// A device to sample is not (or no longer) in `/proc/diskstats`.
    #[error("device {name} is not listed in /proc/diskstats (removed, or not a block device)")]
    DeviceNotListed {
        /// The device's name.
        name: String,
    },
    /// [`DiskSampler::sample`] was given a time not after the previous reading.
    #[error("sample time {t_s} s must be finite and after the previous reading at {prev_s} s")]
    TimeNotIncreasing {
        /// The time given.
        t_s: f64,
        /// The time of the previous reading (0 for the first, taken by `new`).
        prev_s: f64,
    },
}

/// One reading of /proc/diskstats for a device (counters as the kernel gives them; sectors
/// are 512 bytes, times in ms).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskCounters {
    /// Reads completed.
    pub reads: u64,
    /// Adjacent reads merged into one request before completion.
    pub reads_merged: u64,
    /// Sectors read.
    pub sectors_read: u64,
    /// Time spent by all reads, from issue to completion.
    pub read_ms: u64,
    /// Writes completed.
    pub writes: u64,
    /// Adjacent writes merged.
    pub writes_merged: u64,
    /// Sectors written.
    pub sectors_written: u64,
    /// Time spent by all writes.
    pub write_ms: u64,
    /// Requests in flight at the time of reading (a level, not a counter).
    pub in_flight: u64,
    /// Time with at least one request in flight.
    pub io_ms: u64,
    /// Sum over time of requests in flight (time × queue length).
    pub weighted_io_ms: u64,
}

/// Parses /proc/diskstats text; returns counters by device name.
pub fn parse_diskstats(text: &str) -> Result<BTreeMap<String, DiskCounters>, DiskstatsError> {
    let mut by_name = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (name, counters) = parse_line(line).map_err(|reason| DiskstatsError::Parse {
            line_no: index + 1,
            line: line.to_string(),
            reason,
        })?;
        by_name.insert(name.to_string(), counters);
    }
    Ok(by_name)
}

fn parse_line(line: &str) -> Result<(&str, DiskCounters), String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 14 {
        return Err(format!("{} fields, expected 14, 18 or 20", fields.len()));
    }
    for (what, field) in ["major", "minor"].iter().zip(&fields[..2]) {
        field
            .parse::<u32>()
            .map_err(|_| format!("{what} number {field:?} is not a number"))?;
    }
    let mut v = [0u64; 11];
    for (i, field) in fields[3..].iter().enumerate() {
        let value = field
            .parse::<u64>()
            .map_err(|_| format!("field {} {field:?} is not a counter", i + 4))?;
        if let Some(slot) = v.get_mut(i) {
            *slot = value;
        }
    }
    let counters = DiskCounters {
        reads: v[0],
        reads_merged: v[1],
        sectors_read: v[2],
        read_ms: v[3],
        writes: v[4],
        writes_merged: v[5],
        sectors_written: v[6],
        write_ms: v[7],
        in_flight: v[8],
        io_ms: v[9],
        weighted_io_ms: v[10],
    };
    Ok((fields[2], counters))
}

/// Reads /proc/diskstats now.
pub fn read_diskstats() -> Result<BTreeMap<String, DiskCounters>, DiskstatsError> {
    let text = std::fs::read_to_string(PROC_DISKSTATS).map_err(|source| DiskstatsError::Io {
        path: PathBuf::from(PROC_DISKSTATS),
        source,
    })?;
    parse_diskstats(&text)
}

/// Increase of a counter from `earlier` to `later`, across one wrap (see the module doc).
fn counter_delta(earlier: u64, later: u64) -> u64 {
    if later >= earlier {
        later - earlier
    } else if earlier <= u64::from(u32::MAX) {
        later + (1u64 << 32) - earlier
    } else {
        later.wrapping_sub(earlier)
    }
}

/// iostat -x figures for one interval between two readings `elapsed_s` apart (see the module
/// doc for the definitions), in the result schema's structure.
pub fn figures_between(a: &DiskCounters, b: &DiskCounters, elapsed_s: f64) -> IostatFigures {
    let delta = |field: fn(&DiskCounters) -> u64| counter_delta(field(a), field(b)) as f64;
    let mean_ms = |ms: f64, count: f64| if count > 0.0 { ms / count } else { 0.0 };
    let (reads, writes) = (delta(|c| c.reads), delta(|c| c.writes));
    let mut sample = IostatFigures {
        r_await_ms: mean_ms(delta(|c| c.read_ms), reads),
        w_await_ms: mean_ms(delta(|c| c.write_ms), writes),
        ..IostatFigures::default()
    };
    if !(elapsed_s.is_finite() && elapsed_s > 0.0) {
        return sample;
    }
    let elapsed_ms = elapsed_s * 1000.0;
    let mb_s = |sectors: f64| sectors * SECTOR_BYTES / 1e6 / elapsed_s;
    sample.r_s = reads / elapsed_s;
    sample.w_s = writes / elapsed_s;
    sample.rmb_s = mb_s(delta(|c| c.sectors_read));
    sample.wmb_s = mb_s(delta(|c| c.sectors_written));
    sample.aqu_sz = delta(|c| c.weighted_io_ms) / elapsed_ms;
    sample.util_pct = (delta(|c| c.io_ms) / elapsed_ms * 100.0).min(100.0);
    sample
}

/// min / avg / max of each field over the interval samples of a run. Each field is taken on
/// its own: `max.r_s` and `max.w_s` may come from different intervals, and `avg.r_await_ms`
/// weighs every interval alike (see `total` for the per-request mean).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct IostatSummary {
    /// Kernel name of the device.
    pub device: String,
    /// Number of interval samples (calls to `sample`).
    pub samples: u32,
    /// Smallest value of each field.
    pub min: IostatFigures,
    /// Mean of each field over the samples.
    pub avg: IostatFigures,
    /// Largest value of each field.
    pub max: IostatFigures,
    /// whole-run figures from the first and last reading
    pub total: IostatFigures,
}
