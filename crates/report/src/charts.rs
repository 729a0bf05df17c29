//! The report's charts, from a study to `<figure>` elements: each question's headline
//! metrics as ratios to its baseline, per-workload bars, load sweeps, time series, latency percentiles, device
//! utilisation heat maps and wait events. Each returns `None` when it has nothing to draw;
//! `suffix` ends the ids of a question's charts after the first ([`anchor::suffix`]).

use storlab_core::result::Run;

use crate::anchor;
use crate::findings::{comparisons, WITHIN_PCT};
use crate::model::{Spread, Study};
use crate::plot::{self, Bar, BarPanel, HeatMap, Line, LineChart, RatioBar, RatioRow, Stack};
use crate::svg::{config_color, esc, EVENT_COLORS, OTHER_COLOR};
use crate::sweep::{self, summary_runs};
use crate::workload::{chart_metrics, headline, human_name, Metric};

/// A `<figure>` with an id, a caption, a legend of the configurations shown, and the chart.
fn figure(id: &str, caption: &str, legend: &str, svg: &str) -> String {
    format!(
        r#"<figure class="chart-box" id="{}"><figcaption>{}</figcaption>{legend}{svg}</figure>"#,
        esc(id),
        esc(caption)
    )
}

/// A legend of named colour swatches.
pub fn legend(items: &[(String, String)]) -> String {
    let spans: String = items
        .iter()
        .map(|(name, color)| {
            format!(
                r#"<span><i style="background:{}"></i>{}</span>"#,
                esc(color),
                esc(name)
            )
        })
        .collect();
    format!(r#"<div class="legend">{spans}</div>"#)
}

/// Legend of the configurations that have runs of `workload` (all when `None`).
fn config_legend(study: &Study, workload: Option<&str>) -> String {
    let items: Vec<(String, String)> = study
        .configurations
        .iter()
        .enumerate()
        .filter(|(_, c)| workload.is_none_or(|w| !study.runs(&c.name, w).is_empty()))
        .map(|(i, c)| (c.name.clone(), config_color(i).to_string()))
        .collect();
    legend(&items)
}

fn spread(runs: &[&Run], f: impl Fn(&Run) -> Option<f64>) -> Option<Spread> {
    Spread::of(runs.iter().filter_map(|r| f(r)))
}

/// Question `q`'s headline metric of every workload as a ratio to the baseline: one row per
/// workload the question's configurations share, one bar per compared configuration, on a
/// log scale centred on 1x, each bar labelled.
pub fn question_ratios(study: &Study, q: usize, group: &[usize]) -> Option<String> {
    let base = &study.configurations[*group.first()?].name;
    let mut rows: Vec<RatioRow> = Vec::new();
    for &idx in group.iter().skip(1) {
        for c in comparisons(study, group, idx, None) {
            if c.other.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                continue;
            }
            let label = format!("{} {}", human_name(&c.workload), c.metric.label());
            let pos = match rows.iter().position(|r| r.label == label) {
                Some(i) => i,
                None => {
                    rows.push(RatioRow {
                        label,
                        bars: Vec::new(),
                    });
                    rows.len() - 1
                }
            };
            rows[pos].bars.push(RatioBar {
                name: study.configurations[idx].name.clone(),
                ratio: c.other / c.base,
                color: config_color(idx).to_string(),
            });
        }
    }
    if rows.is_empty() {
        return None;
    }
    let cap = format!("Each workload's headline metric as a ratio to {base} (1x = equal)");
    let svg = plot::ratio_bars(&rows, WITHIN_PCT, base, &cap);
    let items: Vec<(String, String)> = group
        .iter()
        .skip(1)
        .map(|&i| {
            (
                study.configurations[i].name.clone(),
                config_color(i).to_string(),
            )
        })
        .collect();
    Some(figure(
        &anchor::question_chart(q),
        &cap,
        &legend(&items),
        &svg,
    ))
}

