//! `[instance.settings]`: the server's settings as it reported them (`shared_buffers =
//! "128MB"`, `checkpoint_timeout = "5min"`), written by `storlab db --capture` and read back.
//! Every key is declared here, each optional; a value is the server's text with its unit.
//! Where the simulated database has a matching key, it takes the setting
//! ([`checkpoint_timeout_ns`]); the buffer cache and the WAL buffers are `instance` keys of
//! their own.

use crate::keys::{Default, Key, Kind};

const fn setting(name: &'static str, help: &'static str) -> Key {
    Key::new(
        name,
        Kind::Text,
        Default::Derived("none: not captured"),
        help,
    )
}

/// The settings a capture reads, each a key of `[instance.settings]`.
pub const SETTINGS_KEYS: &[Key] = &[
    setting("server_version", "the server's version"),
    setting("shared_buffers", "the buffer cache"),
    setting("huge_pages", "huge pages for shared memory"),
    setting("data_checksums", "page checksums"),
    setting("block_size", "the page size"),
    setting("fsync", "whether writes are forced to disk"),
    setting(
        "synchronous_commit",
        "whether a commit waits for its WAL flush",
    ),
    setting("full_page_writes", "full-page images after each checkpoint"),
    setting("wal_level", "how much the WAL records"),
    setting("wal_sync_method", "how the WAL is forced to disk"),
    setting("wal_buffers", "the WAL buffer"),
    setting("wal_compression", "compression of full-page images"),
    setting("wal_segment_size", "the size of a WAL file"),
    setting("wal_writer_delay", "the WAL writer's sleep"),
    setting(
        "wal_writer_flush_after",
        "WAL written before the writer flushes",
    ),
    setting("commit_delay", "the wait before a group commit's flush"),
    setting(
        "commit_siblings",
        "active transactions that make commit_delay wait",
    ),
    setting("checkpoint_timeout", "the time between checkpoints"),
    setting(
        "checkpoint_completion_target",
        "the share of the interval a checkpoint spreads over",
    ),
    setting("checkpoint_flush_after", "checkpoint writes before a flush"),
    setting("max_wal_size", "WAL that starts a checkpoint"),
    setting("bgwriter_delay", "the background writer's sleep"),
    setting(
        "bgwriter_lru_maxpages",
        "pages the background writer writes per round at most",
    ),
    setting(
        "bgwriter_lru_multiplier",
        "how far ahead of demand the background writer cleans",
    ),
    setting("backend_flush_after", "a backend's writes before a flush"),
    setting("effective_io_concurrency", "prefetch depth of bitmap scans"),
    setting(
        "maintenance_io_concurrency",
        "prefetch depth of maintenance work",
    ),
    setting("io_method", "the asynchronous I/O method"),
    setting("io_workers", "I/O worker processes"),
    setting("io_combine_limit", "the largest combined read"),
    setting("track_io_timing", "whether I/O is timed"),
    setting("track_wal_io_timing", "whether WAL I/O is timed"),
    setting("max_connections", "connections at most"),
    setting("random_page_cost", "the planner's cost of a random page"),
    setting("work_mem", "memory of a sort or hash before it spills"),
    setting("effective_cache_size", "the cache the planner assumes"),
    setting("stats_fetch_consistency", "how statistics views are read"),
    setting(
        "log_file_size",
        "Oracle: an online redo log file's size, in bytes (from a report: its redo over its \
         log switches)",
    ),
    setting(
        "log_checkpoint_timeout",
        "Oracle: seconds a changed block may stay unwritten at most",
    ),
    setting(
        "log_writer_cpu_us",
        "Oracle: CPU time the log writer takes per log write, in microseconds (from a report: \
         its background CPU over its redo writes)",
    ),
    setting(
        "fast_start_mttr_target",
        "Oracle: the crash recovery time, in seconds, the checkpoints aim at",
    ),
];

/// `checkpoint_timeout` (`30s`, `5min`, `1h`, or seconds without a unit) in ns, when given
/// and readable.
pub fn checkpoint_timeout_ns(settings: &std::collections::BTreeMap<String, String>) -> Option<u64> {
    duration_ns(settings.get("checkpoint_timeout")?)
}

/// A PostgreSQL duration (`ms`, `s`, `min`, `h`, `d`; seconds without a unit) in ns.
fn duration_ns(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let n: u64 = n.parse().ok()?;
    let ns_per: u64 = match unit.trim() {
        "ms" => 1_000_000,
        "" | "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => return None,
    };
    n.checked_mul(ns_per)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_the_server_writes_them() {
        for (text, ns) in [
            ("5min", Some(300_000_000_000)),
            ("30s", Some(30_000_000_000)),
            ("1h", Some(3_600_000_000_000)),
            ("200ms", Some(200_000_000)),
            ("300", Some(300_000_000_000)),
            ("5 fortnights", None),
            ("", None),
        ] {
            assert_eq!(duration_ns(text), ns, "{text}");
        }
    }
}
