//! The first part of the report: each question of the study with its answer in one or two
//! sentences ([`crate::answers`]), the chart that shows it, and the evidence folded behind a
//! summary line (every difference as a sentence, the headline figures).

use crate::answers::answers as all_answers;
use crate::findings::{clauses, groups, join_clauses, latency_findings_of, other_findings};
use crate::html::spread_text;
use crate::model::{Spread, Study};
use crate::svg::esc;
use crate::sweep::summary_runs;
use crate::workload::{headline, human_name, is_db_workload};
use crate::{anchor, charts, tables};

/// Every question: title, answer, chart, folded evidence.
pub fn answers(study: &Study) -> String {
    let answers = all_answers(study);
    let mut s = String::new();
    for (q, ((question, group), a)) in groups(study).iter().zip(&answers).enumerate() {
        let sentences: String = a
            .sentences
            .iter()
            .map(|t| format!(r#"<p class="answer">{}</p>"#, esc(t)))
            .collect();
        s.push_str(&format!(
            r#"<div class="question" id="{}"><h3>{}</h3>{sentences}"#,
            esc(&a.anchor),
            esc(&question.title)
        ));
        if group.len() > 1 {
            if let Some(fig) = charts::question_ratios(study, q, group) {
                s.push_str(&fig);
            }
            let list = findings_list(study, q, group);
            let (table, compared) = headline_tables(study, group);
            s.push_str(&format!(
                "<details><summary>Every difference, workload by workload ({compared} \
                 workloads compared)</summary>{list}{table}</details>"
            ));
        } else {
            let (table, measured) = headline_tables(study, group);
            if measured > tables::FOLD_ROWS {
                s.push_str(&format!(
                    "<details><summary>{measured} workloads measured</summary>{table}</details>"
                ));
            } else {
                s.push_str(&table);
            }
        }
        s.push_str("</div>");
    }
    s
}

/// Sentences of question `q`: one per compared configuration, each clause linked to its chart.
fn findings_list(study: &Study, q: usize, group: &[usize]) -> String {
    let mut items = Vec::new();
    if let Some(&base) = group.first() {
        items.push(format!(
            "<li class=\"base\">Baseline: <b>{}</b>; differences within &plusmn;3% count as \
             equal.</li>",
            esc(&study.configurations[base].name)
        ));
    }
    for &idx in group.iter().skip(1) {
        let cl = clauses(study, q, group, idx);
        if cl.is_empty() {
            continue;
        }
        let text = join_clauses(&cl, |c| {
            format!(r##"<a href="#{}">{}</a>"##, esc(&c.anchor), esc(&c.text))
        });
        items.push(format!(
            r##"<li><a href="#{}">{}</a>: {text}</li>"##,
            anchor::question_chart(q),
            tables::config_cell(study, &study.configurations[idx].name)
        ));
    }
    for f in latency_findings_of(study, q, group) {
        items.push(format!(
            r##"<li><a href="#{}">{}</a></li>"##,
            esc(&f.anchor),
            esc(&f.text)
        ));
    }
    format!(r#"<ul class="findings">{}</ul>"#, items.concat())
}

/// The findings that belong to no question's comparison: failed cells.
pub fn other_findings_list(study: &Study) -> String {
    let items: Vec<String> = other_findings(study)
        .into_iter()
        .filter(|f| f.anchor == anchor::FAILED)
        .map(|f| {
            format!(
                r##"<li><a href="#{}">{}</a></li>"##,
                esc(&f.anchor),
                esc(&f.text)
            )
        })
        .collect();
    if items.is_empty() {
        return String::new();
    }
    format!(r#"<ul class="findings">{}</ul>"#, items.concat())
}

/// The findings tables of `group`: the I/O workloads' ([`headline_table`]) and the
/// database workloads' ([`crate::db_table`]), each under a heading when there are both;
/// with the number of workloads they hold.
fn headline_tables(study: &Study, group: &[usize]) -> (String, usize) {
    let configs: Vec<&str> = group
        .iter()
        .map(|&i| study.configurations[i].name.as_str())
        .collect();
    let (db, io): (Vec<String>, Vec<String>) = study.workload_names().into_iter().partition(|wl| {
        let runs: Vec<_> = configs
            .iter()
            .flat_map(|c| summary_runs(study, c, wl))
            .collect();
        !runs.is_empty() && is_db_workload(wl, &runs)
    });
    let io_table = headline_table(study, &configs, &io);
    let io_rows = io_table.matches("<tr>").count().saturating_sub(1);
    let db_table = crate::db_table::table(study, &configs, &db);
    let db_count = db
        .iter()
        .filter(|wl| {
            configs
                .iter()
                .any(|c| !summary_runs(study, c, wl).is_empty())
        })
        .count();
    let html = match (io_rows, db_table) {
        (0, Some(d)) => d,
        (_, None) => io_table,
        (_, Some(d)) => {
            format!("<h4>I/O workloads</h4>{io_table}<h4>Database workloads</h4>{d}")
        }
    };
    (html, io_rows + db_count)
}

/// Mean (min..max when repeats differ) of each workload's headline metric for `configs`,
/// with p99 latency, and each later one against the first that ran the workload.
fn headline_table(study: &Study, configs: &[&str], workloads: &[String]) -> String {
    let mut head: Vec<String> = vec!["workload".into(), "metric".into()];
    head.extend(configs.iter().map(|c| c.to_string()));
    head.extend(configs.iter().map(|c| format!("{c} p99 ms")));
    head.extend(configs.iter().skip(1).map(|c| format!("{c} vs baseline")));
    let mut rows = Vec::new();
    for wl in workloads {
        let wl = wl.as_str();
        let per: Vec<Vec<_>> = configs.iter().map(|c| summary_runs(study, c, wl)).collect();
        let all: Vec<_> = per.iter().flatten().copied().collect();
        if all.is_empty() {
            continue;
        }
        let m = headline(wl, &all);
        let spreads: Vec<Option<Spread>> = per
            .iter()
            .map(|r| Spread::of(r.iter().filter_map(|x| m.of(x))))
            .collect();
        let link = format!(
            "{} <span class=\"raw\">{}</span>",
            esc(&human_name(wl)),
            esc(wl)
        );
        let mut row = vec![link, esc(m.label())];
        row.extend(spreads.iter().map(|s| s.map_or("-".into(), spread_text)));
        row.extend(per.iter().map(|r| {
            Spread::of(r.iter().map(|x| x.metrics.latency_ms.p99))
                .filter(|s| s.mean > 0.0)
                .map_or("-".into(), |s| crate::svg::fmt_num(s.mean))
        }));
        let first = spreads.iter().position(Option::is_some).unwrap_or(0);
        let base = spreads.get(first).copied().flatten().map(|s| s.mean);
        row.extend(
            spreads
                .iter()
                .enumerate()
                .skip(1)
                .map(|(i, s)| match (base, s) {
                    (Some(b), Some(o)) if b > 0.0 && i > first => {
                        format!("{:+.1}%", (o.mean / b - 1.0) * 100.0)
                    }
                    _ => "-".into(),
                }),
        );
        rows.push(row);
    }
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    tables::table(&head, &rows)
}
