use storlab_report::{findings, render_html};

use crate::support::{hostile_study, raid_study};

/// Every `<svg ...>...</svg>` element of the page.
fn svgs(html: &str) -> Vec<&str> {
    html.split("<svg ")
        .skip(1)
        .map(|s| &s[..s.find("</svg>").expect("closed svg")])
        .collect()
}

/// Numeric attribute `name` of the element starting at `el`.
fn attr(el: &str, name: &str) -> Option<f64> {
    let el = &el[..el.find('>')?];
    let key = format!(" {name}=\"");
    let start = el.find(&key)? + key.len();
    el[start..start + el[start..].find('"')?].parse().ok()
}

/// True when the drawing has a mark of non-zero size: a bar, a point, or a line.
fn has_marks(svg: &str) -> bool {
    let rects = svg.split("<rect ").skip(1).any(|r| {
        attr(r, "width").is_some_and(|w| w > 0.0) && attr(r, "height").is_some_and(|h| h > 0.0)
    });
    let circles = svg
        .split("<circle ")
        .skip(1)
        .any(|c| attr(c, "r").is_some_and(|r| r > 0.0));
    let lines = svg.split("<polyline points=\"").skip(1).any(|p| {
        let pts = &p[..p.find('"').unwrap_or(0)];
        pts.split(' ').count() > 1
    });
    rects || circles || lines
}

/// Values of `attr="..."` over the page.
fn attr_strings<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let key = format!("{attr}=\"");
    html.split(&key)
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap_or(0)])
        .collect()
}

#[test]
fn names_every_configuration_and_has_no_urls() {
    for study in [hostile_study(), storlab_report::synthetic::demo_study()] {
        let html = render_html(&study);
        for c in &study.configurations {
            let escaped = c.name.replace('<', "&lt;").replace('>', "&gt;");
            assert!(html.contains(&escaped), "{} missing", c.name);
        }
        assert!(!html.contains("http://") && !html.contains("https://"));
        assert!(!html.contains("<script"), "no scripts needed");
        assert!(html.starts_with("<!DOCTYPE html>"));
    }
}

#[test]
fn input_text_is_escaped() {
    let html = render_html(&hostile_study());
    assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"));
    assert!(!html.contains("<b>x</b>"));
    assert!(html.contains("disk &lt;full&gt; &amp; &quot;gone&quot;"));
    assert!(!html.contains("disk <full>"));
}

#[test]
fn every_chart_draws_marks() {
    for study in [hostile_study(), storlab_report::synthetic::demo_study()] {
        let html = render_html(&study);
        let all = svgs(&html);
        assert!(all.len() >= 7, "only {} charts", all.len());
        for svg in all {
            assert!(
                has_marks(svg),
                "empty chart: {}",
                &svg[..svg.len().min(300)]
            );
            assert!(
                !svg.contains("NaN") && !svg.contains("inf"),
                "bad number in chart"
            );
            assert!(!svg.contains("height=\"-"), "negative height");
        }
    }
}

#[test]
fn the_demo_has_every_kind_of_chart() {
    let html = render_html(&storlab_report::synthetic::demo_study());
    for id in [
        "chart-relative",
        "-sweep\"",
        "-series\"",
        "-pct\"",
        "-waits\"",
        "chart-util-raid5",
    ] {
        assert!(html.contains(id), "no {id}");
    }
    assert!(html.contains(">knee</text>") && html.contains(">warm-up</text>"));
    assert!(
        html.contains("knee ringed: raid5 at 8 outstanding, raid10 at 8 outstanding"),
        "the sweep caption names each configuration's knee load"
    );
    assert_eq!(
        svgs(&html).len(),
        20,
        "relative + 16 per workload + this machine's update-row over time + 2 heat maps"
    );
    assert!(html.contains("2N/(N+1) = 1.71"), "RAID factor sentence");
    assert!(
        !html.contains("id=\"sim-vs-real\""),
        "no question pairs the simulated arrays with the real disk"
    );
}

#[test]
fn failed_cells_are_shown_with_their_reason() {
    let html = render_html(&hostile_study());
    let failures = &html[html.find("id=\"failures\"").expect("failures section")..];
    assert!(failures.contains("seqwrite-1m"));
    assert!(failures.contains("disk &lt;full&gt;"));
}

#[test]
fn every_link_has_its_target() {
    for study in [hostile_study(), storlab_report::synthetic::demo_study()] {
        let html = render_html(&study);
        let ids = attr_strings(&html, "id");
        for f in findings(&study) {
            assert!(
                ids.contains(&f.anchor.as_str()),
                "finding anchor {} missing",
                f.anchor
            );
        }
        for href in attr_strings(&html, "href") {
            let target = href.strip_prefix('#').expect("local links only");
            assert!(ids.contains(&target), "dangling link #{target}");
        }
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "duplicate ids");
    }
}

