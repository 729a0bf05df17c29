//! One checked figure: published against simulated, its error and whether it is within
//! tolerance. This is also the shape of each entry of `figures` in `--json`.

use serde::Serialize;

use crate::table::num;

/// An absolute figure (IO/s, MB/s, rows/s, ms) or a ratio of one metric on two arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Absolute,
    Ratio,
}

/// One checked figure.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub case: String,
    #[serde(rename = "figure")]
    pub name: String,
    pub kind: Kind,
    pub published: f64,
    /// None when the model gives no value (a ratio of two zeros).
    pub simulated: Option<f64>,
    /// (simulated - published) / published x 100; None with no simulated value.
    pub error_pct: Option<f64>,
    /// An absolute figure's tolerance around `published`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance_pct: Option<f64>,
    /// A ratio's bounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    pub pass: bool,
    /// The figure went into the workload's characterization: a check of the calibration,
    /// not a prediction (the scorecard counts predictions only).
    pub calibration: bool,
    /// The case's analysis of the figure (`--explain`); it never changes `pass`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Check {
    /// An absolute figure: within `tolerance_pct` of `published`.
    pub fn absolute(
        case: &str,
        name: &str,
        published: f64,
        simulated: f64,
        tolerance_pct: f64,
    ) -> Check {
        let error_pct = error_pct(published, simulated);
        Check {
            case: case.to_string(),
            name: name.to_string(),
            kind: Kind::Absolute,
            published,
            simulated: simulated.is_finite().then_some(simulated),
            error_pct,
            tolerance_pct: Some(tolerance_pct),
            min: None,
            max: None,
            pass: error_pct.is_some_and(|e| e.abs() <= tolerance_pct),
            calibration: false,
            note: None,
        }
    }

    /// A ratio `numerator / denominator`: within `min`..`max` (either may be open). A zero
    /// denominator gives no value, which is outside any bounds.
    pub fn ratio(
        case: &str,
        name: &str,
        published: f64,
        (numerator, denominator): (f64, f64),
        (min, max): (Option<f64>, Option<f64>),
    ) -> Check {
        let ratio = numerator / denominator;
        let simulated = (denominator > 0.0 && ratio.is_finite()).then_some(ratio);
        Check {
            case: case.to_string(),
            name: name.to_string(),
            kind: Kind::Ratio,
            published,
            simulated,
            error_pct: simulated.and_then(|s| error_pct(published, s)),
            tolerance_pct: None,
            min,
            max,
            pass: simulated
                .is_some_and(|r| min.is_none_or(|lo| r >= lo) && max.is_none_or(|hi| r <= hi)),
            calibration: false,
            note: None,
        }
    }

    /// Marks a figure used for calibration.
    pub fn calibration(mut self, calibration: bool) -> Check {
        self.calibration = calibration;
        self
    }

    pub fn with_note(mut self, note: Option<&str>) -> Check {
        self.note = note.map(str::to_string);
        self
    }

    /// The tolerance as printed: "within 30%", "1.03 to 1.11", "at least 0.95".
    pub fn tolerance(&self) -> String {
        match (self.tolerance_pct, self.min, self.max) {
            (Some(t), _, _) => format!("within {t}%"),
            (None, Some(lo), Some(hi)) => format!("{lo} to {hi}"),
            (None, Some(lo), None) => format!("at least {lo}"),
            (None, None, Some(hi)) => format!("at most {hi}"),
            (None, None, None) => "any".into(),
        }
    }

    /// The error as printed: "+384.5%", or "no value".
    pub fn error(&self) -> String {
        self.error_pct.map_or("no value".into(), signed_pct)
    }

    /// "pass" or "FAIL".
    pub fn verdict(&self) -> &'static str {
        if self.pass {
            "pass"
        } else {
            "FAIL"
        }
    }
}

/// The relative error in percent; None when it has no finite value.
fn error_pct(published: f64, simulated: f64) -> Option<f64> {
    let e = (simulated - published) / published * 100.0;
    e.is_finite().then_some(e)
}

/// A signed percentage with one decimal and thousands separators: "+1,077.4%".
pub fn signed_pct(pct: f64) -> String {
    let sign = if pct >= 0.0 { "+" } else { "" };
    format!("{sign}{}%", num(pct, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absolute_figure_passes_within_its_tolerance_only() {
        let c = Check::absolute("c", "x", 100.0, 130.0, 30.0);
        assert!(c.pass);
        assert_eq!(c.error(), "+30.0%");
        let c = Check::absolute("c", "x", 100.0, 130.1, 30.0);
        assert!(!c.pass);
        assert_eq!(c.verdict(), "FAIL");
        assert_eq!(
            Check::absolute("c", "x", 15.0, 176.6, 30.0).error(),
            "+1,077.3%"
        );
        assert_eq!(Check::absolute("c", "x", 2.0, 0.0, 30.0).error(), "-100.0%");
    }

    #[test]
    fn a_ratio_of_zeros_has_no_value_and_fails() {
        let c = Check::ratio("c", "x", 1.6, (0.0, 0.0), (Some(1.44), Some(1.76)));
        assert_eq!(c.simulated, None);
        assert_eq!(c.error_pct, None);
        assert_eq!(c.error(), "no value");
        assert!(!c.pass);
        let c = Check::ratio("c", "x", 1.0, (1.0, 0.0), (Some(0.9), None));
        assert!(!c.pass, "x / 0 is no value, not infinitely good");
        let c = Check::ratio("c", "x", 1.0, (0.95, 1.0), (Some(0.95), None));
        assert!(c.pass);
        assert_eq!(c.tolerance(), "at least 0.95");
    }
}
