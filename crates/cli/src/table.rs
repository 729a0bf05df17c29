//! Compact human-readable tables of results.

use std::fmt::Write;

use storlab_core::result::Run;

mod components;

/// Formats rows under headers: first column left-aligned, the others right-aligned.
pub fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    render_left(headers, rows, 1)
}

/// Formats rows under headers: the first `left` columns left-aligned, the others right-aligned.
pub fn render_left(headers: &[&str], rows: &[Vec<String>], left: usize) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.len()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = String::new();
        for (i, (c, w)) in cells.zip(&widths).enumerate() {
            if i < left {
                let _ = write!(s, "  {c:<w$}");
            } else {
                let _ = write!(s, "  {c:>w$}");
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(&mut headers.iter().copied());
    for r in rows {
        out += &line(&mut r.iter().map(String::as_str));
    }
    out
}

/// A number with thousands separators and `decimals` decimals.
pub fn num(x: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, x.abs());
    let (int, frac) = s.split_once('.').map_or((s.as_str(), ""), |(i, f)| (i, f));
    let mut grouped = String::new();
    for (i, ch) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    let sign = if x < 0.0 && s.chars().any(|c| c != '0' && c != '.') {
        "-"
    } else {
        ""
    };
    if frac.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{frac}")
    }
}

/// The top wait events of a database run.
pub fn waits(waits: &[storlab_core::result::WaitEvent]) -> String {
    let rows: Vec<Vec<String>> = waits
        .iter()
        .map(|w| {
            vec![
                w.event.clone(),
                num(w.time_pct, 1),
                w.avg_ms.map_or("-".into(), |a| {
                    num(a, storlab_core::result::WaitEvent::avg_decimals(a))
                }),
                w.avg_from.clone().unwrap_or_default(),
            ]
        })
        .collect();
    render(&["top wait events", "% time", "avg ms", "avg from"], &rows)
}

/// The database figures of a simulated database run.
fn sim_db(run: &Run) -> String {
    let m = &run.metrics;
    let Some(rows) = m.rows_per_s else {
        return String::new();
    };
    let (commit, commit_p99) = m.commit_ms.map_or(("-".into(), "-".into()), |c| {
        (num(c.mean, 3), num(c.p99, 3))
    });
    let mut out = render(
        &[
            "database",
            "rows/s",
            "tx/min",
            "commit ms",
            "commit p99",
            "log MB/s",
        ],
        &[vec![
            run.workload.name.clone(),
            num(rows, 0),
            m.tx_per_min.map_or("-".into(), |t| num(t, 0)),
            commit,
            commit_p99,
            m.wal_mb_per_s.map_or("-".into(), |w| num(w, 2)),
        ]],
    );
    out += &transactions(m);
    if !m.waits.is_empty() {
        out += &waits(&m.waits);
    }
    out += &block_profile(&run.workload.parameters);
    out
}

/// A database run's transaction response times: each type, then all together when there
/// are several types. Empty for runs without them.
pub fn transactions(m: &storlab_core::result::Metrics) -> String {
    let Some(all) = m.tx_latency_ms.as_ref() else {
        return String::new();
    };
    let row = |name: &str, tx_per_s: f64, l: &storlab_core::LatencySummaryMs| {
        let mut r = vec![name.to_string(), num(tx_per_s, 0)];
        r.extend(latency_cells(l));
        r
    };
    let mut rows: Vec<Vec<String>> = m
        .transactions
        .iter()
        .map(|t| row(&t.name, t.tx_per_s, &t.latency_ms))
        .collect();
    if m.transactions.len() != 1 {
        let tx_per_s = m.transactions.iter().map(|t| t.tx_per_s).sum();
        rows.push(row("all", tx_per_s, all));
    }
    let header: Vec<&str> = ["transactions", "tx/s"]
        .into_iter()
        .chain(LATENCY_COLUMNS)
        .collect();
    render(&header, &rows)
}

/// Where a simulated database's per-operation blocks came from.
fn block_profile(params: &serde_json::Value) -> String {
    if let Some(source) = params["character"]["workload"]["source"].as_str() {
        return format!(
            "  workload: characterization ({source}); buffer hits {}%, {} multiblock reads/s of {} blocks\n",
            params["buffer_hit_pct"].as_f64().unwrap_or(0.0),
            params["multiblock_reads_per_s"].as_f64().unwrap_or(0.0),
            params["blocks_per_multiblock_read"].as_f64().unwrap_or(0.0),
        );
    }
    let p = &params["profile"];
    let f = |k: &str| p[k].as_f64().unwrap_or(0.0);
    if p.is_object() {
        let cpu = p["server_cpu_ns_per_op"]
            .as_f64()
            .map_or(String::new(), |ns| {
                format!(", server CPU {} us", num(ns / 1e3, 1))
            });
        format!(
            "  block profile: measured in {} ({}, PostgreSQL {}, {} calls): {} blocks, {} dirtied, {} WAL bytes{cpu} per operation\n",
            p["source"].as_str().unwrap_or("?"),
            p["test"].as_str().unwrap_or("?"),
            p["server_version"].as_str().unwrap_or("?"),
            p["calls"].as_u64().unwrap_or(0),
            num(f("blocks_per_op"), 2),
            num(f("dirtied_per_op"), 2),
            num(f("wal_bytes_per_op"), 0),
        )
    } else {
        format!(
            "  block profile: schema arithmetic ({} index levels, {} rows per block)\n",
            params["index_levels"].as_u64().unwrap_or(0),
            params["rows_per_block"].as_u64().unwrap_or(0),
        )
    }
}

