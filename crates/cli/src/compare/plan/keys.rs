//! How large a plan may be, declared once as the file keys are (storlab_core::keys): the
//! repeats of a workload, the targets, workloads and cells of a plan. The messages that
//! refuse a plan too large to run come from these declarations.

use storlab_core::keys::{count_value as count, Default::Derived, Default::Value as D, Key, Kind};
use storlab_core::profile::IOGEN_MATRIX;

use super::{bad, Workload};
use crate::error::CliError;

/// Most repeats of a workload.
pub const MAX_REPEATS: u32 = 1_000;
/// Most targets (configurations) of a plan.
pub const MAX_TARGETS: usize = 256;
/// Most workloads of a plan (the IOgen matrix counts as its ten profiles).
pub const MAX_WORKLOADS: usize = 1_000;
/// Most cells of a plan (workloads x their targets x repeats).
pub const MAX_CELLS: u64 = 100_000;

/// A plan's `repeats`, or a workload's own.
pub const REPEATS: Key = Key::new(
    "repeats",
    Kind::Count,
    D("1"),
    "runs of each workload on each target, with seeds seed, seed + 1, ...",
)
.int(1, MAX_REPEATS as u64);

/// How many `[[targets]]` a plan has.
pub const TARGETS: Key = Key::new(
    "targets",
    Kind::Count,
    Derived("required"),
    "how many configurations are under test",
)
.int(1, MAX_TARGETS as u64)
.unit("targets");

/// How many workloads a plan has (`iogen = true` counts as each profile of the matrix).
pub const WORKLOADS: Key = Key::new(
    "workloads",
    Kind::Count,
    Derived("required"),
    "how many workloads run on the targets",
)
.int(1, MAX_WORKLOADS as u64)
.unit("workloads");

/// How many cells (workloads x their targets x repeats) a plan has.
pub const CELLS: Key = Key::new(
    "cells",
    Kind::Count,
    Derived("workloads x targets x repeats"),
    "the runs of a plan",
)
.int(0, MAX_CELLS)
.unit("cells");

/// Checks the count `n` against `key`; the message names `at` and ends with `after`.
fn check_count(key: &Key, n: u64, file: &str, at: &str, after: &str) -> Result<(), CliError> {
    key.check(&count(n))
        .map_err(|reason| bad(file, at, format!("{reason}{after}")))
}

/// Checks the repeats `n` given at `at` (`repeats`, `workloads[2].repeats`).
pub(super) fn check_repeats(n: u32, file: &str, at: &str) -> Result<(), CliError> {
    check_count(&REPEATS, u64::from(n), file, at, "")
}

/// Checks how many targets and workload tables a plan has, before any is read.
pub(super) fn check_tables(targets: usize, workloads: usize, file: &str) -> Result<(), CliError> {
    check_count(&TARGETS, targets as u64, file, TARGETS.name, "")?;
    check_count(&WORKLOADS, workloads as u64, file, WORKLOADS.name, "")
}

/// Bounds the plan's workloads and cells before any cell is built.
pub(super) fn check_size(
    workloads: &[Workload],
    targets: usize,
    file: &str,
) -> Result<(), CliError> {
    let iogen = format!(" (the IOgen matrix counts as {})", IOGEN_MATRIX.len());
    check_count(
        &WORKLOADS,
        workloads.len() as u64,
        file,
        WORKLOADS.name,
        &iogen,
    )?;
    let cells: u64 = workloads
        .iter()
        .map(|w| {
            let on = if w.targets.is_empty() {
                targets
            } else {
                w.targets.len()
            };
            on as u64 * u64::from(w.repeats)
        })
        .sum();
    CELLS.check(&count(cells)).map_err(|reason| {
        let what = "the plan's cells (workloads x targets x repeats)";
        bad(file, REPEATS.name, format!("{what} {reason}"))
    })
}
