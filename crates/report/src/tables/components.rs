//! The components inside simulated arrays with a capacity of their own (back-end loops,
//! controller processors, internal links): each run's, busiest first, so the bottleneck
//! reads at the top ("back-end loop0: 97% busy").

use super::{config_cell, each_run, table};
use crate::model::Study;
use crate::svg::{esc, fmt_num};

/// One row per component of every simulated run that reports any; None when none does.
pub fn components(study: &Study) -> Option<String> {
    let mut rows = Vec::new();
    for (cfg, wl, run) in each_run(study) {
        let mut parts: Vec<_> = run.components.iter().collect();
        parts.sort_by(|a, b| b.util_pct.total_cmp(&a.util_pct));
        for (i, c) in parts.into_iter().enumerate() {
            let name = if i == 0 {
                format!("<b>{}</b> (busiest)", esc(&c.name))
            } else {
                esc(&c.name)
            };
            rows.push(vec![
                config_cell(study, cfg),
                esc(&wl),
                name,
                format!("{:.1}", c.util_pct),
                fmt_num(c.ops_per_s),
                format!("{:.1}", c.mbps),
                format!("{:.3}", c.wait_ms),
                format!("{:.3}", c.service_ms),
            ]);
        }
    }
    let head = [
        "configuration",
        "workload",
        "component",
        "busy %",
        "ops/s",
        "MB/s",
        "mean wait ms",
        "mean service ms",
    ];
    (!rows.is_empty()).then(|| table(&head, &rows))
}
