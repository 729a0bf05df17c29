//! Findings in plain words, computed from the numbers only.
//!
//! Rules:
//! - Findings are grouped by the study's questions ([`Study::questions`]): the plan's
//!   `[[questions]]`, else one question over the simulated configurations and one over the
//!   real ones. Within a question, the baseline of a workload is its first configuration (in
//!   the question's order) with results for it. Every later configuration of the question is
//!   compared with it, workload by workload, on the workload's headline metric
//!   ([`crate::workload::headline`]): rows/s for database workloads, MB/s for sequential or
//!   large-block I/O, IOPS otherwise. Repeats are averaged; a sweep contributes its knee
//!   ([`crate::sweep`]). A sentence names its baseline when that is not the question's first
//!   configuration ("asm-noprfg (against asm-prfg): ..."). Configurations of different
//!   questions are never compared.
//! - `delta_pct` is `(other / baseline - 1) x 100`. Differences within +-3% are grouped by
//!   kind ("reads within 2%", N = the largest such difference rounded up, at least 1).
//!   Gains read "+96% random-write IOPS"; losses read "sequential-write 1 MiB MB/s 4% better
//!   on raid5" (the baseline's advantage, `baseline / other - 1`), so swapping the two
//!   configurations gives the same magnitude with the roles reversed. Three-fold and larger
//!   differences are said as ratios ("15.5x the random-read IOPS", "15.5x better on raid5").
//! - One sentence per non-baseline configuration of a question: gains, then the "within"
//!   groups, then losses. The answer sentences that come first in the report are built from
//!   the same comparisons ([`crate::answers`]).
//! - Jobs (and analytic queries) have no rows/s: they are compared by elapsed time, after
//!   the other clauses ([`elapsed`]: "job create-tablespace takes 1.31x the elapsed time of
//!   raid10 (13.1 vs 10.0 s)"), and a job that did not run to completion is said as such.
//! - One latency finding per configuration listing the workloads whose p99 latency differs
//!   from the baseline's by more than 20%, lower first, then higher.
//! - A finding for each configuration x workload with failed cells, naming the first reason.

mod elapsed;

use serde::{Deserialize, Serialize};

pub(crate) use elapsed::{elapsed_comparisons, is_job};

use crate::anchor;
use crate::model::{Spread, Study};
use crate::sweep::summary_runs;
use crate::workload::is_db_workload;
use crate::workload::{category, headline, human_name, Metric};

/// Differences up to this share (percent) count as equal.
pub const WITHIN_PCT: f64 = 3.0;
/// p99 latency differences above this share (percent) get their own finding.
pub const LATENCY_PCT: f64 = 20.0;

/// One finding: a sentence and the chart that shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The sentence.
    pub text: String,
    /// Id of the chart or table it refers to (without '#').
    pub anchor: String,
    /// The workload it is about (the largest difference, for a configuration's sentence).
    pub workload: String,
    /// Metric key (`iops`, `mbps`, `rows_per_s`, `lat_p99_ms`; empty for failures).
    pub metric: String,
    /// Signed difference from the baseline, percent (0 for failures).
    pub delta_pct: f64,
}

/// One workload of one configuration against the baseline.
#[derive(Clone, Debug)]
pub(crate) struct Comparison {
    pub workload: String,
    /// The baseline configuration of this workload.
    pub base_name: String,
    pub metric: Metric,
    pub base: f64,
    pub other: f64,
    pub delta_pct: f64,
    /// A database workload (its metric is rows/s).
    pub db: bool,
}

/// A clause of a configuration's sentence and the chart it links to.
#[derive(Clone, Debug)]
pub(crate) struct Clause {
    pub text: String,
    pub anchor: String,
    /// A gain over the baseline (gains are joined with ", ", the rest with "; ").
    pub gain: bool,
}

/// The configurations of a question, as indices into the study's configurations.
pub(crate) type Group = Vec<usize>;

/// Each question of the study with its configurations' indices.
pub(crate) fn groups(study: &Study) -> Vec<(crate::model::Question, Group)> {
    study
        .questions()
        .into_iter()
        .map(|q| {
            let g = q
                .configurations
                .iter()
                .filter_map(|c| study.config_index(c))
                .collect();
            (q, g)
        })
        .collect()
}

/// Every finding of the study, in order: per question, one sentence per non-baseline
/// configuration; then latency findings, then failures.
pub fn findings(study: &Study) -> Vec<Finding> {
    let mut out = Vec::new();
    for (q, (_, group)) in groups(study).iter().enumerate() {
        for &idx in group.iter().skip(1) {
            out.extend(config_finding(study, q, group, idx));
        }
    }
    out.extend(other_findings(study));
    out
}

/// The findings after the configuration sentences: latency, then failures.
pub(crate) fn other_findings(study: &Study) -> Vec<Finding> {
    let mut out = Vec::new();
    for (q, (_, group)) in groups(study).iter().enumerate() {
        out.extend(latency_findings_of(study, q, group));
    }
    out.extend(failure_findings(study));
    out
}

