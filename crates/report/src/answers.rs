//! The answer to each question of the study, in one or two sentences a reader can act on,
//! computed from the same comparisons as the findings ([`crate::findings`]).
//!
//! Rules, for a question comparing configurations (each later one against the baseline):
//! - First sentence: the I/O workload where the configuration gains most over the baseline
//!   ("raid10 has 2.0x the random-write IOPS of raid5 (1,372 vs 700)"; gains under 1.5x read
//!   "has 7% more ... than"), up to two further gains in brackets, then the database tests:
//!   when every one is within 3%, "changes database throughput by less than N% in every
//!   database test (...)" with N the largest difference rounded down plus one; otherwise each
//!   test outside 3% as "runs update-row 72% faster (3,100 vs 1,800 rows/s, transaction p99
//!   2.1 vs 9.0 ms)": the p99 of the transaction response time when both runs carry it, else
//!   of the commit latency ("commit p99"), else neither. "but" joins a gain to a database
//!   clause that is not a gain, "and" otherwise.
//! - Second sentence: where the baseline is faster ("raid5 is 4% faster at sequential-write
//!   1 MiB (296 vs 284 MB/s)"), then how many other I/O workloads are within 3%.
//! - Nothing outside 3% anywhere: "X and Y are within N% of each other in every workload".
//! - Then one sentence per job (or analytic query), compared by elapsed time
//!   ([`crate::findings`]): "Job create-tablespace: raid5 takes 1.31x the elapsed time of
//!   raid10 (13.1 vs 10.0 s).", or which of the two did not run to completion.
//!
//! For a question about one configuration (this machine's disk): what it measured, one
//! workload of each kind (random 8 KiB, else the best block size; sequential, the best block
//! size; read and write) with its p99 latency, then
//! the database tests with their rows/s and transaction p99 (else commit p99), then how many
//! cells failed.

use serde::{Deserialize, Serialize};

use crate::anchor;
use crate::findings::{comparisons, elapsed_comparisons, groups, Comparison, WITHIN_PCT};
use crate::model::{Spread, Study};
use crate::sweep::summary_runs;
use crate::workload::{headline, human_name, is_db_workload, Metric};

/// The answer to one question of the study.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The question ("RAID 5 or RAID 10 on the mid-range array?").
    pub question: String,
    /// The configurations it is about; the first is the baseline.
    pub configurations: Vec<String>,
    /// One or two sentences per compared configuration (or describing the only one).
    pub sentences: Vec<String>,
    /// Id of the answer's block in the report.
    pub anchor: String,
}

/// The answer to every question of the study, in question order.
pub fn answers(study: &Study) -> Vec<Answer> {
    groups(study)
        .into_iter()
        .enumerate()
        .map(|(q, (question, group))| {
            let sentences = match group.as_slice() {
                [] => Vec::new(),
                [one] => describe(study, *one),
                [_, rest @ ..] => rest
                    .iter()
                    .flat_map(|&idx| compare(study, &group, idx))
                    .collect(),
            };
            Answer {
                question: question.title,
                configurations: question.configurations,
                sentences,
                anchor: anchor::question(q),
            }
        })
        .collect()
}

/// A number as a sentence says it: 1,372; 96.5; 2.14; 0.041.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        return "-".into();
    }
    if a >= 100.0 {
        let digits = format!("{:.0}", a);
        let mut out = String::new();
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(ch);
        }
        return if v < 0.0 { format!("-{out}") } else { out };
    }
    let s = if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.1 || a == 0.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// "less than N%": the largest difference rounded down, plus one.
fn less_than(worst_pct: f64) -> String {
    format!("{:.0}%", (worst_pct.abs() + 1e-9).floor() + 1.0)
}

fn mean(
    study: &Study,
    cfg: &str,
    wl: &str,
    f: impl Fn(&storlab_core::result::Run) -> Option<f64>,
) -> Option<f64> {
    Spread::of(summary_runs(study, cfg, wl).iter().filter_map(|r| f(r))).map(|s| s.mean)
}

/// The p99 a database answer quotes for `cfg` on `wl`: of the transaction response time
/// ("transaction p99"), else of the commit latency ("commit p99"); averaged over repeats.
fn db_p99(study: &Study, cfg: &str, wl: &str) -> Option<(&'static str, f64)> {
    let positive = |v: Option<f64>| v.filter(|v| *v > 0.0);
    let tx = mean(study, cfg, wl, |r| r.metrics.tx_latency_ms.map(|t| t.p99));
    let commit = || mean(study, cfg, wl, |r| r.metrics.commit_ms.map(|c| c.p99));
    positive(tx)
        .map(|v| ("transaction p99", v))
        .or_else(|| positive(commit()).map(|v| ("commit p99", v)))
}

