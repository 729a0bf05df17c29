//! Reports with sections or lines missing: warnings saying what was assumed, other
//! statistics standing in where the report has them, and a result that still reads.

use storlab_awr::parse_report;
use storlab_core::character::SegmentKind;

use super::{close, fixture, has_warning, read};

#[test]
fn missing_sections_are_warnings_and_the_result_still_reads() {
    let (c, r) = read("minimal-awr.txt");
    assert_eq!(r.found, ["header", "Load Profile"]);
    assert!(r.missing.contains(&"Tablespace IO Stats".to_string()));
    for w in [
        "no Tablespace IO Stats: placement not known",
        "no Instance Activity Stats",
        "no CPUs in the header or Host CPU: cpus = 1 assumed",
        "no Buffer Cache in Cache Sizes",
        "no Std Block Size",
        "no Sessions in the snapshot table",
    ] {
        assert!(has_warning(&r, w), "{w}: {:?}", r.warnings);
    }
    assert_eq!(c.segments[0].name, "data");
    assert_eq!(
        c.sessions, 13,
        "the average active sessions, 12.5, rounded up"
    );
    assert_eq!(c.transactions[0].index_share, 0.5);
    let shown = r.to_string();
    assert!(shown.starts_with("format: AWR text report\nsections read: header, Load Profile\nsections missing: Cache Sizes, Top Timed Events,"), "{shown}");
    assert!(
        shown.contains("\nwarning: no Tablespace IO Stats: placement not known"),
        "{shown}"
    );
}
#[test]
fn instance_activity_stands_in_for_missing_load_profile_lines() {
    let text = std::fs::read_to_string(fixture("acme-awr.txt")).unwrap();
    let cut: String = text
        .lines()
        .filter(|l| {
            !l.contains("Block changes:") && !l.contains("DB CPU(s):") && !l.starts_with("DB CPU ")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let (c, _) = parse_report(cut.as_bytes(), "cut.txt").unwrap();
    let t = &c.transactions[0];
    // db block changes 18,000,000 over 3600 s and 250 transactions/s: 20, of which 9 are of
    // table and index blocks.
    assert_close!(t.blocks_changed, 9.0);
    // CPU used by this session 2,160,000 cs over 900,000 transactions.
    assert_close!(t.cpu_ms, 24.0);
    assert_eq!(c.observed.unwrap().db_cpu_per_s, None);
}
/// Temp I/O per transaction: the temp blocks Instance Activity Stats counted times the block
/// size, over the interval's transactions (1,843,200 blocks of 8 KiB over 30 minutes at 2
/// transactions a second: 4 MiB each); without that statistic, the `direct path write temp`
/// waits at 1 MiB a write (14,400 waits: 4 MiB each too), with a warning saying so.
#[test]
fn temp_events_and_statistics_give_the_temp_bytes_per_transaction() {
    let (c, r) = read("reporting-temp-awr.txt");
    let t = &c.transactions[0];
    assert_close!(t.temp_bytes, 4_194_304.0);
    assert!(!has_warning(&r, "temp_bytes"), "{:?}", r.warnings);
    let temp = c.segments.iter().find(|s| s.name == "TEMP").expect("TEMP");
    assert_eq!(temp.kind, SegmentKind::Temp);
    let o = c.observed.as_ref().unwrap();
    let event = |n: &str| o.events.iter().find(|e| e.name == n).and_then(|e| e.waits);
    assert_eq!(event("direct path write temp"), Some(14_400.0));
    assert_eq!(event("direct path read temp"), Some(57_600.0));

    let text = std::fs::read_to_string(fixture("reporting-temp-awr.txt")).unwrap();
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("physical writes direct temporary"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (c, r) = parse_report(without.as_bytes(), "no-stat.txt").unwrap();
    assert_close!(c.transactions[0].temp_bytes, 4_194_304.0);
    assert!(
        has_warning(&r, "direct path write temp"),
        "{:?}",
        r.warnings
    );

    // A report without temp I/O has none.
    let (c, _) = read("acme-awr.txt");
    assert_eq!(c.transactions[0].temp_bytes, 0.0);
}
