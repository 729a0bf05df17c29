//! Capacity and cost per configuration, the RAID 10 / RAID 5 disk-count factor for equal
//! capacity, and simulated against real results of the same workload where the plan pairs
//! them on purpose.

use storlab_core::result::TargetKind;

use crate::model::{Spread, Study};
use crate::svg::{esc, fmt_num};
use crate::sweep::summary_runs;
use crate::tables::{config_cell, kind_name, table};
use crate::workload::{headline, human_name, Metric};

fn mean(study: &Study, cfg: &str, wl: &str, m: Metric) -> Option<f64> {
    let runs = summary_runs(study, cfg, wl);
    Spread::of(runs.iter().filter_map(|r| m.of(r))).map(|s| s.mean)
}

/// What "cost per unit of performance" divides by: the workload whose headline metric
/// differs most (as a ratio) between the priced configurations, so the cost follows the
/// figure the configurations are chosen on, not one where they are equal. Database workloads
/// divide by transactions per second when the runs carry them, else rows/s.
fn cost_basis(study: &Study) -> Option<(String, Metric)> {
    let priced: Vec<&str> = study
        .configurations
        .iter()
        .filter(|c| total_cost(c).is_some())
        .map(|c| c.name.as_str())
        .collect();
    let mut best: Option<(f64, String, Metric)> = None;
    for wl in study.workload_names() {
        let runs: Vec<_> = priced
            .iter()
            .flat_map(|c| summary_runs(study, c, &wl))
            .collect();
        if runs.is_empty() {
            continue;
        }
        let m = headline(&wl, &runs);
        let values: Vec<f64> = priced
            .iter()
            .filter_map(|c| mean(study, c, &wl, m))
            .filter(|v| *v > 0.0)
            .collect();
        if values.len() < 2 {
            continue;
        }
        let hi = values.iter().copied().fold(0.0, f64::max);
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let spread = hi / lo;
        if best.as_ref().is_none_or(|b| spread > b.0 * (1.0 + 1e-9)) {
            let tx = m == Metric::RowsPerS && runs.iter().all(|r| r.metrics.tx_per_min.is_some());
            best = Some((spread, wl, if tx { Metric::TxPerMin } else { m }));
        }
    }
    best.map(|(_, wl, m)| (wl, m))
}

/// The figure of `m` per second and its unit name (tx/min is divided to tx/s).
fn per_second(v: f64, m: Metric) -> (f64, &'static str) {
    match m {
        Metric::TxPerMin => (v / 60.0, "tx/s"),
        other => (v, other.label()),
    }
}

/// Total price of a configuration: disks x price per disk, else usable GB x price per GB.
pub fn total_cost(c: &crate::model::Configuration) -> Option<f64> {
    match (c.disks, c.price_per_disk, c.usable_gb, c.price_per_gb) {
        (Some(d), Some(p), _, _) => Some(f64::from(d) * p),
        (_, _, Some(gb), Some(p)) => Some(gb * p),
        _ => None,
    }
}

/// Capacity, price, cost per usable GB and per unit of the figure that differs most between
/// the priced configurations ([`cost_basis`]) of each configuration.
pub fn capacity(study: &Study) -> String {
    let basis = cost_basis(study);
    let rows: Vec<Vec<String>> = study
        .configurations
        .iter()
        .map(|c| {
            let total = total_cost(c);
            let per_gb = c
                .price_per_gb
                .or_else(|| Some(total? / c.usable_gb.filter(|g| *g > 0.0)?));
            // Only the priced configurations: the figure is there to divide the price by.
            let perf = basis
                .as_ref()
                .filter(|_| total.is_some())
                .and_then(|(wl, m)| Some(per_second(mean(study, &c.name, wl, *m)?, *m).0));
            let per_unit = total.zip(perf.filter(|i| *i > 0.0)).map(|(t, i)| t / i);
            let f = |v: Option<f64>, d: usize| v.map_or("-".into(), |x| format!("{x:.d$}"));
            vec![
                config_cell(study, &c.name),
                kind_name(c.kind).into(),
                c.disks.map_or("-".into(), |d| d.to_string()),
                f(c.usable_gb, 0),
                f(total, 0),
                f(per_gb, 2),
                perf.map_or("-".into(), fmt_num),
                f(per_unit, 2),
            ]
        })
        .collect();
    let unit = basis.as_ref().map_or("-", |(_, m)| per_second(0.0, *m).1);
    let perf_head = match &basis {
        Some((wl, _)) => format!("{} {unit}", human_name(wl)),
        None => "performance".into(),
    };
    let per_head = format!("cost per {unit}");
    let head = [
        "configuration",
        "kind",
        "disks",
        "usable GB",
        "total cost",
        "cost per GB",
        &perf_head,
        &per_head,
    ];
    let mut s = table(&head, &rows);
    if let Some((wl, _)) = &basis {
        s.push_str(&format!(
            "<p class=\"note\">Cost per {unit}: {} is the workload whose headline figure \
             differs most between the priced configurations.</p>",
            esc(&human_name(wl))
        ));
    }
    if let Some(text) = raid_factor(study) {
        s.push_str(&format!(r#"<p class="note">{}</p>"#, esc(&text)));
    }
    s
}

fn squash(s: &str) -> String {
    s.to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '+')
        .collect()
}

/// RAID level of a configuration: from its arrays' levels, else its name and description.
fn level(study: &Study, cfg: &crate::model::Configuration) -> Option<&'static str> {
    let mut texts: Vec<String> = study
        .workload_names()
        .iter()
        .flat_map(|wl| summary_runs(study, &cfg.name, wl))
        .flat_map(|r| r.arrays.iter().map(|a| squash(&a.level)))
        .collect();
    texts.push(squash(&cfg.name));
    texts.push(squash(cfg.description.as_deref().unwrap_or("")));
    texts.iter().find_map(|t| {
        if t.contains("raid10") || t.contains("raid1+0") {
            Some("raid10")
        } else if t.contains("raid5") {
            Some("raid5")
        } else {
            None
        }
    })
}

