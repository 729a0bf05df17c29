//! Help texts of `storlab db`'s options that state a bound, rendered from the flags'
//! declarations (storlab_db::flags) so the help cannot drift from what is refused.

use storlab_db::flags::{CAPTURE, CLIENTS, CPUS, DURATION, SCALE, WARMUP};

/// `--clients`.
pub(super) fn clients() -> String {
    format!(
        "Concurrent clients, {} (default: the test's, e.g. 80 for DPAWS row tests)",
        CLIENTS.bounds_in_words()
    )
}

/// `--scale`.
pub(super) fn scale() -> String {
    format!(
        "Rows per table, {} (orabench: rows of the big table; create-table-size: KiB written)",
        SCALE.bounds_in_words()
    )
}

/// `--capture`.
pub(super) fn capture() -> String {
    format!(
        "With --dsn: instead of running a test, watch the server's own workload for this long \
         ({}), strictly read-only, and write its characterization to --out",
        CAPTURE.bounds_in_words()
    )
}

/// `--cpus`.
pub(super) fn cpus() -> String {
    format!(
        "With --capture: the server's CPUs, {}, when storlab cannot count them (a remote \
         server whose /proc/cpuinfo the login may not read)",
        CPUS.bounds_in_words()
    )
}

/// `--duration`.
pub(super) fn duration() -> String {
    format!("Measured time per test ({})", DURATION.bounds_in_words())
}

/// `--warmup`.
pub(super) fn warmup() -> String {
    format!(
        "Warm-up per test, excluded: a span (0 for none; {}) or auto (until the clients' \
         rows/s, latency and the buffer-cache hit ratio are steady, at most --warmup-max) \
         [default: auto]",
        WARMUP.bounds_in_words()
    )
}

/// `--warmup-max`.
pub(super) fn warmup_max() -> String {
    format!("Longest automatic warm-up ({})", WARMUP.bounds_in_words())
}

#[cfg(test)]
mod tests {
    use storlab_core::keys::Key;
    use storlab_db::flags::{CAPTURE, CLIENTS, CPUS, SCALE};

    use super::super::run_args::tests::help;

    /// Each bound `storlab db --help` states is the one its flag's declaration refuses
    /// values outside of.
    #[test]
    fn the_bounds_in_db_help_are_the_declared_ones() {
        let text = help("db").split_whitespace().collect::<Vec<_>>().join(" ");
        let cases: [(&str, &Key, &str); 4] = [
            ("--clients", &CLIENTS, "Concurrent clients, "),
            ("--cpus", &CPUS, "the server's CPUs, "),
            ("--scale", &SCALE, "Rows per table, "),
            ("--capture", &CAPTURE, "workload for this long ("),
        ];
        for (flag, key, before) in cases {
            let bounds = key.bounds_in_words();
            assert!(!bounds.is_empty(), "{flag} declares no bounds");
            let said = format!("{before}{bounds}");
            assert!(text.contains(&said), "{flag}: no {said:?} in {text}");
        }
    }
}
