//! `storlab sim`: load the array, build the workload, simulate, print, write JSON.

use std::time::Instant;

use storlab_core::result::Run;
use storlab_sim::config::{database_workload, parse_toml, parse_workload_table};
use storlab_sim::db::MeasuredProfile;
use storlab_sim::{
    parse_array, parse_failure_arg, profile_workload, FailureSpec, RunOptions, SystemSpec,
    TraceSource, WorkloadSpec,
};

use crate::cli::SimArgs;
use crate::error::CliError;
use crate::output::{json_output, read_input, read_results, write_results};
use crate::table;

pub mod workload_from;

/// The warm-up of I/O workloads when `--warmup` is not given (database workloads warm up
/// until steady).
const DEFAULT_WARMUP: storlab_core::TimeSpan = storlab_core::TimeSpan(10_000_000_000);

/// Runs one simulation with wall time measured outside the simulator.
pub fn timed(
    system: &SystemSpec,
    workload: &WorkloadSpec,
    opts: RunOptions,
) -> Result<Run, CliError> {
    timed_with(system, workload, &system.failures, None, opts)
}

pub(crate) fn timed_with(
    system: &SystemSpec,
    workload: &WorkloadSpec,
    failures: &[FailureSpec],
    trace: Option<TraceSource>,
    opts: RunOptions,
) -> Result<Run, CliError> {
    // The simulator never reads a clock; the CLI measures sim.wall_s around it.
    #[allow(clippy::disallowed_methods)]
    let started = Instant::now();
    let mut run = storlab_sim::simulate_with(system, workload, failures, trace, opts)?;
    if let Some(sim) = run.sim.as_mut() {
        sim.wall_s = (started.elapsed().as_secs_f64() * 1e3).round() / 1e3;
    }
    Ok(run)
}

/// Loads an array file.
pub fn load_array(path: &std::path::Path) -> Result<SystemSpec, CliError> {
    let text = read_input(path)?;
    Ok(parse_array(&text, &path.display().to_string())?)
}

/// The workload of `--db-test`: a `[database]` section from the command line (and `set`,
/// typed values a plan gives, which win), checked like one in a file (errors name the option).
fn db_test_workload(
    a: &SimArgs,
    set: &DatabaseKeys,
    system: &SystemSpec,
) -> Result<WorkloadSpec, CliError> {
    let list = |s: &str| -> Vec<toml::Value> {
        s.split(',')
            .map(|n| toml::Value::String(n.trim().to_string()))
            .collect()
    };
    let mut db = toml::Table::new();
    let test = a.db_test.clone().unwrap_or_default();
    db.insert("test".into(), toml::Value::String(test.clone()));
    let (data, log) = db_placement(a, system);
    db.insert("data".into(), toml::Value::Array(list(&data)));
    db.insert("log".into(), toml::Value::Array(list(&log)));
    db_overrides(a, &mut db)?;
    db.extend(set.iter().map(|(k, v)| (k.clone(), v.clone())));
    Ok(database_workload(test, db, "--db-test", system)?)
}

/// Where `--db-test`'s database lives: `--db-data`, else where the array's volumes say
/// ([`SystemSpec::default_db_targets`], as for `--workload-from`: a database on "every LUN"
/// fills them in turn, leaving all but the first idle); its log on `--db-log`, else with
/// `--db-data` when that is given, else the default log target.
fn db_placement(a: &SimArgs, system: &SystemSpec) -> (String, String) {
    match (&a.db_data, &a.db_log) {
        (Some(d), l) => (d.clone(), l.clone().unwrap_or_else(|| d.clone())),
        (None, l) => {
            let (data, log) = system.default_db_targets();
            (data, l.clone().unwrap_or(log))
        }
    }
}

/// Writes `--sessions`, `--rows` and `--db-set` into a `[database]` section.
fn db_overrides(a: &SimArgs, db: &mut toml::Table) -> Result<(), CliError> {
    if let Some(n) = a.sessions {
        db.insert("sessions".into(), toml::Value::Integer(i64::from(n)));
    }
    if let Some(n) = a.rows {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        db.insert("rows".into(), toml::Value::Integer(n));
    }
    db_overrides_keys(a, db)
}

/// Writes `--db-set` into a `[database]` section.
fn db_overrides_keys(a: &SimArgs, db: &mut toml::Table) -> Result<(), CliError> {
    for kv in &a.db_set {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| CliError::BadInput(format!("--db-set: use KEY=VALUE; got {kv:?}")))?;
        db.insert(k.trim().to_string(), toml_value(v.trim()));
    }
    Ok(())
}

