//! `storlab validate --local`: the simulator against this machine, in one command.
//!
//! In a fresh work directory (removed at the end, on error and after Ctrl-C): a short
//! `storlab io` calibration sweep, a simulated device fitted to it (rules in [`fit`]), written
//! as an array file; then `storlab db` for real (DPAWS update-row and select-row at a small
//! scale) and the same tests on the fitted array with the real run's sessions, table shape,
//! buffer size (`shared_buffers`) and block profile (what `--profile-from` does). It prints
//! real against simulated rows/s, commit latency and top wait, with a verdict per test. It is
//! a report, not a gate: exit 0 when it ran, 2 for bad input, 1 when a step failed.

mod calibrate;
mod fit;
mod report;
mod workdir;

use std::path::{Path, PathBuf};

use storlab_core::result::{Results, Run};
use storlab_db::options::Server;
use storlab_db::{run_db, DbOptions};
use storlab_sim::config::resolve_target;
use storlab_sim::db::MeasuredProfile;
use storlab_sim::{parse_array, parse_workload, RunOptions, SystemSpec, WorkloadSpec};

use crate::error::CliError;
use crate::output::{json_output, write_results, Format, Output, GIT_COMMIT};
use crate::sim_cmd::timed;

/// The DPAWS tests compared.
const TESTS: [&str; 2] = ["update-row", "select-row"];
/// Rows per table, sessions (clients) and warm-up of both the real and the simulated runs.
const SCALE: u64 = 20_000;
const SESSIONS: u32 = 16;
const WARMUP_NS: u64 = 3_000_000_000;
/// Seed of the real clients and of the simulations.
const SEED: u64 = 1;

/// Options of `storlab validate --local`.
pub struct LocalOptions {
    /// Where to create the work directory (None: the current directory, else /var/tmp).
    pub dir: Option<PathBuf>,
    /// Measured time of each database test, real and simulated.
    pub duration_ns: u64,
    /// Write every run (result schema) here, and the fitted array beside it.
    pub json: Option<PathBuf>,
}

/// The fitted array written beside `--json FILE`: FILE.array.toml.
pub fn fitted_array_output(json: &Path) -> Output {
    Output::new("--json", &json.with_extension("array.toml"), Format::Toml)
}

pub fn run(o: &LocalOptions) -> Result<(), CliError> {
    storlab_io::signal::install();
    let work = workdir::WorkDir::create(o.dir.as_deref())?;
    println!(
        "work directory: {} (removed at the end)",
        work.path().display()
    );
    let result = run_in(o, work.path());
    drop(work);
    if storlab_io::signal::stop_requested() {
        return Err(CliError::Failed(
            "interrupted; the work directory was removed".into(),
        ));
    }
    result
}

fn run_in(o: &LocalOptions, dir: &Path) -> Result<(), CliError> {
    println!("calibrating: storlab io, O_DIRECT, 2 s per point");
    let cal = calibrate::calibrate(dir)?;
    let capacity_gb = filesystem_gb(dir).max(1.0);
    let fitted = fit::fit(&cal.measured, capacity_gb).map_err(CliError::Failed)?;
    let array_text = fit::array_toml(&fitted, &dir.display().to_string());
    let array_path = dir.join("local.array.toml");
    Output::new("work directory", &array_path, Format::Toml).write(array_text.as_bytes())?;
    let system = parse_array(&array_text, &array_path.display().to_string())?;
    let model = fit_check(&system, &cal.runs)?;
    print!("{}", report::calibration(&cal.runs, &model));
    print!(
        "{}",
        report::fitted(&fitted, cal.measured.read_latency_qd1_ms)
    );
    println!("fitted array ({}):", array_path.display());
    for line in array_text.lines() {
        println!("    {line}");
    }
    let mut runs = cal.runs;
    let mut pairs = Vec::new();
    for test in TESTS {
        println!("real: storlab db dpaws/{test}, {SESSIONS} clients, scale {SCALE}");
        let real = real_db(dir, test, o.duration_ns)?;
        let sim = simulate_db(&system, &real, o.duration_ns)?;
        pairs.push((real, sim));
    }
    print!("{}", report::comparison(&pairs));
    for (real, sim) in &pairs {
        println!("  {}", report::verdict(real, sim));
    }
    if let Some(path) = &o.json {
        let beside = fitted_array_output(path);
        runs.extend(model);
        for (real, sim) in pairs {
            runs.push(real);
            runs.push(sim);
        }
        write_results(&json_output(path), runs)?;
        beside.write(array_text.as_bytes())?;
        println!(
            "results: {} (fitted array: {})",
            path.display(),
            beside.path.display()
        );
    }
    Ok(())
}

/// The calibration points' profiles on the fitted model, for the fit check.
fn fit_check(system: &SystemSpec, real: &[Run]) -> Result<Vec<Run>, CliError> {
    real.iter()
        .map(|r| {
            let profile = r
                .workload
                .parameters
                .pointer("/classes/0/profile")
                .cloned()
                .and_then(|p| serde_json::from_value(p).ok())
                .ok_or_else(|| CliError::Failed("a calibration run has no profile".into()))?;
            let stream = resolve_target(profile, &["local".to_string()], system)
                .map_err(CliError::Failed)?;
            let workload = WorkloadSpec {
                name: r.workload.name.clone(),
                streams: vec![stream],
                database: None,
            };
            timed(system, &workload, sim_options(2_000_000_000, 500_000_000))
        })
        .collect()
}

