//! End-to-end tests of the `storlab` binary: exit codes, messages, tables and result files,
//! one module per subcommand.

mod compare;
mod compare_safety;
mod db;
mod fuzz_regressions;
mod heap;
mod io;
mod io_bounds;
mod io_safety;
mod outputs;
mod sim;
mod sim_db;
mod trace;
mod validate;
mod validate_local;

use assert_cmd::Command;

fn storlab() -> Command {
    Command::cargo_bin("storlab").expect("binary built")
}

fn example(name: &str) -> String {
    format!(
        "{}/../../examples/arrays/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A temporary directory on the build's disk (O_DIRECT works there, unlike tmpfs).
fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir")
}
