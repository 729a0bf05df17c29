//! Integration tests of storlab-report: findings, HTML and CSV from synthetic studies.

mod answers;
mod csv;
mod findings;
mod html;
mod support;
