//! storlab-io: database-shaped I/O on real files and block devices ("IOgen" for today).
//!
//! It owns target preparation (files created, preallocated and filled with non-zero data;
//! directories of files; block devices, guarded by safety checks), the engines (`psync`: one
//! thread per outstanding I/O; `io_uring`: one ring per job with batched submission), the
//! measurement (per-operation latency histograms, one-second series, the iostat view of the
//! devices underneath, the tool's own CPU cost) and the result in the common schema. It runs
//! the same profiles as the simulator, drawing addresses from the same `JobStream`.
//! It must never write to data it did not create unless told (`--overwrite`,
//! `--force-destroy DEVICE`), and it cleans up what it created, also on Ctrl-C.

// Real I/O is measured in wall-clock time by definition.
#![allow(clippy::disallowed_methods)]

pub mod buffer;
pub mod diskstats;
mod engine;
pub mod error;
pub mod iostat_schema;
pub mod options;
mod report;
pub mod run;
pub mod safety;
pub mod signal;
pub mod sweep;
pub mod target;
pub mod verify;
mod warmup;

pub use error::IoError;
pub use options::{EngineKind, IoClass, IoOptions, SteadyState, SyncMode};
pub use run::{run_io, run_io_with_latency};
