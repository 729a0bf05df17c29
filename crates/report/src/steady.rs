//! Cells measured outside steady state: a warning box at the top of the report and a badge
//! beside each such cell, so no figure of a still-settling run passes unnoticed. A job runs
//! to completion, so steady state is not its criterion: a job's cell is marked only when
//! it did not finish (`INCOMPLETE`), and listed apart.

use storlab_core::result::Run;

use crate::model::{Cell, Study};
use crate::svg::esc;
use crate::tables::{config_cell, table};

/// The run measured a load outside steady state (a job never is: it runs to completion).
fn unsteady(r: &Run) -> bool {
    !r.steady && r.metrics.job.is_none()
}

/// The run is a job that did not finish within its time limit.
fn incomplete(r: &Run) -> bool {
    r.metrics.job.as_ref().is_some_and(|j| !j.complete)
}

/// The badge of a cell whose run was not at steady state, or of a job that did not finish
/// (empty otherwise).
pub fn badge(cell: &Cell) -> &'static str {
    match cell.run.as_ref() {
        Some(r) if unsteady(r) => {
            r#" <span class="badge-unsteady" title="measured outside steady state">NOT STEADY</span>"#
        }
        Some(r) if incomplete(r) => {
            r#" <span class="badge-unsteady" title="the job did not finish within its time limit">INCOMPLETE</span>"#
        }
        _ => "",
    }
}

/// The warning box listing every cell measured outside steady state and every job that did
/// not finish, or None when there is none.
pub fn warning(study: &Study) -> Option<String> {
    let rows = |keep: fn(&Run) -> bool| -> Vec<Vec<String>> {
        study
            .cells
            .iter()
            .filter_map(|c| {
                let r = c.run.as_ref().filter(|r| keep(r))?;
                Some(vec![
                    config_cell(study, &c.configuration),
                    format!("{}{}", esc(&c.workload), badge(c)),
                    format!("{} s", r.workload.warmup_s),
                    esc(r.steady_reason.as_deref().unwrap_or("no reason recorded")),
                ])
            })
            .collect()
    };
    let (loads, jobs) = (rows(unsteady), rows(incomplete));
    let mut out = String::new();
    if !loads.is_empty() {
        out += &format!(
            "<div class=\"warn\"><p><strong>{} of {} cells were measured outside steady state</strong>: \
             their throughput or latency was still moving, so their figures may not hold in a \
             longer run. Run them with <code>warmup = \"auto\"</code> or a longer warm-up.</p>{}</div>",
            loads.len(),
            study.cells.len(),
            table(&["configuration", "workload", "warm-up", "why not steady"], &loads)
        );
    }
    if !jobs.is_empty() {
        out += &format!(
            "<div class=\"warn\"><p><strong>{} of {} cells are jobs that did not run to \
             completion</strong>: their time limit came first, so their elapsed time is that \
             limit, not the job's. Give them a longer <code>duration</code>.</p>{}</div>",
            jobs.len(),
            study.cells.len(),
            table(
                &["configuration", "workload", "warm-up", "how it ended"],
                &jobs
            )
        );
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::db_run;
    use storlab_core::result::TargetKind;

    fn cell(steady: bool) -> Cell {
        let mut run = db_run("raid5", TargetKind::Sim, "dpaws/update-row", 5000.0, 2.0);
        run.steady = steady;
        run.steady_reason = (!steady).then(|| "rows/s still rising 14%/min".to_string());
        Cell {
            configuration: "raid5".into(),
            workload: "dpaws/update-row".into(),
            repeat: 0,
            run: Some(run),
            error: None,
            command: "storlab sim".into(),
        }
    }

    #[test]
    fn unsteady_cells_get_a_badge_and_a_warning() {
        let mut study = crate::synthetic::demo_study();
        study.cells = vec![cell(true), cell(true)];
        assert_eq!(warning(&study), None);
        assert!(!crate::html::render(&study).contains("class=\"badge-unsteady\""));
        study.cells = vec![cell(true), cell(false)];
        assert_eq!(badge(&study.cells[0]), "");
        assert!(badge(&study.cells[1]).contains("NOT STEADY"));
        let w = warning(&study).expect("a warning");
        assert!(
            w.contains("1 of 2 cells were measured outside steady state"),
            "{w}"
        );
        assert!(w.contains("rows/s still rising 14%/min"), "{w}");
        let html = crate::html::render(&study);
        assert!(
            html.contains("class=\"badge-unsteady\""),
            "no badge in the page"
        );
        assert!(html.contains("id=\"not-steady\""), "no warning section");
    }

    fn job_cell(complete: bool) -> Cell {
        let mut c = cell(false);
        if let Some(r) = c.run.as_mut() {
            r.steady_reason = Some(if complete {
                "job: ran to completion in 12 s".into()
            } else {
                "job: incomplete: 40% done".into()
            });
            r.metrics.job = Some(storlab_core::result::JobOutcome {
                complete,
                ..Default::default()
            });
        }
        c
    }

    #[test]
    fn a_finished_job_is_not_unsteady_and_an_unfinished_one_is_incomplete() {
        let mut study = crate::synthetic::demo_study();
        study.cells = vec![cell(true), job_cell(true)];
        assert_eq!(badge(&study.cells[1]), "");
        assert_eq!(warning(&study), None);
        study.cells = vec![cell(true), job_cell(false)];
        assert!(badge(&study.cells[1]).contains("INCOMPLETE"));
        let w = warning(&study).expect("a warning");
        assert!(w.contains("did not run to completion"), "{w}");
        assert!(!w.contains("outside steady state"), "{w}");
    }
}