/// The latency findings of one question.
pub(crate) fn latency_findings_of(study: &Study, q: usize, group: &[usize]) -> Vec<Finding> {
    group
        .iter()
        .skip(1)
        .flat_map(|&idx| latency_findings(study, q, group, idx))
        .collect()
}

fn mean_of(study: &Study, cfg: &str, wl: &str, metric: Metric) -> Option<f64> {
    let runs = summary_runs(study, cfg, wl);
    Spread::of(runs.iter().filter_map(|r| metric.of(r))).map(|s| s.mean)
}

/// The first configuration of `group` with results for `wl`, and its place in the group.
fn baseline_of(study: &Study, group: &[usize], wl: &str) -> Option<(usize, usize)> {
    group.iter().enumerate().find_map(|(pos, &i)| {
        let name = &study.configurations.get(i)?.name;
        (!summary_runs(study, name, wl).is_empty()).then_some((pos, i))
    })
}

/// The headline comparisons of configuration `idx` (a member of `group`) with each
/// workload's baseline in the group, in workload order.
pub(crate) fn comparisons(
    study: &Study,
    group: &[usize],
    idx: usize,
    metric: Option<Metric>,
) -> Vec<Comparison> {
    let cfg = &study.configurations[idx].name;
    let Some(me) = group.iter().position(|&i| i == idx) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for wl in study.workload_names() {
        let Some((_, b_idx)) = baseline_of(study, group, &wl).filter(|&(pos, _)| pos < me) else {
            continue;
        };
        let base = &study.configurations[b_idx].name;
        let mut runs = summary_runs(study, base, &wl);
        runs.extend(summary_runs(study, cfg, &wl));
        // Jobs' headline is their elapsed time ([`elapsed_comparisons`]).
        if metric.is_none() && is_job(&runs) {
            continue;
        }
        let metric = metric.unwrap_or_else(|| headline(&wl, &runs));
        let (Some(b), Some(o)) = (
            mean_of(study, base, &wl, metric),
            mean_of(study, cfg, &wl, metric),
        ) else {
            continue;
        };
        if b > 0.0 {
            out.push(Comparison {
                delta_pct: (o / b - 1.0) * 100.0,
                db: is_db_workload(&wl, &runs),
                base_name: base.clone(),
                workload: wl,
                metric,
                base: b,
                other: o,
            });
        }
    }
    out
}

/// How a sentence about configuration `idx` starts: its name, and its baselines when they
/// are not the first configuration.
fn subject(study: &Study, group: &[usize], idx: usize, comps: &[Comparison]) -> String {
    let first = group
        .first()
        .map_or("", |&i| study.configurations[i].name.as_str());
    let mut bases: Vec<&str> = Vec::new();
    for c in comps {
        if !bases.contains(&c.base_name.as_str()) {
            bases.push(&c.base_name);
        }
    }
    let name = &study.configurations[idx].name;
    if bases.iter().all(|b| *b == first) {
        name.clone()
    } else {
        format!("{name} (against {})", bases.join(", "))
    }
}

/// A difference in percent as said: "96%", or "15.5x" once it is three-fold or more.
pub(crate) fn pct(pct: f64) -> String {
    let ratio = 1.0 + pct.abs() / 100.0;
    if !pct.is_finite() {
        "infinitely".into()
    } else if ratio >= 3.0 {
        format!("{ratio:.1}x")
    } else {
        format!("{:.0}%", pct.abs())
    }
}

/// The clauses of configuration `idx`'s sentence: gains, "within" groups, losses.
pub(crate) fn clauses(study: &Study, q: usize, group: &[usize], idx: usize) -> Vec<Clause> {
    let comps = comparisons(study, group, idx, None);
    let bars = |wl: &str| format!("{}{}", anchor::bars(study, wl), anchor::suffix(q));
    let mut out = Vec::new();
    for c in comps.iter().filter(|c| c.delta_pct > WITHIN_PCT) {
        out.push(Clause {
            text: match pct(c.delta_pct) {
                p if p.ends_with('%') => {
                    format!("+{p} {} {}", human_name(&c.workload), c.metric.label())
                }
                p => format!("{p} the {} {}", human_name(&c.workload), c.metric.label()),
            },
            anchor: bars(&c.workload),
            gain: true,
        });
    }
    let mut groups: Vec<(String, f64, String)> = Vec::new();
    for c in comps.iter().filter(|c| c.delta_pct.abs() <= WITHIN_PCT) {
        let cat = category(&c.workload);
        match groups.iter_mut().find(|g| g.0 == cat) {
            Some(g) => g.1 = g.1.max(c.delta_pct.abs()),
            None => groups.push((cat, c.delta_pct.abs(), bars(&c.workload))),
        }
    }
    for (cat, worst, anchor) in groups {
        // rounded first so that 3030 vs 3000 reads "within 1%", not 2% (1.0000000000000009)
        let n = ((worst * 1e6).round() / 1e6).ceil().max(1.0);
        out.push(Clause {
            text: format!("{cat} within {n:.0}%"),
            anchor,
            gain: false,
        });
    }
    for c in comps.iter().filter(|c| c.delta_pct < -WITHIN_PCT) {
        let advantage = (c.base / c.other - 1.0) * 100.0;
        out.push(Clause {
            text: format!(
                "{} {} {} better on {}",
                human_name(&c.workload),
                c.metric.label(),
                pct(advantage),
                c.base_name
            ),
            anchor: bars(&c.workload),
            gain: false,
        });
    }
    for c in elapsed_comparisons(study, group, idx) {
        out.push(Clause {
            text: c.clause(),
            anchor: anchor::question(q),
            gain: false,
        });
    }
    out
}

