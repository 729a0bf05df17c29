//! Inputs that once broke a parser under a fuzz target (fuzz/fuzz_targets/), kept in
//! tests/fixtures/fuzz/TARGET/ and fed through the same calls as the target: none may
//! panic, overflow the stack or hang.

use std::path::{Path, PathBuf};

use storlab_sim::device::drive_spec::{demerit, import, parse, parse_trace, quantiles, replay};

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no regression inputs in {}",
        dir.display()
    );
    files
}

#[test]
fn every_drive_spec_regression_is_read_without_panic() {
    for file in inputs("drive_spec") {
        let text = std::fs::read_to_string(&file).expect("readable input");
        let _ = parse(&text);
    }
}

/// As the target `drive_trace`: the trace parsed, its first 512 requests replayed through the
/// shipped Atlas III, the demerit taken.
#[test]
fn every_drive_trace_regression_is_read_without_panic() {
    let specs =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../references/drives/atlas_III.diskspecs");
    let drive = import(&specs).expect("the shipped drive").params;
    for file in inputs("drive_trace") {
        let text = std::fs::read_to_string(&file).expect("readable input");
        let Ok(trace) = parse_trace(&text) else {
            continue;
        };
        let measured: Vec<f64> = trace.iter().map(|r| r.service_ms).collect();
        let _ = quantiles(&measured, 100);
        if let Ok(sim) = replay(&drive, &trace[..trace.len().min(512)]) {
            let _ = demerit(&measured, &sim.service_ms);
        }
    }
}
