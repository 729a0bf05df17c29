//! Zero-latency writes, honoured since they have a model.

use super::*;

fn with_immediate_writes(drive: &str, value: &str) -> Result<ImportedDrive, String> {
    edited(
        drive,
        &format!("immed-{drive}-{value}"),
        &[("Immediate buffer write", value)],
    )
}

#[test]
fn drives_with_zero_latency_writes_import_and_replay_their_traces() {
    // The HP C2247 (writes uncached: each waits for its media write) and the Barracuda
    // (writes cached: the media write runs after the command) with `Immediate buffer
    // write = 1`, refused before, replay their whole traces; 2 is the same to DiskSim
    // 4.0 (it takes the value as true or false). Values DiskSim refuses stay refused (see
    // `a_value_the_model_cannot_honour_is_refused_with_the_file_key_and_what_is_supported`).
    let one = with_immediate_writes("hp_c2247a", "1").expect("imports");
    let two = with_immediate_writes("hp_c2247a", "2").expect("imports");
    let plain = with_immediate_writes("hp_c2247a", "0").expect("imports");
    let o = one.params.command_overheads_ms.as_deref().expect("o");
    assert!(o.immediate_write);
    assert_eq!(one.params, two.params);
    let trace =
        crate::device::drive_spec::read_trace(&drives().join("hp_c2247a.trace")).expect("trace");
    let (a, b) = (
        replay(&one.params, &trace).expect("replays"),
        replay(&plain.params, &trace).expect("replays"),
    );
    assert_eq!(a.service_ms.len(), trace.len());
    let total = |r: &[f64]| r.iter().sum::<f64>();
    // Its writes land inside their own sectors often enough: the trace takes 733 ms
    // less in all (152,342 ms against 153,076).
    assert!(total(&a.service_ms) < total(&b.service_ms) - 500.0);
    let cached = with_immediate_writes("barracuda", "1").expect("imports");
    let trace =
        crate::device::drive_spec::read_trace(&drives().join("barracuda.trace")).expect("trace");
    let r = replay(&cached.params, &trace).expect("replays");
    assert_eq!(r.service_ms.len(), trace.len());
}
