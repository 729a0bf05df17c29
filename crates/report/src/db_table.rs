//! The findings table of database workloads: for each workload and configuration, the
//! throughput (rows/s, transactions/s) and the transaction figures a DBA judges by
//! (transaction response time p50 and p99, commit p99), simulated and real alike; host I/O
//! latency, which is not what a client waits for, stays in the I/O table. A job (and an
//! analytic query) is judged by its elapsed time: the table then has an `elapsed s` column,
//! and a job is compared with its baseline by elapsed time, not rows/s.

use storlab_core::result::Run;

use crate::findings::is_job;
use crate::html::spread_text;
use crate::model::{Spread, Study};
use crate::svg::esc;
use crate::sweep::summary_runs;
use crate::tables;
use crate::workload::human_name;

/// Transactions per second of a run: its types' rates added up, else its tx/min.
fn tx_per_s(run: &Run) -> Option<f64> {
    let m = &run.metrics;
    if m.transactions.is_empty() {
        m.tx_per_min.map(|t| t / 60.0)
    } else {
        Some(m.transactions.iter().map(|t| t.tx_per_s).sum())
    }
}

/// The figures of a row: (column, figure of a run).
type Column = (&'static str, fn(&Run) -> Option<f64>);

const COLUMNS: [Column; 5] = [
    ("rows/s", |r| r.metrics.rows_per_s),
    ("tx/s", tx_per_s),
    ("tx p50 ms", |r| r.metrics.tx_latency_ms.map(|l| l.p50)),
    ("tx p99 ms", |r| r.metrics.tx_latency_ms.map(|l| l.p99)),
    ("commit p99 ms", |r| r.metrics.commit_ms.map(|l| l.p99)),
];

/// The `elapsed s` column, shown when some run has an elapsed time (a job's).
const ELAPSED: Column = ("elapsed s", |r| r.metrics.elapsed_s);

/// One row per database workload and configuration of `configs` (in order; the first to
/// run a workload is its baseline), with rows/s against the baseline's when there are
/// several. None without database workloads.
pub fn table(study: &Study, configs: &[&str], workloads: &[String]) -> Option<String> {
    let elapsed = workloads.iter().any(|wl| {
        configs.iter().any(|c| {
            summary_runs(study, c, wl)
                .iter()
                .any(|r| r.metrics.elapsed_s.is_some())
        })
    });
    let mut columns = COLUMNS.to_vec();
    if elapsed {
        columns.insert(0, ELAPSED);
    }
    let mut rows = Vec::new();
    for wl in workloads {
        let mut base: Option<f64> = None;
        let mut first = true;
        for &c in configs {
            let runs = summary_runs(study, c, wl);
            if runs.is_empty() {
                continue;
            }
            let name = if first {
                format!(
                    "{} <span class=\"raw\">{}</span>",
                    esc(&human_name(wl)),
                    esc(wl)
                )
            } else {
                String::new()
            };
            let mut row = vec![name, tables::config_cell(study, c)];
            let spreads: Vec<Option<Spread>> = columns
                .iter()
                .map(|(_, f)| Spread::of(runs.iter().filter_map(|r| f(r))))
                .collect();
            row.extend(spreads.iter().map(|s| s.map_or("-".into(), spread_text)));
            // A job by its elapsed time (the first column then), else by rows/s.
            let job = elapsed && is_job(&runs);
            let rows_per_s = spreads[usize::from(elapsed && !job)].map(|s| s.mean);
            let compared = configs.len() > 1;
            row.extend(compared.then(|| match (first, base, rows_per_s) {
                (true, ..) => "baseline".into(),
                (false, Some(b), Some(o)) if b > 0.0 => {
                    let pct = format!("{:+.1}%", (o / b - 1.0) * 100.0);
                    if job {
                        format!("{pct} elapsed")
                    } else {
                        pct
                    }
                }
                _ => "-".into(),
            }));
            if first {
                base = rows_per_s;
            }
            first = false;
            rows.push(row);
        }
    }
    if rows.is_empty() {
        return None;
    }
    let mut head = vec!["workload", "configuration"];
    head.extend(columns.iter().map(|(h, _)| *h));
    if configs.len() > 1 {
        head.push(if elapsed {
            "vs baseline (rows/s; jobs: elapsed)"
        } else {
            "rows/s vs baseline"
        });
    }
    Some(tables::table(&head, &rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{cell, db_run};
    use storlab_core::result::{JobOutcome, TargetKind};

    fn job_run(config: &str, elapsed_s: f64) -> Run {
        let mut r = db_run(config, TargetKind::Sim, "job/update-all", 1000.0, 1.0);
        r.metrics.elapsed_s = Some(elapsed_s);
        r.metrics.job = Some(JobOutcome {
            complete: true,
            ..Default::default()
        });
        r
    }

    #[test]
    fn a_job_shows_its_elapsed_time_and_is_compared_by_it() {
        let mut study = crate::synthetic::demo_study();
        study.cells = vec![
            cell("raid5", 0, job_run("raid5", 100.0)),
            cell("raid10", 0, job_run("raid10", 80.0)),
        ];
        let wl = vec!["job/update-all".to_string()];
        let html = table(&study, &["raid5", "raid10"], &wl).expect("a table");
        assert!(html.contains("<th>elapsed s</th>"), "{html}");
        assert!(html.contains(">100<") || html.contains(">100.0<"), "{html}");
        assert!(html.contains("-20.0% elapsed"), "{html}");
        // Loads without an elapsed time keep their columns.
        study.cells = vec![cell(
            "raid5",
            0,
            db_run("raid5", TargetKind::Sim, "dpaws/update-row", 5000.0, 2.0),
        )];
        let wl = vec!["dpaws/update-row".to_string()];
        let html = table(&study, &["raid5"], &wl).expect("a table");
        assert!(!html.contains("elapsed"), "{html}");
    }
}
