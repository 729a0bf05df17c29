//! Every example array under every kind of failure: a sweep that runs each shipped
//! configuration with a few profiles while disks and controllers fail, checking that the run
//! ends with every request accounted for (the model asserts it), the figures finite, and a
//! loss of every controller reported. Run under debug assertions (`make test`'s `checked`
//! pass), it checks the model's internal invariants on every path the examples reach (the
//! destage bookkeeping's recount failed on a controller with no survivor before the model
//! stopped a failed controller from destaging).

use super::*;

fn example_arrays() -> Vec<(String, SystemSpec)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/arrays");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable example");
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let spec = parse_array(&text, &name).unwrap_or_else(|e| panic!("{e}"));
            (name, spec)
        })
        .collect()
}

#[test]
fn every_example_array_survives_disk_and_controller_failures() {
    let arrays = example_arrays();
    assert!(arrays.len() >= 10, "{} example arrays", arrays.len());
    for (name, s) in &arrays {
        let healthy = run_profile(s, "randread-8k", opts(1, 0, 1));
        let (d0, d1) = (&healthy.devices[0].name, &healthy.devices[1].name);
        let failure_sets: [Vec<String>; 3] = [
            vec![format!("{d0}@1s"), format!("{d1}@2s")],
            vec!["controller:0@1s".into()],
            vec!["controller:0@1s".into(), "controller:1@2s".into()],
        ];
        for profile in ["randwrite-8k", "oltp-60-40", "seqread-1m"] {
            for fails in &failure_sets {
                let what = format!("{name} {profile} {fails:?}");
                let args: Vec<&str> = fails.iter().map(String::as_str).collect();
                let run = run_failing(s, profile, &args, opts(3, 1, 1));
                let m = &run.metrics;
                assert!(m.iops.is_finite() && m.iops >= 0.0, "{what}: {}", m.iops);
                assert!(m.mbps.is_finite(), "{what}");
                for d in &run.devices {
                    assert!(
                        d.util_pct.is_finite() && d.util_pct <= 100.0 + 1e-6,
                        "{what}"
                    );
                }
                if fails.len() == 2 && fails[1].starts_with("controller") {
                    assert!(
                        run.events.iter().any(|e| e.kind == "data_unavailable"),
                        "{what}: {:?}",
                        run.events
                    );
                    // Requests to the unreachable LUNs fail rather than hang.
                    assert!(m.io_errors > 0, "{what}: no I/O errors");
                }
            }
        }
    }
}
