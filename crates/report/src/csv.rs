//! CSV files, one per table, RFC 4180: CRLF line ends, fields holding a comma, quote or line
//! break are quoted and their quotes doubled; absent values are empty fields. Every cell is
//! one row of every file it has data for (all repeats and sweep points, not means).

use storlab_core::result::{IostatFigures, Run, TargetKind};

use crate::cost::total_cost;
use crate::model::{Cell, Study};

/// Quotes one field when it needs it.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One CSV text from a header and rows.
pub fn to_csv(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = String::new();
    let line = |fields: Vec<String>| fields.join(",") + "\r\n";
    s.push_str(&line(header.iter().map(|h| field(h)).collect()));
    for r in rows {
        s.push_str(&line(r.iter().map(|f| field(f)).collect()));
    }
    s
}

fn num(v: f64) -> String {
    if v.is_finite() {
        v.to_string()
    } else {
        String::new()
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or(String::new(), num)
}

fn kind(k: TargetKind) -> String {
    match k {
        TargetKind::Sim => "sim".into(),
        TargetKind::Real => "real".into(),
    }
}

/// Header of summary.csv.
pub const SUMMARY_HEADER: [&str; 14] = [
    "configuration",
    "workload",
    "repeat",
    "kind",
    "iops",
    "read_iops",
    "write_iops",
    "mbps",
    "lat_mean_ms",
    "lat_p99_ms",
    "rows_per_s",
    "tx_per_min",
    "wal_mb_per_s",
    "error",
];

fn summary_row(study: &Study, c: &Cell) -> Vec<String> {
    let cfg_kind = study
        .configurations
        .iter()
        .find(|x| x.name == c.configuration)
        .map(|x| x.kind)
        .or(c.run.as_ref().map(|r| r.target.kind));
    let mut row = vec![
        c.configuration.clone(),
        c.workload.clone(),
        c.repeat.to_string(),
        cfg_kind.map_or(String::new(), kind),
    ];
    match &c.run {
        Some(r) => {
            let m = &r.metrics;
            row.extend([m.iops, m.read_iops, m.write_iops, m.mbps].map(num));
            row.extend([m.latency_ms.mean, m.latency_ms.p99].map(num));
            row.extend([m.rows_per_s, m.tx_per_min, m.wal_mb_per_s].map(opt));
        }
        None => row.extend((0..9).map(|_| String::new())),
    }
    row.push(c.error.clone().unwrap_or_default());
    row
}

/// Rows of `f` over every cell with a run, prefixed by configuration, workload and repeat.
fn per_run(study: &Study, f: impl Fn(&Run) -> Vec<Vec<String>>) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for c in &study.cells {
        let Some(run) = &c.run else { continue };
        for r in f(run) {
            let mut row = vec![
                c.configuration.clone(),
                c.workload.clone(),
                c.repeat.to_string(),
            ];
            row.extend(r);
            rows.push(row);
        }
    }
    rows
}

fn devices(study: &Study) -> Vec<Vec<String>> {
    per_run(study, |run| {
        run.devices
            .iter()
            .map(|d| {
                let mut r = vec![d.name.clone(), d.model.clone().unwrap_or_default()];
                r.extend(
                    [
                        d.iops,
                        d.read_iops,
                        d.write_iops,
                        d.mbps,
                        d.util_pct,
                        d.await_ms,
                    ]
                    .map(num),
                );
                r.extend([d.service_ms, d.queue_len].map(opt));
                r
            })
            .collect()
    })
}

fn arrays(study: &Study) -> Vec<Vec<String>> {
    per_run(study, |run| {
        run.arrays
            .iter()
            .map(|a| {
                let mut r = vec![a.name.clone(), a.level.clone()];
                r.extend(
                    [
                        a.read_iops,
                        a.destage_iops,
                        a.read_delay_ms,
                        a.destage_delay_ms,
                    ]
                    .map(num),
                );
                r.extend([a.cache_read_hit_pct, a.nvs_full_delay_pct].map(num));
                let sw = a.stripe_writes.as_ref();
                r.push(opt(sw.map(|s| s.full_stripe)));
                r.push(opt(sw.map(|s| s.read_modify_write)));
                r.push(opt(sw.map(|s| s.reconstruct_write)));
                r
            })
            .collect()
    })
}