/// A workload file, with `--sessions`, `--rows` and `--db-set` over its `[database]`
/// section. The file is checked as it is first, so its own mistakes are reported against it;
/// then its table again with the options written in (no TOML text in between).
fn file_workload(
    a: &SimArgs,
    path: &std::path::Path,
    system: &SystemSpec,
) -> Result<WorkloadSpec, CliError> {
    let text = read_input(path)?;
    let file = path.display().to_string();
    let mut top = parse_toml(&text, &file)?;
    let workload = parse_workload_table(top.clone(), &file, system)?;
    if a.sessions.is_none() && a.rows.is_none() && a.db_set.is_empty() {
        return Ok(workload);
    }
    let Some(toml::Value::Table(db)) = top.get_mut("database") else {
        return Err(CliError::BadInput(format!(
            "--sessions, --rows and --db-set set keys of the simulated database; {file} has no \
             [database] section (give one, or use --db-test)"
        )));
    };
    db_overrides(a, db)?;
    let name = format!("{file} with --sessions, --rows or --db-set");
    Ok(parse_workload_table(top, &name, system)?)
}

/// Gives the workload's database the block profile measured in a real result file.
fn with_measured_profile(
    mut workload: WorkloadSpec,
    path: Option<&std::path::Path>,
) -> Result<WorkloadSpec, CliError> {
    let Some(path) = path else {
        return Ok(workload);
    };
    let Some(db) = workload.database.as_mut() else {
        return Err(CliError::BadInput(
            "--profile-from needs a simulated database (--db-test, or a workload with a [database] section)".into(),
        ));
    };
    let results = read_results(path)?;
    let file = path.display().to_string();
    let profile = MeasuredProfile::from_results(&results, db.test.name(), &file)
        .map_err(|e| CliError::BadInput(format!("{file}: {e}")))?;
    db.profile = Some(profile);
    Ok(workload)
}

/// A value as TOML reads it (`15`, `[14, 805]`, `true`), else as a string (`512MiB`).
fn toml_value(v: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {v}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(v.to_string()))
}

/// Options that only mean something with another one (clap's `requires` is not enforced for
/// these, so check here).
fn check_dependent_options(a: &SimArgs) -> Result<(), CliError> {
    let needs = |set: bool, opt: &str, base: &str, has: bool| {
        if set && !has {
            Err(CliError::BadInput(format!("{opt} needs {base}")))
        } else {
            Ok(())
        }
    };
    let db = a.db_test.is_some();
    let from = a.workload_from.is_some();
    let placed = "--db-test or --workload-from";
    needs(a.db_data.is_some(), "--db-data", placed, db || from)?;
    needs(a.db_log.is_some(), "--db-log", placed, db || from)?;
    needs(
        !a.segment_size.is_empty(),
        "--segment-size",
        "--workload-from",
        from,
    )?;
    let file = a.workload.is_some() || from;
    let either = "--db-test or a --workload with a [database] section";
    needs(a.sessions.is_some(), "--sessions", either, db || file)?;
    needs(
        a.rows.is_some(),
        "--rows",
        either,
        db || a.workload.is_some(),
    )?;
    needs(!a.db_set.is_empty(), "--db-set", either, db || file)?;
    needs(
        a.profile_from.is_some(),
        "--profile-from",
        "--db-test or --workload",
        db || a.workload.is_some(),
    )?;
    let trace = a.trace.is_some();
    needs(a.trace_format.is_some(), "--trace-format", "--trace", trace)?;
    needs(
        a.trace_outstanding.is_some(),
        "--trace-outstanding",
        "--trace",
        trace,
    )?;
    needs(!a.trace_map.is_empty(), "--trace-map", "--trace", trace)?;
    Ok(())
}

/// `[database]` keys given as values (a plan's `database` table), not as `--db-set` text.
pub type DatabaseKeys = std::collections::BTreeMap<String, toml::Value>;

/// The runs `a` asks for, printed by [`run`].
pub fn runs(a: &SimArgs) -> Result<Vec<Run>, CliError> {
    runs_with(a, &DatabaseKeys::new())
}

