//! Chart builders: grouped bar panels, line charts (linear or log), heat maps and stacked
//! bars, each from plain data to one `<svg>` element. They know nothing about studies.

use crate::svg::{fmt_num, Linear, Log, Svg};

mod ratio;
pub use ratio::{ratio_bars, RatioBar, RatioRow};

/// Top margin above line and bar plot areas (room for the title and value labels).
const TOP: f64 = 24.0;
/// Top margin of bar panels (title, then value labels above the tallest bar).
const BAR_TOP: f64 = 36.0;
/// Left margin (room for tick labels).
const LEFT: f64 = 52.0;

/// One bar: a mean and, when repeats differ, their range.
#[derive(Clone, Debug)]
pub struct Bar {
    /// Label under the bar.
    pub label: String,
    /// Height value (the mean).
    pub value: f64,
    /// Range of the repeats, drawn as a whisker when it is not a single point.
    pub range: Option<(f64, f64)>,
    /// Fill colour.
    pub color: String,
}

/// A panel of bars sharing one axis (one metric across configurations).
#[derive(Clone, Debug)]
pub struct BarPanel {
    /// Axis title with its unit ("IOPS", "mean latency, ms").
    pub title: String,
    /// The bars.
    pub bars: Vec<Bar>,
    /// A dashed reference line at this value (100 on "% of baseline" charts).
    pub reference: Option<f64>,
    /// Top of the scale when panels must share one (else the largest bar).
    pub scale_max: Option<f64>,
}

/// Plot height of bar panels, pixels.
pub const BAR_PLOT_H: f64 = 150.0;

/// Side-by-side bar panels, each with its own scale.
pub fn bar_panels(panels: &[BarPanel], label: &str) -> String {
    let widths: Vec<f64> = panels
        .iter()
        .map(|p| {
            let bars = LEFT + 16.0 + 34.0 * p.bars.len().max(1) as f64;
            bars.max(150.0)
                .max(p.title.chars().count() as f64 * 6.8 + 16.0)
        })
        .collect();
    let total: f64 = widths.iter().sum::<f64>() + 10.0;
    let mut svg = Svg::new(total, BAR_TOP + BAR_PLOT_H + 58.0);
    let mut x0 = 0.0;
    for (p, w) in panels.iter().zip(&widths) {
        draw_panel(&mut svg, p, x0, *w);
        x0 += w;
    }
    svg.finish(label)
}

fn draw_panel(svg: &mut Svg, p: &BarPanel, x0: f64, w: f64) {
    let values = p
        .bars
        .iter()
        .flat_map(|b| [b.value, b.range.map_or(0.0, |r| r.1)])
        .chain(p.reference)
        .chain(p.scale_max);
    let scale = Linear::fit(values, BAR_PLOT_H);
    let bottom = BAR_TOP + BAR_PLOT_H;
    let left = x0 + LEFT;
    let ticks = scale.ticks();
    y_axis(svg, (left, BAR_TOP), w - LEFT - 8.0, &ticks, |t| {
        bottom - scale.len(t)
    });
    svg.text(x0 + 4.0, 13.0, "start", "axis-title", &p.title, 0.0);
    if let Some(r) = p.reference {
        let y = bottom - scale.len(r);
        svg.line((left, y), (x0 + w - 8.0, y), "#444", Some("4 3"));
    }
    for (i, b) in p.bars.iter().enumerate() {
        let x = left + 8.0 + 34.0 * i as f64;
        let h = scale.len(b.value);
        let tip = format!("{}: {}", b.label, fmt_num(b.value));
        svg.rect(x, bottom - h, 24.0, h, &b.color, Some(&tip));
        if let Some((lo, hi)) = b.range.filter(|r| r.1 > r.0) {
            let (ylo, yhi) = (bottom - scale.len(lo), bottom - scale.len(hi));
            svg.line((x + 12.0, ylo), (x + 12.0, yhi), "#222", None);
            svg.line((x + 7.0, yhi), (x + 17.0, yhi), "#222", None);
            svg.line((x + 7.0, ylo), (x + 17.0, ylo), "#222", None);
        }
        svg.text(
            x + 12.0,
            bottom - h - 4.0,
            "middle",
            "val",
            &fmt_num(b.value),
            0.0,
        );
        svg.text(x + 14.0, bottom + 12.0, "end", "lbl", &b.label, -35.0);
    }
}

