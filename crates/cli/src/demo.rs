//! `storlab demo`: the main job, what `make demo` runs. The plan `examples/plans/demo.toml`:
//! RAID 5 against RAID 10 on the mid-range array (the IOgen matrix and the DPAWS tests,
//! simulated), SSDs mirrored with HDDs with and without a preferred read failure group
//! (simulated), and this machine's disk for real (a short IOgen matrix and a small DPAWS run
//! on an ephemeral PostgreSQL, files under OUT/work, or /var/tmp when the server's user
//! cannot reach OUT). The plan's `[[questions]]` say what the report answers first: RAID 5
//! or RAID 10, whether the preferred read pays, and what this machine's disk does (on its
//! own, never against a simulated array). Writes the report, prints its path and the answers.
//! Re-running resumes from the cells already in OUT unless `--fresh`.

use std::path::Path;

use crate::cli::DemoArgs;
use crate::compare::{claim, load_plan, print_findings, run_plan, verdict, write_outputs};
use crate::error::CliError;
use crate::output::{check_output, Kind};

/// Where the demo plan lives in a checkout.
const PLAN: &str = "examples/plans/demo.toml";

pub fn run(a: DemoArgs) -> Result<(), CliError> {
    check_output("--out", &a.out, Kind::Dir)?;
    let path = Path::new(PLAN);
    if !path.exists() {
        return Err(CliError::BadInput(format!(
            "{PLAN}: not found; run storlab demo from a storlab checkout (or storlab compare PLAN)"
        )));
    }
    let mut plan = load_plan(path)?;
    if a.sim_only {
        plan.simulated_only();
    }
    // Claimed before OUT/work is made in it: a new directory holding only work/ would not
    // look like a study's and the plan would refuse to write there.
    claim(&a.out)?;
    let work = work_dir(&a.out)?;
    plan.place_real_targets(&work);
    let command = format!(
        "storlab demo --out {}{}{}",
        a.out.display(),
        if a.fresh { " --fresh" } else { "" },
        if a.sim_only { " --sim-only" } else { "" }
    );
    let (study, complete) = run_plan(&plan, &a.out, a.fresh, &command)?;
    let report = write_outputs(&a.out, &study)?;
    let _ = std::fs::remove_dir(&work);
    print_findings(&study, &report);
    verdict(&study, complete, &a.out, "run storlab demo again")
}

/// Where the real part's files and cluster go: OUT/work, unless the PostgreSQL server's
/// unprivileged user could not reach it (a checkout in a private home directory); then a
/// fresh directory under /var/tmp.
fn work_dir(out: &Path) -> Result<std::path::PathBuf, CliError> {
    use std::os::unix::fs::PermissionsExt;
    let create = |d: &Path| {
        std::fs::create_dir_all(d)
            .map_err(|e| CliError::Failed(format!("{}: cannot create: {e}", d.display())))
    };
    let work = out.join("work");
    create(&work)?;
    let abs = std::fs::canonicalize(&work)
        .map_err(|e| CliError::Failed(format!("{}: {e}", work.display())))?;
    let reachable = abs
        .ancestors()
        .skip(1)
        .all(|d| std::fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 != 0));
    if reachable {
        return Ok(work);
    }
    let _ = std::fs::remove_dir(&work);
    // A stable name, so a re-run's commands match the stored cells and resume.
    let tmp = std::path::PathBuf::from("/var/tmp/storlab-demo");
    // Only a directory made here gets its mode set: an existing one (another user's, or
    // one the user made) is used as it is.
    match std::fs::create_dir(&tmp) {
        Ok(()) => std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| CliError::Failed(format!("{}: {e}", tmp.display())))?,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tmp.is_dir() => {}
        Err(e) => {
            return Err(CliError::Failed(format!(
                "{}: cannot create: {e}",
                tmp.display()
            )))
        }
    }
    println!(
        "the real part runs in {} ({} is not reachable by the PostgreSQL server's user)",
        tmp.display(),
        out.display()
    );
    Ok(tmp)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::work_dir;

    #[test]
    fn the_real_part_moves_out_of_a_private_directory() {
        let open = tempfile::tempdir_in("/var/tmp").unwrap();
        std::fs::set_permissions(open.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let w = work_dir(&open.path().join("out")).unwrap();
        assert_eq!(w, open.path().join("out/work"));
        let private = tempfile::tempdir_in("/var/tmp").unwrap();
        std::fs::set_permissions(private.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let w = work_dir(&private.path().join("out")).unwrap();
        assert_eq!(w, std::path::Path::new("/var/tmp/storlab-demo"));
        assert!(!private.path().join("out/work").exists());
        let _ = std::fs::remove_dir(&w);
    }
}
