//! How a scan reads: the blocks of one multiblock read, and which scans bypass the buffer
//! cache (Oracle's direct path reads).
//!
//! - Oracle's `db_file_multiblock_read_count` defaults to the largest I/O the platform does
//!   efficiently, 1 MiB on most platforms, over the block size: 128 blocks of 8 KiB (Oracle
//!   Database Reference, `DB_FILE_MULTIBLOCK_READ_COUNT`). PostgreSQL reads scans block by
//!   block and the host's read-ahead (128 KiB by default) merges them: 16 blocks of 8 KiB.
//! - A serial full scan larger than Oracle's medium-table threshold, five times
//!   `_small_table_threshold` (2% of the buffer cache), that is 10% of the buffer cache, reads
//!   direct path: into the session's memory, not the buffer cache (`direct path read`).
//!   Smaller scans go through the buffer cache (`db file scattered read`).

use storlab_core::character::Engine;

/// Oracle's largest efficient I/O, the default multiblock read's size.
pub const ORACLE_MULTIBLOCK_READ_BYTES: u64 = 1 << 20;
/// The host's default read-ahead under PostgreSQL.
pub const READ_AHEAD_BYTES: u64 = 128 << 10;
/// A scan of more than this share of the buffer cache reads direct path (Oracle), percent.
pub const DIRECT_READ_PCT_OF_BUFFER: u64 = 10;

/// Blocks of one multiblock read for `engine` with blocks of `block_bytes` (at least 1).
pub fn multiblock_read_count(engine: Engine, block_bytes: u64) -> u64 {
    let bytes = match engine {
        Engine::Oracle => ORACLE_MULTIBLOCK_READ_BYTES,
        Engine::Postgresql => READ_AHEAD_BYTES,
    };
    (bytes / block_bytes.max(1)).max(1)
}

/// Whether a scan of `scan_blocks` reads direct path with a buffer cache of `buffer_blocks`
/// (Oracle only).
pub fn reads_direct(engine: Engine, scan_blocks: u64, buffer_blocks: u64) -> bool {
    engine == Engine::Oracle
        && scan_blocks.saturating_mul(100) > buffer_blocks.saturating_mul(DIRECT_READ_PCT_OF_BUFFER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiblock_reads_are_1_mib_for_oracle_and_the_read_ahead_for_postgresql() {
        assert_eq!(multiblock_read_count(Engine::Oracle, 8192), 128);
        assert_eq!(multiblock_read_count(Engine::Oracle, 16384), 64);
        assert_eq!(multiblock_read_count(Engine::Postgresql, 8192), 16);
        assert_eq!(multiblock_read_count(Engine::Oracle, 1 << 21), 1);
    }

    #[test]
    fn scans_over_a_tenth_of_the_buffer_cache_read_direct_in_oracle_only() {
        assert!(!reads_direct(Engine::Oracle, 1000, 10_000));
        assert!(reads_direct(Engine::Oracle, 1001, 10_000));
        assert!(!reads_direct(Engine::Postgresql, 1_000_000, 10_000));
    }
}