/// Data disks per RAID 5 group: from the member devices of a raid5 group, else "6+P" / "4+1"
/// in the description.
fn raid5_data_disks(study: &Study, cfg: &crate::model::Configuration) -> Option<u32> {
    for wl in study.workload_names() {
        for r in summary_runs(study, &cfg.name, &wl) {
            for a in r.arrays.iter().filter(|a| squash(&a.level) == "raid5") {
                let prefix = format!("{}.", a.name);
                let n = r
                    .devices
                    .iter()
                    .filter(|d| d.name.starts_with(&prefix))
                    .count();
                if n > 1 {
                    return Some(n as u32 - 1);
                }
            }
        }
    }
    let d = squash(cfg.description.as_deref().unwrap_or(""));
    let i = d.find("+p").or_else(|| d.find("+1"))?;
    let digits: String = d[..i]
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().ok()
}

/// The one-sentence explanation of the 2N/(N+1) factor, when a RAID 5 and a RAID 10
/// configuration both appear.
pub fn raid_factor(study: &Study) -> Option<String> {
    let r5 = study
        .configurations
        .iter()
        .find(|c| level(study, c) == Some("raid5"))?;
    let r10 = study
        .configurations
        .iter()
        .find(|c| level(study, c) == Some("raid10"))?;
    let why = "RAID 10 keeps two copies of every block, so only half its disks hold data, \
               while an N+1 RAID 5 group gives up only one disk in N+1 to parity";
    Some(match raid5_data_disks(study, r5) {
        Some(n) => format!(
            "For equal usable capacity, {} (RAID 10) needs 2N/(N+1) = {:.2} times the disks of \
             {} (RAID 5, N = {n} data disks per group): {why}.",
            r10.name,
            2.0 * f64::from(n) / (f64::from(n) + 1.0),
            r5.name
        ),
        None => format!(
            "For equal usable capacity, {} (RAID 10) needs 2N/(N+1) times the disks of {} \
             (RAID 5 groups of N+1 disks): {why}.",
            r10.name, r5.name
        ),
    })
}

/// The (simulated, real) pairs a declared question compares on purpose ("does the model
/// of this array match the array?"); derived questions never mix the two.
fn paired(study: &Study) -> Vec<(String, String)> {
    let kind = |n: &str| study.config_index(n).map(|i| study.configurations[i].kind);
    let mut out = Vec::new();
    for q in &study.questions {
        for a in &q.configurations {
            for b in &q.configurations {
                let pair = (a.clone(), b.clone());
                let ok = kind(a) == Some(TargetKind::Sim) && kind(b) == Some(TargetKind::Real);
                if ok && !out.contains(&pair) {
                    out.push(pair);
                }
            }
        }
    }
    out
}

/// Simulated and real results of the same workload side by side, with their ratio, for the
/// pairs the plan's questions compare ([`paired`]).
pub fn sim_vs_real(study: &Study) -> Option<String> {
    let pairs = paired(study);
    let mut rows = Vec::new();
    for wl in study.workload_names() {
        for (s, r) in &pairs {
            {
                let mut runs = summary_runs(study, s, &wl);
                runs.extend(summary_runs(study, r, &wl));
                for m in [headline(&wl, &runs), Metric::LatMeanMs] {
                    let (Some(a), Some(b)) = (mean(study, s, &wl, m), mean(study, r, &wl, m))
                    else {
                        continue;
                    };
                    let ratio = if b > 0.0 {
                        format!("{:.2}", a / b)
                    } else {
                        "-".into()
                    };
                    rows.push(vec![
                        esc(&human_name(&wl)),
                        config_cell(study, s),
                        config_cell(study, r),
                        esc(m.label()),
                        fmt_num(a),
                        fmt_num(b),
                        ratio,
                    ]);
                }
            }
        }
    }
    let head = [
        "workload",
        "simulated",
        "real",
        "metric",
        "simulated value",
        "real value",
        "sim / real",
    ];
    (!rows.is_empty()).then(|| table(&head, &rows))
}
