//! Bounds of the command-line flags that are not keys of a file, declared once as the file
//! keys are (storlab_core::keys): name, type, default, bounds, unit and help; the messages
//! that refuse a value come from these declarations. Flags that set a file key (`--rate-iops`,
//! `--group-commit`) are checked against that key's declaration instead.

use storlab_core::keys::{Default::Derived, Default::Value as D, Key, Kind};
use storlab_core::steady::MAX_REAL_WARMUP_NS;

use crate::error::CliError;

/// `storlab io --warmup` (or `--warmup-max` when automatic).
pub const IO_WARMUP: Key = Key::new(
    "warmup",
    Kind::Time,
    D("\"5s\""),
    "warm-up excluded from the measurement, or the longest automatic one",
)
.int(0, MAX_REAL_WARMUP_NS);

/// `storlab io --sweep-max`.
pub const IO_SWEEP_MAX: Key = Key::new(
    "sweep_max",
    Kind::Count,
    D("64"),
    "highest outstanding I/Os of a load sweep (1, 2, 4, ... up to it)",
)
.int(1, storlab_io::options::MAX_OUTSTANDING)
.unit("outstanding I/Os");

/// `storlab sim --sweep-max`.
pub const SIM_SWEEP_MAX: Key = Key::new(
    "sweep_max",
    Kind::Count,
    D("64"),
    "highest outstanding I/Os per stream of a load sweep (1, 2, 4, ... up to it)",
)
.int(1, storlab_sim::config::limits::MAX_OUTSTANDING)
.unit("outstanding I/Os per stream");

/// `storlab sim --trace-outstanding`.
pub const TRACE_OUTSTANDING: Key = Key::new(
    "trace_outstanding",
    Kind::Count,
    Derived("none: open loop at --trace-speed"),
    "replay a trace in closed loop with this many I/Os in flight",
)
.int(1, storlab_sim::config::limits::MAX_OUTSTANDING);

/// Points of one sweep: `storlab io --sweep-rates`, the users sweep's `--users`.
pub const SWEEP_POINTS: Key = Key::new(
    "points",
    Kind::Count,
    Derived("the sweep's own"),
    "load points of one sweep",
)
.int(1, 64)
.unit("points");

/// Most users of a point of a simulated users sweep.
pub const MAX_SIM_USERS: u32 = 10_000;

/// A user count of a simulated users sweep: `storlab sim --users`, a plan's
/// `users_sweep.sessions` (a real database's sweep takes `storlab db --clients`' bounds).
pub const SIM_USERS: Key = Key::new(
    "users",
    Kind::Count,
    Derived("found by the sweep"),
    "users (sessions) of one point of a simulated users sweep",
)
.int(1, MAX_SIM_USERS as u64)
.unit("users");

/// The users sweep's response-time target without `--max-response-ms`, ms (the default of
/// [`MAX_RESPONSE_MS`]).
pub const DEFAULT_MAX_RESPONSE_MS: f64 = 100.0;

/// Users sweep: `--max-response-ms`.
pub const MAX_RESPONSE_MS: Key = Key::new(
    "max_response_ms",
    Kind::Number,
    D("100.0"),
    "response-time target of the users sweep: the knee is the most users under it",
)
.float_above(0.0, 3_600_000.0)
.unit("ms");

/// Latency ceiling of a load sweep: `storlab io --max-p99-ms`, `storlab sim --max-p99-ms`, a
/// plan's `max_p99_ms`.
pub const MAX_P99_MS: Key = Key::new(
    "max_p99_ms",
    Kind::Number,
    Derived("none: no knee"),
    "latency ceiling of a load sweep: the knee is the point with the most IOPS whose p99 \
     stays under it",
)
.float_above(0.0, 3_600_000.0)
.unit("ms");

/// Users sweep: `--think-ms`.
pub const THINK_MS: Key = Key::new(
    "think_ms",
    Kind::Number,
    Derived("the workload's"),
    "each user's think time between transactions",
)
.float(0.0, 3_600_000.0)
.unit("ms");

/// Checks `v`, the value of `flag`, against the key that declares it: bad input naming the
/// flag, the bound and the value.
pub fn check(key: &Key, flag: &str, v: impl Into<toml::Value>) -> Result<(), CliError> {
    key.check_flag(flag, v).map_err(CliError::BadInput)
}

pub use storlab_core::keys::{count_value as count, span_value as span};

#[cfg(test)]
mod tests {
    use storlab_core::keys::default_value;

    use super::*;

    #[test]
    fn declared_defaults_are_the_ones_used() {
        let target = default_value(&MAX_RESPONSE_MS).and_then(|v| v.as_float());
        assert_eq!(target, Some(DEFAULT_MAX_RESPONSE_MS));
    }

    #[test]
    fn a_refused_flag_names_the_flag_the_bound_the_unit_and_the_value() {
        let e = check(&IO_SWEEP_MAX, "--sweep-max", count(5000)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--sweep-max must be at least 1 and at most 4096 outstanding I/Os; got 5000"
        );
        let e = check(&IO_WARMUP, "--warmup", span(2 * 86_400_000_000_000)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--warmup must be at most 86400 s; got 172800 s"
        );
        assert!(check(&THINK_MS, "--think-ms", 0.0).is_ok());
        let e = check(&MAX_P99_MS, "--max-p99-ms", 1e30).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--max-p99-ms must be above 0 and at most 3600000 ms; got 1e30"
        );
    }
}