/// Axis line, tick lines and tick labels at `ticks` (pixel y from `y_of`).
fn y_axis(svg: &mut Svg, at: (f64, f64), width: f64, ticks: &[f64], y_of: impl Fn(f64) -> f64) {
    let (left, top) = at;
    for &t in ticks {
        let y = y_of(t);
        svg.line((left, y), (left + width, y), "#e3e3e3", None);
        svg.text(left - 4.0, y + 3.5, "end", "tick", &fmt_num(t), 0.0);
    }
    let bottom = ticks.first().map_or(top, |t| y_of(*t)).max(y_of(0.0));
    svg.line((left, top), (left, bottom), "#666", None);
    svg.line((left, bottom), (left + width, bottom), "#666", None);
}

/// One line of a line chart.
#[derive(Clone, Debug)]
pub struct Line {
    /// Legend name (shown as the tooltip of its points).
    pub name: String,
    /// Stroke colour.
    pub color: String,
    /// Points (x, y) in data units.
    pub points: Vec<(f64, f64)>,
    /// Index of a point to mark as the knee.
    pub knee: Option<usize>,
    /// Dashed line (a second figure of the same configuration).
    pub dashed: bool,
}

/// A line chart.
#[derive(Clone, Debug, Default)]
pub struct LineChart {
    /// X axis title with unit.
    pub x_title: String,
    /// Y axis title with unit.
    pub y_title: String,
    /// The lines.
    pub lines: Vec<Line>,
    /// Log10 y axis.
    pub log_y: bool,
    /// Shaded x range (warm-up), in data units.
    pub shade: Option<(f64, f64)>,
    /// Categorical x labels at integer x positions 0, 1, 2, ... instead of numeric ticks.
    pub x_categories: Vec<String>,
}

/// Width and plot height of line charts, pixels.
pub const LINE_W: f64 = 560.0;
const LINE_PLOT_H: f64 = 200.0;

/// Draws a line chart.
pub fn line_chart(c: &LineChart, label: &str) -> String {
    let mut svg = Svg::new(LINE_W, TOP + LINE_PLOT_H + 46.0);
    let pw = LINE_W - LEFT - 16.0;
    let xs: Vec<f64> = c
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .collect();
    let (mut x_lo, mut x_hi) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, x| {
        (a.0.min(*x), a.1.max(*x))
    });
    if let Some((a, b)) = c.shade {
        (x_lo, x_hi) = (x_lo.min(a), x_hi.max(b));
    }
    if !x_lo.is_finite() {
        (x_lo, x_hi) = (0.0, 1.0);
    } else if x_hi <= x_lo {
        x_hi = x_lo + 1.0;
    }
    let x_px = |x: f64| LEFT + 8.0 + (x - x_lo) / (x_hi - x_lo) * (pw - 16.0);
    let ys = c.lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
    let bottom = TOP + LINE_PLOT_H;
    let y_px: Box<dyn Fn(f64) -> f64> = if c.log_y {
        let s = Log::fit(ys, LINE_PLOT_H);
        y_axis(&mut svg, (LEFT, TOP), pw, &s.ticks(), |t| bottom - s.len(t));
        Box::new(move |v| bottom - s.len(v))
    } else {
        let s = Linear::fit(ys, LINE_PLOT_H);
        y_axis(&mut svg, (LEFT, TOP), pw, &s.ticks(), |t| bottom - s.len(t));
        Box::new(move |v| bottom - s.len(v))
    };
    if let Some((a, b)) = c.shade {
        let (xa, xb) = (x_px(a), x_px(b));
        svg.rect(
            xa,
            TOP,
            xb - xa,
            LINE_PLOT_H,
            "#eeeeee",
            Some("warm-up (not measured)"),
        );
        svg.text(xa + 4.0, TOP + 12.0, "start", "tick", "warm-up", 0.0);
    }
    x_ticks(&mut svg, c, (x_lo, x_hi), &x_px, bottom);
    for l in &c.lines {
        draw_line(&mut svg, l, &x_px, &*y_px);
    }
    svg.text(
        LEFT + pw / 2.0,
        bottom + 40.0,
        "middle",
        "axis-title",
        &c.x_title,
        0.0,
    );
    svg.text(4.0, 12.0, "start", "axis-title", &c.y_title, 0.0);
    svg.finish(label)
}

