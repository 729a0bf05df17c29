//! `--users-sweep` of `storlab sim` and `storlab db`: "how many users can this storage
//! carry". The database test runs at several user (session) counts, each user thinking
//! between transactions; the answer is the largest count whose transaction response time
//! (mean, p95 or p99) stays under a target, with the knee of the throughput curve
//! (Kleinrock's N*, see [`analysis`]).
//!
//! Without `--users` the counts are found: 1, 2, 4 ... until one misses the target (or,
//! once the throughput stops growing, straight to where the response time law puts the
//! target), then a bisection between the last count that met it and the first that did
//! not ([`grid`]).
//! Simulated points run in parallel, one thread each (the simulator is deterministic per
//! seed, so the order does not matter); real ones one after the other, each on a server
//! started and loaded for it.

use std::path::PathBuf;

use clap::Args;
use storlab_core::result::{Results, Run};

use crate::error::CliError;
use crate::flags::{self, DEFAULT_MAX_RESPONSE_MS, MAX_RESPONSE_MS, SWEEP_POINTS, THINK_MS};
use crate::output::{Format, Output};
use storlab_core::keys::Key;

pub mod analysis;
mod db;
pub mod grid;
mod sim;
mod stations;
mod text;

pub use db::db_runs;
pub use sim::sim_runs;

/// The options of a users sweep, the same for `storlab sim` and `storlab db`.
#[derive(Clone, Debug, Default, Args)]
pub struct UsersSweepArgs {
    /// How many users this storage carries: run the database test at several user (session)
    /// counts and report the largest whose transaction response time stays under
    /// --max-response-ms, and the knee of the throughput curve.
    #[arg(long)]
    pub users_sweep: bool,
    /// User counts of a users sweep, comma-separated [default: 1, 2, 4 ... until one misses
    /// the target, then a bisection between the last that met it and the first that did
    /// not].
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub users: Vec<u32>,
    // Response-time target; the help gives the declared bounds and default
    // (max_response_help).
    #[arg(long, value_name = "MS", help = max_response_help())]
    pub max_response_ms: Option<f64>,
    /// The statistic of the transaction response time held to the target [default: p95].
    #[arg(long, value_name = "STAT", value_parser = ["mean", "p95", "p99"])]
    pub response: Option<String>,
    /// Think time of each user between transactions, ms (default: the test's, e.g. 10 for
    /// oltp, 0 for DPAWS).
    #[arg(long, value_name = "MS")]
    pub think_ms: Option<f64>,
    /// How a real database's clients draw --think-ms: the same pause every time, or from an
    /// exponential distribution of that mean (a simulated database follows its
    /// `variability` key) [default: fixed].
    #[arg(long, value_name = "HOW", value_parser = ["fixed", "exponential"], requires = "think_ms")]
    pub think_variability: Option<String>,
    /// Also write the users sweep's curve (response time and throughput against users, the
    /// target and the knee) as a self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub users_html: Option<PathBuf>,
}

/// `--max-response-ms`'s help, from its declaration: the bounds and the default.
fn max_response_help() -> String {
    format!(
        "Response-time target of a users sweep, ms ({}) [default: {}]",
        MAX_RESPONSE_MS.bounds_in_words(),
        storlab_core::keys::number(DEFAULT_MAX_RESPONSE_MS)
    )
}

/// A users sweep's options, checked.
#[derive(Clone, Debug)]
pub struct SweepSpec {
    /// The user counts given, sorted; empty: find them.
    pub users: Vec<u32>,
    /// The target, ms.
    pub max_response_ms: f64,
    /// `mean`, `p95` or `p99`.
    pub statistic: String,
    /// Think time override, ms.
    pub think_ms: Option<f64>,
    /// Real clients draw the think time from an exponential distribution.
    pub think_exponential: bool,
    /// Most users of a point.
    pub cap: u32,
}

