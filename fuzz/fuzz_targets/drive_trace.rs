//! A measured drive trace (`NAME.trace` of `storlab validate`'s drives): parsed, replayed
//! through a shipped drive (its first requests, to keep one input fast) and compared with
//! the demerit figure, as the validation does.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use storlab_sim::device::drive_spec::{demerit, import, parse_trace, quantiles, replay};
use storlab_sim::device::hdd::HddParams;

/// Requests of one input replayed: a replay costs about a microsecond a request.
const REPLAYED: usize = 512;

fn drive() -> &'static HddParams {
    static DRIVE: OnceLock<HddParams> = OnceLock::new();
    DRIVE.get_or_init(|| {
        let specs = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../references/drives/atlas_III.diskspecs"
        );
        import(std::path::Path::new(specs))
            .unwrap_or_else(|e| panic!("{e}"))
            .params
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(trace) = parse_trace(text) else {
        return;
    };
    let measured: Vec<f64> = trace.iter().map(|r| r.service_ms).collect();
    let _ = quantiles(&measured, 100);
    if let Ok(sim) = replay(drive(), &trace[..trace.len().min(REPLAYED)]) {
        let _ = demerit(&measured, &sim.service_ms);
    }
});
