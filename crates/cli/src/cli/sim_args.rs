//! The options of `storlab sim`.

use std::path::PathBuf;

use clap::Args;

use super::RunArgs;

/// Options of `storlab sim`.
#[derive(Debug, Args)]
#[command(mut_args(super::run_args::for_sim))]
pub struct SimArgs {
    /// Array configuration file (TOML), e.g. examples/arrays/midrange-raid5.toml.
    #[arg(long, value_name = "FILE")]
    pub array: PathBuf,
    /// Built-in I/O profile (randread-8k, randwrite-8k, seqwrite-1m, oltp-60-40, redo, ...).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["workload", "matrix"])]
    pub profile: Option<String>,
    /// Workload file with [[streams]] and/or a [database] (TOML).
    #[arg(long, value_name = "FILE", conflicts_with = "matrix")]
    pub workload: Option<PathBuf>,
    // A simulated database test; the help lists every one (sim_db_tests_help).
    #[arg(long, value_name = "TEST", conflicts_with_all = ["profile", "workload", "matrix", "trace"], help = sim_db_tests_help())]
    pub db_test: Option<String>,
    /// Where the simulated database's data lives (volume, LUN or group names, comma-separated;
    /// default the volume datavol, else the array's only volume, else every LUN, filled in
    /// turn).
    #[arg(long, value_name = "TARGET")]
    pub db_data: Option<String>,
    /// Where its log lives (default: with --db-data when that is given, else the volume
    /// logvol, else with the data, after it).
    #[arg(long, value_name = "TARGET")]
    pub db_log: Option<String>,
    /// Run a workload characterization on the simulated database: a characterization file
    /// (TOML or JSON) or an Oracle AWR or Statspack report (text or HTML), told apart by
    /// their contents. Placement: --db-data and --db-log (default as for --db-test).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["profile", "workload", "matrix", "trace", "db_test"])]
    pub workload_from: Option<PathBuf>,
    /// The size of a segment of --workload-from, NAME=SIZE (repeatable), e.g. USERS=40GiB:
    /// fills in the sizes a report leaves unknown.
    #[arg(long, value_name = "NAME=SIZE")]
    pub segment_size: Vec<String>,
    /// Sessions of the simulated database (default: the test's clients in storlab db: 80 for
    /// row tests, 32 for range tests, 50 or 100 for oltp); with --db-test, or over a
    /// --workload file's [database] section.
    #[arg(long, value_name = "N")]
    pub sessions: Option<u32>,
    /// Rows of the simulated database's test table (default 1000000); with --db-test, or over
    /// a --workload file's [database] section.
    #[arg(long, value_name = "N")]
    pub rows: Option<u64>,
    /// Any other key of the simulated database's [database] section, KEY=VALUE (repeatable),
    /// e.g. tables=15, row_bytes=[14,805], buffer=512MiB; with --db-test, or over a
    /// --workload file's [database] section.
    #[arg(long, value_name = "KEY=VALUE")]
    pub db_set: Vec<String>,
    /// Per-operation block profile measured on a real database: a `storlab db --json` result
    /// file with a run of the same test (pg_stat_statements blocks and WAL bytes per call).
    #[arg(long, value_name = "RESULT.json")]
    pub profile_from: Option<PathBuf>,
    /// Print the --db-test's workload characterization (TOML, for --workload-from) instead of
    /// running it: its transaction types with the blocks each visits and changes, its rows
    /// inserted, redo, CPU and think time per execution, and its tables and indexes as
    /// segments, worked out from the test's declared mix and the --rows/--db-set schema.
    #[arg(long, requires = "db_test")]
    pub show_character: bool,
    /// Run every profile of the IOgen matrix and print one table.
    #[arg(long)]
    pub matrix: bool,
    /// Sweep the load of --profile or --workload: 1, 2, 4 ... --sweep-max outstanding I/Os
    /// per stream, one run per point.
    #[arg(long, conflicts_with_all = ["matrix", "db_test", "trace"])]
    pub sweep: bool,
    /// Highest outstanding I/Os of a sweep.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub sweep_max: u32,
    /// Latency ceiling of a sweep: the knee is the most IOPS with p99 under this many ms.
    #[arg(long, value_name = "MS")]
    pub max_p99_ms: Option<f64>,
    #[command(flatten)]
    pub run: RunArgs,
    /// Fail a component at a simulated time (repeatable): a disk (r5-0.d3@30s), a path
    /// (path:p0@10s), a controller (controller:1@20s), an ASM failure group
    /// (failure_group:data.ssd@15s).
    #[arg(long = "fail", value_name = "TARGET@TIME")]
    pub fail: Vec<String>,
    #[command(flatten)]
    pub users: crate::users_sweep::UsersSweepArgs,
    /// Replay a block trace (SPC, MSR Cambridge, blkparse text or fio iolog).
    #[arg(long, value_name = "TRACE", conflicts_with_all = ["profile", "matrix"])]
    pub trace: Option<PathBuf>,
    /// Trace format; detected from the first lines when omitted.
    #[arg(long, value_name = "FORMAT", value_parser = ["spc", "msr", "blkparse", "fio"], requires = "trace")]
    pub trace_format: Option<String>,
    /// Open-loop replay speed (2 = twice as fast as recorded).
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0, requires = "trace")]
    pub trace_speed: f64,
    /// Closed-loop replay with this many I/Os outstanding instead of the timestamps.
    #[arg(long, value_name = "N", requires = "trace")]
    pub trace_outstanding: Option<u32>,
    /// Map a trace device to a volume, LUN or group (repeatable), e.g. asu0=data.
    #[arg(long, value_name = "DEVICE=TARGET", requires = "trace")]
    pub trace_map: Vec<String>,
}

/// Help of `storlab sim --db-test`: every test the simulated database runs.
pub(super) fn sim_db_tests_help() -> String {
    format!(
        "A simulated database test, one of {}, or an analytic query: {}; the other keys of a \
         [database] section take their defaults",
        storlab_sim::config::DbTest::NAMES.join(", "),
        storlab_sim::db::query::names().join(", ")
    )
}