fn x_ticks(svg: &mut Svg, c: &LineChart, range: (f64, f64), x_px: &dyn Fn(f64) -> f64, y: f64) {
    if !c.x_categories.is_empty() {
        for (i, name) in c.x_categories.iter().enumerate() {
            svg.text(x_px(i as f64), y + 16.0, "middle", "tick", name, 0.0);
        }
        return;
    }
    let step = Linear {
        max: range.1 - range.0,
        px: 1.0,
    }
    .ticks()
    .get(1)
    .copied()
    .unwrap_or(range.1 - range.0);
    let first = (range.0 / step).ceil() as i64;
    let last = (range.1 / step + 1e-9).floor() as i64;
    for k in first..=last {
        let x = k as f64 * step;
        svg.line((x_px(x), y), (x_px(x), y + 4.0), "#666", None);
        svg.text(x_px(x), y + 16.0, "middle", "tick", &fmt_num(x), 0.0);
    }
}

fn draw_line(svg: &mut Svg, l: &Line, x_px: &dyn Fn(f64) -> f64, y_px: &dyn Fn(f64) -> f64) {
    let pts: Vec<(f64, f64)> = l.points.iter().map(|(x, y)| (x_px(*x), y_px(*y))).collect();
    let dash = l.dashed.then_some("5 4");
    if pts.len() > 1 {
        svg.polyline(&pts, &l.color, dash);
    }
    if pts.len() <= 12 || l.knee.is_some() {
        for (p, d) in pts.iter().zip(&l.points) {
            let tip = format!("{}: {} at {}", l.name, fmt_num(d.1), fmt_num(d.0));
            svg.circle(*p, 3.0, &l.color, &l.color, Some(&tip));
        }
    }
    if let Some(&p) = l.knee.and_then(|k| pts.get(k)) {
        svg.circle(p, 8.0, "none", "#000", Some(&format!("{}: knee", l.name)));
        svg.text(p.0 + 10.0, p.1 - 8.0, "start", "knee", "knee", 0.0);
    }
}

/// A heat map of percentages (0..100): rows x columns, `None` for no data.
#[derive(Clone, Debug)]
pub struct HeatMap {
    /// Row labels (devices).
    pub rows: Vec<String>,
    /// Column labels (workloads or configurations).
    pub cols: Vec<String>,
    /// `values[row][col]`.
    pub values: Vec<Vec<Option<f64>>>,
    /// The values the colour scale runs between (lightest, darkest); the map's own range
    /// when `None`. Maps compared with each other share one.
    pub range: Option<(f64, f64)>,
}

impl HeatMap {
    /// The lowest and highest value shown, widened to at least 10 points so that noise
    /// does not look like a difference.
    pub fn observed(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
        let (lo, hi) = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| {
                (a.0.min(v), a.1.max(v))
            });
        if !lo.is_finite() {
            return None;
        }
        let pad = ((10.0 - (hi - lo)) / 2.0).max(0.0);
        let lo = (lo - pad).max(0.0);
        Some((lo, (lo + 10.0).max(hi + pad).min(100.0).max(hi)))
    }

    /// The values the colours run between: [`HeatMap::range`], else the observed range.
    pub fn scale(&self) -> (f64, f64) {
        self.range
            .or_else(|| HeatMap::observed(self.values.iter().flatten().flatten().copied()))
            .unwrap_or((0.0, 100.0))
    }
}

/// Colour of a utilisation share: white to dark blue.
pub fn heat_color(pct: f64) -> String {
    let f = (pct / 100.0).clamp(0.0, 1.0);
    let ch = |lo: f64, hi: f64| (lo + (hi - lo) * f).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        ch(247.0, 8.0),
        ch(251.0, 48.0),
        ch(255.0, 107.0)
    )
}

