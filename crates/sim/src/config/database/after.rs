//! `after`: the tests a database runs before the section's own test, on the same database,
//! the way a benchmark cycle runs its tests in turn (DPAWS: update row, update range, select
//! row, select range). The database's state carries from one test to the next: the blocks
//! a test left dirty in the buffer cache and in the array's cache, the log's position, and
//! with Oracle's engine the blocks its commits left to be cleaned out by the next visitor.
//! The measured window is the section's test's.
//!
//! ```toml
//! [database]
//! test = "dpaws/select-row"
//! after = ["dpaws/update-row", { test = "dpaws/update-range", duration = "5m" }]
//! ```
//!
//! Each entry is a test name or a table with `test`, `sessions` (default: the test's
//! clients) and `duration` (default: the run's warm-up, the time the run allows a test to
//! reach steady state). The tests share the section's tables, so they must be tests whose
//! tables do not grow: the DPAWS tests.

use serde::Serialize;
use storlab_core::TimeSpan;

use super::keys_table::MAX_SESSIONS;
use super::{ConfigError, DbTest};

/// A test the database runs before the section's test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PriorTest {
    pub test: DbTest,
    pub sessions: u32,
    /// How long it runs, ns; None: the run's warm-up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ns: Option<u64>,
}

/// Keys of a table entry of `after`.
const ENTRY_KEYS: [&str; 3] = ["test", "sessions", "duration"];

/// The tests of `after` (`value`), run before `test`; a reason naming the entry when one
/// is not acceptable.
pub(super) fn resolve(
    value: Option<toml::Value>,
    test: DbTest,
    file: &str,
) -> Result<Vec<PriorTest>, ConfigError> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let bad = |k: String, r: String| ConfigError::invalid(file, k, r);
    let Some(entries) = value.as_array() else {
        return Err(bad(
            "database.after".into(),
            format!("must be a list of test names or tables {{ test, sessions, duration }}; got {value}"),
        ));
    };
    if !shares_tables(test) {
        return Err(bad(
            "database.after".into(),
            format!(
                "{} changes its tables' size; only tests whose tables do not grow run one \
                 after another on the same database ({})",
                test.name(),
                chainable().join(", ")
            ),
        ));
    }
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| entry(e).map_err(|(k, r)| bad(format!("database.after[{i}]{k}"), r)))
        .collect()
}

/// Tests that lay out the same tables whatever runs before them: none appends.
fn shares_tables(test: DbTest) -> bool {
    !test.appends() && !test.has_history()
}

fn chainable() -> Vec<&'static str> {
    DbTest::NAMES
        .iter()
        .filter(|n| DbTest::parse(n).is_some_and(shares_tables))
        .copied()
        .collect()
}

/// One entry: a test name, or a table of [`ENTRY_KEYS`]; an error as (key suffix, reason).
fn entry(e: &toml::Value) -> Result<PriorTest, (String, String)> {
    let (name, table) = match e {
        toml::Value::String(s) => (s.as_str(), None),
        toml::Value::Table(t) => match t.get("test").map(|v| (v.as_str(), v)) {
            Some((Some(s), _)) => (s, Some(t)),
            Some((None, v)) => {
                return Err((".test".into(), format!("must be a test name; got {v}")))
            }
            None => return Err((String::new(), "a table entry needs `test`".into())),
        },
        other => {
            return Err((
                String::new(),
                format!(
                    "must be a test name or a table {{ test, sessions, duration }}; got {other}"
                ),
            ))
        }
    };
    let test = DbTest::parse(name)
        .filter(|t| shares_tables(*t))
        .ok_or_else(|| {
            (
                String::new(),
                format!(
                    "{name:?} cannot run before the section's test; use one of {}",
                    chainable().join(", ")
                ),
            )
        })?;
    let mut prior = PriorTest {
        test,
        sessions: test.default_sessions(),
        duration_ns: None,
    };
    let Some(t) = table else {
        return Ok(prior);
    };
    if let Some(k) = t.keys().find(|k| !ENTRY_KEYS.contains(&k.as_str())) {
        return Err((
            format!(".{k}"),
            format!("unknown key (allowed: {})", ENTRY_KEYS.join(", ")),
        ));
    }
    if let Some(v) = t.get("sessions") {
        prior.sessions = v
            .as_integer()
            .filter(|n| (1..=MAX_SESSIONS as i64).contains(n))
            .map(|n| n as u32)
            .ok_or_else(|| {
                (
                    ".sessions".to_string(),
                    format!("must be a whole number from 1 to {MAX_SESSIONS}; got {v}"),
                )
            })?;
    }
    if let Some(v) = t.get("duration") {
        let span = v
            .clone()
            .try_into::<TimeSpan>()
            .ok()
            .filter(|d| d.0 > 0 && d.0 <= crate::config::limits::MAX_SIM_TIME_NS)
            .ok_or_else(|| {
                (
                    ".duration".to_string(),
                    format!("must be a duration from 1ns to 7 days (\"120s\", \"5m\"); got {v}"),
                )
            })?;
        prior.duration_ns = Some(span.0);
    }
    Ok(prior)
}

/// The tests of `after` with their durations: each its own, or `default_ns` (the run's
/// warm-up).
pub fn durations_ns(after: &[PriorTest], default_ns: u64) -> Vec<u64> {
    after
        .iter()
        .map(|p| p.duration_ns.unwrap_or(default_ns))
        .collect()
}