#[test]
fn sections_come_in_order_and_each_has_a_footer() {
    let html = render_html(&hostile_study());
    let pos = |id: &str| html.find(&format!("<section id=\"{id}\"")).expect(id);
    assert!(pos("summary") < pos("charts"));
    assert!(pos("charts") < pos("tables"));
    assert!(pos("tables") < pos("sim-vs-real"));
    assert!(pos("sim-vs-real") < pos("failures"));
    let sections = html.matches("<section ").count();
    assert_eq!(html.matches("<footer class=\"meta\">").count(), sections);
    assert!(html.contains("seed 42") && html.contains("2 CPUs, 24 GiB"));
}

#[test]
fn prints_cleanly_and_is_deterministic() {
    let study = raid_study(["raid5", "raid10"]);
    let html = render_html(&study);
    assert!(html.contains("@media print"));
    assert!(html.contains("break-inside: avoid"));
    assert_eq!(html, render_html(&study));
}

#[test]
fn time_series_shade_the_warm_up_of_the_runs() {
    // The synthetic runs measured after a 5 s warm-up; keep only the measured intervals
    // (t >= 0), as simulated and real runs write them.
    let mut study = storlab_report::synthetic::demo_study();
    for run in study.cells.iter_mut().filter_map(|c| c.run.as_mut()) {
        run.series.retain(|p| p.t_s >= 0.0);
        assert!(run.workload.warmup_s > 0.0);
    }
    let html = render_html(&study);
    let series = html
        .split("<figure")
        .find(|f| f.contains("-series\""))
        .expect("a time-series chart");
    assert!(series.contains("warm-up (not measured)"), "warm-up shaded");
}

#[test]
fn real_wait_means_say_what_timed_them_and_untimed_ones_show_a_dash() {
    let mut study = raid_study(["raid5", "raid10"]);
    let plain = render_html(&study);
    assert!(
        !plain.contains("mean from"),
        "simulated means need no source"
    );
    let run = study
        .cells
        .iter_mut()
        .filter_map(|c| c.run.as_mut())
        .find(|r| r.workload.name == "dpaws/update-row")
        .expect("a database run");
    run.metrics.waits = vec![
        storlab_core::result::WaitEvent {
            event: "IO:WalSync".into(),
            time_pct: 60.0,
            avg_ms: Some(0.124),
            avg_from: Some("pg_stat_wal".into()),
        },
        storlab_core::result::WaitEvent {
            event: "LWLock:WALWrite".into(),
            time_pct: 40.0,
            avg_ms: None,
            avg_from: None,
        },
    ];
    let html = render_html(&study);
    let table = html
        .split("<table")
        .find(|t| t.contains("avg wait ms"))
        .expect("the timed-events table");
    assert!(table.contains("mean from"), "{table}");
    assert!(table.contains(">0.124</td>") && table.contains("<td>pg_stat_wal</td>"));
    let lwlock = &table[table.find("LWLock:WALWrite").expect("the untimed event")..];
    let row = &lwlock[..lwlock.find("</tr>").expect("end of row")];
    assert_eq!(
        row.matches("<td>-</td>").count(),
        2,
        "no mean, no source: {row}"
    );
}

/// The text of the page between `from` and the next `to`.
fn between<'a>(html: &'a str, from: &str, to: &str) -> &'a str {
    let start = html.find(from).unwrap_or_else(|| panic!("no {from}")) + from.len();
    let len = html[start..].find(to).unwrap_or_else(|| panic!("no {to}"));
    &html[start..start + len]
}

