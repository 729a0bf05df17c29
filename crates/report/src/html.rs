//! The HTML page: one self-contained file (inline CSS and SVG, no scripts, no URLs) with the
//! summary first, then charts, tables, simulated vs real, failures and the commands; every
//! section ends with the same footer of command, version, commit, seed and machine.

use crate::findings::{clauses, join_clauses, other_findings};
use crate::model::{Spread, Study};
use crate::svg::esc;
use crate::sweep::summary_runs;
use crate::workload::{headline, human_name};
use crate::{anchor, charts, cost, tables};

const CSS: &str = include_str!("report.css");

/// Renders the whole report.
pub fn render(study: &Study) -> String {
    let footer = footer(study);
    let sections = [
        crate::steady::warning(study).map_or(String::new(), |w| {
            section("not-steady", "Not at steady state", &w)
        }),
        section("summary", "Summary", &summary(study)),
        section("charts", "Charts", &charts_section(study)),
        section("tables", "Tables", &tables_section(study)),
        cost::sim_vs_real(study).map_or(String::new(), |t| {
            let intro = "<p>The same workload on a simulated and on a real configuration; a \
                         ratio above 1 means the simulation reports more.</p>";
            section("sim-vs-real", "Simulated vs real", &format!("{intro}{t}"))
        }),
        section("failures", "Failed cells", &tables::failed(study)),
        section("commands", "Commands", &tables::commands(study)),
    ];
    let body: String = sections
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.replace("</section>", &format!("{footer}</section>")))
        .collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>{CSS}</style></head><body>\
         <header><h1>{title}</h1><p class=\"sub\">storlab {ver} &middot; commit {commit} \
         &middot; seed {seed}</p></header>{body}</body></html>\n",
        title = esc(&study.title),
        ver = esc(&study.meta.storlab_version),
        commit = esc(&study.meta.git_commit),
        seed = study.meta.seed,
    )
}

fn section(id: &str, title: &str, body: &str) -> String {
    format!(
        r#"<section id="{id}"><h2>{}</h2>{body}</section>"#,
        esc(title)
    )
}

fn footer(study: &Study) -> String {
    let m = &study.meta;
    format!(
        "<footer class=\"meta\"><code>{}</code><br>storlab {} &middot; commit {} &middot; \
         seed {} &middot; {}</footer>",
        esc(&m.command),
        esc(&m.storlab_version),
        esc(&m.git_commit),
        m.seed,
        esc(&m.machine)
    )
}

fn summary(study: &Study) -> String {
    let mut s = String::from("<h3>Configurations</h3>");
    s.push_str(&tables::configurations(study));
    s.push_str("<h3>Findings</h3>");
    s.push_str(&findings_list(study));
    s.push_str("<h3>Headline figures</h3>");
    s.push_str(&headline_table(study));
    if let Some(fig) = charts::relative(study) {
        s.push_str(&fig);
    }
    s
}

