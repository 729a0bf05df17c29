//! Bounds on every number of an array or workload file that drives the simulator's memory or
//! run time, checked when the file is validated.
//!
//! Each bound is far above any real configuration (the largest arrays have a few thousand
//! disks and a few PB) but keeps an accepted input within a few GB of memory: the model costs
//! about 20 KB per disk, 0.5 MB per TB of group capacity (the write cache's dirty-page
//! summaries), 300 bytes per outstanding host I/O and up to 32 bytes per read-cache segment.
//! Messages name the key, the bound and the value found.

use super::resolve::{GroupSpec, PAGE_SECTORS};
use super::virtual_disks::DiskGroupSpec;
use super::ConfigError;
use crate::cache::DirtyPages;
use storlab_core::ByteSize;

/// RAID groups and virtual disks in one array (each `count` counts).
pub const MAX_GROUPS: u64 = 4096;
/// Member disks of one RAID group or disk group.
pub const MAX_GROUP_DISKS: u32 = 1024;
/// Disks in one array: members and spares of every group and disk group.
pub const MAX_DISKS: u64 = 16_384;
/// Capacity of one RAID group or virtual disk: 1 PiB less 256 KiB, the write cache's
/// [`DirtyPages::MAX_PAGES`] pages of 4 KiB (2^38 - 64: the last 64-page word's index,
/// 2^32 - 2, stays clear of its word map's empty key, 2^32 - 1).
pub const MAX_GROUP_BYTES: u64 = (1 << 50) - (256 << 10);
const _: () = assert!(MAX_GROUP_BYTES.div_ceil(PAGE_SECTORS * 512) <= DirtyPages::MAX_PAGES);
/// [`MAX_GROUP_BYTES`] as messages name it.
const MAX_GROUP_TEXT: &str = "1 PiB less 256 KiB";
/// Capacity of all groups together: 4 PiB (about 2 GB of dirty-page summaries).
pub const MAX_ARRAY_BYTES: u64 = 1 << 52;
/// Cache memory per controller: 16 TiB.
pub const MAX_CACHE_BYTES: u64 = 16 << 40;
/// Read-cache segments per controller: 2^27 (a 1 TiB read cache of 8 KiB segments).
pub const MAX_READ_CACHE_SEGMENTS: u64 = 1 << 27;
/// Fixed per-I/O costs (link, path and mirror latency, controller overhead): 1 s.
pub const MAX_IO_LATENCY_NS: u64 = 1_000_000_000;
/// Any point in simulated time (a failure, the rebuild delay, a run's warm-up plus its
/// measured window): 7 days.
pub const MAX_SIM_TIME_NS: u64 = 7 * 86_400 * 1_000_000_000;
/// Bandwidths (links, paths, mirror link, rebuild, disk rates), MB/s: at least 0.01, at most
/// 10^7.
pub const MBPS_RANGE: (f64, f64) = (0.01, 1e7);
/// Streams of one workload.
pub const MAX_STREAMS: usize = 256;
/// Host I/Os the closed-loop streams of a workload keep outstanding (jobs x iodepth, summed).
pub const MAX_OUTSTANDING: u64 = 1 << 20;
/// Host I/Os an open-loop stream keeps outstanding; arrivals beyond are dropped (counted and
/// reported as overload).
pub const OPEN_LOOP_MAX_OUTSTANDING: u32 = 65_536;
/// Smallest and largest stripe unit of a RAID group or virtual disk, bytes: 4 KiB to 1 MiB.
pub const STRIPE_UNIT_BYTES: (u64, u64) = (4096, 1 << 20);

/// A RAID group's or virtual disk's stripe unit in bytes. Its bounds
/// ([`STRIPE_UNIT_BYTES`]) are declared with its key and checked with the file; a power of
/// two is this rule, and the message repeats the declared bounds.
pub(crate) fn stripe_unit_bytes(
    stripe_unit: ByteSize,
    file: &str,
    key: impl Into<String>,
) -> Result<u64, ConfigError> {
    if stripe_unit.0.is_power_of_two() {
        return Ok(stripe_unit.0);
    }
    let (min, max) = STRIPE_UNIT_BYTES;
    Err(ConfigError::invalid(
        file,
        key,
        format!(
            "must be a power of two between {} and {}; got {stripe_unit}",
            ByteSize(min),
            ByteSize(max)
        ),
    ))
}

