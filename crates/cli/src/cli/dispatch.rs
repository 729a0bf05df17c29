//! From the parsed command line to the command that runs it.

use super::{Cli, Command};
use crate::error::CliError;

/// Simulations start nothing outside the process: when stdout is closed (`| head`), end
/// quietly like other Unix tools instead of panicking on the failed write. Commands that
/// start servers or create files keep SIGPIPE ignored so they always clean up.
fn quiet_on_closed_stdout() {
    // SAFETY: restoring the default disposition of SIGPIPE before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Runs the parsed command.
pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Sim(a) => {
            quiet_on_closed_stdout();
            crate::sim_cmd::run(a)
        }
        Command::Io(a) => crate::io_cmd::run(a),
        Command::Compare(a) => crate::compare::run(a),
        Command::Db(a) => crate::db_cmd::run(a),
        Command::Demo(a) => crate::demo::run(a),
        Command::Validate(a) if a.local => crate::validate::run(a),
        Command::Drive(a) => crate::drive_cmd::run(a),
        Command::Sweep(a) => crate::sweep_cmd::run(a),
        Command::Validate(a) => {
            quiet_on_closed_stdout();
            crate::validate::run(a)
        }
    }
}