fn findings_list(study: &Study) -> String {
    let mut items = Vec::new();
    if let Some(base) = study.configurations.first() {
        items.push(format!(
            "<li class=\"base\">Baseline: <b>{}</b>; differences within &plusmn;3% count as equal.</li>",
            esc(&base.name)
        ));
    }
    for idx in 1..study.configurations.len() {
        let cl = clauses(study, idx);
        if cl.is_empty() {
            continue;
        }
        let text = join_clauses(&cl, |c| {
            format!(r##"<a href="#{}">{}</a>"##, esc(&c.anchor), esc(&c.text))
        });
        items.push(format!(
            r##"<li><a href="#{}">{}</a>: {text}</li>"##,
            anchor::RELATIVE,
            tables::config_cell(study, &study.configurations[idx].name)
        ));
    }
    for f in other_findings(study) {
        items.push(format!(
            r##"<li><a href="#{}">{}</a></li>"##,
            esc(&f.anchor),
            esc(&f.text)
        ));
    }
    format!(r#"<ul class="findings">{}</ul>"#, items.concat())
}

/// Mean (min..max when repeats differ) of each workload's headline metric per configuration,
/// with the difference from the baseline.
fn headline_table(study: &Study) -> String {
    let mut head: Vec<String> = vec!["workload".into(), "metric".into()];
    head.extend(study.configurations.iter().map(|c| c.name.clone()));
    head.extend(
        study
            .configurations
            .iter()
            .skip(1)
            .map(|c| format!("{} vs baseline", c.name)),
    );
    let mut rows = Vec::new();
    for wl in study.workload_names() {
        let per: Vec<Vec<_>> = study
            .configurations
            .iter()
            .map(|c| summary_runs(study, &c.name, &wl))
            .collect();
        let all: Vec<_> = per.iter().flatten().copied().collect();
        if all.is_empty() {
            continue;
        }
        let m = headline(&wl, &all);
        let spreads: Vec<Option<Spread>> = per
            .iter()
            .map(|r| Spread::of(r.iter().filter_map(|x| m.of(x))))
            .collect();
        let link = format!(
            r##"<a href="#{}">{}</a> <span class="raw">{}</span>"##,
            esc(&anchor::bars(study, &wl)),
            esc(&human_name(&wl)),
            esc(&wl)
        );
        let mut row = vec![link, esc(m.label())];
        row.extend(spreads.iter().map(|s| s.map_or("-".into(), spread_text)));
        let base = spreads.first().copied().flatten().map(|s| s.mean);
        row.extend(spreads.iter().skip(1).map(|s| match (base, s) {
            (Some(b), Some(o)) if b > 0.0 => format!("{:+.1}%", (o.mean / b - 1.0) * 100.0),
            _ => "-".into(),
        }));
        rows.push(row);
    }
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    tables::table(&head, &rows)
}

fn spread_text(s: Spread) -> String {
    let f = crate::svg::fmt_num;
    if s.varies() {
        format!(
            "{} <span class=\"range\">({}..{})</span>",
            f(s.mean),
            f(s.min),
            f(s.max)
        )
    } else {
        f(s.mean)
    }
}

fn charts_section(study: &Study) -> String {
    let mut s = String::new();
    for wl in study.workload_names() {
        let figs: Vec<String> = [
            charts::workload_bars(study, &wl),
            charts::percentiles(study, &wl),
            charts::sweep_curve(study, &wl),
            charts::time_series(study, &wl),
            charts::waits(study, &wl),
        ]
        .into_iter()
        .flatten()
        .collect();
        if figs.is_empty() {
            continue;
        }
        s.push_str(&format!(
            r#"<h3>{} <span class="raw">{}</span></h3><div class="grid">{}</div>"#,
            esc(&human_name(&wl)),
            esc(&wl),
            figs.concat()
        ));
    }
    let heat: String = study
        .configurations
        .iter()
        .filter_map(|c| charts::utilisation(study, &c.name))
        .collect();
    if !heat.is_empty() {
        s.push_str(&format!(
            r#"<h3>Device utilisation</h3><div class="grid">{heat}</div>"#
        ));
    }
    if s.is_empty() {
        s.push_str("<p>No successful runs to chart.</p>");
    }
    s
}

fn tables_section(study: &Study) -> String {
    let parts = [
        (
            "Devices by role (iostat: min / avg / max of 1 s samples)",
            tables::iostat_roles(study),
        ),
        (
            "RAID groups (min / avg / max over member disks)",
            tables::raid_groups(study),
        ),
        ("Top-5 timed events", tables::timed_events(study)),
        ("Array internals", tables::arrays(study)),
        ("Capacity and cost", Some(cost::capacity(study))),
    ];
    parts
        .into_iter()
        .filter_map(|(title, t)| Some(format!("<h3>{}</h3>{}", esc(title), t?)))
        .collect()
}