/// One run in detail: host figures, RAID groups, disks.
pub fn single(run: &Run) -> String {
    let m = &run.metrics;
    let seed = run
        .sim
        .as_ref()
        .map_or(String::new(), |s| format!(" | seed {}", s.seed));
    let partial = if run.partial {
        " | PARTIAL (interrupted)"
    } else {
        ""
    };
    let mut out = format!(
        "{} | {} | {} s measured after {} s warm-up{}{seed}{partial}\n",
        run.target.name,
        run.workload.name,
        run.workload.duration_s,
        run.workload.warmup_s,
        if run.workload.warmup_auto {
            " (auto)"
        } else {
            ""
        },
    );
    out += &sim_db(run);
    let header: Vec<&str> = ["host"].into_iter().chain(host_columns()).collect();
    let row: Vec<String> = std::iter::once("all".to_string())
        .chain(host_cells(m))
        .collect();
    out += &render(&header, &[row]);
    if run.sim.is_some() {
        out += &sim_classes(run);
    }
    let groups: Vec<Vec<String>> = run
        .arrays
        .iter()
        .map(|a| {
            vec![
                a.name.clone(),
                a.level.clone(),
                num(a.read_iops, 0),
                num(a.destage_iops, 0),
                num(a.read_delay_ms, 2),
                num(a.destage_delay_ms, 2),
                num(a.cache_read_hit_pct, 1),
                num(a.nvs_full_delay_pct, 1),
            ]
        })
        .collect();
    if !groups.is_empty() {
        out += &render(
            &[
                "group",
                "level",
                "disk rd/s",
                "destage/s",
                "rd delay ms",
                "destage ms",
                "hit %",
                "NVS full %",
            ],
            &groups,
        );
        out += &disk_summary(run);
    }
    out += &components::table(&run.components);
    out += &host_side(run);
    if let Some(s) = &run.sim {
        out += &format!(
            "  sim: {} events, {} host I/Os, {} s wall\n",
            num(s.events as f64, 0),
            num(s.host_ios as f64, 0),
            s.wall_s
        );
    }
    for w in &run.warnings {
        out += &format!("  warning: {w}\n");
    }
    out += &unsteady(run);
    out
}

/// The warning of a run measured outside steady state (empty when steady).
pub fn unsteady(run: &Run) -> String {
    if let Some(job) = &run.metrics.job {
        return job_line(job, run.metrics.elapsed_s.unwrap_or(job.limit_s));
    }
    if run.steady {
        return String::new();
    }
    let advice = if run.workload.warmup_auto {
        "raise --warmup-max or --duration"
    } else {
        "use --warmup auto, or a longer --warmup or --duration"
    };
    format!(
        "  warning: NOT STEADY: {}; these figures may not hold in a longer run ({advice})\n",
        run.steady_reason.as_deref().unwrap_or("no reason recorded")
    )
}

/// How a job ended, in place of the steady-state verdict (which does not apply to a job).
fn job_line(job: &storlab_core::result::JobOutcome, elapsed_s: f64) -> String {
    if job.complete {
        format!(
            "  job: ran to completion: elapsed {elapsed_s:.3} s ({})\n",
            job.work
        )
    } else {
        format!(
            "  warning: job INCOMPLETE: {}% done when the time limit of {} s was reached \
             (elapsed_s is the limit); raise --duration\n",
            job.done_pct, job.limit_s
        )
    }
}

/// Each class of a simulated run (the streams of a workload file, the database's data and
/// log) with the host table's columns and its target.
fn sim_classes(run: &Run) -> String {
    if run.classes.is_empty() {
        return String::new();
    }
    let rows: Vec<Vec<String>> = run
        .classes
        .iter()
        .map(|c| {
            [c.name.clone(), c.target.clone()]
                .into_iter()
                .chain(host_cells(&c.metrics))
                .collect()
        })
        .collect();
    let header: Vec<&str> = ["class", "target"]
        .into_iter()
        .chain(host_columns())
        .collect();
    render_left(&header, &rows, 2)
}

