//! The HTML page: one self-contained file (inline CSS and SVG, no scripts, no URLs) with the
//! answer to each question of the study first, then charts by question, tables (long ones
//! folded behind a summary line), simulated vs real where the plan pairs them, failures and
//! the commands; every section ends with the same footer of command, version, commit, seed
//! and machine.

use crate::findings::groups;
use crate::model::{Spread, Study};
use crate::svg::esc;
use crate::workload::human_name;
use crate::{anchor, charts, cost, questions, tables};

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
            let intro = "<p>The same workload on a simulated and on a real configuration that \
                         a question of the plan compares; a ratio above 1 means the simulation \
                         reports more.</p>";
            section("sim-vs-real", "Simulated vs real", &format!("{intro}{t}"))
        }),
        users_section(study),
        section("failures", "Failed cells", &tables::failed(study)),
        section(
            "commands",
            "Commands",
            &tables::collapsed(&tables::commands(study), "commands, one per cell"),
        ),
    ];
    let body: String = sections
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.replace("</section>", &format!("{footer}</section>")))
        .collect();
    let sub = format!(
        "storlab {} &middot; commit {} &middot; seed {}",
        esc(&study.meta.storlab_version),
        esc(&study.meta.git_commit),
        study.meta.seed,
    );
    document(&study.title, Some(&sub), &body)
}

/// One self-contained HTML5 page (inline CSS, no scripts, no URLs): `title` (escaped here)
/// as the title and heading, `sub` (HTML) under it, then `body` (HTML). Every page storlab
/// writes has this frame.
pub(crate) fn document(title: &str, sub: Option<&str>, body: &str) -> String {
    let sub = sub.map_or(String::new(), |s| format!("<p class=\"sub\">{s}</p>"));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"storlab\">\
         <title>{title}</title><style>{CSS}</style></head><body>\
         <header><h1>{title}</h1>{sub}</header>{body}</body></html>\n",
        title = esc(title),
    )
}

fn section(id: &str, title: &str, body: &str) -> String {
    format!(
        r#"<section id="{id}"><h2>{}</h2>{body}</section>"#,
        esc(title)
    )
}

/// "How many users": each users sweep's curve, knee and table, as on the users-sweep page.
fn users_section(study: &Study) -> String {
    if study.users_sweeps.is_empty() {
        return String::new();
    }
    let body: String = study
        .users_sweeps
        .iter()
        .map(|u| {
            format!(
                "<h3>{} on {}</h3>{}",
                esc(&human_name(&u.workload)),
                esc(&u.configuration),
                crate::users_sweep::section(&u.sweep)
            )
        })
        .collect();
    section("users", "How many users", &body)
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
    let mut s = questions::answers(study);
    let other = questions::other_findings_list(study);
    if !other.is_empty() {
        s.push_str("<h3>Other findings</h3>");
        s.push_str(&other);
    }
    s.push_str("<h3>Configurations</h3>");
    s.push_str(&tables::configurations(study));
    s
}

pub(crate) fn spread_text(s: Spread) -> String {
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
    let mut drawn: Vec<usize> = Vec::new();
    for (q, (question, group)) in groups(study).iter().enumerate() {
        let view = view(study, group);
        let suffix = anchor::suffix(q);
        let single = group.len() == 1;
        let mut part = String::new();
        if single {
            // One configuration: its throughput over time per workload, side by side (the
            // captions name the workloads); there is nothing to set a bar beside.
            let figs: String = view
                .workload_names()
                .iter()
                .filter_map(|wl| charts::time_series(&view, wl, &suffix))
                .collect();
            if !figs.is_empty() {
                part.push_str(&format!(
                    r#"<h4>Throughput over time</h4><div class="grid">{figs}</div>"#
                ));
            }
        }
        for wl in view.workload_names().iter().filter(|_| !single) {
            let figs: Vec<String> = [
                charts::workload_bars(&view, wl, &suffix),
                charts::percentiles(&view, wl, &suffix),
                charts::sweep_curve(&view, wl, &suffix),
                charts::time_series(&view, wl, &suffix),
                charts::waits(&view, wl, &suffix),
            ]
            .into_iter()
            .flatten()
            .collect();
            if figs.is_empty() {
                continue;
            }
            part.push_str(&format!(
                r#"<h4>{} <span class="raw">{}</span></h4><div class="grid">{}</div>"#,
                esc(&human_name(wl)),
                esc(wl),
                figs.concat()
            ));
        }
        let fresh: Vec<usize> = group
            .iter()
            .copied()
            .filter(|i| !drawn.contains(i))
            .collect();
        drawn.extend(&fresh);
        let names: Vec<&str> = fresh
            .iter()
            .map(|&i| study.configurations[i].name.as_str())
            .collect();
        let range = charts::utilisation_range(study, &names);
        let heat: String = names
            .iter()
            .filter_map(|c| charts::utilisation(study, c, range))
            .collect();
        if !heat.is_empty() {
            part.push_str(&format!(
                r#"<h4>Device utilisation</h4><div class="grid">{heat}</div>"#
            ));
        }
        if !part.is_empty() {
            s.push_str(&format!("<h3>{}</h3>{part}", esc(&question.title)));
        }
    }
    if s.is_empty() {
        s.push_str("<p>No successful runs to chart.</p>");
    }
    s
}

/// The study as a question sees it: every configuration (so colours stay the same), the
/// cells of the question's configurations only.
fn view(study: &Study, group: &[usize]) -> Study {
    let names: Vec<&str> = group
        .iter()
        .map(|&i| study.configurations[i].name.as_str())
        .collect();
    let mut v = study.clone();
    v.cells
        .retain(|c| names.contains(&c.configuration.as_str()));
    v
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
        (
            "Array components (loops, processors, links; busiest first)",
            tables::components(study),
        ),
        ("Capacity and cost", Some(cost::capacity(study))),
    ];
    parts
        .into_iter()
        .filter_map(|(title, t)| {
            let t = t?;
            Some(format!(
                "<h3>{}</h3>{}",
                esc(title),
                tables::collapsed(&t, "rows")
            ))
        })
        .collect()
}
