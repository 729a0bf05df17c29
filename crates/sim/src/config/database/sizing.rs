//! The data and log targets checked against what the run puts on them: the page space as the
//! sessions lay it out (a built-in test's mix as [`DbSpec::builtin_mix`] plans it; the tables
//! one after another for a database without one) and Oracle's undo segments, then the log
//! files, after the page space when they share its target. The check and the run size the
//! tables with the same function, so a database the check accepts is the one that runs.

use super::DbSpec;
use crate::config::{ConfigError, SystemSpec};
use crate::db::layout::Layout;
use crate::db::undo;

const BLOCK_BYTES: u64 = 8192;
const MIB: u64 = 1 << 20;

/// Blocks the run's page space takes: the tables and indexes as the sessions lay them out,
/// then the undo segments (sized for the busiest of the tests run in turn).
fn page_blocks(spec: &DbSpec) -> Result<u64, String> {
    let tables = match spec.builtin_mix() {
        Some(mix) => mix?.blocks,
        None => Layout::new(&spec.tables).blocks(),
    };
    // Oracle's undo segments: one per session of the busiest test the database runs.
    Ok(tables + undo::region_blocks(spec.engine, spec.busiest_sessions()))
}

/// Checks that the page space fits the data target and the log files their target, and
/// places the log files after the page space when they share the data's target.
pub(super) fn place(spec: &mut DbSpec, system: &SystemSpec, file: &str) -> Result<(), ConfigError> {
    let bad = |k: &str, r: String| ConfigError::invalid(file, format!("database.{k}"), r);
    let too_many = |blocks: u64| {
        bad(
            "rows",
            format!(
                "the tables and indexes need {blocks} blocks of 8 KiB; at most {} (32 TiB) are \
                 simulated",
                u32::MAX - 1
            ),
        )
    };
    // The test's own tables alone (without a history table, which the planner lays out
    // smaller) bound the page space from below: past the model's limit, nothing is planned.
    let own = spec.tables.len() - usize::from(spec.test.has_history());
    let at_least = Layout::new(&spec.tables[..own]).blocks();
    if at_least >= u64::from(u32::MAX) {
        return Err(too_many(at_least));
    }
    let blocks = page_blocks(spec).map_err(|r| bad("rows", r))?;
    if blocks >= u64::from(u32::MAX) {
        return Err(too_many(blocks));
    }
    let need = blocks * BLOCK_BYTES;
    let have = spec.data.bytes(system);
    if need > have {
        return Err(bad(
            "rows",
            format!(
                "the tables and indexes need {need} bytes ({blocks} blocks of 8 KiB, as the \
                 sessions lay them out); the data target has {have}: lower rows or tables, or \
                 give database.data a larger target"
            ),
        ));
    }
    let log_need = spec.log_file_bytes * u64::from(spec.log_groups);
    let shared = spec.data.volume == spec.log.volume && spec.data.luns == spec.log.luns;
    spec.log_offset = shared.then(|| need.div_ceil(MIB) * MIB);
    let log_have = spec
        .log
        .bytes(system)
        .saturating_sub(spec.log_offset.unwrap_or(0));
    if log_need > log_have {
        return Err(bad(
            "log_file_size",
            format!("the log files need {log_need} bytes; the log target has {log_have} free"),
        ));
    }
    Ok(())
}