/// The columns of a latency summary, as every table prints them.
const LATENCY_COLUMNS: [&str; 6] = ["mean ms", "p50", "p95", "p99", "p99.9", "max"];

/// The cells of [`LATENCY_COLUMNS`] for `l`.
fn latency_cells(l: &storlab_core::LatencySummaryMs) -> [String; 6] {
    [l.mean, l.p50, l.p95, l.p99, l.p999, l.max].map(|v| num(v, 3))
}

/// The columns of a simulated run's host figures, after the row's name.
fn host_columns() -> impl Iterator<Item = &'static str> {
    ["IO/s", "read IO/s", "write IO/s", "MB/s"]
        .into_iter()
        .chain(LATENCY_COLUMNS)
}

/// The cells of [`host_columns`] for `m`.
fn host_cells(m: &storlab_core::result::Metrics) -> impl Iterator<Item = String> {
    [
        num(m.iops, 0),
        num(m.read_iops, 0),
        num(m.write_iops, 0),
        num(m.mbps, 1),
    ]
    .into_iter()
    .chain(latency_cells(&m.latency_ms))
}

/// Paths, failure events and rebuilds, when there is something to say.
fn host_side(run: &Run) -> String {
    let mut out = String::new();
    if run.paths.len() > 1 || run.paths.iter().any(|p| p.failed) {
        let rows: Vec<Vec<String>> = run
            .paths
            .iter()
            .map(|p| {
                let state = if p.failed { "failed" } else { "ok" };
                vec![p.name.clone(), num(p.iops, 0), num(p.mbps, 1), state.into()]
            })
            .collect();
        out += &render(&["path", "IO/s", "MB/s", "state"], &rows);
    }
    if run.metrics.io_errors > 0 {
        out += &format!("  I/O errors: {}\n", num(run.metrics.io_errors as f64, 0));
    }
    for e in &run.events {
        out += &format!(
            "  event at {:.1} s: {} {}: {}\n",
            e.t_s, e.kind, e.target, e.detail
        );
    }
    if !run.rebuilds.is_empty() {
        let rows: Vec<Vec<String>> = run
            .rebuilds
            .iter()
            .map(|r| {
                vec![
                    r.member.clone(),
                    r.spare.clone(),
                    r.end_s
                        .map_or("running".into(), |_| format!("{:.1}", r.duration_s)),
                    num(r.rebuilt_mb, 0),
                    num(r.latency_ms_before.mean, 2),
                    num(r.latency_ms_during.mean, 2),
                    num(r.latency_ms_after.mean, 2),
                ]
            })
            .collect();
        out += &render(
            &[
                "rebuild",
                "spare",
                "took s",
                "MB",
                "ms before",
                "ms during",
                "ms after",
            ],
            &rows,
        );
    }
    out
}

/// The device view (iostat -x, min/avg/max) and the tool's own cost of a real run.
pub fn real_io(run: &Run) -> String {
    let mut out = String::new();
    let mut rows = Vec::new();
    for d in &run.iostat {
        let f = |g: &dyn Fn(&storlab_core::result::IostatFigures) -> f64, dec: usize| {
            format!(
                "{}/{}/{}",
                num(g(&d.min), dec),
                num(g(&d.avg), dec),
                num(g(&d.max), dec)
            )
        };
        rows.push(vec![
            d.device.clone(),
            f(&|x| x.r_s, 0),
            f(&|x| x.w_s, 0),
            f(&|x| x.rmb_s, 1),
            f(&|x| x.wmb_s, 1),
            f(&|x| x.r_await_ms, 2),
            f(&|x| x.w_await_ms, 2),
            f(&|x| x.aqu_sz, 1),
            f(&|x| x.util_pct, 0),
        ]);
    }
    if !rows.is_empty() {
        out += &render(
            &[
                "device min/avg/max",
                "r/s",
                "w/s",
                "rMB/s",
                "wMB/s",
                "r_await",
                "w_await",
                "aqu-sz",
                "%util",
            ],
            &rows,
        );
    }
    for c in &run.classes {
        let commit = c.commit.as_ref().map_or(String::new(), |k| {
            format!(
                ", {} commits/s by {} committers, commit ms mean {} p99 {}, {} commits per log write",
                num(k.commits_per_s, 0),
                k.committers,
                num(k.latency_ms.mean, 3),
                num(k.latency_ms.p99, 3),
                num(k.mean_batch, 1)
            )
        });
        out += &format!(
            "  class {}: {} IO/s, {} MB/s, mean {} ms, p99 {} ms{commit}\n",
            c.name,
            num(c.metrics.iops, 0),
            num(c.metrics.mbps, 1),
            num(c.metrics.latency_ms.mean, 3),
            num(c.metrics.latency_ms.p99, 3)
        );
    }
    if let Some(v) = &run.verify {
        out += &format!(
            "  verify: {} blocks checked; {} corrupt, {} misplaced, {} lost, {} unwritten sectors\n",
            num(v.blocks_checked as f64, 0),
            v.corrupt,
            v.misplaced,
            v.lost,
            v.unwritten
        );
        for f in &v.faults {
            out += &format!(
                "    {} at byte {} (expected generation {}, found {} for offset {})\n",
                f.kind, f.offset, f.expected_gen, f.found_gen, f.found_offset
            );
        }
    }
    if let Some(t) = &run.tool {
        out += &format!(
            "  storlab: {} engine, {} ns CPU per I/O{}{}\n",
            t.engine,
            num(t.cpu_ns_per_io, 0),
            t.ios_per_syscall
                .map_or(String::new(), |x| format!(", {x:.1} I/Os per system call")),
            t.requested_iops.map_or(String::new(), |r| format!(
                "; open loop: {} of the {} IO/s requested achieved, {} I/Os started over 1 ms late",
                num(t.achieved_iops, 0),
                num(r, 0),
                num(t.late_ios as f64, 0)
            )),
        );
    }
    out
}

