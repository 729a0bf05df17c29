//! The users sweep of a simulated database: one simulation per user count, run in parallel
//! on the machine's cores.

use storlab_core::result::Run;
use storlab_sim::{FailureSpec, RunOptions, SystemSpec, WorkloadSpec};

use super::{analysis, grid, mark_users, SweepSpec};
use crate::error::CliError;

/// The workload at `users` sessions (and the think time asked for).
fn at_users(workload: &WorkloadSpec, users: u32, think_ms: Option<f64>) -> WorkloadSpec {
    let mut w = workload.clone();
    if let Some(db) = w.database.as_mut() {
        db.sessions = users;
        if let Some(z) = think_ms {
            db.think_ns = (z * 1e6).round() as u64;
        }
    }
    w
}

/// Runs the sweep: every point's run, by rising user count, each with its count in its
/// parameters (`users`).
pub fn sim_runs(
    spec: &SweepSpec,
    system: &SystemSpec,
    workload: &WorkloadSpec,
    failures: &[FailureSpec],
    opts: RunOptions,
) -> Result<Vec<Run>, CliError> {
    if workload.database.is_none() {
        return Err(CliError::BadInput(
            "--users-sweep needs a simulated database (--db-test, or a --workload with a \
             [database] section)"
                .into(),
        ));
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let passes = |r: &Run| super::analysis::passes(r, spec);
    let mut measure = |counts: &[u32]| -> Result<Vec<Run>, CliError> {
        std::thread::scope(|scope| {
            let handles: Vec<_> = counts
                .iter()
                .map(|&n| {
                    let w = at_users(workload, n, spec.think_ms);
                    scope.spawn(move || {
                        crate::sim_cmd::timed_with(system, &w, failures, None, opts).map(|mut r| {
                            mark_users(&mut r, n);
                            r
                        })
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .map_err(|_| CliError::Failed("a simulation thread panicked".into()))?
                })
                .collect()
        })
    };
    let slots = destage_slots(system);
    let far_enough = |done: &grid::Points| {
        let setting = analysis::Setting {
            think_ms: done.first().map_or(0.0, |p| analysis::sim_think_ms(&p.1)),
            host_cpus: None,
            destage_slots: slots.clone(),
        };
        analysis::past_knee(done, spec, &setting)
    };
    let judge = grid::Judge {
        passes: &passes,
        headroom: &|r| analysis::headroom(r, spec),
        far_enough: &far_enough,
    };
    let points = grid::search(&spec.users, spec.cap, threads, &judge, &mut measure)?;
    Ok(points.into_iter().map(|p| p.1).collect())
}

/// Each RAID group's destage operations outstanding at most: its destage queue per disk
/// (its own array's setting, with `[[arrays]]`) times its disks.
pub fn destage_slots(system: &SystemSpec) -> Vec<(String, u32)> {
    system
        .groups
        .iter()
        .map(|g| {
            let controllers = system.controller_spec(g.controller);
            let per_disk = controllers.destage_queue_for(&g.model);
            (g.name.clone(), per_disk.saturating_mul(g.layout.disks()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// examples/arrays/two-arrays.toml with the west array's destage queue per disk raised
    /// from 4 to 12.
    fn two_arrays(west_queue: u32) -> SystemSpec {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/arrays/two-arrays.toml"
        );
        let text = std::fs::read_to_string(path).expect("the example");
        let west = text
            .rfind("destage_queue_per_disk = 4")
            .expect("west's queue");
        let text = format!(
            "{}destage_queue_per_disk = {west_queue}{}",
            &text[..west],
            &text[west + "destage_queue_per_disk = 4".len()..]
        );
        storlab_sim::parse_array(&text, "two-arrays.toml").expect("parses")
    }

    #[test]
    fn each_group_destages_with_its_own_arrays_queue() {
        let slots = destage_slots(&two_arrays(12));
        // 5 disks a group: east's 4 a disk, west's 12.
        assert_eq!(
            slots,
            [
                ("e-0".to_string(), 20),
                ("e-1".to_string(), 20),
                ("w-0".to_string(), 60),
                ("w-1".to_string(), 60)
            ]
        );
    }
}
