//! `storlab`: the command-line front end. Parses arguments into validated options and hands
//! them to the command modules; maps bad input to exit code 2 and failed runs to 1.

mod heap;

use std::process::ExitCode;

use clap::Parser;
use storlab_cli::cli;

fn main() -> ExitCode {
    // A no-op unless STORLAB_HUGE_HEAP=1 asks for the huge-page heap (heap.rs).
    heap::use_huge_pages();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("storlab: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
