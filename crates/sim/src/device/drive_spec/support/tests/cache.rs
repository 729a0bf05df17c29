//! The cache and timing keys of a drive description: read-ahead, water marks, write data.

use super::*;

#[test]
fn a_least_read_ahead_delays_a_miss_after_a_read_and_a_write_may_wait_for_it() {
    // The Barracuda with `Minimum read-ahead (blks) = 64` (its most, 281 blocks, above it)
    // imports as 32 KiB. A read at block 1,000,000 is followed at once by a read far away.
    // The first read completes about 0.8 ms after its media end (its 8 blocks cross the
    // bus at 0.134 ms, the media brings them at 0.045); with the least read-ahead, the far
    // read's head waits until 64 blocks past the first read are in, 64 * 0.045 = 2.9 ms
    // after that media end, its command overhead (0.61307 ms) running meanwhile: it
    // positions some 1.5 ms later than without. Its sector comes round at the same angle
    // either way, so the far read takes the same time when its rotational wait covered
    // the delay, and one revolution (8.333 ms at 7,200 rpm) more when not: about 1.5 in
    // 8.3 of them, 2 of these 20.
    let least = barracuda("least", &[("Minimum read-ahead (blks)", "64")]).expect("imports");
    let plain = barracuda("plain", &[]).expect("imports");
    assert_eq!(least.params.readahead_min_kib, 32.0);
    assert_eq!(plain.params.readahead_min_kib, 0.0);
    assert!(!least.params.write_hit_keeps_readahead);
    let mut text = String::new();
    for i in 0..20u64 {
        text += &format!(
            "R x {} 8 0 0\nR x {} 8 0 50000\n",
            1_000_000 + i * 10_000,
            3_000_000 + i * 37_777
        );
    }
    let trace = parse_trace(&text).expect("parses");
    let (a, b) = (
        replay(&least.params, &trace).expect("replays"),
        replay(&plain.params, &trace).expect("replays"),
    );
    let d: Vec<f64> = (1..40)
        .step_by(2)
        .map(|i| a.service_ms[i] - b.service_ms[i])
        .collect();
    let rev = 60_000.0 / 7_200.0;
    assert!(
        d.iter().all(|x| x.abs() < 1e-6 || (x - rev).abs() < 1e-6),
        "{d:?}"
    );
    assert!(d.iter().any(|x| (x - rev).abs() < 1e-6), "{d:?}");
    // The first reads, served with nothing before them to wait for, are the same.
    for i in (0..40).step_by(2) {
        assert_eq!(a.service_ms[i], b.service_ms[i]);
    }
    // `Write hit stop prefetch = 0` imports as a write that waits for it.
    let keeps = barracuda("keeps", &[("Write hit stop prefetch", "0")]).expect("imports");
    assert!(keeps.params.write_hit_keeps_readahead);
}

#[test]
fn keys_disksim_reads_but_never_times_by_import_and_change_nothing() {
    // DiskSim 4.0 uses the initiation delays only in its SPTF-family schedulers' estimate
    // of a queued command's positioning, never in the command's own timing; it reads the
    // percent error in rpms and the access time type and never consults them. A
    // description setting them replays exactly as one without them. `Disconnect write if
    // seek` is modelled as 0, with a note.
    let plain = barracuda("unused-plain", &[]).expect("imports");
    let with = barracuda(
        "unused",
        &[
            ("Read initiation delay", "0.5"),
            ("Write initiation delay", "0.7"),
            ("Disconnect write if seek", "1"),
        ],
    )
    .expect("imports");
    assert_eq!(with.params, plain.params);
    assert!(
        with.notes
            .iter()
            .any(|n| n.contains("Disconnect write if seek = 1")),
        "{:?}",
        with.notes
    );
    let mech = |value: &'static str, rpm_error: &'static str| {
        variant(
            "barracuda",
            "barracuda",
            "mech",
            |t| t,
            move |t| {
                set(t, "Access time type", value).replace(
                    "Percent error in rpms = 0.000000",
                    &format!("Percent error in rpms = {rpm_error}"),
                )
            },
        )
    };
    let avg = import(&mech("averageRotation", "1.5")).expect("imports");
    assert_eq!(avg.params, plain.params);
    assert!(
        avg.notes
            .iter()
            .any(|n| n.contains("Access time type = averageRotation")),
        "{:?}",
        avg.notes
    );
    let err = import(&mech("trackSwitchPlusRotation", "150")).unwrap_err();
    assert!(
        err.contains("`Percent error in rpms = 150`") && err.contains("accepts 0 to 100"),
        "{err}"
    );
    let err = import(&mech("sometimes", "0")).unwrap_err();
    assert!(
        err.contains("barracuda.model") && err.contains("Access time type = sometimes"),
        "{err}"
    );
}