fn bar(label: &str, value: f64, range: Option<(f64, f64)>, idx: usize) -> Bar {
    Bar {
        label: label.to_string(),
        value,
        range,
        color: config_color(idx).to_string(),
    }
}

/// Bar panels of one workload: each metric it has, one bar per configuration (mean of the
/// repeats, whisker = min..max).
pub fn workload_bars(study: &Study, workload: &str, suffix: &str) -> Option<String> {
    let mut all: Vec<&Run> = Vec::new();
    let per_cfg: Vec<Vec<&Run>> = study
        .configurations
        .iter()
        .map(|c| summary_runs(study, &c.name, workload))
        .collect();
    per_cfg.iter().for_each(|r| all.extend(r));
    let panels: Vec<BarPanel> = chart_metrics(&all)
        .into_iter()
        .map(|m| BarPanel {
            title: m.label().to_string(),
            bars: per_cfg
                .iter()
                .enumerate()
                .filter_map(|(i, runs)| {
                    let s = spread(runs, |r| m.of(r))?;
                    let name = &study.configurations[i].name;
                    Some(bar(name, s.mean, s.varies().then_some((s.min, s.max)), i))
                })
                .collect(),
            reference: None,
            scale_max: None,
        })
        .collect();
    if panels.is_empty() {
        return None;
    }
    let cap = format!(
        "{} ({workload}): throughput and latency",
        human_name(workload)
    );
    let svg = plot::bar_panels(&panels, &cap);
    let id = format!("{}{suffix}", anchor::bars(study, workload));
    Some(figure(
        &id,
        &cap,
        &config_legend(study, Some(workload)),
        &svg,
    ))
}

/// Latency against achieved IOPS over a load sweep, per configuration: p99 solid, mean
/// dashed, the knee ringed and its load named in the caption ("raid5 at 8 outstanding").
pub fn sweep_curve(study: &Study, workload: &str, suffix: &str) -> Option<String> {
    let mut lines = Vec::new();
    let mut knees = Vec::new();
    for (i, c) in study.configurations.iter().enumerate() {
        let runs = study.runs(&c.name, workload);
        let Some(s) = sweep::find(&runs) else {
            continue;
        };
        let pts = |f: fn(&Run) -> f64| -> Vec<(f64, f64)> {
            s.points
                .iter()
                .map(|p| (p.mean(|r| r.metrics.iops), p.mean(f)))
                .collect()
        };
        let color = config_color(i).to_string();
        if let Some(p) = s.knee.and_then(|k| s.points.get(k)) {
            knees.push(format!("{} at {}", c.name, p.load.label()));
        }
        lines.push(Line {
            name: format!("{} p99", c.name),
            color: color.clone(),
            points: pts(|r| r.metrics.latency_ms.p99),
            knee: s.knee,
            dashed: false,
        });
        lines.push(Line {
            name: format!("{} mean", c.name),
            color,
            points: pts(|r| r.metrics.latency_ms.mean),
            knee: None,
            dashed: true,
        });
    }
    if lines.is_empty() {
        return None;
    }
    let chart = LineChart {
        x_title: "achieved IOPS".into(),
        y_title: "latency, ms (p99 solid, mean dashed)".into(),
        lines,
        ..LineChart::default()
    };
    let cap = if knees.is_empty() {
        format!("{}: latency vs load (sweep)", human_name(workload))
    } else {
        format!(
            "{}: latency vs load (sweep), knee ringed: {}",
            human_name(workload),
            knees.join(", ")
        )
    };
    let svg = plot::line_chart(&chart, &cap);
    let id = format!("{}-sweep{suffix}", anchor::bars(study, workload));
    Some(figure(
        &id,
        &cap,
        &config_legend(study, Some(workload)),
        &svg,
    ))
}