/// Joins clauses (each rendered by `show`) the way the sentence reads: gains with ", ",
/// the rest with "; ".
pub(crate) fn join_clauses(clauses: &[Clause], show: impl Fn(&Clause) -> String) -> String {
    let mut s = String::new();
    for (i, c) in clauses.iter().enumerate() {
        if i > 0 {
            let both_gains = c.gain && clauses[i - 1].gain;
            s.push_str(if both_gains { ", " } else { "; " });
        }
        s.push_str(&show(c));
    }
    s
}

fn config_finding(study: &Study, q: usize, group: &[usize], idx: usize) -> Option<Finding> {
    let comps = comparisons(study, group, idx, None);
    let jobs = elapsed_comparisons(study, group, idx);
    // The largest difference: of the headline metrics, else of the jobs' elapsed times.
    let (workload, metric, delta_pct) = match comps
        .iter()
        .max_by(|a, b| a.delta_pct.abs().total_cmp(&b.delta_pct.abs()))
    {
        Some(c) => (c.workload.clone(), c.metric.key(), c.delta_pct),
        None => {
            let j = jobs
                .iter()
                .max_by(|a, b| a.delta_pct().abs().total_cmp(&b.delta_pct().abs()))?;
            (j.workload.clone(), "elapsed_s", j.delta_pct())
        }
    };
    // The jobs' clauses name their baselines.
    let text = format!(
        "{}: {}",
        subject(study, group, idx, &comps),
        join_clauses(&clauses(study, q, group, idx), |c| c.text.clone())
    );
    Some(Finding {
        text,
        anchor: anchor::question_chart(q),
        workload,
        metric: metric.into(),
        delta_pct,
    })
}

fn latency_findings(study: &Study, q: usize, group: &[usize], idx: usize) -> Vec<Finding> {
    let comps: Vec<Comparison> = comparisons(study, group, idx, Some(Metric::LatP99Ms))
        .into_iter()
        .filter(|c| c.delta_pct.abs() > LATENCY_PCT && c.other > 0.0)
        .collect();
    let Some(biggest) = comps
        .iter()
        .max_by(|a, b| a.delta_pct.abs().total_cmp(&b.delta_pct.abs()))
    else {
        return Vec::new();
    };
    let said = |c: &Comparison| {
        let share = if c.other < c.base {
            (1.0 - c.other / c.base) * 100.0
        } else {
            (c.other / c.base - 1.0) * 100.0
        };
        format!(
            "{} ({}, {:.2} vs {:.2} ms)",
            human_name(&c.workload),
            pct(share),
            c.other,
            c.base
        )
    };
    let lower: Vec<String> = comps
        .iter()
        .filter(|c| c.other < c.base)
        .map(said)
        .collect();
    let higher: Vec<String> = comps
        .iter()
        .filter(|c| c.other >= c.base)
        .map(said)
        .collect();
    let mut parts = Vec::new();
    if !lower.is_empty() {
        parts.push(format!("lower for {}", lower.join(", ")));
    }
    if !higher.is_empty() {
        parts.push(format!("higher for {}", higher.join(", ")));
    }
    vec![Finding {
        text: format!(
            "{}: p99 latency {}",
            subject(study, group, idx, &comps),
            parts.join("; ")
        ),
        anchor: format!(
            "{}{}",
            anchor::percentiles(study, &biggest.workload),
            anchor::suffix(q)
        ),
        workload: biggest.workload.clone(),
        metric: Metric::LatP99Ms.key().into(),
        delta_pct: biggest.delta_pct,
    }]
}

fn failure_findings(study: &Study) -> Vec<Finding> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    let mut out = Vec::new();
    for cell in study.failed_cells() {
        let key = (cell.configuration.as_str(), cell.workload.as_str());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let same = |c: &&crate::model::Cell| {
            c.configuration == cell.configuration && c.workload == cell.workload
        };
        let total = study.cells.iter().filter(same).count();
        let failed = study.failed_cells().into_iter().filter(same).count();
        let reason = cell.error.as_deref().unwrap_or("no result");
        out.push(Finding {
            text: format!(
                "{} failed on {} in {failed} of {total} run(s): {reason}",
                cell.workload, cell.configuration
            ),
            anchor: anchor::FAILED.into(),
            workload: cell.workload.clone(),
            metric: String::new(),
            delta_pct: 0.0,
        });
    }
    out
}
