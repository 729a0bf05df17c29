//! Argument definitions (each option declared once, with help, default and unit) and dispatch.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use storlab_core::steady::Warmup;
use storlab_core::{ByteSize, TimeSpan};

mod db_help;
mod dispatch;
mod run_args;
mod sim_args;

pub use run_args::RunArgs;
pub use sim_args::SimArgs;

pub use dispatch::run;

/// storlab: a storage lab for databases.
#[derive(Debug, Parser)]
#[command(name = "storlab", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate an array: one profile, a workload file, or the whole IOgen matrix.
    Sim(SimArgs),
    /// Real I/O: a profile on a file, a directory of files, or a block device.
    Io(IoArgs),
    /// A database workload suite on a real PostgreSQL that storlab starts on your paths.
    Db(DbArgs),
    /// Run a plan of configurations x workloads and write the results and an HTML report.
    Compare(CompareArgs),
    /// The main job: the demo study (simulated arrays and this machine's disk) as a report.
    Demo(DemoArgs),
    /// Check the simulator against the published reference results (exit 1 when any is off).
    Validate(ValidateArgs),
    /// Disk drives described for other tools: `drive import NAME.diskspecs`.
    Drive(DriveArgs),
    /// A grid of simulated configurations (SWEEP.toml), run by the Python package, on Ray.
    Sweep(crate::sweep_cmd::SweepArgs),
}

/// Options of `storlab drive`.
#[derive(Debug, Args)]
pub struct DriveArgs {
    #[command(subcommand)]
    pub command: DriveCommand,
}

#[derive(Debug, Subcommand)]
pub enum DriveCommand {
    /// A DiskSim drive (NAME.diskspecs and the model and seek files it names) as a
    /// `[disk_models.NAME]` table for `disk_model = "NAME"`.
    Import {
        /// The DiskSim `.diskspecs` file.
        #[arg(value_name = "NAME.diskspecs")]
        diskspecs: PathBuf,
        /// Write the table to this file instead of standard output.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// The model's name (default: the file's name without `.diskspecs`).
        #[arg(long)]
        name: Option<String>,
    },
}

/// Options of `storlab compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The plan file (TOML): targets, workloads, repeats, durations, prices.
    #[arg(value_name = "PLAN")]
    pub plan: PathBuf,
    /// Output directory: cells/, results.json, study.json, *.csv, report.html.
    #[arg(long, value_name = "DIR", default_value = "out/compare")]
    pub out: PathBuf,
    /// Run every cell again instead of resuming from the cells already in DIR.
    #[arg(long)]
    pub fresh: bool,
}

/// Options of `storlab validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Directory of reference cases (*.toml); the built-in cases when it does not exist.
    #[arg(long, value_name = "DIR", default_value = "references")]
    pub references: PathBuf,
    /// Also write every simulated run (result schema) to this JSON file (with --local: every
    /// real and simulated run, and the fitted array beside it as FILE.array.toml).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// This machine instead: calibrate a simulated device with a short storlab io sweep, run
    /// storlab db for real and on the fitted model, print real against simulated.
    #[arg(long, conflicts_with = "references")]
    pub local: bool,
    /// With --local: where the work directory is created (default: the current directory,
    /// else /var/tmp); it and everything in it is removed at the end.
    #[arg(long, value_name = "DIR", requires = "local")]
    pub dir: Option<PathBuf>,
    /// With --local: measured time of each database test, real and simulated (after 3 s of
    /// warm-up).
    #[arg(long, default_value = "10s", value_parser = parse_span, requires = "local")]
    pub duration: TimeSpan,
    /// Print each case's assumptions and the analysis of its figures under the table (they
    /// never change pass or fail).
    #[arg(long, conflicts_with = "local")]
    pub explain: bool,
    /// Also write the scorecard as Markdown (the README's validation table) to this file.
    #[arg(long, value_name = "FILE", conflicts_with = "local")]
    pub markdown: Option<PathBuf>,
    /// Real drives instead: replay each NAME.trace of DIR through the disk model imported from
    /// NAME.diskspecs and compare the service-time distributions (exit 1 when a drive's
    /// demerit is above DiskSim's); --json writes one object per drive.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = "references/drives",
          conflicts_with_all = ["local", "explain", "markdown"])]
    pub drives: Option<PathBuf>,
    /// With --drives: also write a page with each drive's measured and simulated
    /// service-time CDFs (self-contained HTML).
    #[arg(long, value_name = "FILE", requires = "drives")]
    pub html: Option<PathBuf>,
}