/// Draws a heat map with the value printed in each cell, its colours spread over the
/// map's range ([`HeatMap::range`]), and a legend of that scale under it.
pub fn heat_map(h: &HeatMap, label: &str) -> String {
    let longest = h.cols.iter().map(|c| c.chars().count()).max().unwrap_or(0) as f64;
    let (cw, ch, left) = (84.0, 18.0, 90.0);
    let top = 16.0 + longest * 5.2;
    let w = left + cw * h.cols.len() as f64 + longest * 5.2;
    let grid_bottom = top + ch * h.rows.len() as f64;
    let mut svg = Svg::new(w.max(300.0), grid_bottom + 44.0);
    let (lo, hi) = h.scale();
    let share = |v: f64| ((v - lo) / (hi - lo).max(1e-9) * 100.0).clamp(0.0, 100.0);
    for (j, c) in h.cols.iter().enumerate() {
        let x = left + cw * j as f64 + cw / 2.0;
        svg.text(x, top - 6.0, "start", "lbl", c, -35.0);
    }
    for (i, r) in h.rows.iter().enumerate() {
        let y = top + ch * i as f64;
        svg.text(left - 6.0, y + ch - 5.0, "end", "tick", r, 0.0);
        for (j, v) in h.values[i].iter().enumerate() {
            let x = left + cw * j as f64;
            let Some(v) = v else { continue };
            let tip = format!("{r}, {}: {v:.0}% busy", h.cols[j]);
            svg.rect(
                x + 1.0,
                y + 1.0,
                cw - 2.0,
                ch - 2.0,
                &heat_color(share(*v)),
                Some(&tip),
            );
            let class = if share(*v) > 55.0 {
                "cell-dark"
            } else {
                "cell"
            };
            svg.text(
                x + cw / 2.0,
                y + ch - 5.0,
                "middle",
                class,
                &format!("{v:.0}%"),
                0.0,
            );
        }
    }
    heat_legend(&mut svg, (left, grid_bottom + 12.0), (lo, hi));
    svg.finish(label)
}

/// Five swatches from `lo` to `hi` % busy, labelled (the caption says the range is the
/// observed one).
fn heat_legend(svg: &mut Svg, at: (f64, f64), (lo, hi): (f64, f64)) {
    let (x0, y) = at;
    svg.text(x0 - 6.0, y + 10.0, "end", "tick", "% busy", 0.0);
    for k in 0..5 {
        let v = lo + (hi - lo) * f64::from(k) / 4.0;
        let x = x0 + 46.0 * f64::from(k);
        svg.swatch(x, y, 44.0, 12.0, &heat_color(f64::from(k) * 25.0));
        svg.text(
            x + 22.0,
            y + 25.0,
            "middle",
            "tick",
            &format!("{v:.0}%"),
            0.0,
        );
    }
}

/// One horizontal stacked bar: a label and (segment index, value) parts.
#[derive(Clone, Debug)]
pub struct Stack {
    /// Label left of the bar.
    pub label: String,
    /// Segments: index into the segment colours, value.
    pub parts: Vec<(usize, f64)>,
}

/// Draws horizontal stacked bars on a 0..100 % axis; `names[i]` and `colors[i]` describe
/// segment index `i`.
pub fn stacked_bars(stacks: &[Stack], names: &[String], colors: &[String], label: &str) -> String {
    let (left, pw, bh) = (110.0, 400.0, 22.0);
    let mut svg = Svg::new(
        left + pw + 20.0,
        TOP + bh * 1.4 * stacks.len() as f64 + 34.0,
    );
    let scale = Linear { max: 100.0, px: pw };
    let bottom = TOP + bh * 1.4 * stacks.len() as f64;
    for t in scale.ticks() {
        let x = left + scale.len(t);
        svg.line((x, TOP), (x, bottom), "#e3e3e3", None);
        svg.text(x, bottom + 14.0, "middle", "tick", &format!("{t:.0}%"), 0.0);
    }
    for (i, s) in stacks.iter().enumerate() {
        let y = TOP + bh * 1.4 * i as f64;
        svg.text(left - 6.0, y + bh - 7.0, "end", "tick", &s.label, 0.0);
        let mut x = left;
        for &(seg, v) in &s.parts {
            let w = scale.len(v);
            let name = names.get(seg).map_or("?", String::as_str);
            let color = colors.get(seg).map_or("#999", String::as_str);
            svg.rect(
                x,
                y,
                w,
                bh,
                color,
                Some(&format!("{}: {name} {v:.1}%", s.label)),
            );
            x += w;
        }
    }
    svg.text(
        left + pw / 2.0,
        bottom + 30.0,
        "middle",
        "axis-title",
        "share of sampled DB time, %",
        0.0,
    );
    svg.finish(label)
}

#[cfg(test)]
mod tests;
