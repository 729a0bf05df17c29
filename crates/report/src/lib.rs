//! storlab-report: turns a comparison study (configurations x workloads x repeats, each cell a
//! `storlab.results/1` run or a failure) into one self-contained HTML report and a set of CSV
//! files.
//!
//! It owns the study model ([`Study`]) and its questions, the answer to each question
//! ([`answers()`]), the automatic findings behind them ([`findings()`], rules in
//! [`findings`](mod@findings)), the inline SVG charts and the tables. It runs nothing and
//! reads no clock and writes no file (storlab's output gate writes what it renders): the
//! same study always gives the same bytes. The HTML holds no scripts and
//! no URLs, so it can be mailed, archived and printed as it is.

mod anchor;
pub mod answers;
mod charts;
mod cost;
pub mod csv;
mod db_table;
pub mod drives;
pub mod findings;
mod html;
pub mod model;
mod plot;
mod questions;
mod steady;
mod svg;
mod sweep;
pub mod synthetic;
mod tables;
pub mod users_sweep;
mod workload;

pub use answers::Answer;
pub use cost::total_cost;
pub use findings::Finding;
pub use model::{Cell, Configuration, Meta, Question, Study, UsersSweepCell};

/// The whole report as one HTML5 document.
pub fn render_html(study: &Study) -> String {
    html::render(study)
}

/// The answer to each question of the study in one or two sentences, computed from the
/// numbers (rules in [`answers`](mod@answers)).
pub fn answers(study: &Study) -> Vec<Answer> {
    answers::answers(study)
}

/// The findings, computed from the numbers (rules in [`findings`](mod@findings)).
pub fn findings(study: &Study) -> Vec<Finding> {
    findings::findings(study)
}
