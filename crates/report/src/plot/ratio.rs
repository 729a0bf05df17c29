//! Ratios to a baseline as horizontal bars from 1x on a log scale: one row per workload,
//! one bar per compared configuration, each labelled with its ratio, and the band of
//! differences that count as equal shaded.

use crate::svg::Svg;

/// One bar: a configuration's figure divided by the baseline's.
#[derive(Clone, Debug)]
pub struct RatioBar {
    /// Configuration name (tooltip).
    pub name: String,
    /// other / baseline (> 0).
    pub ratio: f64,
    /// Fill colour.
    pub color: String,
}

/// One row: a workload and its metric.
#[derive(Clone, Debug)]
pub struct RatioRow {
    /// Label left of the bars ("random-write IOPS").
    pub label: String,
    /// The bars.
    pub bars: Vec<RatioBar>,
}

const W: f64 = 860.0;
const LABEL_W: f64 = 250.0;
const RIGHT: f64 = 70.0;
const BAR_H: f64 = 14.0;
const TOP: f64 = 34.0;

/// A ratio as said on the chart: "+7%", "-4%" within 1.5x, else "2.0x", "0.25x".
pub fn ratio_text(r: f64) -> String {
    if (r - 1.0).abs() < 0.005 {
        "±0%".into()
    } else if (1.0 / 1.5..1.5).contains(&r) {
        format!("{:+.0}%", (r - 1.0) * 100.0)
    } else if r >= 1.5 {
        format!("{r:.1}x")
    } else {
        format!("{r:.2}x")
    }
}

/// Draws the rows; `band_pct` is the share around 1x shaded as "equal", `better` names what
/// lies right of 1x and `base` the baseline.
pub fn ratio_bars(rows: &[RatioRow], band_pct: f64, base: &str, label: &str) -> String {
    let row_h = |r: &RatioRow| r.bars.len().max(1) as f64 * (BAR_H + 2.0) + 8.0;
    let plot_h: f64 = rows.iter().map(row_h).sum();
    let mut svg = Svg::new(W, TOP + plot_h + 44.0);
    let widest = rows
        .iter()
        .flat_map(|r| r.bars.iter().map(|b| b.ratio.ln().abs()))
        .filter(|v| v.is_finite())
        .fold(1.25f64.ln(), f64::max)
        * 1.08;
    let (x0, x1) = (LABEL_W, W - RIGHT);
    let mid = (x0 + x1) / 2.0;
    let x = |r: f64| mid + (r.ln() / widest).clamp(-1.0, 1.0) * (x1 - mid);
    let bottom = TOP + plot_h;
    let band = band_pct / 100.0;
    svg.rect(
        x(1.0 - band),
        TOP,
        x(1.0 + band) - x(1.0 - band),
        plot_h,
        "#eceff3",
        Some(&format!("within {band_pct:.0}%: counted as equal")),
    );
    let mut last = f64::NEG_INFINITY;
    for t in TICKS.iter().filter(|t| t.ln().abs() <= widest) {
        let px = x(*t);
        if px - last < 42.0 && *t != 1.0 {
            continue;
        }
        last = px;
        svg.line((px, TOP), (px, bottom), "#e3e3e3", None);
        svg.text(px, bottom + 14.0, "middle", "tick", &tick_text(*t), 0.0);
    }
    svg.line((x(1.0), TOP - 4.0), (x(1.0), bottom), "#333", None);
    svg.text(
        x(1.0),
        TOP - 8.0,
        "middle",
        "tick",
        &format!("= {base}"),
        0.0,
    );
    svg.text(x0 + 4.0, TOP - 8.0, "start", "tick", "worse", 0.0);
    svg.text(x1 - 4.0, TOP - 8.0, "end", "tick", "better", 0.0);
    let mut y = TOP + 4.0;
    for r in rows {
        let h = row_h(r);
        svg.text(
            x0 - 8.0,
            y + (h - 8.0) / 2.0 + 4.0,
            "end",
            "rlbl",
            &r.label,
            0.0,
        );
        for (i, b) in r.bars.iter().enumerate() {
            let by = y + i as f64 * (BAR_H + 2.0);
            let (a, e) = (x(1.0), x(b.ratio.max(1e-9)));
            let (left, width) = (a.min(e), (e - a).abs().max(1.5));
            let text = ratio_text(b.ratio);
            let tip = format!("{}: {text} of {base}", b.name);
            svg.rect(left, by, width, BAR_H, &b.color, Some(&tip));
            let (tx, anchor) = if e >= a {
                (e + 4.0, "start")
            } else {
                (e - 4.0, "end")
            };
            svg.text(tx, by + BAR_H - 3.0, anchor, "rval", &text, 0.0);
        }
        y += h;
    }
    svg.text(
        mid,
        bottom + 34.0,
        "middle",
        "axis-title",
        &format!("ratio to {base} (log scale; the shaded band counts as equal)"),
        0.0,
    );
    svg.finish(label)
}

const TICKS: [f64; 19] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.67, 0.8, 1.0, 1.25, 1.5, 2.0, 4.0, 5.0, 10.0, 20.0,
    50.0, 100.0,
];

fn tick_text(t: f64) -> String {
    let s = format!("{t:.2}");
    format!("{}x", s.trim_end_matches('0').trim_end_matches('.'))
}