fn waits(study: &Study) -> Vec<Vec<String>> {
    per_run(study, |run| {
        let w = &run.metrics.waits;
        w.iter()
            .map(|e| {
                vec![
                    e.event.clone(),
                    num(e.time_pct),
                    opt(e.avg_ms),
                    e.avg_from.clone().unwrap_or_default(),
                ]
            })
            .collect()
    })
}

const FIGURES: [&str; 8] = [
    "r_s",
    "w_s",
    "rmb_s",
    "wmb_s",
    "r_await_ms",
    "w_await_ms",
    "aqu_sz",
    "util_pct",
];

fn figures(f: &IostatFigures) -> [f64; 8] {
    [
        f.r_s,
        f.w_s,
        f.rmb_s,
        f.wmb_s,
        f.r_await_ms,
        f.w_await_ms,
        f.aqu_sz,
        f.util_pct,
    ]
}

fn iostat(study: &Study) -> Vec<Vec<String>> {
    per_run(study, |run| {
        let mut devs: Vec<(&str, &storlab_core::result::DeviceIostat)> = Vec::new();
        for role in run.db.iter().flat_map(|d| &d.roles) {
            devs.extend(role.devices.iter().map(|d| (role.role.as_str(), d)));
        }
        devs.extend(run.iostat.iter().map(|d| ("target", d)));
        devs.iter()
            .map(|(role, d)| {
                let mut r = vec![role.to_string(), d.device.clone(), d.samples.to_string()];
                for i in 0..8 {
                    r.extend([&d.min, &d.avg, &d.max].map(|f| num(figures(f)[i])));
                }
                r
            })
            .collect()
    })
}

fn iostat_header() -> Vec<String> {
    let mut h: Vec<String> = [
        "configuration",
        "workload",
        "repeat",
        "role",
        "device",
        "samples",
    ]
    .map(String::from)
    .to_vec();
    for f in FIGURES {
        h.extend(["min", "avg", "max"].map(|s| format!("{f}_{s}")));
    }
    h
}

fn capacity(study: &Study) -> Vec<Vec<String>> {
    study
        .configurations
        .iter()
        .map(|c| {
            let total = total_cost(c);
            let per_gb = c
                .price_per_gb
                .or_else(|| Some(total? / c.usable_gb.filter(|g| *g > 0.0)?));
            vec![
                c.name.clone(),
                kind(c.kind),
                c.disks.map_or(String::new(), |d| d.to_string()),
                opt(c.usable_gb),
                opt(c.price_per_disk),
                opt(c.price_per_gb),
                opt(total),
                opt(per_gb),
            ]
        })
        .collect()
}

/// Every CSV of the study as (file name, text).
pub fn files(study: &Study) -> Vec<(&'static str, String)> {
    let summary: Vec<Vec<String>> = study.cells.iter().map(|c| summary_row(study, c)).collect();
    let key = ["configuration", "workload", "repeat"];
    let with_key =
        |cols: &[&'static str]| -> Vec<&'static str> { key.iter().chain(cols).copied().collect() };
    let ih = iostat_header();
    let ih: Vec<&str> = ih.iter().map(String::as_str).collect();
    vec![
        ("summary.csv", to_csv(&SUMMARY_HEADER, &summary)),
        (
            "devices.csv",
            to_csv(
                &with_key(&[
                    "device",
                    "model",
                    "iops",
                    "read_iops",
                    "write_iops",
                    "mbps",
                    "util_pct",
                    "await_ms",
                    "service_ms",
                    "queue_len",
                ]),
                &devices(study),
            ),
        ),
        (
            "arrays.csv",
            to_csv(
                &with_key(&[
                    "group",
                    "level",
                    "read_iops",
                    "destage_iops",
                    "read_delay_ms",
                    "destage_delay_ms",
                    "cache_read_hit_pct",
                    "nvs_full_delay_pct",
                    "full_stripe_per_s",
                    "read_modify_write_per_s",
                    "reconstruct_write_per_s",
                ]),
                &arrays(study),
            ),
        ),
        (
            "waits.csv",
            to_csv(
                &with_key(&["event", "time_pct", "avg_ms", "avg_from"]),
                &waits(study),
            ),
        ),
        ("iostat.csv", to_csv(&ih, &iostat(study))),
        (
            "capacity.csv",
            to_csv(
                &[
                    "configuration",
                    "kind",
                    "disks",
                    "usable_gb",
                    "price_per_disk",
                    "price_per_gb",
                    "total_cost",
                    "cost_per_gb",
                ],
                &capacity(study),
            ),
        ),
    ]
}