impl UsersSweepArgs {
    /// The options checked (bad input names the flag and its bound); None without
    /// `--users-sweep`, when the sweep's other options must not be given either. `users`
    /// declares the user counts a point may have.
    pub fn spec(&self, users_key: &Key) -> Result<Option<SweepSpec>, CliError> {
        let bad = |m: String| Err(CliError::BadInput(m));
        if !self.users_sweep {
            let given = [
                (!self.users.is_empty(), "--users"),
                (self.max_response_ms.is_some(), "--max-response-ms"),
                (self.response.is_some(), "--response"),
                (self.think_ms.is_some(), "--think-ms"),
                (self.think_variability.is_some(), "--think-variability"),
                (self.users_html.is_some(), "--users-html"),
            ];
            if let Some((_, flag)) = given.iter().find(|g| g.0) {
                return bad(format!("{flag} needs --users-sweep"));
            }
            return Ok(None);
        }
        let mut users = self.users.clone();
        users.sort_unstable();
        users.dedup();
        for &n in &users {
            flags::check(users_key, "--users: each count", flags::count(u64::from(n)))?;
        }
        let cap = users_key
            .int_max()
            .map_or(u32::MAX, |max| u32::try_from(max).unwrap_or(u32::MAX));
        if !users.is_empty() {
            flags::check(&SWEEP_POINTS, "--users:", flags::count(users.len() as u64))?;
        }
        let target = self.max_response_ms.unwrap_or(DEFAULT_MAX_RESPONSE_MS);
        flags::check(&MAX_RESPONSE_MS, "--max-response-ms", target)?;
        if let Some(z) = self.think_ms {
            flags::check(&THINK_MS, "--think-ms", z)?;
        }
        Ok(Some(SweepSpec {
            users,
            max_response_ms: target,
            statistic: self.response.clone().unwrap_or_else(|| "p95".into()),
            think_ms: self.think_ms,
            think_exponential: self.think_variability.as_deref() == Some("exponential"),
            cap,
        }))
    }
}