/// A duration at most `max_ns`.
pub(crate) fn check_time(
    file: &str,
    key: impl Into<String>,
    ns: u64,
    max_ns: u64,
) -> Result<(), ConfigError> {
    if ns <= max_ns {
        return Ok(());
    }
    Err(ConfigError::invalid(
        file,
        key,
        format!("must be at most {}; got {}", seconds(max_ns), seconds(ns)),
    ))
}

use storlab_core::keys::seconds;

/// A count at most `max`, with what it counts for the message.
pub(crate) fn check_count(
    file: &str,
    key: impl Into<String>,
    n: u64,
    max: u64,
    what: &str,
) -> Result<(), ConfigError> {
    if n <= max {
        return Ok(());
    }
    Err(ConfigError::invalid(
        file,
        key,
        format!("{what} must be at most {max}; got {n}"),
    ))
}

/// Bytes in decimal units for messages (`1.13 PB`).
pub(crate) fn bytes(b: u64) -> String {
    let units = [(1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB")];
    let x = b as f64;
    match units.iter().find(|(u, _)| x >= *u) {
        Some((u, name)) => format!("{:.2} {name}", x / u),
        None => format!("{b} bytes"),
    }
}

/// Disks and capacity of the resolved groups against [`MAX_DISKS`], [`MAX_GROUP_BYTES`] and
/// [`MAX_ARRAY_BYTES`].
pub(crate) fn check_sizes(
    groups: &[GroupSpec],
    disk_groups: &[DiskGroupSpec],
    file: &str,
) -> Result<(), ConfigError> {
    let own = groups.iter().filter(|g| g.disk_group.is_none());
    let disks: u64 = own
        .map(|g| u64::from(g.layout.disks()) + u64::from(g.spares))
        .chain(
            disk_groups
                .iter()
                .map(|d| u64::from(d.disks) + u64::from(d.spares)),
        )
        .sum();
    check_count(
        file,
        "raid_groups",
        disks,
        MAX_DISKS,
        "disks in all (members and spares of every group and disk group)",
    )?;
    let mut total: u128 = 0;
    for g in groups {
        let b = u128::from(g.layout.capacity_sectors()) * 512;
        if b > u128::from(MAX_GROUP_BYTES) {
            return Err(group_too_large(g, b, file));
        }
        total += b;
    }
    if total > u128::from(MAX_ARRAY_BYTES) {
        return Err(ConfigError::invalid(
            file,
            "raid_groups",
            format!(
                "the groups hold {} in all; an array may hold at most {} (4 PiB)",
                bytes_wide(total),
                bytes(MAX_ARRAY_BYTES)
            ),
        ));
    }
    Ok(())
}

/// A group of `b` bytes, over [`MAX_GROUP_BYTES`]: the message names the group's own key (a
/// RAID group's capacity comes from its disks, a virtual disk's from its `size` rounded up to
/// whole stripes) and the bound in bytes, as the two differ by less than a printed digit.
fn group_too_large(g: &GroupSpec, b: u128, file: &str) -> ConfigError {
    let bound = format!(
        "at most {MAX_GROUP_BYTES} bytes ({}, {MAX_GROUP_TEXT})",
        bytes(MAX_GROUP_BYTES)
    );
    if g.disk_group.is_some() {
        return ConfigError::invalid(
            file,
            format!("virtual_disks.{}", g.name),
            format!(
                "virtual disk {} holds {b} bytes (its size rounded up to whole stripes); a \
                 virtual disk may hold {bound}: use a smaller size",
                g.name,
            ),
        );
    }
    ConfigError::invalid(
        file,
        format!("raid_groups.{}", g.name),
        format!(
            "group {} holds {b} bytes ({}: {} data disks of {}); a group may hold {bound}: use \
             smaller disks (capacity_gb) or fewer disks per group",
            g.name,
            bytes_wide(b),
            g.layout.data_disks(),
            bytes(g.model.capacity_sectors().saturating_mul(512)),
        ),
    )
}

fn bytes_wide(b: u128) -> String {
    bytes(u64::try_from(b).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests;
