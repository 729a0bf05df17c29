//! Cells measured outside steady state: a warning box at the top of the report and a badge
//! beside each such cell, so no figure of a still-settling run passes unnoticed.

use crate::model::{Cell, Study};
use crate::svg::esc;
use crate::tables::{config_cell, table};

/// The badge of a cell whose run was not at steady state (empty otherwise).
pub fn badge(cell: &Cell) -> &'static str {
    if cell.run.as_ref().is_some_and(|r| !r.steady) {
        r#" <span class="badge-unsteady" title="measured outside steady state">NOT STEADY</span>"#
    } else {
        ""
    }
}

/// The warning box listing every cell measured outside steady state, or None when every run
/// was steady.
pub fn warning(study: &Study) -> Option<String> {
    let rows: Vec<Vec<String>> = study
        .cells
        .iter()
        .filter_map(|c| {
            let r = c.run.as_ref().filter(|r| !r.steady)?;
            Some(vec![
                config_cell(study, &c.configuration),
                format!("{}{}", esc(&c.workload), badge(c)),
                format!("{} s", r.workload.warmup_s),
                esc(r.steady_reason.as_deref().unwrap_or("no reason recorded")),
            ])
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    Some(format!(
        "<div class=\"warn\"><p><strong>{} of {} cells were measured outside steady state</strong>: \
         their throughput or latency was still moving, so their figures may not hold in a \
         longer run. Run them with <code>warmup = \"auto\"</code> or a longer warm-up.</p>{}</div>",
        rows.len(),
        study.cells.len(),
        table(&["configuration", "workload", "warm-up", "why not steady"], &rows)
    ))
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
}