/// The sweep's user count recorded in a run's parameters (`users`).
pub fn users_of(run: &Run) -> Option<u32> {
    run.workload
        .parameters
        .get("users")
        .and_then(serde_json::Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

/// The output files of a `storlab sim` or `storlab db` run: `--json` and, of a sweep,
/// `--users-html`.
pub fn outputs(json: Option<&std::path::Path>, a: &UsersSweepArgs) -> Vec<Output> {
    let html = a
        .users_html
        .as_deref()
        .map(|p| Output::new("--users-html", p, Format::Html));
    json.map(crate::output::json_output)
        .into_iter()
        .chain(html)
        .collect()
}

/// Records the user count in a run's parameters.
fn mark_users(run: &mut Run, users: u32) {
    match run.workload.parameters.as_object_mut() {
        Some(o) => {
            o.insert("users".into(), users.into());
        }
        None => run.workload.parameters = serde_json::json!({ "users": users }),
    }
}

/// Prints the sweep's table and answer, writes the JSON (the runs and the `users_sweep`
/// object) and the HTML page; a failed run when the sweep was interrupted.
pub fn finish(
    spec: &SweepSpec,
    runs: Vec<Run>,
    setting: &analysis::Setting,
    json: Option<&std::path::Path>,
    users: &UsersSweepArgs,
) -> Result<(), CliError> {
    let sweep = analysis::summarize(spec, &runs, setting);
    print!("{}", text::table(&sweep));
    println!("{}", text::answer(&sweep));
    for r in runs.iter().filter(|r| !r.steady) {
        let why = crate::table::unsteady(r);
        if !why.is_empty() {
            print!("{} users:\n{why}", users_of(r).unwrap_or(0));
        }
    }
    let partial = runs.iter().any(|r| r.partial) || storlab_io::signal::stop_requested();
    for out in outputs(json, users) {
        if let Format::Html = out.format {
            out.write(storlab_report::users_sweep::page(&sweep, &title(&runs)).as_bytes())?;
            println!("report: {}", out.path.display());
        }
    }
    if let Some(path) = json {
        let mut results = Results::new(crate::output::GIT_COMMIT, runs);
        results.users_sweep = Some(sweep);
        crate::output::json_output(path).write(crate::output::json_text(&results)?.as_bytes())?;
        println!("results: {}", path.display());
    }
    if partial {
        return Err(CliError::Failed(
            "interrupted; the points so far are above (a point cut short is marked partial)".into(),
        ));
    }
    Ok(())
}

/// "dpaws/update-row on enterprise-raid5".
fn title(runs: &[Run]) -> String {
    runs.first().map_or_else(String::new, |r| {
        format!("{} on {}", r.workload.name, r.target.name)
    })
}

/// The sweep of `storlab sim`, checked against the options it cannot go with.
pub fn sim_spec(a: &crate::cli::SimArgs) -> Result<Option<SweepSpec>, CliError> {
    let spec = a.users.spec(&flags::SIM_USERS)?;
    if spec.is_some() {
        let clash = [
            (
                a.sessions.is_some(),
                "--sessions (give the counts with --users)",
            ),
            (a.sweep, "--sweep"),
            (a.matrix, "--matrix"),
            (a.trace.is_some(), "--trace"),
            (a.profile.is_some(), "--profile"),
            (
                a.users.think_variability.is_some(),
                "--think-variability (a simulated database follows its `variability` key: \
                 --db-set variability=exponential)",
            ),
        ];
        if let Some((_, what)) = clash.iter().find(|c| c.0) {
            return Err(CliError::BadInput(format!(
                "--users-sweep cannot go with {what}"
            )));
        }
    }
    Ok(spec)
}

/// The summary (points, answer, knee) of a simulated sweep's `runs` as `a` asked for it;
/// None when `a` asks for no users sweep or no run was measured.
pub fn sim_summary(
    a: &crate::cli::SimArgs,
    runs: &[Run],
) -> Result<Option<storlab_core::result::UsersSweep>, CliError> {
    let Some(spec) = sim_spec(a)? else {
        return Ok(None);
    };
    if runs.is_empty() {
        return Ok(None);
    }
    let setting = sim_setting(a, runs)?;
    Ok(Some(analysis::summarize(&spec, runs, &setting)))
}

/// What the knee of a simulated sweep knows besides its runs.
fn sim_setting(a: &crate::cli::SimArgs, runs: &[Run]) -> Result<analysis::Setting, CliError> {
    Ok(analysis::Setting {
        think_ms: runs.first().map_or(0.0, analysis::sim_think_ms),
        host_cpus: None,
        destage_slots: sim::destage_slots(&crate::sim_cmd::load_array(&a.array)?),
    })
}

/// The sweep of `storlab db`, checked against the options it cannot go with.
pub fn check_db(a: &crate::cli::DbArgs) -> Result<(), CliError> {
    if a.clients.is_some() {
        return Err(CliError::BadInput(
            "--users-sweep cannot go with --clients (give the counts with --users)".into(),
        ));
    }
    Ok(())
}

/// `storlab sim --users-sweep`.
pub fn run_sim(a: &crate::cli::SimArgs) -> Result<(), CliError> {
    let Some(spec) = sim_spec(a)? else {
        return Ok(());
    };
    let runs = crate::sim_cmd::runs(a)?;
    let setting = sim_setting(a, &runs)?;
    finish(&spec, runs, &setting, a.run.json.as_deref(), &a.users)
}

/// The think time of a real test's clients, ms: --think-ms, else the test's.
pub fn db_think_ms(a: &crate::cli::DbArgs) -> f64 {
    a.users.think_ms.unwrap_or_else(|| {
        storlab_db::suites::find(&a.suite, &a.test)
            .ok()
            .and_then(|t| t.first().map(|t| t.def.think_ms as f64))
            .unwrap_or(0.0)
    })
}

/// What the knee of a real sweep knows besides its runs.
pub fn db_setting(a: &crate::cli::DbArgs) -> analysis::Setting {
    analysis::Setting {
        think_ms: db_think_ms(a),
        host_cpus: db_host_cpus(a),
        destage_slots: Vec::new(),
    }
}

/// The CPUs of the server a real test runs on: this machine's, unless it is another server
/// (`--dsn`).
pub fn db_host_cpus(a: &crate::cli::DbArgs) -> Option<u32> {
    a.dsn
        .is_none()
        .then(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32))
}

/// `storlab db --users-sweep`.
pub fn run_db(a: &crate::cli::DbArgs) -> Result<(), CliError> {
    let Some(spec) = a.users.spec(&storlab_db::flags::CLIENTS)? else {
        return Ok(());
    };
    let runs = crate::db_cmd::runs(a)?;
    finish(&spec, runs, &db_setting(a), a.run.json.as_deref(), &a.users)
}
