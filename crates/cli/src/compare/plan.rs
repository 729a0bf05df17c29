//! The plan file of `storlab compare`: targets (simulated arrays, real directories) x
//! workloads (I/O profiles, the IOgen matrix, load sweeps, database tests, trace replays),
//! with repeats, durations, seeds and prices. Each cell becomes the storlab command line that
//! runs it, so the report can show, and anyone can re-run, exactly what produced a number.
//!
//! ```toml
//! title = "RAID 5 vs RAID 10 on the mid-range array"
//! seed = 1
//! duration = "30s"            # per cell (simulated time for arrays, wall time for real)
//! warmup = "10s"             # or "auto": until the cell's series is steady
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
//! An automatic warm-up lasts at most `--warmup-max`'s default
//! ([`storlab_core::steady::DEFAULT_WARMUP_MAX`]). How many repeats, targets, workloads and
//! cells a plan may have is declared in [`keys`].
//!
//! Without `[[questions]]` the report asks one question of the simulated targets and one of
//! the real ones; a question naming a simulated and a real target compares them on purpose.

use std::path::Path;

use serde::Deserialize;
use storlab_core::steady::Warmup;
use storlab_core::TimeSpan;

use crate::error::CliError;
use keys::{check_repeats, check_size, check_tables};
pub use keys::{MAX_CELLS, MAX_REPEATS, MAX_TARGETS, MAX_WORKLOADS};
pub use questions::Question;
use questions::{questions, RawQuestion};
use target::{target, RawTarget};
pub use target::{Target, TargetKind};
pub use users::UsersSweep;
use users::{users_sweep, RawUsersSweep};
pub(super) use workload::What;
pub use workload::Workload;
use workload::{workload, RawWorkload};

pub mod keys;
mod questions;
mod target;
mod users;
mod workload;

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
    check_tables(raw.targets.len(), raw.workloads.len(), &file)?;
    check_repeats(raw.repeats, &file, "repeats")?;
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

fn unique<'a>(names: impl Iterator<Item = &'a str>, file: &str, key: &str) -> Result<(), CliError> {
    let mut seen = std::collections::BTreeSet::new();
    for n in names {
        if !seen.insert(n) {
            return Err(bad(file, key, format!("the name {n:?} is used twice")));
        }
    }
    Ok(())
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
