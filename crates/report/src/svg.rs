//! SVG primitives, scales, palettes and number formatting for the charts.
//!
//! SVG is written inline in HTML5, so no `xmlns` attribute (and no URL) is needed.

use std::fmt::Write;

/// Configuration colours (Okabe-Ito, colour-blind safe), by configuration index.
pub const CONFIG_COLORS: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C7A00", "#000000",
];

/// Wait event colours (Paul Tol "muted"), by event rank; "other" is [`OTHER_COLOR`].
pub const EVENT_COLORS: [&str; 8] = [
    "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255",
];

/// Colour of the "other" share.
pub const OTHER_COLOR: &str = "#BBBBBB";

/// Colour of configuration `i`.
pub fn config_color(i: usize) -> &'static str {
    CONFIG_COLORS[i % CONFIG_COLORS.len()]
}

/// Escapes text for HTML and SVG content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A number short enough for an axis tick or a bar label: 12k, 1.5M, 3.2, 0.041.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    let s = if !v.is_finite() {
        "-".to_string()
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else if a >= 0.01 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    trim_zeros(s)
}

/// "50.0" -> "50", "0.40" -> "0.4", "1.0M" -> "1M"; integers unchanged.
fn trim_zeros(s: String) -> String {
    let Some(dot) = s.find('.') else { return s };
    let end = s[dot + 1..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(s.len(), |i| dot + 1 + i);
    let digits = s[..end].trim_end_matches('0').trim_end_matches('.');
    format!("{digits}{}", &s[end..])
}

/// A linear scale from `0..=max` to `0..=px` pixels; negative values map to 0.
#[derive(Clone, Copy, Debug)]
pub struct Linear {
    /// Top of the domain (the largest value drawn reaches the full length).
    pub max: f64,
    /// Length in pixels.
    pub px: f64,
}

impl Linear {
    /// A scale whose top is the largest of `values` (1 when all are zero or absent).
    pub fn fit(values: impl IntoIterator<Item = f64>, px: f64) -> Linear {
        let max = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max);
        Linear {
            max: if max > 0.0 { max } else { 1.0 },
            px,
        }
    }

    /// Pixel length of `v`, within `0..=px`.
    pub fn len(&self, v: f64) -> f64 {
        if !v.is_finite() || v <= 0.0 {
            return 0.0;
        }
        (v / self.max).min(1.0) * self.px
    }

    /// Round tick values from 0 up to the top of the domain.
    pub fn ticks(&self) -> Vec<f64> {
        let raw = self.max / 4.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * mag);
        (0..=8)
            .map(|i| i as f64 * step)
            .take_while(|t| *t <= self.max * 1.000_001)
            .collect()
    }
}

/// A log10 scale over whole decades covering the positive values.
#[derive(Clone, Copy, Debug)]
pub struct Log {
    /// Lowest decade exponent.
    pub lo: i32,
    /// Highest decade exponent.
    pub hi: i32,
    /// Length in pixels.
    pub px: f64,
}

impl Log {
    /// Decades covering the positive `values`.
    pub fn fit(values: impl IntoIterator<Item = f64>, px: f64) -> Log {
        let pos: Vec<f64> = values
            .into_iter()
            .filter(|v| v.is_finite() && *v > 0.0)
            .collect();
        let lo = pos.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = pos.iter().copied().fold(0.0, f64::max);
        if pos.is_empty() {
            return Log { lo: 0, hi: 1, px };
        }
        let lo = lo.log10().floor() as i32;
        let hi = (hi.log10().ceil() as i32).max(lo + 1);
        Log { lo, hi, px }
    }

    /// Pixel length of `v` from the bottom (values below the lowest decade map to 0).
    pub fn len(&self, v: f64) -> f64 {
        if !v.is_finite() || v <= 0.0 {
            return 0.0;
        }
        let f = (v.log10() - self.lo as f64) / (self.hi - self.lo) as f64;
        f.clamp(0.0, 1.0) * self.px
    }

    /// One tick per decade.
    pub fn ticks(&self) -> Vec<f64> {
        (self.lo..=self.hi).map(|e| 10f64.powi(e)).collect()
    }
}

