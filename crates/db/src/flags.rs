//! Bounds of a database run's flags and of the connection settings storlab reads itself,
//! declared once as the file keys are (storlab_core::keys): name, type, default, bounds,
//! unit and help. The messages that refuse a value come from these declarations.

pub use storlab_core::keys::{count_value as count, span_value as span};
use storlab_core::keys::{Default::Derived, Default::Value as D, Key, Kind};

/// Most concurrent clients: each is a server connection and a backend process.
pub const MAX_CLIENTS: u32 = 1_000;
/// Largest scale: rows per table (about 7 TB of DPAWS tables), or KiB for create-table-size.
pub const MAX_SCALE: u64 = 1_000_000_000;
/// Shortest measured time per test: 1 ms.
pub const MIN_DURATION_NS: u64 = 1_000_000;
/// Longest measured time per test: a week.
pub const MAX_DURATION_NS: u64 = 7 * 24 * 3600 * 1_000_000_000;
/// Longest warm-up per test, fixed or automatic: a day.
pub const MAX_WARMUP_NS: u64 = storlab_core::steady::MAX_REAL_WARMUP_NS;
/// Shortest capture interval: the server publishes its counters about once a second.
pub const MIN_CAPTURE_NS: u64 = 1_000_000_000;
/// Longest capture interval: a day.
pub const MAX_CAPTURE_NS: u64 = 24 * 3600 * 1_000_000_000;
/// Longest connection time-out or keep-alive idle time of a connection string: a day.
pub const MAX_CONNINFO_SECONDS: u64 = 24 * 3600;

/// `storlab db --clients`.
pub const CLIENTS: Key = Key::new(
    "clients",
    Kind::Count,
    Derived("the test's"),
    "concurrent clients, each a server connection",
)
.int(1, MAX_CLIENTS as u64)
.unit("clients");

/// `storlab db --scale`.
pub const SCALE: Key = Key::new(
    "scale",
    Kind::Count,
    Derived("the suite's"),
    "rows per table (KiB for create-table-size)",
)
.int(1, MAX_SCALE);

/// `storlab db --duration`.
pub const DURATION: Key = Key::new(
    "duration",
    Kind::Time,
    D("\"60s\""),
    "measured time per test",
)
.int(MIN_DURATION_NS, MAX_DURATION_NS);

/// `storlab db --warmup` (or `--warmup-max` when automatic).
pub const WARMUP: Key = Key::new(
    "warmup",
    Kind::Time,
    D("\"auto\""),
    "warm-up per test excluded from the measurement, or the longest automatic one",
)
.int(0, MAX_WARMUP_NS);

/// The think time of every client (`--think-ms` of a users sweep).
pub const THINK: Key = Key::new(
    "think",
    Kind::Time,
    Derived("the test's"),
    "each client's pause between two transactions",
)
.int(0, storlab_core::profile::MAX_THINK_NS);

/// `storlab db --capture`.
pub const CAPTURE: Key = Key::new(
    "capture",
    Kind::Time,
    Derived("none: run a test"),
    "capture the server's own workload for this long, read-only",
)
.int(MIN_CAPTURE_NS, MAX_CAPTURE_NS);

/// `storlab db --capture --cpus`: the server's CPUs when storlab cannot count them, the
/// characterization's `instance.cpus`.
pub use storlab_core::character::keys_table::CPUS;

/// A connection string's `connect_timeout` and `keepalives_idle`, as libpq reads them.
pub const CONNINFO_SECONDS: Key = Key::new(
    "seconds",
    Kind::Count,
    Derived("libpq's"),
    "whole seconds of a connection time-out or keep-alive idle time",
)
.int(0, MAX_CONNINFO_SECONDS)
.unit("s");

/// A connection string's `port`.
pub const PORT: Key = Key::new(
    "port",
    Kind::Count,
    D("5432"),
    "TCP port of the server, or of its Unix-domain socket's name",
)
.int(1, u16::MAX as u64);

#[cfg(test)]
mod tests {
    use super::*;

    fn check(key: &Key, flag: &str, v: toml::Value) -> Result<(), String> {
        key.check_flag(flag, v)
    }

    #[test]
    fn a_refused_value_names_the_flag_the_declared_bound_and_the_value() {
        let day = 86_400_000_000_000;
        let e = check(&WARMUP, "--warmup-max", span(2 * day)).unwrap_err();
        assert_eq!(e, "--warmup-max must be at most 86400 s; got 172800 s");
        let e = check(&CAPTURE, "--capture", span(day + 1_000_000_000)).unwrap_err();
        assert_eq!(
            e,
            "--capture must be at least 1 s and at most 86400 s; got 86401 s"
        );
        let e = check(&CONNINFO_SECONDS, "connect_timeout", count(90_000)).unwrap_err();
        assert_eq!(e, "connect_timeout must be at most 86400 s; got 90000");
        let e = check(&CLIENTS, "--clients", count(0)).unwrap_err();
        assert_eq!(
            e,
            "--clients must be at least 1 and at most 1000 clients; got 0"
        );
        assert!(check(&WARMUP, "--warmup", span(day)).is_ok());
    }
}