/// The per-interval headline metric of the first run of each configuration. The warm-up
/// before the measured window is shaded: the intervals with a negative `t_s` when the series
/// has them, else the run's `warmup_s` (not measured, so no line there).
pub fn time_series(study: &Study, workload: &str, suffix: &str) -> Option<String> {
    let mut lines = Vec::new();
    let mut metric = Metric::Iops;
    let mut warm_lo: f64 = 0.0;
    for (i, c) in study.configurations.iter().enumerate() {
        let runs = summary_runs(study, &c.name, workload);
        let Some(run) = runs.iter().find(|r| !r.series.is_empty()) else {
            continue;
        };
        metric = headline(workload, &runs);
        let points: Vec<(f64, f64)> = run
            .series
            .iter()
            .map(|p| match metric {
                Metric::RowsPerS => (p.t_s, p.rows_per_s.unwrap_or(0.0)),
                Metric::Mbps => (p.t_s, p.mbps),
                _ => (p.t_s, p.iops),
            })
            .collect();
        warm_lo = warm_lo
            .min(points.iter().map(|p| p.0).fold(0.0, f64::min))
            .min(-run.workload.warmup_s);
        lines.push(Line {
            name: c.name.clone(),
            color: config_color(i).to_string(),
            points,
            knee: None,
            dashed: false,
        });
    }
    if lines.is_empty() {
        return None;
    }
    let chart = LineChart {
        x_title: "time, s (0 = start of the measured window)".into(),
        y_title: metric.label().into(),
        lines,
        shade: (warm_lo < 0.0).then_some((warm_lo, 0.0)),
        ..LineChart::default()
    };
    let cap = format!("{}: {} over time", human_name(workload), metric.label());
    let svg = plot::line_chart(&chart, &cap);
    let id = format!("{}-series{suffix}", anchor::bars(study, workload));
    Some(figure(
        &id,
        &cap,
        &config_legend(study, Some(workload)),
        &svg,
    ))
}

/// Latency percentiles (p50 .. max) per configuration on a log scale.
pub fn percentiles(study: &Study, workload: &str, suffix: &str) -> Option<String> {
    let names = ["p50", "p95", "p99", "p99.9", "max"];
    let getters: [fn(&Run) -> f64; 5] = [
        |r| r.metrics.latency_ms.p50,
        |r| r.metrics.latency_ms.p95,
        |r| r.metrics.latency_ms.p99,
        |r| r.metrics.latency_ms.p999,
        |r| r.metrics.latency_ms.max,
    ];
    let mut lines = Vec::new();
    for (i, c) in study.configurations.iter().enumerate() {
        let runs = summary_runs(study, &c.name, workload);
        let points: Vec<(f64, f64)> = getters
            .iter()
            .enumerate()
            .filter_map(|(k, g)| Some((k as f64, spread(&runs, |r| Some(g(r)))?.mean)))
            .filter(|p| p.1 > 0.0)
            .collect();
        if !points.is_empty() {
            lines.push(Line {
                name: c.name.clone(),
                color: config_color(i).to_string(),
                points,
                knee: None,
                dashed: false,
            });
        }
    }
    if lines.is_empty() {
        return None;
    }
    let chart = LineChart {
        x_title: "percentile".into(),
        y_title: "latency, ms (log scale)".into(),
        lines,
        log_y: true,
        x_categories: names.iter().map(|s| s.to_string()).collect(),
        ..LineChart::default()
    };
    let cap = format!("{}: latency percentiles", human_name(workload));
    let svg = plot::line_chart(&chart, &cap);
    let id = format!("{}{suffix}", anchor::percentiles(study, workload));
    Some(figure(
        &id,
        &cap,
        &config_legend(study, Some(workload)),
        &svg,
    ))
}

/// The mean busy share of every device in every workload of `configs`: the range the heat
/// maps shown together share.
pub fn utilisation_range(study: &Study, configs: &[&str]) -> Option<(f64, f64)> {
    let mut values = Vec::new();
    for c in configs {
        for wl in study.workload_names() {
            let runs = summary_runs(study, c, &wl);
            let mut names: Vec<&str> = Vec::new();
            for d in runs.iter().flat_map(|r| &r.devices) {
                if !names.contains(&d.name.as_str()) {
                    names.push(&d.name);
                }
            }
            for n in names {
                let utils = runs.iter().flat_map(|r| &r.devices).filter(|d| d.name == n);
                values.extend(Spread::of(utils.map(|d| d.util_pct)).map(|s| s.mean));
            }
        }
    }
    HeatMap::observed(values)
}