/// An SVG document being drawn.
pub struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    /// An empty drawing of `width` x `height` pixels.
    pub fn new(width: f64, height: f64) -> Svg {
        Svg {
            width,
            height,
            body: String::new(),
        }
    }

    /// A filled rectangle with an optional tooltip.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, tip: Option<&str>) {
        let _ = write!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}">"#
        );
        if let Some(t) = tip {
            let _ = write!(self.body, "<title>{}</title>", esc(t));
        }
        self.body.push_str("</rect>");
    }

    /// A filled box drawn as a path: a legend swatch, not a data mark.
    pub fn swatch(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        let _ = write!(
            self.body,
            r#"<path d="M{x:.1} {y:.1}h{w:.1}v{h:.1}h-{w:.1}z" fill="{fill}"/>"#
        );
    }

    /// A straight line; `dash` like "4 3".
    pub fn line(&mut self, a: (f64, f64), b: (f64, f64), stroke: &str, dash: Option<&str>) {
        let dash = dash.map_or(String::new(), |d| format!(r#" stroke-dasharray="{d}""#));
        let _ = write!(
            self.body,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}"{dash}/>"#,
            a.0, a.1, b.0, b.1
        );
    }

    /// Text; `anchor` is start, middle or end; `rotate` in degrees about (x, y).
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, class: &str, s: &str, rotate: f64) {
        let rot = if rotate != 0.0 {
            format!(r#" transform="rotate({rotate:.0} {x:.1} {y:.1})""#)
        } else {
            String::new()
        };
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" class="{class}"{rot}>{}</text>"#,
            esc(s)
        );
    }

    /// A polyline through `points`.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, dash: Option<&str>) {
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let dash = dash.map_or(String::new(), |d| format!(r#" stroke-dasharray="{d}""#));
        let _ = write!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="2"{dash}/>"#,
            pts.join(" ")
        );
    }

    /// A circle; `fill` "none" draws a ring.
    pub fn circle(&mut self, c: (f64, f64), r: f64, fill: &str, stroke: &str, tip: Option<&str>) {
        let _ = write!(
            self.body,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{r:.1}" fill="{fill}" stroke="{stroke}" stroke-width="2">"#,
            c.0, c.1
        );
        if let Some(t) = tip {
            let _ = write!(self.body, "<title>{}</title>", esc(t));
        }
        self.body.push_str("</circle>");
    }

    /// The finished `<svg>` element, labelled for screen readers.
    pub fn finish(self, label: &str) -> String {
        format!(
            r#"<svg class="chart" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" role="img" aria-label="{}">{}</svg>"#,
            esc(label),
            self.body,
            w = self.width,
            h = self.height
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_scale_reaches_full_length_at_max() {
        let s = Linear::fit([3.0, 12.0, 7.0], 150.0);
        assert_eq!(s.len(12.0), 150.0);
        assert_eq!(s.len(0.0), 0.0);
        assert_eq!(s.len(-5.0), 0.0);
        assert!((s.len(6.0) - 75.0).abs() < 1e-9);
    }

    #[test]
    fn linear_ticks_are_round_and_inside() {
        let t = Linear::fit([1234.0], 100.0).ticks();
        assert_eq!(t[0], 0.0);
        assert_eq!(t[1], 500.0);
        assert!(t.iter().all(|v| *v <= 1234.0));
        assert_eq!(Linear::fit([0.0], 10.0).max, 1.0);
    }

    #[test]
    fn log_scale_spans_decades() {
        let s = Log::fit([0.2, 35.0], 300.0);
        assert_eq!((s.lo, s.hi), (-1, 2));
        assert_eq!(s.len(100.0), 300.0);
        assert_eq!(s.len(0.1), 0.0);
        assert_eq!(s.ticks().len(), 4);
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc(r#"<b>"x" & 'y'</b>"#),
            "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;"
        );
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(fmt_num(12345.0), "12k");
        assert_eq!(fmt_num(2_500_000.0), "2.5M");
        assert_eq!(fmt_num(3.25), "3.2");
        assert_eq!(fmt_num(0.0412), "0.04");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_num(50.0), "50");
        assert_eq!(fmt_num(0.4), "0.4");
        assert_eq!(fmt_num(1_000_000.0), "1M");
        assert_eq!(fmt_num(96.1), "96.1");
    }
}