/// ", transaction p99 2.1 vs 9.0 ms": the same kind of p99 for both configurations, or
/// nothing.
fn db_p99_pair(study: &Study, other: &str, base: &str, wl: &str) -> String {
    match (db_p99(study, other, wl), db_p99(study, base, wl)) {
        (Some((what, o)), Some((same, b))) if what == same => {
            format!(", {what} {} vs {} ms", num(o), num(b))
        }
        _ => String::new(),
    }
}

fn label(c: &Comparison) -> String {
    format!("{} {}", human_name(&c.workload), c.metric.label())
}

/// "has 2.0x the random-write IOPS of raid5 (1,372 vs 700; NOTES)".
fn gain_clause(c: &Comparison, notes: &[String]) -> String {
    let ratio = c.other / c.base;
    let figures = std::iter::once(format!("{} vs {}", num(c.other), num(c.base)))
        .chain(notes.iter().cloned())
        .collect::<Vec<_>>()
        .join("; ");
    if ratio >= 1.5 {
        format!(
            "has {ratio:.1}x the {} of {} ({figures})",
            label(c),
            c.base_name
        )
    } else {
        format!(
            "has {:.0}% more {} than {} ({figures})",
            c.delta_pct,
            label(c),
            c.base_name
        )
    }
}

/// "72% faster", "12% slower", "3.5x slower".
fn faster_slower(c: &Comparison) -> String {
    let ratio = c.other / c.base;
    if ratio >= 3.0 {
        format!("{ratio:.1}x faster")
    } else if ratio >= 1.0 {
        format!("{:.0}% faster", c.delta_pct)
    } else if ratio > 1.0 / 3.0 {
        format!("{:.0}% slower", (1.0 - ratio) * 100.0)
    } else if ratio > 0.0 {
        format!("{:.1}x slower", 1.0 / ratio)
    } else {
        "no rows at all".into()
    }
}

fn db_clause(study: &Study, cfg: &str, dbs: &[&Comparison]) -> String {
    let worst = dbs.iter().map(|c| c.delta_pct.abs()).fold(0.0, f64::max);
    if worst <= WITHIN_PCT {
        let names: Vec<String> = dbs.iter().map(|c| human_name(&c.workload)).collect();
        return match names.as_slice() {
            [one] => format!("changes {one} throughput by less than {}", less_than(worst)),
            _ => format!(
                "changes database throughput by less than {} in every database test ({})",
                less_than(worst),
                names.join(", ")
            ),
        };
    }
    let mut parts: Vec<String> = Vec::new();
    for c in dbs.iter().filter(|c| c.delta_pct.abs() > WITHIN_PCT) {
        let p99 = db_p99_pair(study, cfg, &c.base_name, &c.workload);
        parts.push(format!(
            "runs {} {} ({} vs {} rows/s{p99})",
            human_name(&c.workload),
            faster_slower(c),
            num(c.other),
            num(c.base)
        ));
    }
    let within: Vec<&&Comparison> = dbs
        .iter()
        .filter(|c| c.delta_pct.abs() <= WITHIN_PCT)
        .collect();
    if !within.is_empty() {
        let worst = within.iter().map(|c| c.delta_pct.abs()).fold(0.0, f64::max);
        parts.push(format!(
            "changes {} by less than {}",
            within
                .iter()
                .map(|c| human_name(&c.workload))
                .collect::<Vec<_>>()
                .join(", "),
            less_than(worst)
        ));
    }
    join_and(&parts)
}