/// Options of `storlab db`.
#[derive(Debug, Args)]
#[command(mut_args(run_args::for_db))]
pub struct DbArgs {
    /// Suite: dpaws, orabench, oltp.
    #[arg(long, default_value = "dpaws")]
    pub suite: String,
    // Test of the suite; the help lists every test of every suite (db_tests_help).
    #[arg(long, default_value = "update-row", help = db_tests_help())]
    pub test: String,
    /// Data directory of the cluster storlab starts (must not exist, or be empty).
    #[arg(long, value_name = "DIR", required_unless_present = "dsn")]
    pub data_dir: Option<PathBuf>,
    /// WAL directory (initdb --waldir), e.g. on another device.
    #[arg(long, value_name = "DIR", conflicts_with = "dsn")]
    pub wal_dir: Option<PathBuf>,
    /// Extra tablespace NAME=DIR (repeatable); the suite's tables go to the first.
    #[arg(long, value_name = "NAME=DIR", conflicts_with = "dsn")]
    pub tablespace: Vec<String>,
    /// Use an existing server instead (libpq key=value string or postgresql:// URI; PGHOST,
    /// PGUSER, PGPASSWORD, PGSERVICE, ~/.pgpass ... fill what it leaves out, as in libpq).
    /// storlab works only in a schema it creates (--schema) and drops it at the end.
    #[arg(long, value_name = "DSN")]
    pub dsn: Option<String>,
    /// Schema for storlab's objects: created and marked by storlab; an existing schema not
    /// created by storlab (and `public`) is refused.
    #[arg(long, default_value = "storlab")]
    pub schema: String,
    /// With --dsn: keep storlab's schema and tables at the end (dropped by default).
    #[arg(long, requires = "dsn")]
    pub keep_schema: bool,
    /// With --dsn: run a CHECKPOINT after the load and in the tests that end with one (never
    /// done on someone else's server otherwise).
    #[arg(long, requires = "dsn")]
    pub checkpoint: bool,
    // Concurrent clients; the help gives the declared bounds (db_help::clients).
    #[arg(long, value_name = "N", help = db_help::clients())]
    pub clients: Option<u32>,
    // Rows per table; the help gives the declared bounds (db_help::scale).
    #[arg(long, value_name = "N", default_value_t = 100_000, help = db_help::scale())]
    pub scale: u64,
    #[command(flatten)]
    pub run: RunArgs,
    /// Server binaries directory (default: found on PATH, pg_config, /usr/lib/postgresql).
    #[arg(long, value_name = "DIR")]
    pub pg_bin: Option<PathBuf>,
    /// Extra server setting NAME=VALUE (repeatable), e.g. shared_buffers=1GB.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub settings: Vec<String>,
    #[command(flatten)]
    pub users: crate::users_sweep::UsersSweepArgs,
    // With --dsn: capture the server's own workload; the help gives the declared bounds
    // (db_help::capture).
    #[arg(long, value_name = "SPAN", value_parser = parse_span, requires_all = ["dsn", "out"],
          help = db_help::capture())]
    pub capture: Option<TimeSpan>,
    /// With --capture: the characterization file, JSON (.json) or TOML (.toml).
    #[arg(long, value_name = "FILE", requires = "capture")]
    pub out: Option<PathBuf>,
    // With --capture: the server's CPUs; the help gives the declared bounds (db_help::cpus).
    #[arg(long, value_name = "N", requires = "capture", help = db_help::cpus())]
    pub cpus: Option<u32>,
}

