//! A plan unit's typed options turned into the options structure of its subcommand: clap's
//! defaults for everything the plan does not set, the plan's values set directly (durations
//! to the nanosecond, `[database]` keys as values), never a command line parsed again.

use std::ffi::OsString;

use clap::Parser;
use storlab_cli::command::{Invocation, IoWork, SimWork, Subcommand};
use storlab_core::steady::Warmup;

use crate::cli::{Cli, Command, DbArgs, IoArgs, RunArgs, SimArgs};
use crate::error::CliError;
use crate::sim_cmd::DatabaseKeys;

/// A subcommand's options with clap's defaults (`required` gives its required options).
fn defaults(required: Vec<OsString>) -> Result<Command, CliError> {
    let argv = std::iter::once(OsString::from("storlab")).chain(required);
    Cli::try_parse_from(argv).map(|c| c.command).map_err(|e| {
        let msg = e.to_string();
        CliError::BadInput(msg.lines().next().unwrap_or("bad arguments").to_string())
    })
}

/// A unit's options, ready to run.
#[derive(Debug)]
pub(super) enum Options {
    Sim(Box<SimArgs>, DatabaseKeys),
    Io(Box<IoArgs>),
    Db(Box<DbArgs>),
}

fn not(expected: &str) -> CliError {
    CliError::Failed(format!("clap gave no {expected} options"))
}

/// Sets an I/O workload on `storlab sim`'s or `storlab io`'s options: both name its fields
/// alike, so one body serves the two types.
macro_rules! set_io_work {
    ($a:expr, $w:expr) => {
        match $w {
            IoWork::Profile(p) => $a.profile = Some(p.clone()),
            IoWork::File(f) => $a.workload = Some(f.clone()),
            IoWork::Sweep {
                profile,
                max,
                max_p99_ms,
            } => {
                $a.profile = Some(profile.clone());
                $a.sweep = true;
                $a.sweep_max = *max;
                $a.max_p99_ms = *max_p99_ms;
            }
        }
    };
}

fn set_sim_io(a: &mut SimArgs, w: &IoWork) {
    set_io_work!(a, w);
}

fn set_io(a: &mut IoArgs, w: &IoWork) {
    set_io_work!(a, w);
}

fn sim(inv: &Invocation, array: &std::path::Path) -> Result<Options, CliError> {
    let Subcommand::Sim { work, fail, .. } = &inv.command else {
        return Err(not("sim"));
    };
    let required = vec!["sim".into(), "--array".into(), array.as_os_str().to_owned()];
    let Command::Sim(mut a) = defaults(required)? else {
        return Err(not("sim"));
    };
    let mut database = DatabaseKeys::new();
    match work {
        SimWork::Io(w) => set_sim_io(&mut a, w),
        SimWork::Db {
            test,
            data,
            log,
            database: keys,
            users_sweep,
        } => {
            a.db_test = Some(test.clone());
            a.db_data.clone_from(data);
            a.db_log.clone_from(log);
            database.clone_from(keys);
            if let Some(u) = users_sweep {
                a.users.users_sweep = true;
                a.users.users.clone_from(&u.sessions);
                a.users.max_response_ms = u.max_response_ms;
                a.users.response.clone_from(&u.response);
                a.users.think_ms = u.think_ms;
            }
        }
        SimWork::Trace(t) => {
            a.trace = Some(t.path.clone());
            a.trace_format.clone_from(&t.format);
            a.trace_outstanding = t.outstanding;
            a.trace_map.clone_from(&t.map);
        }
    }
    a.fail.clone_from(fail);
    set_run(&mut a.run, inv);
    Ok(Options::Sim(Box::new(a), database))
}

/// A cell's measured window, warm-up and seed on its run options (an automatic warm-up
/// carries its limit as `--warmup-max`).
fn set_run(run: &mut RunArgs, inv: &Invocation) {
    run.duration = inv.duration;
    run.warmup = Some(inv.warmup);
    if let Warmup::Auto { max } = inv.warmup {
        run.warmup_max = max;
    }
    run.seed = inv.seed;
}

/// The options of `inv`'s subcommand.
pub(super) fn options(inv: &Invocation) -> Result<Options, CliError> {
    match &inv.command {
        Subcommand::Sim { array, .. } => sim(inv, array),
        Subcommand::Io {
            target,
            size,
            engine,
            work,
        } => {
            let required = vec![
                "io".into(),
                "--target".into(),
                target.as_os_str().to_owned(),
            ];
            let Command::Io(mut a) = defaults(required)? else {
                return Err(not("io"));
            };
            a.size = Some(*size);
            a.engine.clone_from(engine);
            set_io(&mut a, work);
            set_run(&mut a.run, inv);
            Ok(Options::Io(Box::new(a)))
        }
        Subcommand::Db {
            suite,
            test,
            data_dir,
            wal_dir,
            clients,
            scale,
        } => {
            let required = vec![
                "db".into(),
                "--data-dir".into(),
                data_dir.as_os_str().to_owned(),
            ];
            let Command::Db(mut a) = defaults(required)? else {
                return Err(not("db"));
            };
            a.suite.clone_from(suite);
            a.test.clone_from(test);
            a.wal_dir.clone_from(wal_dir);
            a.clients = *clients;
            if let Some(s) = scale {
                a.scale = *s;
            }
            set_run(&mut a.run, inv);
            Ok(Options::Db(Box::new(a)))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use storlab_cli::plan::parse_plan;

    use super::*;

    const PLAN: &str = r#"
title = "t"
seed = 7
[[targets]]
name = "a"
array = "arrays/a.toml"
fail = ["g-0.d1@5s"]
db_data = "datavol"
db_log = "logvol"
[[targets]]
name = "local"
data = "/srv/pg"
wal = "/srv/wal"
duration = "2s"
[[workloads]]
iogen = true
targets = ["a"]
[[workloads]]
db_test = "dpaws/update-range"
clients = 4
scale = 50000
database = { tables = 15, row_bytes = [14, 805], buffer = "256MiB", os_cache_warm = true }
[[workloads]]
sweep = "randread-8k"
max_p99_ms = 5
[[workloads]]
workload = "w/redo.toml"
targets = ["a"]
"#;

    /// The options a unit runs with are the ones its displayed command line gives: what the
    /// report shows reproduces the cell.
    #[test]
    fn typed_options_are_what_the_displayed_command_line_parses_to() {
        let plan = parse_plan(PLAN, Path::new("plans/p.toml")).unwrap();
        let units = plan.units(&mut Vec::new());
        // IOgen on a, the database test and the sweep on both, the workload file on a.
        assert_eq!(units.len(), 10 + 2 + 2 + 1);
        for u in &units {
            let argv = std::iter::once("storlab".to_string()).chain(u.invocation.args());
            let parsed = Cli::try_parse_from(argv).unwrap().command;
            let typed = options(&u.invocation).unwrap();
            let (parsed, typed) = match (parsed, typed) {
                (Command::Sim(mut p), Options::Sim(t, keys)) => {
                    // The displayed --db-set KEY=VALUE pairs are the typed keys.
                    let shown: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    assert_eq!(p.db_set, shown);
                    p.db_set.clear();
                    (format!("{p:?}"), format!("{t:?}"))
                }
                (Command::Io(p), Options::Io(t)) => (format!("{p:?}"), format!("{t:?}")),
                (Command::Db(p), Options::Db(t)) => (format!("{p:?}"), format!("{t:?}")),
                (p, t) => panic!("{p:?} vs {t:?}"),
            };
            assert_eq!(parsed, typed, "{}", u.command());
        }
    }
}