#[test]
fn a_water_mark_set_by_the_segment_imports_and_holds_a_read_longer() {
    // The C2247 with `Set watermark by reqsize = 0`: three quarters of its 256-block
    // segment, 192 blocks (96 KiB). A 40-block read at the start of a first-zone track
    // (96 blocks of 0.1157 ms at 5,400 rpm) then reconnects once all 40 blocks are in,
    // not 30: 10 * 0.1157 = 1.157 ms later, the rest the same.
    let edit = |key: &'static str| move |t: String| set(t, key, "0");
    let by_segment = variant(
        "hp_c2247a",
        "hp_c2247a",
        "water",
        edit("Set watermark by reqsize"),
        |t| t,
    );
    let by_segment = import(&by_segment).expect("imports").params;
    let plain = import(&drives().join("hp_c2247a.diskspecs"))
        .expect("imports")
        .params;
    assert_eq!(
        (by_segment.read_watermark_kib, plain.read_watermark_kib),
        (96.0, 0.0)
    );
    let trace = parse_trace("R x 27168 40 0 0\n").expect("parses");
    let (a, b) = (
        replay(&by_segment, &trace).expect("replays"),
        replay(&plain, &trace).expect("replays"),
    );
    let later = a.service_ms[0] - b.service_ms[0];
    assert!(
        (later - 10.0 * 60_000.0 / 5_400.0 / 96.0).abs() < 1e-4,
        "{later} ms"
    );
    // `Immed transfer partial hit = 0` imports as a partial hit waiting for its water mark.
    let waits = variant(
        "hp_c2247a",
        "hp_c2247a",
        "partial",
        edit("Immed transfer partial hit"),
        |t| t,
    );
    let waits = import(&waits).expect("imports").params;
    assert!(waits.partial_hit_waits && !plain.partial_hit_waits);
}

#[test]
fn write_data_rules_import_and_replay() {
    // `Allow read hits on write data = 0` and `Combine seq writes = 0` on the Barracuda
    // (write caching): a read of a write's blocks 50 ms after it goes to the media (the
    // hit, 0.596 ms of overhead and 8 sectors at 0.134 ms, becomes a miss of at least
    // 0.56813 ms and the media).
    let edited = barracuda(
        "write-data",
        &[
            ("Allow read hits on write data", "0"),
            ("Combine seq writes", "0"),
        ],
    )
    .expect("imports")
    .params;
    assert!(edited.write_data_unreadable && edited.writes_never_hit);
    let plain = barracuda("write-data-plain", &[]).expect("imports").params;
    let trace = parse_trace("W x 1000000 8 0 50000\nR x 1000000 8 0 0\n").expect("parses");
    let (a, b) = (
        replay(&edited, &trace).expect("replays"),
        replay(&plain, &trace).expect("replays"),
    );
    assert!(
        (b.service_ms[1] - (0.596 + 8.0 * 0.134)).abs() < 1e-5,
        "{b:?}"
    );
    assert!(a.service_ms[1] > b.service_ms[1], "{a:?} {b:?}");
    assert_eq!((a.read_hits, b.read_hits), (0, 1));
}