/// Options of `storlab io`.
#[derive(Debug, Args)]
#[command(mut_args(run_args::for_io))]
pub struct IoArgs {
    /// File (created if missing), directory (one file per job) or block device.
    #[arg(long, value_name = "PATH")]
    pub target: PathBuf,
    /// Built-in I/O profile (randread-8k, randwrite-8k, seqread-1m, oltp-60-40, redo, ...);
    /// randread-8k when neither this nor --workload is given.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Size of the file (of each file of a directory); for a device, how much to use.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub size: Option<ByteSize>,
    /// psync (one thread per outstanding I/O) or io_uring (one ring per job).
    #[arg(long, value_name = "ENGINE", default_value = "psync", value_parser = ["psync", "io_uring"])]
    pub engine: String,
    /// Outstanding I/Os per job.
    #[arg(long, value_name = "N")]
    pub iodepth: Option<u32>,
    /// Jobs.
    #[arg(long, value_name = "N")]
    pub jobs: Option<u32>,
    /// Block size (replaces the profile's block-size mix).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub bs: Option<ByteSize>,
    /// Access pattern and direction: read, write, randread, randwrite, rw (50/50 sequential), randrw.
    #[arg(long, value_name = "RW", value_parser = ["read", "write", "randread", "randwrite", "rw", "randrw"])]
    pub rw: Option<String>,
    /// Open loop: total arrival rate; latency counts from each I/O's intended start.
    #[arg(long, value_name = "IOPS")]
    pub rate_iops: Option<f64>,
    #[command(flatten)]
    pub run: RunArgs,
    /// Use the page cache instead of O_DIRECT.
    #[arg(long)]
    pub buffered: bool,
    /// How synchronous writes are made durable: dsync (O_DSYNC) or fdatasync.
    #[arg(long, value_name = "MODE", default_value = "dsync", value_parser = ["dsync", "fdatasync"])]
    pub sync: String,
    /// Keep the files storlab created.
    #[arg(long)]
    pub keep: bool,
    /// Write an existing file storlab did not create (or changed since): the target, or a
    /// file of a directory target, named again here.
    #[arg(long, value_name = "PATH")]
    pub overwrite: Option<PathBuf>,
    /// Write this block device even though it holds a file system or partition table.
    #[arg(long, value_name = "DEVICE")]
    pub force_destroy: Option<PathBuf>,
    /// Several concurrent I/O classes from a file ([[streams]]: profile, overrides, target,
    /// name, group_commit), instead of --profile.
    #[arg(long, value_name = "FILE", conflicts_with = "profile")]
    pub workload: Option<PathBuf>,
    /// Group commit: N committers share one log writer that batches their records (each
    /// record one block of the profile, written synchronously).
    #[arg(long, value_name = "N")]
    pub group_commit: Option<u32>,
    /// Stop once the last K one-second samples are within X% of their mean, e.g. 10:5.
    #[arg(long, value_name = "K:X")]
    pub steady: Option<String>,
    /// Write the whole target once before measuring (SSD preconditioning).
    #[arg(long)]
    pub precondition: bool,
    /// Stamp every written block (offset, generation, checksum) and check every read.
    #[arg(long)]
    pub verify: bool,
    /// Sweep the load: outstanding I/Os 1, 2, 4, ... --sweep-max, one run per point.
    #[arg(long)]
    pub sweep: bool,
    /// Highest outstanding I/Os of a sweep.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub sweep_max: u32,
    /// Sweep arrival rates instead (comma-separated IO/s, e.g. 1000,2000,4000).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub sweep_rates: Vec<f64>,
    /// Latency ceiling of a sweep: report the most IOPS with p99 under this many ms.
    #[arg(long, value_name = "MS")]
    pub max_p99_ms: Option<f64>,
}

/// Options of `storlab demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Output directory: cells/, results.json, study.json, *.csv, report.html.
    #[arg(long, value_name = "DIR", default_value = "out/demo")]
    pub out: PathBuf,
    /// Run every cell again instead of resuming from the cells already in DIR.
    #[arg(long)]
    pub fresh: bool,
    /// Only the simulated part (no real I/O, no PostgreSQL).
    #[arg(long)]
    pub sim_only: bool,
}

fn parse_size(s: &str) -> Result<ByteSize, String> {
    let b: ByteSize = s
        .parse()
        .map_err(|e: storlab_core::UnitError| e.to_string())?;
    if b.0 == 0 {
        return Err("must be more than zero".into());
    }
    Ok(b)
}

fn parse_span_or_zero(s: &str) -> Result<TimeSpan, String> {
    s.parse()
        .map_err(|e: storlab_core::UnitError| e.to_string())
}

fn parse_warmup(s: &str) -> Result<Warmup, String> {
    Warmup::parse(s, storlab_core::steady::DEFAULT_WARMUP_MAX)
        .map_err(|e| format!("{e} (or auto: until the run is steady)"))
}

/// The warm-up asked for, with `--warmup-max` as the limit of an automatic one; `auto` when
/// neither a span nor auto was given and `auto_by_default`, else `default`.
pub fn resolve_warmup(
    arg: Option<Warmup>,
    max: TimeSpan,
    auto_by_default: bool,
    default: TimeSpan,
) -> Warmup {
    match arg {
        Some(Warmup::Fixed(t)) => Warmup::Fixed(t),
        Some(Warmup::Auto { .. }) => Warmup::Auto { max },
        None if auto_by_default => Warmup::Auto { max },
        None => Warmup::Fixed(default),
    }
}

fn parse_span(s: &str) -> Result<TimeSpan, String> {
    let t = parse_span_or_zero(s)?;
    if t.0 == 0 {
        return Err("must be more than zero".into());
    }
    Ok(t)
}

/// Help of `storlab db --test`: every test of every suite, from the suites' own list.
fn db_tests_help() -> String {
    let suites: Vec<String> = storlab_db::suites::all_tests()
        .iter()
        .map(|(suite, tests)| format!("{suite}: {}", tests.join(", ")))
        .collect();
    format!("Test of the suite ({})", suites.join("; "))
}