/// Per group, min/avg/max over its disks of IO/s, util and await.
fn disk_summary(run: &Run) -> String {
    let mut rows = Vec::new();
    for a in &run.arrays {
        let prefix = format!("{}.d", a.name);
        let disks: Vec<_> = run
            .devices
            .iter()
            .filter(|d| d.name.starts_with(&prefix))
            .collect();
        if disks.is_empty() {
            continue;
        }
        let stat = |f: &dyn Fn(&storlab_core::result::DeviceMetrics) -> f64, d: usize| {
            let v: Vec<f64> = disks.iter().map(|x| f(x)).collect();
            let min = v.iter().cloned().fold(f64::INFINITY, f64::min);
            let max = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let avg = v.iter().sum::<f64>() / v.len() as f64;
            format!("{}/{}/{}", num(min, d), num(avg, d), num(max, d))
        };
        rows.push(vec![
            format!("{} ({} disks)", a.name, disks.len()),
            stat(&|d| d.iops, 0),
            stat(&|d| d.mbps, 1),
            stat(&|d| d.util_pct, 0),
            stat(&|d| d.await_ms, 1),
            stat(&|d| d.service_ms.unwrap_or(0.0), 2),
        ]);
    }
    render(
        &[
            "disks min/avg/max",
            "IO/s",
            "MB/s",
            "util %",
            "await ms",
            "service ms",
        ],
        &rows,
    )
}

/// The IOgen matrix of one array: one row per profile.
pub fn matrix(name: &str, runs: &[Run]) -> String {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            let util = avg(r.devices.iter().map(|d| d.util_pct));
            vec![
                r.workload.name.clone(),
                num(r.metrics.iops, 0),
                num(r.metrics.mbps, 1),
                num(r.metrics.latency_ms.mean, 3),
                num(r.metrics.latency_ms.p99, 3),
                num(util, 0),
            ]
        })
        .collect();
    format!(
        "IOgen matrix: {name}\n{}",
        render(
            &[
                "profile",
                "IO/s",
                "MB/s",
                "mean ms",
                "p99 ms",
                "disk util %"
            ],
            &rows
        )
    )
}

/// Mean of an iterator (0 when empty).
pub fn avg(it: impl Iterator<Item = f64>) -> f64 {
    let (n, s) = it.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    if n == 0 {
        0.0
    } else {
        s / n as f64
    }
}

/// A simulated load sweep: one row per point, the knee (most IO/s with p99 under the
/// ceiling) marked.
pub fn sweep(runs: &[Run], max_p99_ms: Option<f64>) -> String {
    let knee = max_p99_ms.and_then(|c| storlab_io::sweep::knee(runs, c));
    let rows: Vec<Vec<String>> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let m = &r.metrics;
            vec![
                r.workload.parameters["outstanding"].to_string(),
                num(m.iops, 0),
                num(m.mbps, 1),
                num(m.latency_ms.mean, 3),
                num(m.latency_ms.p99, 3),
                if Some(i) == knee {
                    "<- knee".into()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    render(
        &["outstanding", "IO/s", "MB/s", "mean ms", "p99 ms", ""],
        &rows,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_get_thousands_separators() {
        assert_eq!(num(1234567.0, 0), "1,234,567");
        assert_eq!(num(999.5, 1), "999.5");
        assert_eq!(num(-1234.25, 2), "-1,234.25");
        assert_eq!(num(0.0, 0), "0");
    }

    #[test]
    fn columns_align() {
        let t = render(&["a", "bb"], &[vec!["long".into(), "1".into()]]);
        assert_eq!(t, "  a     bb\n  long   1\n");
    }
}
