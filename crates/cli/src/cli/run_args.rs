//! The options every measured run takes (`storlab sim`, `storlab db`, `storlab io`): the
//! measured window, the warm-up, the seed and the results file, declared once. What a
//! warm-up waits for, how long a run may be and what the seed drives differ between the
//! subcommands: each says so in its own help ([`for_sim`], [`for_db`], [`for_io`]).

use std::path::PathBuf;

use clap::{Arg, Args};
use storlab_core::steady::Warmup;
use storlab_core::TimeSpan;

use super::{parse_span, parse_warmup};

/// The measured window, warm-up, seed and results file of a run.
#[derive(Clone, Debug, Args)]
pub struct RunArgs {
    /// Measured time after the warm-up.
    #[arg(long, default_value = "60s", value_parser = parse_span)]
    pub duration: TimeSpan,
    /// Warm-up excluded from the measurement: a span (0 for none) or auto (until the run is
    /// steady, at most --warmup-max).
    #[arg(long, value_name = "SPAN|auto", value_parser = parse_warmup)]
    pub warmup: Option<Warmup>,
    /// Longest automatic warm-up.
    #[arg(long, value_name = "SPAN", default_value = "600s", value_parser = parse_span)]
    pub warmup_max: TimeSpan,
    /// Seed of every random stream.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the results (storlab.results/1) to this file.
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
}

/// `arg` with the help `texts` gives its option ((option, help) pairs); other options as
/// they are.
fn with_help(arg: Arg, texts: [(&str, &'static str); 4]) -> Arg {
    match texts.iter().find(|(id, _)| arg.get_id() == *id) {
        Some((_, help)) => arg.help(*help),
        None => arg,
    }
}

/// `storlab sim`'s run options: simulated time; the warm-up's default depends on the
/// workload.
pub(super) fn for_sim(arg: Arg) -> Arg {
    with_help(
        arg,
        [
            (
                "duration",
                "Measured simulated time after the warm-up (e.g. 60s, 5m)",
            ),
            (
                "warmup",
                "Simulated warm-up excluded from the measurement: a span (0 for none) or auto \
                 (until the per-second series is steady, at most --warmup-max) [default: auto \
                 for database workloads, 10s otherwise]",
            ),
            ("warmup_max", "Longest automatic warm-up (simulated time)"),
            ("seed", "Seed of every random stream"),
        ],
    )
}

/// `storlab db`'s run options: wall-clock time per test on a real server.
pub(super) fn for_db(arg: Arg) -> Arg {
    with_help(
        arg,
        [
            ("duration", "Measured time per test (at most 7 days)"),
            (
                "warmup",
                "Warm-up per test, excluded: a span (0 for none; at most 1 day) or auto (until \
                 the clients' rows/s, latency and the buffer-cache hit ratio are steady, at most \
                 --warmup-max) [default: auto]",
            ),
            ("warmup_max", "Longest automatic warm-up (at most 1 day)"),
            ("seed", "Seed of the clients' random streams"),
        ],
    )
}

/// `storlab io`'s run options: a shorter default window on a real device.
pub(super) fn for_io(arg: Arg) -> Arg {
    let arg = match arg.get_id() == "duration" {
        true => arg.default_value("30s"),
        false => arg,
    };
    with_help(
        arg,
        [
            ("duration", "Measured time after the warm-up"),
            (
                "warmup",
                "Warm-up excluded from the measurement: a span (0 for none) or auto (until the \
                 one-second IOPS and mean latency are steady, at most --warmup-max) [default: \
                 5s]",
            ),
            ("warmup_max", "Longest automatic warm-up (at most 1 day)"),
            ("seed", "Seed of the address streams"),
        ],
    )
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::super::{Cli, Command};

    /// The `--help` of `subcommand`.
    fn help(subcommand: &str) -> String {
        let mut cmd = Cli::command();
        let sub = cmd
            .find_subcommand_mut(subcommand)
            .expect("subcommand exists");
        sub.render_help().to_string()
    }

    #[test]
    fn every_run_option_is_in_each_help_with_that_commands_text() {
        for (sub, texts) in [
            (
                "sim",
                [
                    "Measured simulated time after the warm-up (e.g. 60s, 5m) [default: 60s]",
                    "at most --warmup-max) [default: auto for database workloads, 10s otherwise]",
                    "Longest automatic warm-up (simulated time) [default: 600s]",
                    "Seed of every random stream [default: 1]",
                ],
            ),
            (
                "db",
                [
                    "Measured time per test (at most 7 days) [default: 60s]",
                    "buffer-cache hit ratio are steady, at most --warmup-max) [default: auto]",
                    "Longest automatic warm-up (at most 1 day) [default: 600s]",
                    "Seed of the clients' random streams [default: 1]",
                ],
            ),
            (
                "io",
                [
                    "Measured time after the warm-up [default: 30s]",
                    "mean latency are steady, at most --warmup-max) [default: 5s]",
                    "Longest automatic warm-up (at most 1 day) [default: 600s]",
                    "Seed of the address streams [default: 1]",
                ],
            ),
        ] {
            let text = help(sub).split_whitespace().collect::<Vec<_>>().join(" ");
            for flag in [
                "--duration",
                "--warmup ",
                "--warmup-max",
                "--seed",
                "--json",
            ] {
                assert!(text.contains(flag), "{sub} --help lacks {flag}: {text}");
            }
            for t in texts {
                assert!(text.contains(t), "{sub} --help lacks {t:?}: {text}");
            }
        }
    }

    #[test]
    fn each_command_keeps_its_default_window() {
        let parse = |args: &[&str]| Cli::try_parse_from(args).expect("parses").command;
        let Command::Io(io) = parse(&["storlab", "io", "--target", "f"]) else {
            panic!("io")
        };
        assert_eq!(io.run.duration.0, 30_000_000_000);
        let Command::Sim(sim) = parse(&["storlab", "sim", "--array", "a.toml"]) else {
            panic!("sim")
        };
        assert_eq!(sim.run.duration.0, 60_000_000_000);
        assert_eq!(sim.run.warmup_max.0, 600_000_000_000);
        assert_eq!(
            (sim.run.seed, sim.run.warmup, sim.run.json),
            (1, None, None)
        );
        let Command::Db(db) = parse(&["storlab", "db", "--data-dir", "d", "--seed", "7"]) else {
            panic!("db")
        };
        assert_eq!((db.run.duration.0, db.run.seed), (60_000_000_000, 7));
    }
}
