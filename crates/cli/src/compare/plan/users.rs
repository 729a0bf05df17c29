//! A database workload's `users_sweep` table: "how many users can this array carry", run
//! as `storlab sim --users-sweep` on each simulated target (a real target leaves it out).
//!
//! ```toml
//! [[workloads]]
//! db_test = "dpaws/select-row"
//! users_sweep = { sessions = [1, 2, 4, 8, 16], max_response_ms = 100, response = "p95" }
//! ```

use serde::Deserialize;

use super::bad;
use crate::error::CliError;
use crate::flags::{self, MAX_RESPONSE_MS, SIM_USERS, SWEEP_POINTS, THINK_MS};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::compare) struct RawUsersSweep {
    #[serde(default)]
    sessions: Vec<u32>,
    #[serde(default)]
    max_response_ms: Option<f64>,
    #[serde(default)]
    response: Option<String>,
    #[serde(default)]
    think_ms: Option<f64>,
}

/// A users sweep of a plan cell: the options of `--users-sweep`, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct UsersSweep {
    /// `--users`: the session counts (empty: found by the sweep).
    pub sessions: Vec<u32>,
    /// `--max-response-ms`.
    pub max_response_ms: Option<f64>,
    /// `--response`: mean, p95 or p99.
    pub response: Option<String>,
    /// `--think-ms`.
    pub think_ms: Option<f64>,
}

/// Checks a cell's `users_sweep` against the declarations of the flags it becomes.
pub(in crate::compare) fn users_sweep(
    raw: RawUsersSweep,
    file: &str,
    key: &str,
) -> Result<UsersSweep, CliError> {
    let at = |k: &str| format!("{key}.{k}");
    let check = |k: &str, declared: &storlab_core::keys::Key, v: toml::Value| {
        declared
            .check(&v)
            .map_err(|reason| bad(file, &at(k), reason))
    };
    if !raw.sessions.is_empty() {
        let n = flags::count(raw.sessions.len() as u64);
        check("sessions", &SWEEP_POINTS, n)?;
    }
    for &n in &raw.sessions {
        SIM_USERS
            .check(&flags::count(u64::from(n)))
            .map_err(|reason| bad(file, &at("sessions"), format!("each count {reason}")))?;
    }
    if let Some(ms) = raw.max_response_ms {
        check("max_response_ms", &MAX_RESPONSE_MS, ms.into())?;
    }
    if let Some(ms) = raw.think_ms {
        check("think_ms", &THINK_MS, ms.into())?;
    }
    if let Some(r) = raw.response.as_deref() {
        if !["mean", "p95", "p99"].contains(&r) {
            return Err(bad(
                file,
                &at("response"),
                format!("must be \"mean\", \"p95\" or \"p99\"; got {r:?}"),
            ));
        }
    }
    Ok(UsersSweep {
        sessions: raw.sessions,
        max_response_ms: raw.max_response_ms,
        response: raw.response,
        think_ms: raw.think_ms,
    })
}