/// "a", "a and b", "a, b and c".
fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The sentences comparing configuration `idx` with the baseline of its question.
fn compare(study: &Study, group: &[usize], idx: usize) -> Vec<String> {
    let name = &study.configurations[idx].name;
    let comps = comparisons(study, group, idx, None);
    let jobs: Vec<String> = elapsed_comparisons(study, group, idx)
        .iter()
        .map(|j| capitalise(&j.sentence()))
        .collect();
    if comps.is_empty() {
        if jobs.is_empty() {
            return vec![format!(
                "{name} ran no workload in common with {}.",
                study.configurations[group[0]].name
            )];
        }
        return jobs;
    }
    let (dbs, io): (Vec<&Comparison>, Vec<&Comparison>) = comps.iter().partition(|c| c.db);
    let mut gains: Vec<&Comparison> = io
        .iter()
        .copied()
        .filter(|c| c.delta_pct > WITHIN_PCT)
        .collect();
    gains.sort_by(|a, b| b.delta_pct.total_cmp(&a.delta_pct));
    let mut losses: Vec<&Comparison> = io
        .iter()
        .copied()
        .filter(|c| c.delta_pct < -WITHIN_PCT)
        .collect();
    losses.sort_by(|a, b| a.delta_pct.total_cmp(&b.delta_pct));
    let mut out = Vec::new();
    let mut first = String::new();
    let gain_kinds = by_kind(&gains);
    if let Some((g, same)) = gain_kinds.first() {
        let mut notes = other_sizes(same, false);
        let more: Vec<String> = gain_kinds
            .iter()
            .skip(1)
            .take(2)
            .map(|(c, _)| format!("+{:.0}% {}", c.delta_pct, label(c)))
            .collect();
        if !more.is_empty() {
            notes.push(format!("also {}", more.join(", ")));
        }
        first = gain_clause(g, &notes);
    }
    if !dbs.is_empty() {
        let db = db_clause(study, name, &dbs);
        let db_gain = dbs.iter().all(|c| c.delta_pct > WITHIN_PCT);
        first = match (first.is_empty(), db_gain) {
            (true, _) => db,
            (false, true) => format!("{first} and {db}"),
            (false, false) => format!("{first} but {db}"),
        };
    }
    if !first.is_empty() {
        out.push(format!("{name} {first}."));
    }
    let io_within: Vec<&Comparison> = io
        .iter()
        .copied()
        .filter(|c| c.delta_pct.abs() <= WITHIN_PCT)
        .collect();
    let loss_kinds = by_kind(&losses);
    let mut second: Vec<String> = loss_kinds
        .iter()
        .take(3)
        .map(|(c, same)| {
            let figures = std::iter::once(format!(
                "{} vs {} {}",
                num(c.base),
                num(c.other),
                c.metric.label()
            ))
            .chain(other_sizes(same, true))
            .collect::<Vec<_>>()
            .join("; ");
            format!(
                "{} is {} faster at {} ({figures})",
                c.base_name,
                advantage(c),
                human_name(&c.workload)
            )
        })
        .collect();
    if loss_kinds.len() > 3 {
        second.push(format!("{} more kinds of I/O", loss_kinds.len() - 3));
    }
    if !io_within.is_empty() && (!gains.is_empty() || !losses.is_empty()) {
        let worst = io_within
            .iter()
            .map(|c| c.delta_pct.abs())
            .fold(0.0, f64::max);
        let n = io_within.len();
        second.push(format!(
            "the other {n} I/O workload{} {} within {}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" },
            less_than(worst)
        ));
    }
    if !second.is_empty() {
        // A sentence that starts with a configuration's name keeps its spelling.
        let text = format!("{}.", second.join("; "));
        out.push(if loss_kinds.is_empty() {
            capitalise(&text)
        } else {
            text
        });
    }
    if out.is_empty() {
        let worst = comps.iter().map(|c| c.delta_pct.abs()).fold(0.0, f64::max);
        out.push(format!(
            "{name} and {} are within {} of each other in every workload ({}).",
            comps[0].base_name,
            less_than(worst),
            comps.len()
        ));
    }
    out.extend(jobs);
    out
}

/// The baseline's advantage as said: "73%", or "3.5x" from three-fold.
fn advantage(c: &Comparison) -> String {
    crate::findings::pct((c.base / c.other - 1.0) * 100.0)
}

/// The kind of an I/O workload: its human name without the block size ("random-write").
fn kind_of(workload: &str) -> String {
    let h = human_name(workload);
    h.split(' ').next().unwrap_or(&h).to_string()
}

/// The block size a workload's human name gives ("1 KiB"; 8 KiB is left unsaid there).
fn size_of(workload: &str) -> String {
    let h = human_name(workload);
    match h.split_once(' ') {
        Some((_, size)) if size.ends_with("iB") || size.ends_with(" B") => size.to_string(),
        Some(_) => String::new(),
        None if workload.ends_with("-8k") => "8 KiB".into(),
        None => String::new(),
    }
}

/// `comps` (largest first) grouped by kind: the largest of each kind, and the others of the
/// same kind (other block sizes).
fn by_kind<'a>(comps: &[&'a Comparison]) -> Vec<(&'a Comparison, Vec<&'a Comparison>)> {
    let mut out: Vec<(&Comparison, Vec<&Comparison>)> = Vec::new();
    for &c in comps {
        match out
            .iter_mut()
            .find(|(first, _)| kind_of(&first.workload) == kind_of(&c.workload))
        {
            Some((_, same)) => same.push(c),
            None => out.push((c, Vec::new())),
        }
    }
    out
}

