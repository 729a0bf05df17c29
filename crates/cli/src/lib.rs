//! storlab-cli's library half: the plan file parser of `storlab compare` (with the command
//! lines it makes of a plan's cells) and the crate's error type. They read user text and run
//! nothing, so the fuzz targets in `fuzz/` call them directly; the `storlab` binary
//! (main.rs) uses them from here.

/// The plan and its cells' command lines, in `compare/` beside the binary's `compare`
/// module (compare.rs), which runs them.
pub mod compare {
    pub mod command;
    pub mod plan;
}
pub mod error;

pub use compare::{command, plan};
