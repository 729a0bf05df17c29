//! storlab-cli's library half: the plan file parser of `storlab compare` (with the command
//! lines it makes of a plan's cells) and the crate's error type. They read user text and run
//! nothing, so the fuzz targets in `fuzz/` call them directly; the `storlab` binary
//! (main.rs) uses them from here.

#[path = "compare/command.rs"]
pub mod command;
pub mod error;
#[path = "compare/plan.rs"]
pub mod plan;
