//! HTML tables: configurations, devices by role (iostat), RAID groups, timed events, array
//! internals, failed cells and the commands. Device-level tables show the first repeat (or a
//! sweep's knee point) of each configuration and workload.

use storlab_core::result::{DeviceMetrics, IostatFigures, Run, TargetKind};

use crate::anchor;

mod components;
use crate::model::{Spread, Study};
use crate::svg::{config_color, esc, fmt_num};
use crate::sweep::summary_runs;
pub use components::components;

/// A table from a header and rows of already-escaped HTML cells; cells holding a number are
/// right-aligned.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = String::from("<table><thead><tr>");
    for h in headers {
        s.push_str(&format!("<th>{}</th>", esc(h)));
    }
    s.push_str("</tr></thead><tbody>");
    for r in rows {
        s.push_str("<tr>");
        for c in r {
            let numeric = c
                .chars()
                .next()
                .is_some_and(|ch| ch.is_ascii_digit() || ch == '-')
                && c.chars().any(|ch| ch.is_ascii_digit());
            let class = if numeric { r#" class="num""# } else { "" };
            s.push_str(&format!("<td{class}>{c}</td>"));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    s
}

/// Tables up to this many rows are shown open.
pub const FOLD_ROWS: usize = 10;

/// A long table folded behind a summary line that says how many rows it holds ("142
/// rows"); the reader opens it when they need it. Short tables are shown as they are.
pub fn collapsed(table: &str, what: &str) -> String {
    let rows = table.matches("<tr>").count().saturating_sub(1);
    if rows <= FOLD_ROWS {
        return table.to_string();
    }
    format!(
        "<details><summary>{rows} {}</summary>{table}</details>",
        esc(what)
    )
}

/// A configuration's name with its colour swatch, escaped.
pub fn config_cell(study: &Study, name: &str) -> String {
    let color = config_color(study.config_index(name).unwrap_or(0));
    format!(
        r#"<i class="sw" style="background:{color}"></i>{}"#,
        esc(name)
    )
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".into(), |x| x.to_string())
}

/// Name, kind, description, disks and usable capacity of each configuration.
pub fn configurations(study: &Study) -> String {
    let rows: Vec<Vec<String>> = study
        .configurations
        .iter()
        .map(|c| {
            vec![
                config_cell(study, &c.name),
                kind_name(c.kind).into(),
                esc(c.description.as_deref().unwrap_or("-")),
                opt(c.disks),
                opt(c.usable_gb.map(|g| format!("{g:.0}"))),
            ]
        })
        .collect();
    table(
        &["configuration", "kind", "description", "disks", "usable GB"],
        &rows,
    )
}

/// "simulated" or "real".
pub fn kind_name(k: TargetKind) -> &'static str {
    match k {
        TargetKind::Sim => "simulated",
        TargetKind::Real => "real",
    }
}

/// Every (configuration, workload) with a representative run, in plan order.
fn each_run(study: &Study) -> Vec<(&str, String, &Run)> {
    let mut out = Vec::new();
    for c in &study.configurations {
        for wl in study.workload_names() {
            if let Some(r) = summary_runs(study, &c.name, &wl).into_iter().next() {
                out.push((c.name.as_str(), wl, r));
            }
        }
    }
    out
}

fn mma(f: impl Fn(&IostatFigures) -> f64, d: &storlab_core::result::DeviceIostat) -> String {
    format!(
        "{} / {} / {}",
        fmt_num(f(&d.min)),
        fmt_num(f(&d.avg)),
        fmt_num(f(&d.max))
    )
}

/// iostat figures (min / avg / max over one-second samples) of real devices by role.
pub fn iostat_roles(study: &Study) -> Option<String> {
    let mut rows = Vec::new();
    for (cfg, wl, run) in each_run(study) {
        let mut roles: Vec<(&str, &storlab_core::result::DeviceIostat)> = Vec::new();
        if let Some(db) = &run.db {
            for r in &db.roles {
                roles.extend(r.devices.iter().map(|d| (r.role.as_str(), d)));
            }
        }
        if roles.is_empty() {
            roles.extend(run.iostat.iter().map(|d| ("target", d)));
        }
        for (role, d) in roles {
            rows.push(vec![
                config_cell(study, cfg),
                esc(&wl),
                esc(role),
                esc(&d.device),
                mma(|f| f.r_s, d),
                mma(|f| f.w_s, d),
                mma(|f| f.rmb_s, d),
                mma(|f| f.wmb_s, d),
                mma(|f| f.r_await_ms, d),
                mma(|f| f.w_await_ms, d),
                mma(|f| f.aqu_sz, d),
                mma(|f| f.util_pct, d),
            ]);
        }
    }
    let head = [
        "configuration",
        "workload",
        "role",
        "device",
        "r/s",
        "w/s",
        "rMB/s",
        "wMB/s",
        "r_await ms",
        "w_await ms",
        "aqu-sz",
        "%util",
    ];
    (!rows.is_empty()).then(|| table(&head, &rows))
}

fn group_of(d: &DeviceMetrics) -> &str {
    d.name.split_once('.').map_or(d.name.as_str(), |(g, _)| g)
}

fn spread_text(devs: &[&DeviceMetrics], f: impl Fn(&DeviceMetrics) -> f64) -> String {
    match Spread::of(devs.iter().map(|d| f(d))) {
        Some(s) => format!(
            "{} / {} / {}",
            fmt_num(s.min),
            fmt_num(s.mean),
            fmt_num(s.max)
        ),
        None => "-".into(),
    }
}

/// Simulated devices grouped by RAID group (the name before '.'), min / avg / max over the
/// member disks.
pub fn raid_groups(study: &Study) -> Option<String> {
    let mut rows = Vec::new();
    for (cfg, wl, run) in each_run(study) {
        if run.target.kind != TargetKind::Sim {
            continue;
        }
        let mut groups: Vec<&str> = run.devices.iter().map(group_of).collect();
        groups.dedup();
        for g in groups {
            let devs: Vec<&DeviceMetrics> =
                run.devices.iter().filter(|d| group_of(d) == g).collect();
            rows.push(vec![
                config_cell(study, cfg),
                esc(&wl),
                esc(g),
                devs.len().to_string(),
                spread_text(&devs, |d| d.iops),
                spread_text(&devs, |d| d.read_iops),
                spread_text(&devs, |d| d.write_iops),
                spread_text(&devs, |d| d.mbps),
                spread_text(&devs, |d| d.await_ms),
                spread_text(&devs, |d| d.util_pct),
                spread_text(&devs, |d| d.queue_len.unwrap_or(0.0)),
            ]);
        }
    }
    let head = [
        "configuration",
        "workload",
        "group",
        "disks",
        "IOPS",
        "r/s",
        "w/s",
        "MB/s",
        "await ms",
        "%util",
        "queue",
    ];
    (!rows.is_empty()).then(|| table(&head, &rows))
}

/// The five largest wait events of each configuration and workload. When a real database run
/// is among them, a column says which server view timed each mean ("-": not timed).
pub fn timed_events(study: &Study) -> Option<String> {
    let runs = each_run(study);
    let sourced = runs
        .iter()
        .any(|(_, _, run)| run.metrics.waits.iter().any(|w| w.avg_from.is_some()));
    let mut rows = Vec::new();
    for (cfg, wl, run) in runs {
        let mut w = run.metrics.waits.clone();
        w.sort_by(|a, b| b.time_pct.total_cmp(&a.time_pct));
        for (rank, e) in w.iter().take(5).enumerate() {
            let mut row = vec![
                config_cell(study, cfg),
                esc(&wl),
                (rank + 1).to_string(),
                esc(&e.event),
                format!("{:.1}", e.time_pct),
                e.avg_ms.map_or("-".into(), wait_ms),
            ];
            if sourced {
                row.push(e.avg_from.as_deref().map_or("-".into(), esc));
            }
            rows.push(row);
        }
    }
    let mut head = vec![
        "configuration",
        "workload",
        "rank",
        "event",
        "% DB time",
        "avg wait ms",
    ];
    if sourced {
        head.push("mean from");
    }
    (!rows.is_empty()).then(|| table(&head, &rows))
}

/// A mean wait: microsecond waits (page-cache reads) need the third decimal.
fn wait_ms(ms: f64) -> String {
    format!("{ms:.*}", storlab_core::result::WaitEvent::avg_decimals(ms))
}

/// Per RAID group internals of simulated arrays.
pub fn arrays(study: &Study) -> Option<String> {
    let mut rows = Vec::new();
    for (cfg, wl, run) in each_run(study) {
        for a in &run.arrays {
            let sw = a.stripe_writes.clone().unwrap_or_default();
            let has_sw = a.stripe_writes.is_some();
            let stripe = |v: f64| if has_sw { fmt_num(v) } else { "-".into() };
            rows.push(vec![
                config_cell(study, cfg),
                esc(&wl),
                esc(&a.name),
                esc(&a.level),
                fmt_num(a.read_iops),
                fmt_num(a.destage_iops),
                format!("{:.2}", a.read_delay_ms),
                format!("{:.2}", a.destage_delay_ms),
                format!("{:.1}", a.cache_read_hit_pct),
                format!("{:.1}", a.nvs_full_delay_pct),
                stripe(sw.full_stripe),
                stripe(sw.read_modify_write),
                stripe(sw.reconstruct_write),
            ]);
        }
    }
    let head = [
        "configuration",
        "workload",
        "group",
        "level",
        "disk reads/s",
        "destage ops/s",
        "read delay ms",
        "destage delay ms",
        "cache read hit %",
        "NVS full delay %",
        "full-stripe/s",
        "read-modify-write/s",
        "reconstruct/s",
    ];
    (!rows.is_empty()).then(|| table(&head, &rows))
}

/// Failed cells with their reasons (an empty-state sentence when none failed).
pub fn failed(study: &Study) -> String {
    let rows: Vec<Vec<String>> = study
        .failed_cells()
        .iter()
        .map(|c| {
            vec![
                config_cell(study, &c.configuration),
                esc(&c.workload),
                c.repeat.to_string(),
                esc(c.error.as_deref().unwrap_or("no result")),
                format!("<code>{}</code>", esc(&c.command)),
            ]
        })
        .collect();
    let body = if rows.is_empty() {
        "<p>Every cell produced a result.</p>".to_string()
    } else {
        table(
            &["configuration", "workload", "repeat", "reason", "command"],
            &rows,
        )
    };
    format!(r#"<div id="{}">{body}</div>"#, anchor::FAILED)
}

/// The command of every cell.
pub fn commands(study: &Study) -> String {
    let rows: Vec<Vec<String>> = study
        .cells
        .iter()
        .map(|c| {
            vec![
                config_cell(study, &c.configuration),
                format!("{}{}", esc(&c.workload), crate::steady::badge(c)),
                c.repeat.to_string(),
                format!("<code>{}</code>", esc(&c.command)),
            ]
        })
        .collect();
    table(&["configuration", "workload", "repeat", "command"], &rows)
}
