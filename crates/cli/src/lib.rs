//! storlab-cli's library: every command of the `storlab` binary (argument definitions in
//! [`cli`], dispatch in [`cli::run`]), so other front ends (the Python package in crates/py)
//! run exactly what the command line runs. The plan file parser of `storlab compare` (with the
//! command lines it makes of a plan's cells) reads user text and runs nothing, so the fuzz
//! targets in `fuzz/` call it directly. The binary (main.rs) adds only the process set-up.

// The command modules name the plan parser and the error type as `storlab_cli::...`.
extern crate self as storlab_cli;

pub mod cli;
pub mod compare;
pub mod db_cmd;
pub mod demo;
pub mod drive_cmd;
pub mod error;
pub mod flags;
pub mod io_cmd;
pub mod output;
pub mod private_dir;
pub mod sim_cmd;
pub mod sweep_cmd;
pub mod table;
pub mod trace_cmd;
pub mod users_sweep;
pub mod validate;
pub mod validate_local;

pub use compare::{command, plan};
