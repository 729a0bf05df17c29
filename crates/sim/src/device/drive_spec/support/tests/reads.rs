//! The read keys honoured since they have a model: freeing the bus during a read, reading
//! the blocks a read miss passes before its own.

use super::*;

fn c2247(tag: &str, edits: &[(&str, &str)]) -> Result<ImportedDrive, String> {
    edited("hp_c2247a", tag, edits)
}

#[test]
fn a_drive_freeing_the_bus_with_costly_reconnections_imports_and_replays_its_trace() {
    // The C2247 pays 0.16249 ms to reselect, 0.02519 ms to prepare data and 0.02266 ms
    // (0.04551 after a write) to disconnect: with `Hold bus entire read xfer = 0` each
    // cycle of a read costs them, which was refused. Its whole trace replays. Its bus
    // (0.1701 ms a block) is slower than its media (0.116 ms at most): once it sends, a
    // read runs dry only when it started with nothing buffered (a hit where read-ahead is
    // still filling), and then waits for its water mark and pays a reconnection: 96 of the
    // trace's 9,999 commands take longer (11 ms in all), the others as holding the bus.
    let freed = c2247("bus0", &[("Hold bus entire read xfer", "0")]).expect("imports");
    let held = c2247("bus1", &[]).expect("imports");
    let o = freed
        .params
        .command_overheads_ms
        .as_deref()
        .expect("overheads");
    assert!(o.read_frees_bus);
    assert!(
        !held
            .params
            .command_overheads_ms
            .as_deref()
            .expect("o")
            .read_frees_bus
    );
    let trace =
        crate::device::drive_spec::read_trace(&drives().join("hp_c2247a.trace")).expect("trace");
    let (a, b) = (
        replay(&freed.params, &trace).expect("replays"),
        replay(&held.params, &trace).expect("replays"),
    );
    assert_eq!(a.service_ms.len(), trace.len());
    let total = |r: &[f64]| r.iter().sum::<f64>();
    let differ = a
        .service_ms
        .iter()
        .zip(&b.service_ms)
        .filter(|(x, y)| x != y)
        .count();
    assert!(differ > 0 && differ < trace.len() / 50, "{differ}");
    assert!(total(&a.service_ms) > total(&b.service_ms));
    // A drive that never disconnects holds the bus whatever the key says.
    let never = c2247(
        "bus-never",
        &[
            ("Hold bus entire read xfer", "0"),
            ("Never disconnect", "1"),
        ],
    )
    .expect("imports");
    let o = never.params.command_overheads_ms.as_deref().expect("o");
    assert!(!o.read_frees_bus);
}

#[test]
fn a_drive_reading_free_blocks_imports_replays_its_trace_and_hits_on_them() {
    // The Barracuda with `Read any free blocks = 1`, refused before, replays its whole
    // trace. A read of 8 blocks in the middle of a track, then a read of the 8 blocks
    // before it: on some of the landings (a head landing past the first read's sector),
    // the second read is a hit, never without the key.
    let free = barracuda("free1", &[("Read any free blocks", "1")]).expect("imports");
    let plain = barracuda("free0", &[]).expect("imports");
    assert!(
        free.params
            .command_overheads_ms
            .as_deref()
            .expect("o")
            .read_any_free_blocks
    );
    let trace =
        crate::device::drive_spec::read_trace(&drives().join("barracuda.trace")).expect("trace");
    let r = replay(&free.params, &trace).expect("replays");
    assert_eq!(r.service_ms.len(), trace.len());
    let mut text = String::new();
    for i in 0..20u64 {
        let at = 2_000_000 + i * 50_001;
        text += &format!("R x {} 8 0 0\nR x {} 8 0 0\n", at + 8, at);
    }
    let pairs = parse_trace(&text).expect("parses");
    let (a, b) = (
        replay(&free.params, &pairs).expect("replays"),
        replay(&plain.params, &pairs).expect("replays"),
    );
    assert!(a.read_hits > 0, "{a:?}");
    assert_eq!(b.read_hits, 0, "{b:?}");
    // The first read takes the same time either way.
    assert_eq!(a.service_ms[0], b.service_ms[0]);
    // DiskSim 4.0 stops at a drive reading free blocks without caching.
    let err = barracuda(
        "free-nocache",
        &[
            ("Read any free blocks", "1"),
            ("Enable caching in buffer", "0"),
        ],
    )
    .unwrap_err();
    assert!(
        err.contains("barracuda.diskspecs") && err.contains("Enable caching in buffer = 0"),
        "{err}"
    );
}

#[test]
fn a_value_beyond_what_a_model_allows_is_refused_at_import_naming_the_description() {
    // DiskSim takes any overhead; a storlab model takes 0 to 1,000 ms. A reselect of 1e6 ms
    // is refused by the import with the description's name, not later by the replay under
    // the trace's.
    let err = c2247("huge", &[("First reselect overhead", "1e6")]).unwrap_err();
    assert!(
        err.ends_with(
            "hp_c2247a.diskspecs: the drive's values make a model storlab cannot run: \
             command_overheads_ms.reselect must be 0 to 1000 ms; got 1000000"
        ),
        "{err}"
    );
}