fn sim_options(duration_ns: u64, warmup_ns: u64) -> RunOptions {
    RunOptions {
        duration_ns,
        warmup_ns,
        seed: SEED,
        warmup_auto: false,
        stop: Some(storlab_io::signal::flag()),
    }
}

/// `storlab db` for one DPAWS test, data and WAL in `dir`.
fn real_db(dir: &Path, test: &str, duration_ns: u64) -> Result<Run, CliError> {
    let opts = DbOptions {
        server: Server::Ephemeral {
            data_dir: dir.join(format!("pg-{test}")),
            wal_dir: None,
            tablespaces: Vec::new(),
            pg_bin: None,
            settings: Vec::new(),
        },
        suite: "dpaws".into(),
        test: test.into(),
        clients: Some(SESSIONS),
        scale: SCALE,
        duration_ns,
        warmup_ns: WARMUP_NS,
        warmup_auto: false,
        seed: SEED,
        schema: "storlab".into(),
        tablespace: None,
        think: None,
    };
    let mut runs = run_db(&opts)?;
    match runs.pop() {
        Some(r) if !r.partial && r.metrics.rows_per_s.is_some() => Ok(r),
        _ => Err(CliError::Failed(format!(
            "storlab db dpaws/{test} was interrupted or measured nothing"
        ))),
    }
}

/// The same test on the fitted array: DPAWS' table shape, the real run's sessions, buffer
/// (`shared_buffers`) and block profile (with the server's CPU per operation), this
/// machine's CPU count, the load generator's CPU per operation on those same CPUs (storlab's
/// driver ran beside the server), and its memory available for the file cache PostgreSQL
/// reads and writes through (`os_cache`), which starts holding the database as the real one
/// does after its load.
fn simulate_db(system: &SystemSpec, real: &Run, duration_ns: u64) -> Result<Run, CliError> {
    let settings = real.db.as_ref().map(|d| &d.settings);
    let shared_buffers = settings
        .and_then(|s| s.get("shared_buffers"))
        .ok_or_else(|| CliError::Failed("the real run did not report shared_buffers".into()))?;
    let buffer = pg_size_bytes(shared_buffers).ok_or_else(|| {
        CliError::Failed(format!("cannot read shared_buffers = {shared_buffers:?}"))
    })?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let test = &real.workload.name;
    let text = format!(
        "name = \"{test}\"\n[database]\ntest = \"{test}\"\nsessions = {SESSIONS}\n\
         data = [\"local\"]\nlog = [\"local\"]\ntables = 15\nrows = {SCALE}\n\
         row_bytes = [14, 805]\nbuffer = \"{}k\"\ncpus = {cpus}\nos_cache = \"{}k\"\nos_cache_warm = true\n",
        buffer >> 10,
        mem_available_kib()
    );
    let mut workload = parse_workload(&text, "validate --local", system)?;
    let results = Results::new(GIT_COMMIT, vec![real.clone()]);
    let profile = MeasuredProfile::from_results(&results, test, "the real run")
        .map_err(|e| CliError::Failed(format!("block profile of the real run: {e}")))?;
    if let Some(db) = workload.database.as_mut() {
        db.client_cpu_ns = profile
            .client_cpu_ns_per_op
            .map_or(0, |ns| ns.round() as u64);
        db.profile = Some(profile);
    }
    timed(system, &workload, sim_options(duration_ns, WARMUP_NS))
}

/// This machine's memory available for the file cache (`MemAvailable`), KiB; 0 when unknown.
fn mem_available_kib() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemAvailable:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// A PostgreSQL memory setting in bytes: `32MB`, `1GB`, `512kB`, or a number of 8 KiB blocks.
fn pg_size_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: u64 = n.parse().ok()?;
    let mult = match unit.trim() {
        "" => 8192,
        "B" => 1,
        "kB" => 1 << 10,
        "MB" => 1 << 20,
        "GB" => 1 << 30,
        "TB" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// Size of the file system holding `dir`, decimal GB (0 when unknown).
fn filesystem_gb(dir: &Path) -> f64 {
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return 0.0;
    };
    // SAFETY: statvfs fills the struct for a valid C string.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return 0.0;
    }
    s.f_blocks as f64 * s.f_frsize as f64 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_reports_memory_available_for_the_file_cache() {
        // Linux gives MemAvailable; the simulated file cache is sized from it.
        assert!(mem_available_kib() > 1024, "{}", mem_available_kib());
    }

    #[test]
    fn postgres_sizes_read_like_the_server_does() {
        assert_eq!(pg_size_bytes("32MB"), Some(32 << 20));
        assert_eq!(pg_size_bytes("1GB"), Some(1 << 30));
        assert_eq!(pg_size_bytes("512kB"), Some(512 << 10));
        assert_eq!(pg_size_bytes("4096"), Some(4096 * 8192));
        assert_eq!(pg_size_bytes("32 MB"), Some(32 << 20));
        assert_eq!(pg_size_bytes("lots"), None);
    }
}
