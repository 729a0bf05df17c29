//! storlab-report: turns a comparison study (configurations x workloads x repeats, each cell a
//! `storlab.results/1` run or a failure) into one self-contained HTML report and a set of CSV
//! files.
//!
//! It owns the study model ([`Study`]), the automatic findings ([`findings()`], rules in
//! [`findings`](mod@findings)), the inline SVG charts and the tables. It runs nothing and
//! reads no clock: the same study always gives the same bytes. The HTML holds no scripts and
//! no URLs, so it can be mailed, archived and printed as it is.

mod anchor;
mod charts;
mod cost;
pub mod csv;
pub mod findings;
mod html;
pub mod model;
mod plot;
mod steady;
mod svg;
mod sweep;
pub mod synthetic;
mod tables;
mod workload;

use std::path::{Path, PathBuf};

pub use findings::Finding;
pub use model::{Cell, Configuration, Meta, Study};

/// The whole report as one HTML5 document.
pub fn render_html(study: &Study) -> String {
    html::render(study)
}

/// The findings, computed from the numbers (rules in [`findings`](mod@findings)).
pub fn findings(study: &Study) -> Vec<Finding> {
    findings::findings(study)
}

/// Writes summary.csv, devices.csv, arrays.csv, waits.csv, iostat.csv and capacity.csv into
/// `dir` (created if missing) and returns their paths.
pub fn write_csvs(study: &Study, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    csv::write(study, dir)
}