/// Database workloads are tabled by what the client sees (throughput, transaction p50 and
/// p99, commit p99), the I/O workloads by their headline and host p99, each apart.
#[test]
fn the_findings_tables_show_transaction_figures_of_database_workloads() {
    let mut study = raid_study(["raid5", "raid10"]);
    for r in study.cells.iter_mut().filter_map(|c| c.run.as_mut()) {
        if let Some(rows_per_s) = r.metrics.rows_per_s {
            // One row per transaction of 2 ms mean; commits of 0.2 ms mean.
            let latency = storlab_report::synthetic::latency;
            r.metrics.tx_latency_ms = Some(latency(2.0));
            r.metrics.commit_ms = Some(latency(0.2));
            r.metrics.transactions = vec![storlab_core::result::TransactionMetrics {
                name: "update".into(),
                count: (rows_per_s * 60.0) as u64,
                tx_per_s: rows_per_s,
                latency_ms: latency(2.0),
            }];
        }
    }
    let html = render_html(&study);
    let io = between(&html, "<h4>I/O workloads</h4>", "</table>");
    assert!(
        io.contains("randwrite-8k") && !io.contains("dpaws/update-row"),
        "{io}"
    );
    let db = between(&html, "<h4>Database workloads</h4>", "</table>");
    for column in ["rows/s", "tx/s", "tx p50 ms", "tx p99 ms", "commit p99 ms"] {
        assert!(db.contains(&format!("<th>{column}</th>")), "{column}: {db}");
    }
    // update-row: 1000 rows/s on raid5 and 1070 on raid10 (one row per transaction), 2 ms
    // mean (p50 1.6, p99 7), commits of 0.2 ms mean (p99 0.7).
    let raid10 = between(db, "raid10</td>", "</tr>");
    for figure in ["1070", "1.6", "7", "0.7", "+7.0%"] {
        assert!(
            raid10.contains(&format!(">{figure}</td>")),
            "{figure}: {raid10}"
        );
    }
    assert!(!raid10.contains("-</td>"), "every figure present: {raid10}");
}

#[test]
fn a_users_sweep_gets_its_curve_and_knee_in_the_report() {
    let mut study = raid_study(["raid5", "raid10"]);
    assert!(!storlab_report::render_html(&study).contains("id=\"users\""));
    let sweep: storlab_core::result::UsersSweep = serde_json::from_value(serde_json::json!({
        "statistic": "p95", "max_response_ms": 100.0, "think_ms": 50.0,
        "max_users": 40, "knee_users": 36,
        "knee": {"n_star": 36.2, "demand_ms": 4.0, "bottleneck_demand_ms": 1.5,
                 "bottleneck": "log writer"},
        "points": [
            {"users": 10, "tx_per_s": 180.0, "response_ms": {"mean": 4.0, "p50": 4.0,
             "p95": 8.0, "p99": 9.0, "p999": 9.5, "max": 10.0}, "passes": true,
             "steady": true},
            {"users": 40, "tx_per_s": 640.0, "response_ms": {"mean": 30.0, "p50": 25.0,
             "p95": 90.0, "p99": 120.0, "p999": 130.0, "max": 140.0}, "passes": true,
             "steady": true,
             "stations": [{"name": "log writer", "util_pct": 96.0}]},
            {"users": 80, "tx_per_s": 660.0, "response_ms": {"mean": 70.0, "p50": 60.0,
             "p95": 150.0, "p99": 200.0, "p999": 210.0, "max": 220.0}, "passes": false,
             "steady": true}
        ]
    }))
    .expect("a users sweep");
    study.users_sweeps.push(storlab_report::UsersSweepCell {
        configuration: "raid5".into(),
        workload: "dpaws/update-row".into(),
        sweep: sweep.clone(),
    });
    let page = storlab_report::render_html(&study);
    let at = page
        .find("<section id=\"users\">")
        .expect("the users section");
    let users = &page[at..at + page[at..].find("</section>").expect("its end")];
    // The same fragment as the users-sweep page: the answer, both charts and the table.
    assert!(users.contains(&storlab_report::users_sweep::section(&sweep)));
    assert!(users.contains("on raid5</h3>"), "{users}");
    assert!(
        users.contains("Carries 40 users under p95 100 ms"),
        "{users}"
    );
    assert!(users.contains("knee 36"), "{users}");
    assert_eq!(users.matches("<svg").count(), 2, "{users}");
    assert!(users.contains("log writer"), "{users}");
    // In a real browser (Debian's chromium, which `make test` installs), as the compare
    // report's own browser test: the section is in the DOM and both charts draw.
    let browser = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            std::process::Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("a headless browser: apt-get install chromium (make test installs it)");
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("users-report-{}.html", std::process::id()));
    std::fs::write(&file, &page).expect("write the page");
    let dom = std::process::Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", file.display()))
        .output();
    let _ = std::fs::remove_file(&file);
    let dom = dom.expect("the browser runs");
    let dom = String::from_utf8_lossy(&dom.stdout).into_owned();
    let at = dom
        .find("<section id=\"users\">")
        .expect("the section in the DOM");
    let rendered = &dom[at..at + dom[at..].find("</section>").expect("its end")];
    let charts: Vec<&str> = rendered.split("<svg").skip(1).collect();
    assert_eq!(charts.len(), 2, "{rendered}");
    for chart in charts {
        assert!(
            chart.contains("<circle") || chart.contains("<polyline"),
            "{chart}"
        );
    }
}