/// The runs `a` asks for with these `[database]` keys set too (`storlab compare`).
pub fn runs_with(a: &SimArgs, set: &DatabaseKeys) -> Result<Vec<Run>, CliError> {
    check_dependent_options(a)?;
    let system = load_array(&a.array)?;
    check_load_options(a)?;
    // Ctrl-C and SIGTERM stop the simulation between events; the run so far comes back
    // marked partial.
    storlab_io::signal::install();
    let opts = |database: bool| {
        let warmup =
            crate::cli::resolve_warmup(a.run.warmup, a.run.warmup_max, database, DEFAULT_WARMUP);
        RunOptions {
            duration_ns: a.run.duration.0,
            warmup_ns: warmup.max().0,
            seed: a.run.seed,
            warmup_auto: warmup.is_auto(),
            stop: Some(storlab_io::signal::flag()),
        }
    };
    if a.matrix {
        let opts = opts(false);
        let mut runs = Vec::new();
        for p in storlab_core::profile::IOGEN_MATRIX {
            let run = timed(&system, &profile_workload(p, &system)?, opts)?;
            let partial = run.partial;
            runs.push(run);
            if partial {
                break;
            }
        }
        return Ok(runs);
    }
    let from_workload = match a.workload_from.as_deref() {
        Some(path) => workload_from::workload(a, path, set, &system)?,
        None => WorkloadSpec {
            name: String::new(),
            streams: Vec::new(),
            database: None,
        },
    };
    let workload =
        match (&a.profile, &a.workload, &a.trace) {
            _ if a.db_test.is_some() => db_test_workload(a, set, &system)?,
            _ if a.workload_from.is_some() => from_workload,
            (Some(p), None, None) => profile_workload(p, &system)?,
            (None, Some(path), _) => file_workload(a, path, &system)?,
            (None, None, Some(path)) => WorkloadSpec {
                name: format!("trace:{}", path.display()),
                streams: Vec::new(),
                database: None,
            },
            _ => return Err(CliError::BadInput(
                "storlab sim needs one of --profile NAME, --workload FILE, --workload-from FILE, \
             --trace TRACE or --matrix"
                    .into(),
            )),
        };
    let workload = with_measured_profile(workload, a.profile_from.as_deref())?;
    check_job_options(a, &workload)?;
    let mut opts = opts(workload.database.is_some());
    let fitted = crate::trace_cmd::fit_window(a, &mut opts)?;
    let mut failures = system.failures.clone();
    for f in &a.fail {
        failures.push(parse_failure_arg(f, &system)?);
    }
    if a.sweep {
        return sweep(a, &system, &workload, &failures, opts);
    }
    if let Some(spec) = crate::users_sweep::sim_spec(a)? {
        return crate::users_sweep::sim_runs(&spec, &system, &workload, &failures, opts);
    }
    let (trace, trace_end) = crate::trace_cmd::open(a)?;
    let mut run = timed_with(&system, &workload, &failures, trace, opts)?;
    crate::trace_cmd::advise(a, &mut run, fitted, &trace_end);
    Ok(vec![run])
}

/// A load sweep: every stream at 1, 2, 4 ... `--sweep-max` outstanding I/Os (its jobs kept
/// while they fit, each with an equal share), one run per point. Each run's parameters carry
/// the point (`outstanding`) and the ceiling (`max_p99_ms`) for reports.
fn sweep(
    a: &SimArgs,
    system: &SystemSpec,
    workload: &WorkloadSpec,
    failures: &[FailureSpec],
    opts: RunOptions,
) -> Result<Vec<Run>, CliError> {
    crate::flags::check(&crate::flags::SIM_SWEEP_MAX, "--sweep-max", a.sweep_max)?;
    if workload.streams.is_empty() {
        return Err(CliError::BadInput(
            "--sweep needs --profile or a --workload with streams".into(),
        ));
    }
    let mut runs = Vec::new();
    for point in storlab_io::sweep::doubling(a.sweep_max) {
        let storlab_io::sweep::LoadPoint::Outstanding(k) = point else {
            continue;
        };
        let mut w = workload.clone();
        for s in &mut w.streams {
            let jobs = s.profile.jobs.clamp(1, k);
            s.profile.jobs = jobs;
            s.profile.iodepth = (k / jobs).max(1);
        }
        let mut run = timed_with(system, &w, failures, None, opts)?;
        let classes: Vec<_> = w
            .streams
            .iter()
            .map(|s| serde_json::json!({ "profile": &s.profile }))
            .collect();
        let mut params = serde_json::json!({ "outstanding": k, "classes": classes });
        if let Some(c) = a.max_p99_ms {
            params["max_p99_ms"] = c.into();
        }
        run.workload.parameters = params;
        let stop = run.partial || storlab_io::sweep::beyond_ceiling(&run, a.max_p99_ms);
        runs.push(run);
        if stop {
            break;
        }
    }
    Ok(runs)
}

/// The files a `storlab sim` run reads, by flag: no output may be one of them.
pub fn inputs(a: &SimArgs) -> Vec<crate::output::Input<'_>> {
    let optional = [
        ("--workload", &a.workload),
        ("--workload-from", &a.workload_from),
        ("--profile-from", &a.profile_from),
        ("--trace", &a.trace),
    ];
    std::iter::once(("--array", a.array.as_path()))
        .chain(
            optional
                .into_iter()
                .filter_map(|(flag, p)| p.as_deref().map(|p| (flag, p))),
        )
        .collect()
}

