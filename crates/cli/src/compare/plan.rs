//! The plan file of `storlab compare`: targets (simulated arrays, real directories) x
//! workloads (I/O profiles, the IOgen matrix, load sweeps, database tests, trace replays),
//! with repeats, durations, seeds and prices. Each cell becomes the storlab command line that
//! runs it, so the report can show, and anyone can re-run, exactly what produced a number.
//!
//! ```toml
//! title = "RAID 5 vs RAID 10 on the mid-range array"
//! seed = 1
//! duration = "30s"            # per cell (simulated time for arrays, wall time for real)
//! warmup = "10s"             # or "auto": until the cell's series is steady (at most 600 s)
//! repeats = 1
//!
//! [[targets]]
//! name = "raid5"
//! array = "../arrays/midrange-raid5.toml"    # paths are relative to the plan file
//! price_per_disk = 400
//!
//! [[targets]]
//! name = "local"
//! dir = "/var/tmp"                            # real (alias data): I/O files and clusters here
//! wal_dir = "/mnt/log"                        # (alias wal) the WAL of real database tests
//! io_target = "/dev/sdb"                      # a file or device for the I/O profiles
//! duration = "5s"                             # this target's timing (else the plan's)
//!
//! [[workloads]]
//! iogen = true                                # one workload per IOgen profile
//! [[workloads]]
//! workload = "../workloads/redo-placement.toml"  # a workload file (sim), or classes (io)
//! [[workloads]]
//! sweep = "randread-8k"                       # real targets: rising outstanding I/Os
//! max_p99_ms = 5
//! [[workloads]]
//! name = "update-row"
//! db_test = "dpaws/update-row"
//! database = { sessions = 80, rows = 10000000 }   # simulated database keys
//! clients = 16                                    # real database
//! scale = 20000
//! [[workloads]]
//! db_test = "dpaws/select-row"                    # simulated targets: how many users
//! users_sweep = { sessions = [1, 2, 4, 8, 16], max_response_ms = 100 }
//!
//! [[questions]]                               # what the report answers first
//! title = "RAID 5 or RAID 10?"
//! targets = ["raid5", "raid10"]               # compared with the first; one target: its own
//! ```
//!
//! Without `[[questions]]` the report asks one question of the simulated targets and one of
//! the real ones; a question naming a simulated and a real target compares them on purpose.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use storlab_core::steady::Warmup;
use storlab_core::{ByteSize, TimeSpan};

use crate::error::CliError;
pub use questions::Question;
use questions::{questions, RawQuestion};
pub use users::UsersSweep;
use users::{users_sweep, RawUsersSweep};

mod questions;
mod users;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlan {
    title: String,
    #[serde(default = "one")]
    seed: u64,
    #[serde(default = "one_u32")]
    repeats: u32,
    #[serde(default = "d_duration")]
    duration: TimeSpan,
    #[serde(default = "d_warmup")]
    warmup: Warmup,
    targets: Vec<RawTarget>,
    workloads: Vec<RawWorkload>,
    #[serde(default)]
    questions: Vec<RawQuestion>,
}