/// Busy share of every device of one configuration (rows) in every workload (columns),
/// coloured over `range` (see [`utilisation_range`]).
pub fn utilisation(study: &Study, config: &str, range: Option<(f64, f64)>) -> Option<String> {
    let workloads = study.workload_names();
    let mut rows: Vec<String> = Vec::new();
    let mut cols = Vec::new();
    let mut per_wl = Vec::new();
    for wl in &workloads {
        let runs = summary_runs(study, config, wl);
        if runs.iter().all(|r| r.devices.is_empty()) {
            continue;
        }
        for d in runs.iter().flat_map(|r| &r.devices) {
            if !rows.contains(&d.name) {
                rows.push(d.name.clone());
            }
        }
        cols.push(human_name(wl));
        per_wl.push(runs);
    }
    if rows.is_empty() {
        return None;
    }
    let values = rows
        .iter()
        .map(|dev| {
            per_wl
                .iter()
                .map(|runs| {
                    let utils = runs
                        .iter()
                        .flat_map(|r| &r.devices)
                        .filter(|d| &d.name == dev);
                    Spread::of(utils.map(|d| d.util_pct)).map(|s| s.mean)
                })
                .collect()
        })
        .collect();
    let map = HeatMap {
        rows,
        cols,
        values,
        range,
    };
    let (lo, hi) = map.scale();
    let cap = format!(
        "{config}: device utilisation, % busy (colours span {lo:.0}-{hi:.0}%, the range observed)"
    );
    let svg = plot::heat_map(&map, &cap);
    let id = format!("chart-util-{}", anchor::slug(config));
    Some(figure(&id, &cap, "", &svg))
}

/// Top-5 wait events per configuration as stacked shares of DB time (the rest as "other").
pub fn waits(study: &Study, workload: &str, suffix: &str) -> Option<String> {
    let mut names: Vec<String> = Vec::new();
    let mut stacks = Vec::new();
    for c in &study.configurations {
        let runs = summary_runs(study, &c.name, workload);
        let Some(run) = runs.iter().find(|r| !r.metrics.waits.is_empty()) else {
            continue;
        };
        let mut w = run.metrics.waits.clone();
        w.sort_by(|a, b| b.time_pct.total_cmp(&a.time_pct));
        let mut parts = Vec::new();
        for e in w.iter().take(5) {
            if !names.contains(&e.event) {
                names.push(e.event.clone());
            }
            let idx = names.iter().position(|n| n == &e.event).unwrap_or(0);
            parts.push((idx, e.time_pct));
        }
        let other: f64 = w.iter().skip(5).map(|e| e.time_pct).sum();
        parts.push((usize::MAX, other));
        stacks.push(Stack {
            label: c.name.clone(),
            parts,
        });
    }
    if stacks.is_empty() {
        return None;
    }
    let other = names.len();
    names.push("other".into());
    for s in &mut stacks {
        s.parts
            .iter_mut()
            .filter(|p| p.0 == usize::MAX)
            .for_each(|p| p.0 = other);
    }
    let mut colors: Vec<String> = (0..other)
        .map(|i| EVENT_COLORS[i % EVENT_COLORS.len()].to_string())
        .collect();
    colors.push(OTHER_COLOR.into());
    let cap = format!(
        "{}: top-5 wait events per configuration",
        human_name(workload)
    );
    let svg = plot::stacked_bars(&stacks, &names, &colors, &cap);
    let items: Vec<(String, String)> = names.into_iter().zip(colors).collect();
    let id = format!("{}-waits{suffix}", anchor::bars(study, workload));
    Some(figure(&id, &cap, &legend(&items), &svg))
}
