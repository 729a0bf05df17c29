//! The findings table of database workloads: for each workload and configuration, the
//! throughput (rows/s, transactions/s) and the transaction figures a DBA judges by
//! (transaction response time p50 and p99, commit p99), simulated and real alike; host I/O
//! latency, which is not what a client waits for, stays in the I/O table.

use storlab_core::result::Run;

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

/// One row per database workload and configuration of `configs` (in order; the first to
/// run a workload is its baseline), with rows/s against the baseline's when there are
/// several. None without database workloads.
pub fn table(study: &Study, configs: &[&str], workloads: &[String]) -> Option<String> {
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
            let spreads: Vec<Option<Spread>> = COLUMNS
                .iter()
                .map(|(_, f)| Spread::of(runs.iter().filter_map(|r| f(r))))
                .collect();
            row.extend(spreads.iter().map(|s| s.map_or("-".into(), spread_text)));
            let rows_per_s = spreads[0].map(|s| s.mean);
            let compared = configs.len() > 1;
            row.extend(compared.then(|| match (first, base, rows_per_s) {
                (true, ..) => "baseline".into(),
                (false, Some(b), Some(o)) if b > 0.0 => format!("{:+.1}%", (o / b - 1.0) * 100.0),
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
    head.extend(COLUMNS.iter().map(|(h, _)| *h));
    if configs.len() > 1 {
        head.push("rows/s vs baseline");
    }
    Some(tables::table(&head, &rows))
}
