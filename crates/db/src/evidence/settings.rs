//! The server settings that shape its I/O, as the server reports them: what a run's figures
//! depend on besides the storage (the WAL sync method, the asynchronous I/O method of 18, the
//! flush-after and I/O concurrency limits). Read from the server for a cluster storlab
//! started and for an existing one (`--dsn`), where nothing else would say how it is set up.

use tokio_postgres::Client;

use crate::error::DbError;

/// Settings read from every server; a name the server does not know (io_method before 18)
/// is left out.
pub(crate) const STORAGE_SETTINGS: [&str; 31] = [
    "shared_buffers",
    "huge_pages",
    "data_checksums",
    "block_size",
    "fsync",
    "synchronous_commit",
    "full_page_writes",
    "wal_level",
    "wal_sync_method",
    "wal_buffers",
    "wal_compression",
    "wal_segment_size",
    "wal_writer_delay",
    "wal_writer_flush_after",
    "commit_delay",
    "commit_siblings",
    "checkpoint_timeout",
    "checkpoint_completion_target",
    "checkpoint_flush_after",
    "max_wal_size",
    "bgwriter_delay",
    "bgwriter_lru_maxpages",
    "bgwriter_lru_multiplier",
    "backend_flush_after",
    "effective_io_concurrency",
    "maintenance_io_concurrency",
    "io_method",
    "io_workers",
    "io_combine_limit",
    "track_io_timing",
    "track_wal_io_timing",
];

/// [`STORAGE_SETTINGS`] as the server has them, with units (`32MB`, `200ms`).
pub(crate) async fn storage_settings(c: &Client) -> Result<Vec<(String, String)>, DbError> {
    let names: Vec<&str> = STORAGE_SETTINGS.to_vec();
    let rows = c
        .query(
            "SELECT name, current_setting(name) FROM unnest($1::text[]) AS name
             WHERE current_setting(name, true) IS NOT NULL",
            &[&names],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// The settings of a run: those storlab wrote (none for `--dsn`), with the server's own
/// values replacing same-named ones and its other storage settings added.
pub(crate) fn with_server_values(
    written: &[(String, String)],
    server: Vec<(String, String)>,
) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = written
        .iter()
        .filter(|(name, _)| !server.iter().any(|(s, _)| s == name))
        .cloned()
        .collect();
    all.extend(server);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn the_server_value_wins_and_written_extras_stay() {
        let written = pairs(&[("shared_buffers", "32MB"), ("port", "5433")]);
        let server = pairs(&[("shared_buffers", "4096kB"), ("io_method", "worker")]);
        let mut all = with_server_values(&written, server);
        all.sort();
        assert_eq!(
            all,
            pairs(&[
                ("io_method", "worker"),
                ("port", "5433"),
                ("shared_buffers", "4096kB")
            ])
        );
        assert_eq!(
            with_server_values(&[], pairs(&[("fsync", "on")])),
            pairs(&[("fsync", "on")])
        );
    }
}
