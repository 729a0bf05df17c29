//! The scorecard: per case and overall, how many figures are within tolerance and how far
//! the model is from the published figures (median and worst error, absolute figures and
//! ratios apart), as a text table, as `scorecard` in `--json` and as the Markdown of the
//! README's validation section (`--markdown`). It counts predictions: figures that went into
//! a workload's characterization (`calibration = true`) are scored apart, in `calibration`.

use std::fmt::Write;

use serde::Serialize;

use super::check::{signed_pct, Check, Kind};
use crate::table::{num, render_left};

/// The command that regenerates the README's scorecard block.
pub const REGENERATE: &str = "scripts/gen-scorecard.sh";

/// The scorecard of a validation.
#[derive(Debug, Serialize)]
pub struct Scorecard {
    /// One score per case, in the order the cases ran.
    pub cases: Vec<Score>,
    /// Every predicted figure of every case.
    pub overall: Score,
    /// The figures used for calibration, of every case (not predictions).
    pub calibration: Score,
}

/// The score of one case, or of all of them (`case` = "all").
#[derive(Debug, Serialize)]
pub struct Score {
    pub case: String,
    pub figures: usize,
    pub within_tolerance: usize,
    pub outside_tolerance: usize,
    pub absolute: Errors,
    pub ratios: Errors,
}

/// How far the figures of one kind are from the published ones. The error of a figure is
/// (simulated - published) / published in percent.
#[derive(Debug, Serialize)]
pub struct Errors {
    pub figures: usize,
    pub within_tolerance: usize,
    /// The median of the errors' absolute values; None with no figure of a value.
    pub median_error_pct: Option<f64>,
    /// The error of largest absolute value, signed (+: the model is above the published
    /// figure).
    pub worst_error_pct: Option<f64>,
    /// The figure with that error, and its case.
    pub worst_figure: Option<String>,
    pub worst_case: Option<String>,
    /// Figures the model gives no value for (a ratio of two zeros): outside tolerance,
    /// and left out of the median and the worst.
    pub without_value: usize,
}

impl Scorecard {
    pub fn new(all: &[Check]) -> Scorecard {
        let (calibration, predictions): (Vec<&Check>, Vec<&Check>) =
            all.iter().partition(|c| c.calibration);
        let checks = predictions;
        let mut names: Vec<&str> = Vec::new();
        for c in &checks {
            if !names.contains(&c.case.as_str()) {
                names.push(&c.case);
            }
        }
        let cases = names
            .iter()
            .map(|n| {
                let of_case: Vec<&Check> =
                    checks.iter().copied().filter(|c| c.case == *n).collect();
                Score::new(n, &of_case)
            })
            .collect();
        Scorecard {
            cases,
            overall: Score::new("all", &checks),
            calibration: Score::new("calibration", &calibration),
        }
    }

    /// The one-line summary: "88 figures: 25 within tolerance, 63 outside", and the figures
    /// used for calibration when there are any.
    pub fn headline(&self) -> String {
        let o = &self.overall;
        let mut line = format!(
            "{} figures: {} within tolerance, {} outside",
            o.figures, o.within_tolerance, o.outside_tolerance
        );
        if let Some(c) = self.calibration_line() {
            line = format!("{line}; {c}");
        }
        line
    }

    /// "2 more used for calibration (not predictions): 2 within tolerance", when any.
    fn calibration_line(&self) -> Option<String> {
        let c = &self.calibration;
        (c.figures > 0).then(|| {
            format!(
                "{} more used for calibration (not predictions): {} within tolerance",
                c.figures, c.within_tolerance
            )
        })
    }

    /// Figures outside their tolerance, predictions and calibration alike (the exit status).
    pub fn outside_tolerance(&self) -> usize {
        self.overall.outside_tolerance + self.calibration.outside_tolerance
    }

    fn rows(&self) -> Vec<Vec<String>> {
        self.cases
            .iter()
            .chain(std::iter::once(&self.overall))
            .map(|s| {
                let mut row = vec![s.case.clone(), of(s.within_tolerance, s.figures)];
                for e in [&s.absolute, &s.ratios] {
                    row.push(of(e.within_tolerance, e.figures));
                    row.push(e.median_error_pct.map_or("-".into(), pct));
                    row.push(e.worst_error_pct.map_or("-".into(), signed_pct));
                }
                row
            })
            .collect()
    }

    /// The text table printed after the figures.
    pub fn text(&self) -> String {
        let mut out = String::from(
            "scorecard (error = (simulated - published) / published; median of its absolute \
             value, worst signed)\n",
        );
        out += &render_left(&HEADERS, &self.rows(), 1);
        let _ = writeln!(out, "{}", self.worst_line());
        if let Some(line) = self.without_value_line() {
            let _ = writeln!(out, "{line}");
        }
        out
    }

