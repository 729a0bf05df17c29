//! Counters of a run: host-visible I/O, per RAID group internals, per-interval series.
//!
//! Memory is bounded: histograms and counters, one entry per simulated second for the series,
//! never one entry per I/O.

pub use storlab_core::host_stats::{HostStats, INTERVAL_NS};

/// Internals of one RAID group and its share of the controller.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupStats {
    /// Host read pieces.
    pub host_reads: u64,
    /// Host reads served entirely from cache.
    pub read_hits: u64,
    /// Host write pieces.
    pub host_writes: u64,
    /// Host writes that waited for write-cache space.
    pub nvs_delayed: u64,
    /// Total time writes waited for write-cache space.
    pub nvs_delay_ns: u64,
    /// Disk reads for misses and prefetch.
    pub read_ops: u64,
    /// Sum of their times from issue to completion.
    pub read_delay_ns: u64,
    /// Disk operations of destages.
    pub destage_ops: u64,
    /// Sum of their times from issue to completion.
    pub destage_delay_ns: u64,
    /// Destages completed (array writes of dirty data, each one or more disk operations).
    pub destages: u64,
    /// Sum of their times from the issue of their first disk operation to the end of their
    /// last.
    pub destage_rank_ns: u64,
    /// Stripe updates by full-stripe write.
    pub full_stripe: u64,
    /// Stripe updates by read-modify-write.
    pub read_modify_write: u64,
    /// Stripe updates by reconstruct-write.
    pub reconstruct_write: u64,
    /// Dirty pages that could not be destaged (data lost).
    pub lost_pages: u64,
    /// Disk operations of rebuilds.
    pub rebuild_ops: u64,
}

pub use storlab_core::host_stats::{round3, round4};
