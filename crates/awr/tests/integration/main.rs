//! Reading the fixture reports (synthetic, invented systems written in the documented
//! layouts): every field equals what the report says; missing sections are warnings; bad
//! input is an error naming the file; no input panics.

use std::path::{Path, PathBuf};

use storlab_awr::{parse_report, ReadReport};
use storlab_core::character::Characterization;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn read(name: &str) -> (Characterization, ReadReport) {
    let bytes = std::fs::read(fixture(name)).expect("fixture");
    parse_report(&bytes, name).unwrap_or_else(|e| panic!("{e}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

macro_rules! assert_close {
    ($a:expr, $b:expr) => {{
        let (a, b): (f64, f64) = ($a, $b);
        assert!(close(a, b), "{} = {a}, expected {b}", stringify!($a));
    }};
}

fn has_warning(r: &ReadReport, part: &str) -> bool {
    r.warnings.iter().any(|w| w.contains(part))
}

mod bad_input;
mod cpu;
mod fuzz;
mod layouts;
mod missing;
mod round_trip;