    /// The README's validation table, generated: the block between the
    /// `<!-- scorecard:begin -->` and `<!-- scorecard:end -->` markers.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "<!-- generated by {REGENERATE} (storlab validate --markdown FILE); do not edit -->\n\
             `storlab validate` checks {} figures of the published studies: {} within \
             tolerance, {} outside. The error of a figure is (simulated - published) / \
             published; the median is of its absolute value, the worst is signed (+: the \
             model is above the published figure). `storlab validate --explain` gives the \
             analysis behind each case.\n\n",
            self.overall.figures, self.overall.within_tolerance, self.overall.outside_tolerance
        );
        if let Some(c) = self.calibration_line() {
            let _ = writeln!(
                out,
                "Figures that went into a workload's characterization are not predictions: \
                 {c}.\n"
            );
        }
        let _ = writeln!(out, "| {} |", HEADERS.join(" | "));
        let _ = writeln!(out, "|---|{}", "---:|".repeat(HEADERS.len() - 1));
        for row in self.rows() {
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
        let _ = writeln!(out, "\n{}", self.worst_line());
        if let Some(line) = self.without_value_line() {
            let _ = writeln!(out, "\n{line}");
        }
        out
    }

    /// "Worst absolute figure: CASE: NAME (+x%); worst ratio: ...".
    fn worst_line(&self) -> String {
        let o = &self.overall;
        let worst = |e: &Errors| match (&e.worst_case, &e.worst_figure, e.worst_error_pct) {
            (Some(case), Some(name), Some(err)) => format!("{case}: {name} ({})", signed_pct(err)),
            _ => "none".into(),
        };
        format!(
            "Worst absolute figure: {}; worst ratio: {}.",
            worst(&o.absolute),
            worst(&o.ratios)
        )
    }

    fn without_value_line(&self) -> Option<String> {
        let n = self.overall.absolute.without_value + self.overall.ratios.without_value;
        (n > 0).then(|| {
            format!(
                "{n} figure{} without a value (a ratio of two zeros): outside tolerance, left \
                 out of the median and worst errors.",
                if n == 1 { "" } else { "s" }
            )
        })
    }
}

const HEADERS: [&str; 8] = [
    "case",
    "within tolerance",
    "absolute: within",
    "median error",
    "worst error",
    "ratios: within",
    "median error",
    "worst error",
];

fn of(k: usize, n: usize) -> String {
    format!("{k} of {n}")
}

fn pct(x: f64) -> String {
    format!("{}%", num(x, 1))
}

impl Score {
    fn new(case: &str, checks: &[&Check]) -> Score {
        let within = checks.iter().filter(|c| c.pass).count();
        Score {
            case: case.to_string(),
            figures: checks.len(),
            within_tolerance: within,
            outside_tolerance: checks.len() - within,
            absolute: Errors::new(checks, Kind::Absolute),
            ratios: Errors::new(checks, Kind::Ratio),
        }
    }
}

impl Errors {
    fn new(checks: &[&Check], kind: Kind) -> Errors {
        let of_kind: Vec<&Check> = checks.iter().copied().filter(|c| c.kind == kind).collect();
        let mut abs: Vec<f64> = of_kind
            .iter()
            .filter_map(|c| c.error_pct)
            .map(f64::abs)
            .collect();
        abs.sort_by(f64::total_cmp);
        // The first of equal worst errors, in the order the figures ran.
        let worst = of_kind
            .iter()
            .filter_map(|c| c.error_pct.map(|e| (e, c)))
            .fold(None, |best: Option<(f64, &&Check)>, (e, c)| match best {
                Some((b, _)) if b.abs() >= e.abs() => best,
                _ => Some((e, c)),
            });
        Errors {
            figures: of_kind.len(),
            within_tolerance: of_kind.iter().filter(|c| c.pass).count(),
            median_error_pct: median(&abs),
            worst_error_pct: worst.map(|(e, _)| e),
            worst_figure: worst.map(|(_, c)| c.name.clone()),
            worst_case: worst.map(|(_, c)| c.case.clone()),
            without_value: of_kind.iter().filter(|c| c.error_pct.is_none()).count(),
        }
    }
}

/// The median of sorted values (the mean of the middle two for an even count).
fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checks() -> Vec<Check> {
        vec![
            Check::absolute("a", "x", 100.0, 110.0, 30.0),
            Check::absolute("a", "y", 100.0, 40.0, 30.0),
            Check::absolute("b", "z", 10.0, 12.0, 30.0),
            Check::ratio("b", "r", 1.0, (1.05, 1.0), (Some(0.9), Some(1.1))),
            Check::ratio("b", "s", 2.0, (0.0, 0.0), (Some(1.8), None)),
        ]
    }

    #[test]
    fn the_scorecard_counts_and_measures_each_case_and_all() {
        let s = Scorecard::new(&checks());
        assert_eq!(s.headline(), "5 figures: 3 within tolerance, 2 outside");
        let a = &s.cases[0];
        assert_eq!(
            (a.case.as_str(), a.figures, a.within_tolerance),
            ("a", 2, 1)
        );
        assert_eq!(a.absolute.median_error_pct, Some(35.0));
        assert_eq!(a.absolute.worst_error_pct, Some(-60.0));
        assert_eq!(a.absolute.worst_figure.as_deref(), Some("y"));
        assert_eq!(a.ratios.figures, 0);
        assert_eq!(a.ratios.median_error_pct, None);
        let all = &s.overall;
        assert_eq!(all.absolute.figures, 3);
        assert_eq!(all.absolute.median_error_pct, Some(20.0));
        assert_eq!(all.ratios.within_tolerance, 1);
        assert_eq!(all.ratios.without_value, 1);
        let five = all.ratios.median_error_pct.unwrap();
        assert!((five - 5.0).abs() < 1e-9, "{five}");
    }

    #[test]
    fn the_markdown_is_a_table_with_a_row_per_case_and_one_for_all() {
        let md = Scorecard::new(&checks()).markdown();
        assert!(md.contains("`storlab validate` checks 5 figures of the published studies: 3 within tolerance, 2 outside."));
        assert!(md.contains("| a | 1 of 2 | 1 of 2 | 35.0% | -60.0% | 0 of 0 | - | - |"));
        assert!(md.contains("| all | 3 of 5 | 2 of 3 | 20.0% | -60.0% | 1 of 2 | 5.0% | +5.0% |"));
        assert!(md.contains("1 figure without a value"));
        assert!(md.contains("Worst absolute figure: a: y (-60.0%); worst ratio: b: r (+5.0%)."));
        assert!(md.ends_with(".\n"));
    }
}
