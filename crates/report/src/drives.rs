//! The page of `storlab validate --drives --html`: for each real drive, the measured and the
//! simulated service-time distributions as CDFs (the demerit is the root-mean-square
//! horizontal distance between them), the model built from the drive's datasheet figures
//! alone as a third, dashed line, and the table of demerits. Self-contained like the study
//! report: inline CSS and SVG, no scripts, no URLs.

use crate::plot::{line_chart, Line, LineChart};
use crate::svg::{config_color, esc};

/// One drive's distributions and figures.
#[derive(Clone, Debug)]
pub struct DriveCdf {
    /// Drive name (the trace's file stem).
    pub drive: String,
    /// Requests replayed.
    pub requests: usize,
    /// Service times at evenly spaced quantiles (1/n ... 1), ms: measured, simulated with
    /// the measured parameters, simulated with the datasheet form.
    pub measured_ms: Vec<f64>,
    pub simulated_ms: Vec<f64>,
    pub datasheet_ms: Vec<f64>,
    /// Demerits, ms: storlab's, storlab's datasheet form's, DiskSim's when known.
    pub demerit_ms: f64,
    pub datasheet_demerit_ms: f64,
    pub reference_demerit_ms: Option<f64>,
}

/// The CDF chart of one drive: x the service time, y the cumulative share.
pub fn cdf_chart(d: &DriveCdf) -> String {
    let line = |name: &str, color: usize, ms: &[f64], dashed: bool| {
        let n = ms.len().max(1) as f64;
        Line {
            name: name.to_string(),
            color: config_color(color).to_string(),
            points: ms
                .iter()
                .enumerate()
                .map(|(i, v)| (*v, (i + 1) as f64 / n))
                .collect(),
            knee: None,
            dashed,
        }
    };
    let chart = LineChart {
        x_title: "service time, ms".into(),
        y_title: "share of requests".into(),
        lines: vec![
            line("measured", 7, &d.measured_ms, false),
            line("storlab, measured parameters", 0, &d.simulated_ms, false),
            line("storlab, datasheet form", 1, &d.datasheet_ms, true),
        ],
        ..LineChart::default()
    };
    line_chart(&chart, &format!("{}: service-time CDFs", d.drive))
}

fn legend() -> String {
    let item = |color: usize, name: &str, dash: &str| {
        format!(
            "<span class=\"legend-item\"><svg width=\"22\" height=\"10\"><line x1=\"0\" y1=\"5\" \
             x2=\"22\" y2=\"5\" stroke=\"{}\" stroke-width=\"2\"{dash}/></svg> {}</span> ",
            config_color(color),
            esc(name)
        )
    };
    format!(
        "<p class=\"legend\">{}{}{}</p>",
        item(7, "measured (the real drive)", ""),
        item(0, "storlab with the drive's measured parameters", ""),
        item(
            1,
            "storlab with its datasheet figures only",
            " stroke-dasharray=\"5 4\""
        )
    )
}

fn table(drives: &[DriveCdf], refused: &[(String, String)]) -> String {
    let mut rows = String::new();
    for d in drives {
        let reference = d
            .reference_demerit_ms
            .map_or("-".to_string(), |r| format!("{r:.3}"));
        let verdict = match d.reference_demerit_ms {
            None => "no reference",
            Some(r) if d.demerit_ms <= r => "pass",
            Some(_) => "FAIL",
        };
        rows.push_str(&format!(
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.3}</td>\
             <td class=\"num\">{reference}</td><td class=\"num\">{:.3}</td><td>{verdict}</td></tr>",
            esc(&d.drive),
            d.requests,
            d.demerit_ms,
            d.datasheet_demerit_ms
        ));
    }
    for (drive, reason) in refused {
        rows.push_str(&format!(
            "<tr><td>{}</td><td colspan=\"4\">{}</td><td>refused</td></tr>",
            esc(drive),
            esc(reason)
        ));
    }
    format!(
        "<table><thead><tr><th>drive</th><th>requests</th><th>demerit, ms</th>\
         <th>DiskSim's, ms</th><th>datasheet form, ms</th><th>verdict</th></tr></thead>\
         <tbody>{rows}</tbody></table>"
    )
}

/// The whole page: the drives checked, and those refused with the reason (the file, key
/// and reason the importer gave), which have no chart.
pub fn page(title: &str, drives: &[DriveCdf], refused: &[(String, String)]) -> String {
    let charts: String = drives
        .iter()
        .map(|d| {
            format!(
                "<figure><figcaption>{} ({} requests): demerit {:.3} ms, datasheet form \
                 {:.3} ms{}</figcaption>{}</figure>",
                esc(&d.drive),
                d.requests,
                d.demerit_ms,
                d.datasheet_demerit_ms,
                d.reference_demerit_ms
                    .map_or(String::new(), |r| format!(", DiskSim {r:.3} ms")),
                cdf_chart(d)
            )
        })
        .collect();
    let body = format!(
        "<section id=\"drives\"><h2>Demerits</h2>{}</section>\
         <section id=\"cdfs\"><h2>Service-time distributions</h2>{}{charts}</section>",
        table(drives, refused),
        legend(),
    );
    let sub = "Each trace replayed one request at a time as it was issued; the demerit is the \
               root-mean-square horizontal distance between the measured and the simulated CDF.";
    crate::html::document(title, Some(sub), &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive(name: &str, demerit: f64) -> DriveCdf {
        DriveCdf {
            drive: name.into(),
            requests: 4,
            measured_ms: vec![1.0, 2.0, 3.0, 4.0],
            simulated_ms: vec![1.5, 2.5, 3.0, 4.5],
            datasheet_ms: vec![2.0, 3.0, 4.0, 6.0],
            demerit_ms: demerit,
            datasheet_demerit_ms: 1.2,
            reference_demerit_ms: Some(0.4),
        }
    }

    #[test]
    fn each_drive_gets_a_chart_with_three_cdfs_and_a_row_with_its_verdict() {
        let refused = [(
            "e&f".to_string(),
            "e.diskspecs: `Key = 1` is not <supported>".to_string(),
        )];
        let html = page("Drives", &[drive("a<b", 0.3), drive("c", 0.5)], &refused);
        assert_eq!(html.matches("<figure>").count(), 2);
        // Three polylines per chart; the datasheet form dashed.
        assert_eq!(html.matches("<polyline").count(), 6, "{html}");
        assert!(html.contains("a&lt;b") && !html.contains("a<b"));
        assert!(html.contains("<td>pass</td>") && html.contains("<td>FAIL</td>"));
        // The refused drive: a row with its escaped reason, no chart.
        assert!(html.contains("<td>e&amp;f</td>") && html.contains("<td>refused</td>"));
        assert!(html.contains("is not &lt;supported&gt;"), "{html}");
        assert!(!html.contains("<script") && !html.contains("http"));
    }

    #[test]
    fn the_cdf_rises_from_the_first_quantile_to_one() {
        let svg = cdf_chart(&drive("d", 0.1));
        assert!(svg.contains("service time, ms") && svg.contains("share of requests"));
        // Tooltips carry the data points: the last measured point is (4 ms, share 1).
        assert!(svg.contains("measured: 1 at 4"), "{svg}");
    }
}
