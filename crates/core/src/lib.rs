//! storlab-core: the vocabulary every other storlab crate speaks.
//!
//! It owns the units (`ByteSize`, `TimeSpan`), the I/O profile vocabulary shared by the
//! simulator and the real I/O engine (`randread-8k` means the same thing everywhere), the
//! latency histogram, and the result schema (`storlab.results/1`) that every run writes.
//! It knows nothing about how a workload is executed; its only I/O is reading a file a user
//! names, with a bound on its size (`input`).

pub mod character;
pub mod dbtest;
pub mod histogram;
pub mod host_stats;
pub mod input;
pub mod keys;
pub mod profile;
pub mod result;
pub mod rng;
pub mod steady;
pub mod stream;
pub mod units;

pub use histogram::{LatencyHistogram, LatencySummaryMs};
pub use profile::{AccessPattern, BlockSizeWeight, IoProfile, ProfileError};
pub use units::{ByteSize, TimeSpan, UnitError};

/// The storlab version, as built.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
