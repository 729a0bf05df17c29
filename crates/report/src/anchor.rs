//! Element ids shared by the charts and the findings that link to them.

use crate::model::Study;

/// Lower-case letters, digits and '-' only.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for ch in s.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

fn workload_index(study: &Study, workload: &str) -> usize {
    study
        .workload_names()
        .iter()
        .position(|w| w == workload)
        .unwrap_or(usize::MAX)
}

/// Id of a workload's bar charts.
pub fn bars(study: &Study, workload: &str) -> String {
    format!(
        "chart-w{}-{}",
        workload_index(study, workload),
        slug(workload)
    )
}

/// Id of a workload's latency percentile chart.
pub fn percentiles(study: &Study, workload: &str) -> String {
    format!("{}-pct", bars(study, workload))
}

/// Id of the chart of the first question: every headline metric relative to the baseline.
pub const RELATIVE: &str = "chart-relative";

/// Id of the ratio chart of question `q` (from 0).
pub fn question_chart(q: usize) -> String {
    format!("{RELATIVE}{}", suffix(q))
}

/// Id of the answer of question `q` (from 0).
pub fn question(q: usize) -> String {
    format!("question-{}", q + 1)
}

/// What the ids of question `q`'s charts end with: nothing for the first question (its ids
/// are the workload's own), "-q2" and on for the others, whose charts show other
/// configurations of the same workloads.
pub fn suffix(q: usize) -> String {
    if q == 0 {
        String::new()
    } else {
        format!("-q{}", q + 1)
    }
}

/// Id of the failed-cells table.
pub const FAILED: &str = "failed-cells";
