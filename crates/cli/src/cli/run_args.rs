//! The options every measured run takes (`storlab sim`, `storlab db`, `storlab io`): the
//! measured window, the warm-up, the seed and the results file, declared once. What a
//! warm-up waits for, how long a run may be and what the seed drives differ between the
//! subcommands: each says so in its own help ([`for_sim`], [`for_db`], [`for_io`]).

use std::path::PathBuf;

use clap::{Arg, Args};
use storlab_core::steady::Warmup;
use storlab_core::TimeSpan;

use super::{db_help, parse_span, parse_warmup};
use crate::flags::IO_WARMUP;

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
fn with_help(arg: Arg, texts: [(&str, String); 4]) -> Arg {
    match texts.into_iter().find(|(id, _)| arg.get_id() == *id) {
        Some((_, help)) => arg.help(help),
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
                "Measured simulated time after the warm-up (e.g. 60s, 5m); with an automatic \
                 warm-up, a database run whose window is not steady measures on, a window at \
                 a time, up to 5 windows (its checkpoints swing in cycles longer than a \
                 minute)"
                    .into(),
            ),
            (
                "warmup",
                "Simulated warm-up excluded from the measurement: a span (0 for none) or auto \
                 (until the per-second series is steady, at most --warmup-max) [default: auto \
                 for database workloads, 10s otherwise]"
                    .into(),
            ),
            (
                "warmup_max",
                "Longest automatic warm-up (simulated time)".into(),
            ),
            ("seed", "Seed of every random stream".into()),
        ],
    )
}

/// `storlab db`'s run options: wall-clock time per test on a real server.
pub(super) fn for_db(arg: Arg) -> Arg {
    with_help(
        arg,
        [
            ("duration", db_help::duration()),
            ("warmup", db_help::warmup()),
            ("warmup_max", db_help::warmup_max()),
            ("seed", "Seed of the clients' random streams".into()),
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
            ("duration", "Measured time after the warm-up".into()),
            (
                "warmup",
                "Warm-up excluded from the measurement: a span (0 for none) or auto (until the \
                 one-second IOPS and mean latency are steady, at most --warmup-max) [default: \
                 5s]"
                .into(),
            ),
            (
                "warmup_max",
                format!(
                    "Longest automatic warm-up ({})",
                    IO_WARMUP.bounds_in_words()
                ),
            ),
            ("seed", "Seed of the address streams".into()),
        ],
    )
}

#[cfg(test)]
pub(super) mod tests {
    use clap::{CommandFactory, Parser};
    use storlab_db::flags::{DURATION, WARMUP};

    use super::super::{Cli, Command};
    use crate::flags::IO_WARMUP;

    /// The `--help` of `subcommand`.
    pub(in crate::cli) fn help(subcommand: &str) -> String {
        let mut cmd = Cli::command();
        let sub = cmd
            .find_subcommand_mut(subcommand)
            .expect("subcommand exists");
        sub.render_help().to_string()
    }

    #[test]
    fn every_run_option_is_in_each_help_with_that_commands_text() {
        let db_warmup = WARMUP.bounds_in_words();
        let io_warmup = IO_WARMUP.bounds_in_words();
        for (sub, texts) in [
            (
                "sim",
                [
                    "up to 5 windows (its checkpoints swing in cycles longer than a minute) \
                     [default: 60s]"
                        .into(),
                    "at most --warmup-max) [default: auto for database workloads, 10s otherwise]"
                        .into(),
                    "Longest automatic warm-up (simulated time) [default: 600s]".into(),
                    "Seed of every random stream [default: 1]".into(),
                ],
            ),
            (
                "db",
                [
                    format!(
                        "Measured time per test ({}) [default: 60s]",
                        DURATION.bounds_in_words()
                    ),
                    format!(
                        "a span (0 for none; {db_warmup}) or auto (until the clients' rows/s, \
                         latency and the buffer-cache hit ratio are steady, at most \
                         --warmup-max) [default: auto]"
                    ),
                    format!("Longest automatic warm-up ({db_warmup}) [default: 600s]"),
                    "Seed of the clients' random streams [default: 1]".into(),
                ],
            ),
            (
                "io",
                [
                    "Measured time after the warm-up [default: 30s]".into(),
                    "mean latency are steady, at most --warmup-max) [default: 5s]".into(),
                    format!("Longest automatic warm-up ({io_warmup}) [default: 600s]"),
                    "Seed of the address streams [default: 1]".into(),
                ],
            ),
        ] {
            let texts: [String; 4] = texts;
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
                assert!(text.contains(&t), "{sub} --help lacks {t:?}: {text}");
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