fn one() -> u64 {
    1
}
fn one_u32() -> u32 {
    1
}
fn d_duration() -> TimeSpan {
    TimeSpan(30_000_000_000)
}
fn d_warmup() -> Warmup {
    Warmup::Fixed(TimeSpan(10_000_000_000))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTarget {
    name: String,
    #[serde(default)]
    array: Option<PathBuf>,
    #[serde(default)]
    fail: Vec<String>,
    #[serde(default)]
    db_data: Option<String>,
    #[serde(default)]
    db_log: Option<String>,
    #[serde(default, alias = "data")]
    dir: Option<PathBuf>,
    #[serde(default, alias = "wal")]
    wal_dir: Option<PathBuf>,
    #[serde(default)]
    io_target: Option<PathBuf>,
    #[serde(default)]
    io_size: Option<ByteSize>,
    #[serde(default)]
    engine: Option<String>,
    #[serde(default)]
    price_per_disk: Option<f64>,
    #[serde(default)]
    price_per_gb: Option<f64>,
    #[serde(default)]
    duration: Option<TimeSpan>,
    #[serde(default)]
    warmup: Option<Warmup>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkload {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    iogen: bool,
    #[serde(default)]
    profile: Option<String>,
    #[serde(default)]
    workload: Option<PathBuf>,
    #[serde(default)]
    sweep: Option<String>,
    #[serde(default)]
    sweep_max: Option<u32>,
    #[serde(default)]
    max_p99_ms: Option<f64>,
    #[serde(default)]
    db_test: Option<String>,
    #[serde(default)]
    database: BTreeMap<String, toml::Value>,
    #[serde(default)]
    clients: Option<u32>,
    #[serde(default)]
    scale: Option<u64>,
    #[serde(default)]
    users_sweep: Option<RawUsersSweep>,
    #[serde(default)]
    trace: Option<PathBuf>,
    #[serde(default)]
    trace_format: Option<String>,
    #[serde(default)]
    trace_outstanding: Option<u32>,
    #[serde(default)]
    trace_map: Vec<String>,
    #[serde(default)]
    targets: Vec<String>,
    #[serde(default)]
    duration: Option<TimeSpan>,
    #[serde(default)]
    warmup: Option<Warmup>,
    #[serde(default)]
    repeats: Option<u32>,
}

/// Where a configuration runs.
#[derive(Debug, Clone, PartialEq)]
pub enum TargetKind {
    /// A simulated array file.
    Sim { array: PathBuf, fail: Vec<String> },
    /// A real directory (database clusters, and I/O files unless `io_target` names a file or
    /// device for the I/O profiles).
    Real {
        dir: PathBuf,
        wal_dir: Option<PathBuf>,
        io_target: Option<PathBuf>,
    },
}

/// A configuration under test.
#[derive(Debug, Clone)]
pub struct Target {
    pub name: String,
    pub kind: TargetKind,
    pub(super) db_data: Option<String>,
    pub(super) db_log: Option<String>,
    pub(super) io_size: ByteSize,
    pub(super) engine: String,
    pub price_per_disk: Option<f64>,
    pub price_per_gb: Option<f64>,
    /// Timing of this target's cells when the workload does not set its own.
    duration: Option<TimeSpan>,
    warmup: Option<Warmup>,
}

/// What a workload runs.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum What {
    Profile(String),
    File(PathBuf),
    Sweep {
        profile: String,
        max: u32,
        max_p99_ms: Option<f64>,
    },
    Db {
        test: String,
        database: BTreeMap<String, toml::Value>,
        clients: Option<u32>,
        scale: Option<u64>,
        /// A users sweep instead of one run (simulated targets only).
        users_sweep: Option<UsersSweep>,
    },
    Trace {
        path: PathBuf,
        format: Option<String>,
        outstanding: Option<u32>,
        map: Vec<String>,
    },
}

/// A workload of the plan.
#[derive(Debug, Clone)]
pub struct Workload {
    pub name: String,
    pub(super) what: What,
    targets: Vec<String>,
    /// The workload's own timing, then the target's, then the plan's.
    duration: Option<TimeSpan>,
    warmup: Option<Warmup>,
    plan_duration: TimeSpan,
    plan_warmup: Warmup,
    repeats: u32,
}

impl Workload {
    pub(super) fn timing(&self, t: &Target) -> (TimeSpan, Warmup) {
        (
            self.duration.or(t.duration).unwrap_or(self.plan_duration),
            self.warmup.or(t.warmup).unwrap_or(self.plan_warmup),
        )
    }
}

/// One unit of work: a workload on a target, one repeat (a sweep's load points included).
#[derive(Debug, Clone)]
pub struct Unit {
    pub target: String,
    pub workload: String,
    pub repeat: u32,
    /// What runs it, typed (the command line is rendered from it for display).
    pub invocation: super::command::Invocation,
    /// Expected wall time of a real run (warm-up + duration), for the progress bar.
    pub real_secs: Option<f64>,
}

impl Unit {
    /// The command line, quoted where needed.
    pub fn command(&self) -> String {
        let quote = |a: &String| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@[]".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        };
        std::iter::once("storlab".to_string())
            .chain(self.invocation.args().iter().map(quote))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A checked plan.
#[derive(Debug, Clone)]
pub struct Plan {
    pub title: String,
    pub seed: u64,
    pub targets: Vec<Target>,
    pub workloads: Vec<Workload>,
    /// What the report answers first, in order.
    pub questions: Vec<Question>,
}

/// Most repeats of a workload.
pub const MAX_REPEATS: u32 = 1_000;
/// Most targets (configurations) of a plan.
pub const MAX_TARGETS: usize = 256;
/// Most workloads of a plan (the IOgen matrix counts as its ten profiles).
pub const MAX_WORKLOADS: usize = 1_000;
/// Most cells of a plan (workloads x their targets x repeats).
pub const MAX_CELLS: u64 = 100_000;

fn bad(file: &str, key: &str, reason: impl std::fmt::Display) -> CliError {
    CliError::BadInput(format!("{file}: {key}: {reason}"))
}

/// Reads and checks a plan; relative paths in it are taken from the plan's directory.
pub fn parse_plan(text: &str, path: &Path) -> Result<Plan, CliError> {
    let file = path.display().to_string();
    let mut raw: RawPlan = toml::from_str(text)
        .map_err(|e| CliError::BadInput(format!("{file}: {}", e.message().trim_end())))?;
    let base = path.parent().unwrap_or(Path::new(""));
    let rel = |p: &Path| {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            base.join(p)
        }
    };
    if raw.targets.is_empty() || raw.workloads.is_empty() {
        return Err(bad(
            &file,
            "targets",
            "a plan needs at least one target and one workload",
        ));
    }
    check_repeats(raw.repeats, &file, "repeats")?;
    for (key, n, max) in [
        ("targets", raw.targets.len(), MAX_TARGETS),
        ("workloads", raw.workloads.len(), MAX_WORKLOADS),
    ] {
        if n > max {
            return Err(bad(&file, key, format!("at most {max}; got {n}")));
        }
    }
    let mut targets = Vec::new();
    for (i, t) in std::mem::take(&mut raw.targets).into_iter().enumerate() {
        targets.push(target(t, i, &file, &rel)?);
    }
    unique(targets.iter().map(|t| t.name.as_str()), &file, "targets")?;
    let mut workloads = Vec::new();
    for (i, w) in std::mem::take(&mut raw.workloads).into_iter().enumerate() {
        workloads.extend(workload(w, i, &file, &raw, &rel, &targets)?);
    }
    unique(
        workloads.iter().map(|w| w.name.as_str()),
        &file,
        "workloads",
    )?;
    check_size(&workloads, targets.len(), &file)?;
    let questions = questions(std::mem::take(&mut raw.questions), &file, &targets)?;
    Ok(Plan {
        title: raw.title,
        seed: raw.seed,
        targets,
        workloads,
        questions,
    })
}

fn check_repeats(n: u32, file: &str, key: &str) -> Result<(), CliError> {
    if n == 0 || n > MAX_REPEATS {
        return Err(bad(
            file,
            key,
            format!("must be between 1 and {MAX_REPEATS}; got {n}"),
        ));
    }
    Ok(())
}

/// Bounds the plan's workloads and cells before any cell is built.
fn check_size(workloads: &[Workload], targets: usize, file: &str) -> Result<(), CliError> {
    if workloads.len() > MAX_WORKLOADS {
        return Err(bad(
            file,
            "workloads",
            format!(
                "at most {MAX_WORKLOADS} (the IOgen matrix counts as 10); got {}",
                workloads.len()
            ),
        ));
    }
    let cells: u64 = workloads
        .iter()
        .map(|w| {
            let on = if w.targets.is_empty() {
                targets
            } else {
                w.targets.len()
            };
            on as u64 * u64::from(w.repeats)
        })
        .sum();
    if cells > MAX_CELLS {
        return Err(bad(
            file,
            "repeats",
            format!(
                "the plan has {cells} cells (workloads x targets x repeats); at most {MAX_CELLS}"
            ),
        ));
    }
    Ok(())
}

fn unique<'a>(names: impl Iterator<Item = &'a str>, file: &str, key: &str) -> Result<(), CliError> {
    let mut seen = std::collections::BTreeSet::new();
    for n in names {
        if !seen.insert(n) {
            return Err(bad(file, key, format!("the name {n:?} is used twice")));
        }
    }
    Ok(())
}

fn target(
    t: RawTarget,
    i: usize,
    file: &str,
    rel: &dyn Fn(&Path) -> PathBuf,
) -> Result<Target, CliError> {
    let key = |k: &str| format!("targets[{i}].{k}");
    let ok_name = !t.name.is_empty()
        && t.name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !ok_name {
        return Err(bad(file, &key("name"), "use letters, digits, - and _"));
    }
    let kind = match (&t.array, &t.dir) {
        (Some(a), None) => TargetKind::Sim {
            array: rel(a),
            fail: t.fail.clone(),
        },
        (None, Some(d)) => {
            if !t.fail.is_empty() {
                return Err(bad(
                    file,
                    &key("fail"),
                    "failure events need a simulated array",
                ));
            }
            TargetKind::Real {
                dir: rel(d),
                wal_dir: t.wal_dir.as_deref().map(rel),
                io_target: t.io_target.as_deref().map(rel),
            }
        }
        _ => {
            return Err(bad(
                file,
                &key("array"),
                "give either array (simulated) or dir (real)",
            ))
        }
    };
    let engine = t.engine.unwrap_or_else(|| "psync".into());
    if engine != "psync" && engine != "io_uring" {
        return Err(bad(file, &key("engine"), "psync or io_uring"));
    }
    Ok(Target {
        name: t.name,
        kind,
        db_data: t.db_data,
        db_log: t.db_log,
        io_size: t.io_size.unwrap_or(ByteSize(1 << 30)),
        engine,
        price_per_disk: t.price_per_disk,
        price_per_gb: t.price_per_gb,
        duration: t.duration,
        warmup: t.warmup,
    })
}

fn workload(
    w: RawWorkload,
    i: usize,
    file: &str,
    plan: &RawPlan,
    rel: &dyn Fn(&Path) -> PathBuf,
    targets: &[Target],
) -> Result<Vec<Workload>, CliError> {
    let key = |k: &str| format!("workloads[{i}].{k}");
    if let Some(n) = w.repeats {
        check_repeats(n, file, &key("repeats"))?;
    }
    for t in &w.targets {
        if !targets.iter().any(|x| &x.name == t) {
            return Err(bad(file, &key("targets"), format!("no target named {t:?}")));
        }
    }
    let kinds = [
        w.iogen,
        w.profile.is_some(),
        w.workload.is_some(),
        w.sweep.is_some(),
        w.db_test.is_some(),
        w.trace.is_some(),
    ];
    if kinds.iter().filter(|&&k| k).count() != 1 {
        return Err(bad(
            file,
            &key("profile"),
            "give exactly one of iogen, profile, workload, sweep, db_test, trace",
        ));
    }
    let make = |name: String, what: What| Workload {
        name,
        what,
        targets: w.targets.clone(),
        duration: w.duration,
        warmup: w.warmup,
        plan_duration: plan.duration,
        plan_warmup: plan.warmup,
        repeats: w.repeats.unwrap_or(plan.repeats),
    };
    if w.iogen {
        return Ok(storlab_core::profile::IOGEN_MATRIX
            .iter()
            .map(|p| make(p.to_string(), What::Profile(p.to_string())))
            .collect());
    }
    let users = match w.users_sweep {
        Some(_) if w.db_test.is_none() => {
            return Err(bad(file, &key("users_sweep"), "needs db_test"));
        }
        Some(raw) => Some(users_sweep(raw, file, &key("users_sweep"))?),
        None => None,
    };
    let what = if let Some(p) = &w.profile {
        What::Profile(p.clone())
    } else if let Some(f) = &w.workload {
        What::File(rel(f))
    } else if let Some(p) = &w.sweep {
        if let Some(ms) = w.max_p99_ms {
            let declared = &crate::flags::MAX_P99_MS;
            (declared.check(&ms.into())).map_err(|r| bad(file, &key("max_p99_ms"), r))?;
        }
        What::Sweep {
            profile: p.clone(),
            max: w.sweep_max.unwrap_or(64),
            max_p99_ms: w.max_p99_ms,
        }
    } else if let Some(t) = &w.db_test {
        if !t.contains('/') {
            return Err(bad(
                file,
                &key("db_test"),
                "use SUITE/TEST, e.g. dpaws/update-row",
            ));
        }
        What::Db {
            test: t.clone(),
            database: w.database.clone(),
            clients: w.clients,
            scale: w.scale,
            users_sweep: users,
        }
    } else {
        let path = rel(w.trace.as_deref().expect("one kind is set"));
        What::Trace {
            path,
            format: w.trace_format.clone(),
            outstanding: w.trace_outstanding,
            map: w.trace_map.clone(),
        }
    };
    let default_name = match &what {
        What::Profile(p) => p.clone(),
        What::File(f) => f
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        What::Sweep { profile, .. } => format!("sweep-{profile}"),
        What::Db { test, .. } => test.clone(),
        What::Trace { path, .. } => format!(
            "trace-{}",
            path.file_stem().unwrap_or_default().to_string_lossy()
        ),
    };
    Ok(vec![make(w.name.clone().unwrap_or(default_name), what)])
}

impl Plan {
    /// Puts every real target's files and clusters under `dir`.
    pub fn place_real_targets(&mut self, dir: &Path) {
        for t in &mut self.targets {
            if let TargetKind::Real { dir: d, .. } = &mut t.kind {
                *d = dir.to_path_buf();
            }
        }
    }

    /// Drops the real targets (and workloads left without a target).
    pub fn simulated_only(&mut self) {
        self.targets
            .retain(|t| matches!(t.kind, TargetKind::Sim { .. }));
        let names: Vec<String> = self.targets.iter().map(|t| t.name.clone()).collect();
        self.workloads
            .retain(|w| w.targets.is_empty() || w.targets.iter().any(|t| names.contains(t)));
        for q in &mut self.questions {
            q.targets.retain(|t| names.contains(t));
        }
        self.questions.retain(|q| !q.targets.is_empty());
    }

    /// Every unit in plan order: workloads outer, targets inner, repeats innermost; pairs a
    /// workload cannot run on (a sweep on a simulated array, a trace or a users sweep on real
    /// storage) are
    /// left out and named in `skipped`.
    pub fn units(&self, skipped: &mut Vec<String>) -> Vec<Unit> {
        let mut out = Vec::new();
        for w in &self.workloads {
            for t in &self.targets {
                if !w.targets.is_empty() && !w.targets.contains(&t.name) {
                    continue;
                }
                for r in 0..w.repeats {
                    let seed = self.seed.wrapping_add(u64::from(r));
                    match super::command::invocation(t, w, seed, r) {
                        Some(invocation) => out.push(Unit {
                            target: t.name.clone(),
                            workload: w.name.clone(),
                            repeat: r,
                            real_secs: matches!(t.kind, TargetKind::Real { .. }).then(|| {
                                let (d, wu) = w.timing(t);
                                (d.0 + wu.max().0) as f64 / 1e9
                            }),
                            invocation,
                        }),
                        None if r == 0 => skipped.push(format!("{} on {}", w.name, t.name)),
                        None => {}
                    }
                }
            }
        }
        out
    }
}
