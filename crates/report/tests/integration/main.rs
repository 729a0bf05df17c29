//! Integration tests of storlab-report: findings, HTML and CSV from synthetic studies.

mod csv;
mod findings;
mod html;
mod support;