pub fn run(a: SimArgs) -> Result<(), CliError> {
    let outputs = crate::users_sweep::outputs(a.run.json.as_deref(), &a.users);
    crate::output::check_all(&outputs, &inputs(&a))?;
    if a.show_character {
        return show_character(&a);
    }
    if a.users.users_sweep {
        return crate::users_sweep::run_sim(&a);
    }
    let runs = runs(&a)?;
    let partial = runs.iter().any(|r| r.partial);
    let incomplete = runs
        .iter()
        .filter_map(|r| r.metrics.job.as_ref())
        .find(|j| !j.complete)
        .map(|j| (j.done_pct, j.limit_s));
    if a.matrix || a.sweep {
        if a.matrix {
            print!("{}", table::matrix(&runs[0].target.name, &runs));
        } else {
            print!("{}", table::sweep(&runs, a.max_p99_ms));
        }
        for r in runs.iter().filter(|r| !r.steady) {
            print!("{}:\n{}", r.workload.name, table::unsteady(r));
        }
    } else {
        print!("{}", table::single(&runs[0]));
    }
    if let Some(path) = &a.run.json {
        write_results(&json_output(path), runs)?;
        println!("results: {}", path.display());
    }
    if partial {
        return Err(CliError::Failed(
            "interrupted; the results so far are marked partial".into(),
        ));
    }
    if let Some((done_pct, limit_s)) = incomplete {
        return Err(CliError::Failed(format!(
            "job incomplete: {}% done when its time limit of {} s (--duration) was reached; \
             the result{} marked incomplete; raise --duration to let it finish",
            done_pct,
            limit_s,
            if a.run.json.is_some() {
                " is written,"
            } else {
                " is"
            }
        )));
    }
    Ok(())
}

/// `--show-character`: the `--db-test` as a workload characterization, printed as TOML.
fn show_character(a: &SimArgs) -> Result<(), CliError> {
    if a.db_test.is_none() {
        return Err(CliError::BadInput(
            "--show-character prints a --db-test's characterization; add --db-test TEST".into(),
        ));
    }
    let system = load_array(&a.array)?;
    let workload = db_test_workload(a, &DatabaseKeys::new(), &system)?;
    let c = workload
        .database
        .as_ref()
        .and_then(|d| d.builtin_character())
        .ok_or_else(|| {
            CliError::BadInput(format!(
                "--show-character: {} is not a transaction mix (a job or an analytic query); \
                 the tests with one: {}",
                a.db_test.as_deref().unwrap_or(""),
                storlab_core::dbtest::DB_TESTS
                    .iter()
                    .filter(|d| !d.mix.is_empty())
                    .map(|d| d.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    print!("{}", c.to_toml());
    Ok(())
}

/// A job runs from its start until it is done, `--duration` its time limit: a warm-up and
/// the load-sweep options do not apply to it.
fn check_job_options(a: &SimArgs, workload: &WorkloadSpec) -> Result<(), CliError> {
    let Some(job) = workload.database.as_ref().and_then(|d| d.job.as_ref()) else {
        return Ok(());
    };
    let name = job.kind.name();
    let warmup = matches!(a.run.warmup, Some(storlab_core::steady::Warmup::Fixed(t)) if t.0 > 0);
    if warmup {
        return Err(CliError::BadInput(format!(
            "--warmup does not apply to {name}: a job runs from its start to its end, and \
             --duration is its time limit; remove --warmup"
        )));
    }
    if a.sweep || a.users.users_sweep {
        return Err(CliError::BadInput(format!(
            "--sweep and --users-sweep do not apply to {name}: a job runs once to completion"
        )));
    }
    Ok(())
}

/// Bounds of the command-line options that drive the simulation's memory and time (those
/// of the files are checked with the files).
fn check_load_options(a: &SimArgs) -> Result<(), CliError> {
    use crate::flags;
    use storlab_sim::config::limits::MAX_SIM_TIME_NS;
    let (warmup, flag) = match a.run.warmup {
        Some(storlab_core::steady::Warmup::Fixed(t)) => (t, "--warmup"),
        _ => (a.run.warmup_max, "--warmup-max"),
    };
    let total = a.run.duration.0.checked_add(warmup.0);
    if total.is_none_or(|t| t > MAX_SIM_TIME_NS) {
        return Err(CliError::BadInput(format!(
            "--duration plus {flag} must be at most {} s ({} of simulated time); got {} + {}",
            MAX_SIM_TIME_NS / 1_000_000_000,
            storlab_core::keys::span_words(MAX_SIM_TIME_NS),
            a.run.duration,
            warmup
        )));
    }
    if a.sweep {
        flags::check(&flags::SIM_SWEEP_MAX, "--sweep-max", a.sweep_max)?;
    }
    if let Some(n) = a.trace_outstanding {
        flags::check(&flags::TRACE_OUTSTANDING, "--trace-outstanding", n)?;
    }
    if let Some(ms) = a.max_p99_ms {
        flags::check(&flags::MAX_P99_MS, "--max-p99-ms", ms)?;
    }
    Ok(())
}
