//! A plan's `[[workloads]]`: what runs (a profile, the IOgen matrix, a workload file, a
//! load sweep, a database test, a trace), on which targets, with its own timing and repeats.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use storlab_core::steady::Warmup;
use storlab_core::TimeSpan;

use super::keys::check_repeats;
use super::{bad, users_sweep, RawPlan, RawUsersSweep, Target, UsersSweep};
use crate::compare::command::{IoWork, TraceWork};
use crate::error::CliError;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWorkload {
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

/// What a workload runs: the I/O workload and the trace replay are the units' own types, so
/// a plan's workload and the command that runs it are one description.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::compare) enum What {
    Io(IoWork),
    Db {
        test: String,
        database: BTreeMap<String, toml::Value>,
        clients: Option<u32>,
        scale: Option<u64>,
        /// A users sweep instead of one run (simulated targets only).
        users_sweep: Option<UsersSweep>,
    },
    Trace(TraceWork),
}

/// A workload of the plan.
#[derive(Debug, Clone)]
pub struct Workload {
    pub name: String,
    pub(in crate::compare) what: What,
    pub(super) targets: Vec<String>,
    /// The workload's own timing, then the target's, then the plan's.
    duration: Option<TimeSpan>,
    warmup: Option<Warmup>,
    plan_duration: TimeSpan,
    plan_warmup: Warmup,
    pub(super) repeats: u32,
}

impl Workload {
    pub(in crate::compare) fn timing(&self, t: &Target) -> (TimeSpan, Warmup) {
        (
            self.duration.or(t.duration).unwrap_or(self.plan_duration),
            self.warmup.or(t.warmup).unwrap_or(self.plan_warmup),
        )
    }
}

pub(super) fn workload(
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
            .map(|p| make(p.to_string(), What::Io(IoWork::Profile(p.to_string()))))
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
        What::Io(IoWork::Profile(p.clone()))
    } else if let Some(f) = &w.workload {
        What::Io(IoWork::File(rel(f)))
    } else if let Some(p) = &w.sweep {
        if let Some(ms) = w.max_p99_ms {
            let declared = &crate::flags::MAX_P99_MS;
            (declared.check(&ms.into())).map_err(|r| bad(file, &key("max_p99_ms"), r))?;
        }
        What::Io(IoWork::Sweep {
            profile: p.clone(),
            max: w.sweep_max.unwrap_or(64),
            max_p99_ms: w.max_p99_ms,
        })
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
        What::Trace(TraceWork {
            path,
            format: w.trace_format.clone(),
            outstanding: w.trace_outstanding,
            map: w.trace_map.clone(),
        })
    };
    let default_name = match &what {
        What::Io(IoWork::Profile(p)) => p.clone(),
        What::Io(IoWork::File(f)) => f
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        What::Io(IoWork::Sweep { profile, .. }) => format!("sweep-{profile}"),
        What::Db { test, .. } => test.clone(),
        What::Trace(t) => format!(
            "trace-{}",
            t.path.file_stem().unwrap_or_default().to_string_lossy()
        ),
    };
    Ok(vec![make(w.name.clone().unwrap_or(default_name), what)])
}
