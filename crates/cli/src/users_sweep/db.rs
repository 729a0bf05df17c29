//! The users sweep of a real PostgreSQL: the test at each user count, one after the other.
//! Each point runs on a server started (or, with `--dsn`, a schema loaded) for it, so every
//! count starts from the same state: a cluster storlab starts gets its own directories
//! under the ones given (`users-N`), removed when the point is done.

use storlab_core::result::Run;
use storlab_db::options::Server;
use storlab_db::{run_db, DbOptions};

use super::{grid, mark_users, SweepSpec};
use crate::error::CliError;

/// `dir/users-N`.
fn under(dir: &std::path::Path, users: u32) -> std::path::PathBuf {
    dir.join(format!("users-{users}"))
}

/// The options of the point at `users` clients.
fn at_users(opts: &DbOptions, users: u32) -> DbOptions {
    let mut o = opts.clone();
    o.clients = Some(users);
    if let Server::Ephemeral {
        data_dir,
        wal_dir,
        tablespaces,
        ..
    } = &mut o.server
    {
        *data_dir = under(data_dir, users);
        if let Some(w) = wal_dir.as_mut() {
            *w = under(w, users);
        }
        for (_, path) in tablespaces.iter_mut() {
            *path = under(path, users);
        }
    }
    o
}

/// Runs the sweep: every point's run, by rising user count, each with its count in its
/// parameters (`users`).
pub fn db_runs(
    spec: &SweepSpec,
    opts: &DbOptions,
    setting: &super::analysis::Setting,
) -> Result<Vec<Run>, CliError> {
    let mut opts = opts.clone();
    opts.think = spec.think_ms.map(|ms| storlab_db::options::Think {
        mean_ns: (ms * 1e6).round() as u64,
        exponential: spec.think_exponential,
    });
    let opts = &opts;
    let tests = storlab_db::suites::find(&opts.suite, &opts.test).map_err(CliError::BadInput)?;
    let [_] = tests.as_slice() else {
        return Err(CliError::BadInput(format!(
            "--users-sweep runs one test; --suite {} --test {} names {}",
            opts.suite,
            opts.test,
            tests.len()
        )));
    };
    let passes = |r: &Run| super::analysis::passes(r, spec);
    let mut measure = |counts: &[u32]| -> Result<Vec<Run>, CliError> {
        let mut runs = Vec::new();
        for &n in counts {
            if storlab_io::signal::stop_requested() {
                break;
            }
            let o = at_users(opts, n);
            if let Server::Ephemeral { data_dir, .. } = &o.server {
                eprintln!("storlab: {n} users (server in {})", data_dir.display());
            }
            let runs_at = match run_db(&o) {
                Ok(r) => r,
                // Interrupted before this point measured anything: the points so far stand.
                Err(_) if storlab_io::signal::stop_requested() => break,
                Err(e) => return Err(e.into()),
            };
            let mut run = runs_at
                .into_iter()
                .next()
                .ok_or_else(|| CliError::Failed(format!("{n} users: the test gave no result")))?;
            mark_users(&mut run, n);
            runs.push(run);
        }
        Ok(runs)
    };
    // The directories the points' own directories go under: removed again when the sweep
    // created them (each point's cluster removes its own).
    let parents: Vec<std::path::PathBuf> = match &opts.server {
        Server::Ephemeral {
            data_dir, wal_dir, ..
        } => std::iter::once(data_dir)
            .chain(wal_dir)
            .filter(|d| !d.exists())
            .cloned()
            .collect(),
        Server::Dsn(_) => Vec::new(),
    };
    let far_enough = |done: &grid::Points| super::analysis::past_knee(done, spec, setting);
    let judge = grid::Judge {
        passes: &passes,
        headroom: &|r| super::analysis::headroom(r, spec),
        far_enough: &far_enough,
    };
    let points = grid::search(&spec.users, spec.cap, 1, &judge, &mut measure);
    for dir in parents {
        // Only when empty: whatever a failed point left stays for the user to see.
        let _ = std::fs::remove_dir(dir);
    }
    Ok(points?.into_iter().map(|p| p.1).collect())
}