/// The other block sizes of a kind: "1.9x at 8 KiB" for gains, "73% at 8 KiB" for the
/// baseline's advantages (`loss`).
fn other_sizes(same: &[&Comparison], loss: bool) -> Vec<String> {
    same.iter()
        .filter(|c| !size_of(&c.workload).is_empty())
        .map(|c| {
            let r = c.other / c.base;
            let said = if loss {
                advantage(c)
            } else if r >= 1.5 {
                format!("{r:.1}x")
            } else {
                format!("+{:.0}%", c.delta_pct)
            };
            format!("{said} at {}", size_of(&c.workload))
        })
        .collect()
}

/// The kinds of I/O workload a description picks the best of.
const KINDS: [&str; 4] = [
    "random-read",
    "random-write",
    "sequential-read",
    "sequential-write",
];

/// What configuration `idx` measured on its own.
fn describe(study: &Study, idx: usize) -> Vec<String> {
    let cfg = &study.configurations[idx];
    let mut best: Vec<Option<(String, Metric, f64)>> = vec![None; KINDS.len()];
    let mut others: Vec<(String, Metric, f64)> = Vec::new();
    let mut dbs: Vec<String> = Vec::new();
    for wl in study.workload_names() {
        let runs = summary_runs(study, &cfg.name, &wl);
        if runs.is_empty() {
            continue;
        }
        let m = headline(&wl, &runs);
        let Some(v) = mean(study, &cfg.name, &wl, |r| m.of(r)) else {
            continue;
        };
        if is_db_workload(&wl, &runs) {
            let p99 = db_p99(study, &cfg.name, &wl).map_or(String::new(), |(what, p)| {
                format!(" ({what} {} ms)", num(p))
            });
            dbs.push(format!("{} at {} rows/s{p99}", human_name(&wl), num(v)));
            continue;
        }
        let human = human_name(&wl);
        match KINDS.iter().position(|k| human.starts_with(k)) {
            Some(k) => {
                // Random I/O at 8 KiB (the database block, left unsaid in the name) first,
                // else the block size with the highest figure.
                let exact = human == KINDS[k] && k < 2;
                let better = best[k].as_ref().is_none_or(|(bw, bm, bv)| {
                    let b_exact = human_name(bw) == KINDS[k] && k < 2;
                    (exact && !b_exact) || (exact == b_exact && *bm == m && v > *bv)
                });
                if better {
                    best[k] = Some((wl.clone(), m, v));
                }
            }
            None => others.push((wl.clone(), m, v)),
        }
    }
    let said = |(wl, m, v): &(String, Metric, f64)| {
        let p99 = mean(study, &cfg.name, wl, |r| Some(r.metrics.latency_ms.p99))
            .filter(|p| *p > 0.0)
            .map_or(String::new(), |p| format!(" (p99 {} ms)", num(p)));
        format!("{} {} {}{p99}", human_name(wl), num(*v), m.label())
    };
    let io: Vec<String> = best
        .iter()
        .flatten()
        .chain(others.iter().take(3))
        .map(said)
        .collect();
    let kind = crate::tables::kind_name(cfg.kind);
    let mut out = Vec::new();
    if !io.is_empty() {
        out.push(format!("{} ({kind}) measured {}.", cfg.name, join_and(&io)));
    }
    if !dbs.is_empty() {
        let who = if io.is_empty() {
            format!("{} ({kind})", cfg.name)
        } else {
            "It".into()
        };
        out.push(format!("{who} ran {}.", join_and(&dbs)));
    }
    let failed = study
        .failed_cells()
        .iter()
        .filter(|c| c.configuration == cfg.name)
        .count();
    if failed > 0 {
        out.push(format!(
            "{failed} of its cells failed (reasons under Failed cells)."
        ));
    }
    if out.is_empty() {
        out.push(format!("{} has no results.", cfg.name));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_in_a_sentence() {
        assert_eq!(num(1372.4), "1,372");
        assert_eq!(num(1_234_567.0), "1,234,567");
        assert_eq!(num(700.0), "700");
        assert_eq!(num(96.54), "96.5");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(0.041), "0.041");
        assert_eq!(less_than(1.3), "2%");
        assert_eq!(less_than(2.0), "3%");
        assert_eq!(
            join_and(&["a".into(), "b".into(), "c".into()]),
            "a, b and c"
        );
    }
}
