//! Reading the fixture reports (synthetic, invented systems written in the documented
//! layouts): every field equals what the report says; missing sections are warnings; bad
//! input is an error naming the file; no input panics.

use std::path::{Path, PathBuf};

use storlab_awr::{parse_report, read_report, Error, Format, ReadReport};
use storlab_core::character::{Characterization, Engine, SegmentKind, SegmentSize};
use storlab_core::ByteSize;

mod fuzz;

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

#[test]
fn awr_text_every_field_as_the_report_says() {
    let (c, r) = read("acme-awr.txt");
    assert_eq!(r.format, Format::AwrText);
    assert!(r.missing.is_empty(), "{:?}", r.missing);
    assert_eq!(c.name, "ACME snaps 4001-4002");
    assert_eq!(c.engine, Engine::Oracle);
    assert_eq!(c.source, "awr:acme-awr.txt");
    assert_eq!((c.sessions, c.block_bytes), (300, 8192));
    let t = &c.transactions[0];
    assert_eq!((t.name.as_str(), t.weight), ("average", 1.0));
    assert_close!(t.logical_reads, 500.0);
    // 20 block changes: 9 of table and index blocks, 9 of their undo records, 2 of the undo
    // header; the redo without the 9 undo records' 120 bytes each.
    assert_close!(t.blocks_changed, 9.0);
    assert_close!(t.redo_bytes, 7500.0 - 9.0 * 120.0);
    assert_close!(t.cpu_ms, 24.0); // DB CPU 6.0 s/s over 250 transactions/s
    assert_close!(t.statements, 25.0);
    assert_close!(t.physical_reads.unwrap(), 10.0);
    assert_close!(t.physical_writes.unwrap(), 3.0);
    assert_close!(t.scan_share, 0.1); // 45e6 scan blocks of 450e6 gets
    assert_close!(t.index_share, 0.6); // 1 - (45e6 + 135e6 by rowid) / 450e6
    assert_close!(t.think_ms, 1150.0); // 300 sessions / 250 tps - 12.5 / 250 s
    let i = &c.instance;
    assert_eq!(i.cpus, 16);
    assert_close!(i.cpu_busy_pct.unwrap(), 45.0);
    assert_eq!(i.buffer_cache, ByteSize(4 << 30));
    assert_eq!(i.log_buffer, ByteSize(15 << 20));
    assert_close!(i.db_time_per_s.unwrap(), 12.5);
    let o = c.observed.as_ref().unwrap();
    assert_close!(o.elapsed_s.unwrap(), 3600.0);
    assert_close!(o.transactions_per_s.unwrap(), 250.0);
    assert_close!(o.logical_reads_per_s.unwrap(), 125_000.0);
    assert_close!(o.physical_reads_per_s.unwrap(), 2500.0);
    assert_close!(o.physical_writes_per_s.unwrap(), 750.0);
    assert_close!(o.redo_bytes_per_s.unwrap(), 1_875_000.0);
    assert_close!(o.block_changes_per_s.unwrap(), 5000.0);
    assert_close!(o.user_calls_per_s.unwrap(), 3750.0);
    assert_close!(o.executes_per_s.unwrap(), 6250.0);
    assert_close!(o.parses_per_s.unwrap(), 1250.0);
    assert_close!(o.rollbacks_per_s.unwrap(), 1.3);
    assert_close!(o.db_cpu_per_s.unwrap(), 6.0);
    assert_close!(o.direct_reads_per_s.unwrap(), 100.0); // 360,000 over 3600 s
    assert_close!(o.index_fetches_per_s.unwrap(), 15_000.0);
    awr_text_events_and_io(&c, &r);
}

fn awr_text_events_and_io(c: &Characterization, r: &ReadReport) {
    let o = c.observed.as_ref().unwrap();
    let names: Vec<&str> = o.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "db file sequential read",
            "DB CPU",
            "log file sync",
            "db file scattered read",
            "enq: TX - row lock contention"
        ]
    );
    let e = &o.events[0];
    assert_eq!((e.waits, e.time_s), (Some(7.2e6), 18_000.0));
    assert_eq!((e.avg_ms, e.pct_db_time), (Some(2.5), Some(40.0)));
    assert_eq!(e.wait_class.as_deref(), Some("User I/O"));
    let cpu = &o.events[1];
    assert_eq!((cpu.waits, cpu.time_s, cpu.avg_ms), (None, 21_600.0, None));
    assert_eq!(
        (cpu.pct_db_time, cpu.wait_class.as_deref()),
        (Some(48.0), None)
    );
    let enq = &o.events[4];
    assert_eq!((enq.avg_ms, enq.pct_db_time), (Some(150.0), Some(0.4)));
    assert_eq!(enq.wait_class.as_deref(), Some("Application"));
    assert_eq!(o.tablespaces.len(), 5);
    let users = &o.tablespaces[0];
    assert_eq!(users.tablespace, "USERS");
    assert_eq!(users.file, None);
    assert_eq!(
        (users.reads, users.reads_per_s),
        (Some(6.48e6), Some(1800.0))
    );
    assert_eq!(
        (users.read_avg_ms, users.blocks_per_read),
        (Some(2.6), Some(1.1))
    );
    assert_eq!(
        (users.writes, users.writes_per_s),
        (Some(1.62e6), Some(450.0))
    );
    assert_eq!(
        (users.buffer_waits, users.buffer_wait_avg_ms),
        (Some(3600.0), Some(1.2))
    );
    assert_eq!(o.files.len(), 6);
    let f = &o.files[5];
    assert_eq!(f.tablespace, "USERS");
    assert_eq!(f.file.as_deref(), Some("/u02/oradata/ACME/users02.dbf"));
    assert_eq!((f.read_avg_ms, f.buffer_wait_avg_ms), (Some(2.7), None));
    assert!(
        has_warning(
            r,
            "File IO Stats: USERS Av Buf Wt(ms): the value overflowed"
        ),
        "{:?}",
        r.warnings
    );
    assert!(
        has_warning(
            r,
            "Instance Activity Stats: redo size: the value overflowed"
        ),
        "{:?}",
        r.warnings
    );
    // Segments: one per tablespace, shares of the I/O requests, and the redo log.
    let kinds: Vec<(&str, SegmentKind)> = c
        .segments
        .iter()
        .map(|s| (s.name.as_str(), s.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("USERS", SegmentKind::Table),
            ("INDX", SegmentKind::Index),
            ("UNDOTBS1", SegmentKind::Undo),
            ("TEMP", SegmentKind::Temp),
            ("SYSTEM", SegmentKind::Table),
            ("redo", SegmentKind::Log)
        ]
    );
    let total = 8_100_000.0 + 2_700_000.0 + 216_000.0 + 36_000.0 + 3_960.0;
    assert!((c.segments[1].share - 2_700_000.0 / total).abs() < 1e-12);
    assert!((c.segments[0].share - 8_100_000.0 / total).abs() < 1e-9);
    assert!(c.segments.iter().all(|s| s.size == SegmentSize::Unknown));
    assert_eq!(r.unknowns.len(), 6);
    assert_eq!(r.unknowns[0], "segments[0].size (USERS)");
    assert!(has_warning(
        r,
        "give no segment sizes: fill in segments[0].size (USERS)"
    ));
}

#[test]
fn statspack_text_every_field_as_the_report_says() {
    let (c, r) = read("shop-statspack.txt");
    assert_eq!(r.format, Format::StatspackText);
    assert_eq!(
        r.missing,
        [
            "Host CPU",
            "Time Model Statistics",
            "Operating System Statistics",
            "Thread Activity",
            "File IO Stats"
        ]
    );
    assert_eq!(c.name, "shop snaps 101-102");
    assert_eq!(c.source, "statspack:shop-statspack.txt");
    assert_eq!((c.sessions, c.block_bytes), (80, 8192));
    let t = &c.transactions[0];
    assert_close!(t.logical_reads, 300.0);
    assert_close!(t.blocks_changed, 9.0);
    assert_close!(t.redo_bytes, 4000.0 - 9.0 * 120.0);
    assert_close!(t.cpu_ms, 15.0);
    assert_close!(t.statements, 10.0);
    assert_close!(t.physical_reads.unwrap(), 5.0);
    assert_close!(t.physical_writes.unwrap(), 2.0);
    assert_close!(t.scan_share, 0.05);
    assert_close!(t.index_share, 0.65);
    assert_close!(t.think_ms, 80.0 / 120.0 * 1000.0 - 30.0);
    assert_eq!(c.instance.cpus, 8);
    assert_eq!(c.instance.buffer_cache, ByteSize(2 << 30));
    assert_eq!(c.instance.log_buffer, ByteSize(10 << 20));
    assert_close!(c.instance.cpu_busy_pct.unwrap(), 22.5);
    assert!(has_warning(
        &r,
        "no Host CPU or Operating System Statistics: cpu_busy_pct estimated from DB CPU \
         (foreground only)"
    ));
    let o = c.observed.as_ref().unwrap();
    assert_close!(o.elapsed_s.unwrap(), 1800.0);
    assert_close!(o.transactions_per_s.unwrap(), 120.0);
    assert_close!(o.rollbacks_per_s.unwrap(), 0.2);
    let cpu = &o.events[0];
    assert_eq!(cpu.name, "CPU time");
    assert_eq!((cpu.waits, cpu.time_s, cpu.avg_ms), (None, 3240.0, None));
    assert_eq!(
        (cpu.pct_db_time, cpu.wait_class.as_deref()),
        (Some(50.0), None)
    );
    let e = &o.events[1];
    assert_eq!(
        (e.waits, e.time_s, e.avg_ms),
        (Some(1.08e6), 2160.0, Some(2.0))
    );
    assert_eq!(o.events.len(), 5);
    assert_eq!(o.tablespaces.len(), 3);
    assert_eq!(o.tablespaces[2].tablespace, "UNDOTBS1");
    assert_eq!(o.tablespaces[2].writes, Some(54_000.0));
    assert!(o.files.is_empty());
    let kinds: Vec<SegmentKind> = c.segments.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            SegmentKind::Table,
            SegmentKind::Index,
            SegmentKind::Undo,
            SegmentKind::Log
        ]
    );
}

#[test]
fn awr_html_every_field_as_the_report_says() {
    let (c, r) = read("bank-awr.html");
    assert_eq!(r.format, Format::AwrHtml);
    assert_eq!(
        r.missing,
        [
            "Time Model Statistics",
            "Operating System Statistics",
            "Thread Activity",
            "File IO Stats"
        ]
    );
    assert_eq!(c.name, "BANK snaps 880-881");
    assert_eq!((c.sessions, c.block_bytes), (1200, 8192));
    let t = &c.transactions[0];
    assert_close!(t.logical_reads, 320.0);
    assert_close!(t.blocks_changed, 11.0);
    assert_close!(t.redo_bytes, 4800.0 - 11.0 * 120.0);
    assert_close!(t.cpu_ms, 8.0);
    assert_close!(t.statements, 18.0);
    assert_close!(t.physical_reads.unwrap(), 8.0);
    assert_close!(t.physical_writes.unwrap(), 3.0);
    assert_close!(t.scan_share, 0.01);
    assert_close!(t.index_share, 0.69);
    assert_close!(t.think_ms, 588.0);
    let i = &c.instance;
    assert_eq!(i.cpus, 32);
    assert_close!(i.cpu_busy_pct.unwrap(), 62.0);
    assert_eq!(i.buffer_cache, ByteSize(48 << 30));
    assert_eq!(i.log_buffer, ByteSize(256 << 20));
    assert_close!(i.db_time_per_s.unwrap(), 24.0);
    let o = c.observed.as_ref().unwrap();
    assert_close!(o.elapsed_s.unwrap(), 900.0);
    assert_close!(o.transactions_per_s.unwrap(), 2000.0);
    assert_close!(o.redo_bytes_per_s.unwrap(), 9_600_000.0);
    let e = &o.events[1];
    assert_eq!(e.name, "db file sequential read");
    assert_eq!(
        (e.waits, e.time_s, e.avg_ms),
        (Some(14.4e6), 4320.0, Some(0.3))
    );
    assert_eq!(o.events[0].time_s, 14_400.0);
    assert_eq!(o.events[3].wait_class.as_deref(), Some("Cluster"));
    let acct = &o.tablespaces[0];
    assert_eq!(acct.tablespace, "ACCOUNTS");
    assert_eq!(
        (acct.reads, acct.reads_per_s),
        (Some(10.8e6), Some(12_000.0))
    );
    assert_eq!(
        (acct.read_avg_ms, acct.writes_per_s),
        (Some(0.3), Some(4000.0))
    );
    assert_eq!(o.tablespaces[1].buffer_waits, None);
    assert!(has_warning(
        &r,
        "Tablespace IO Stats: ACCT_IDX buffer waits: the value overflowed"
    ));
    assert_eq!(c.segments[1].kind, SegmentKind::Index);
}

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
fn the_characterization_round_trips_through_toml_and_json() {
    for name in ["acme-awr.txt", "shop-statspack.txt", "bank-awr.html"] {
        let (c, _) = read(name);
        let toml = c.to_toml();
        assert_eq!(
            Characterization::from_toml(&toml, "x.toml"),
            Ok(c.clone()),
            "{toml}"
        );
        // serde_json reads a float to within one unit in the last place (without its
        // `float_roundtrip` feature), so JSON agrees to 1e-15 rather than bit for bit.
        let back = Characterization::from_json(&c.to_json(), "x.json").expect("reads back");
        let (a, b) = (json(&back), json(&c));
        assert!(same_within(&a, &b), "{a}\n{b}");
    }
}

fn json(c: &Characterization) -> serde_json::Value {
    serde_json::from_str(&c.to_json()).expect("JSON")
}

fn same_within(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (J::Number(x), J::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            (x - y).abs() <= 1e-15 * x.abs().max(y.abs())
        }
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_within(x, y))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_within(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn truncated_binary_empty_and_foreign_files_are_bad_input_naming_the_file() {
    let cases = [
        ("truncated-awr.txt", "the Load Profile has no Transactions line (the report has no 'End of Report' line: it may be truncated)"),
        ("binary.bin", "a binary file"),
    ];
    for (name, reason) in cases {
        match read_report(&fixture(name)) {
            Err(Error::BadInput { file, reason: r }) => {
                assert!(file.ends_with(name), "{file}");
                assert!(r.starts_with(reason), "{r}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    let e = parse_report(b"  \n", "empty.txt").unwrap_err();
    assert_eq!(e.to_string(), "empty.txt: the file is empty");
    let e = parse_report(b"hello\nworld\n", "notes.txt").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("notes.txt: not an AWR or Statspack report"),
        "{e}"
    );
    let e = read_report(&fixture("no-such-report.txt")).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
    assert!(
        e.to_string().contains("no-such-report.txt: cannot read it"),
        "{e}"
    );
}

#[test]
fn values_beyond_a_bound_are_invalid_not_a_panic() {
    let text = std::fs::read_to_string(fixture("acme-awr.txt")).unwrap();
    let huge = text.replace(
        "  Logical read (blocks):         125,000.0",
        "  Logical read (blocks): 9,999,999,999,999",
    );
    match parse_report(huge.as_bytes(), "huge.txt") {
        Err(Error::Invalid { file, source }) => {
            assert_eq!(file, "huge.txt");
            assert!(
                source.to_string().contains("transactions[0].logical_reads"),
                "{source}"
            );
        }
        other => panic!("{other:?}"),
    }
    let zero = text.replace(
        "Transactions:             250.0",
        "Transactions:               0.0",
    );
    let e = parse_report(zero.as_bytes(), "idle.txt").unwrap_err();
    assert!(e.to_string().contains("0 transactions per second"), "{e}");
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

/// An older Statspack layout: header facts on `label: value` lines, Cache Sizes under a line
/// of tildes alone, the Load Profile's headings on the tilde line.
const OLD_STATSPACK: &str = "\
STATSPACK report for

DB Name         DB Id    Instance     Inst Num Release     Cluster Host
------------ ----------- ------------ -------- ----------- ------- ------------
MILL          987654321 mill                1 9.2.0.8.0   NO      millhost

              Snap Id     Snap Time      Sessions Curs/Sess Comment
            --------- ------------------ -------- --------- -------------------
Begin Snap:        11 03-Mar-26 10:00:00       40      12.0
  End Snap:        12 03-Mar-26 10:20:00       44      12.5
   Elapsed:               20.00 (mins)

Host Name:   millhost         Num CPUs:    4        Phys Memory (MB):   8,192
~~~~

Cache Sizes (end)
~~~~~~~~~~~~~~~~~
               Buffer Cache:       512M      Std Block Size:          4K
           Shared Pool Size:       256M          Log Buffer:      1,024K

Load Profile
~~~~~~~~~~~~                            Per Second       Per Transaction
                                   ---------------       ---------------
                  Redo size:            100,000.00              2,000.00
              Logical reads:             10,000.00                200.00
              Block changes:                500.00                 10.00
             Physical reads:                 50.00                  1.00
            Physical writes:                 25.00                  0.50
                 User calls:                150.00                  3.00
                     Parses:                 40.00                  0.80
                   Executes:                400.00                  8.00
               Transactions:                 50.00

End of Report
";

#[test]
fn an_older_statspack_layout_reads_too() {
    let (c, r) = parse_report(OLD_STATSPACK.as_bytes(), "old.lst").unwrap();
    assert_eq!(r.format, Format::StatspackText);
    assert_eq!(c.name, "MILL snaps 11-12");
    assert_eq!((c.sessions, c.block_bytes), (42, 4096));
    assert_eq!(c.instance.cpus, 4);
    assert_eq!(c.instance.buffer_cache, ByteSize(512 << 20));
    assert_eq!(c.instance.log_buffer, ByteSize(1 << 20));
    let t = &c.transactions[0];
    assert_close!(t.logical_reads, 200.0);
    // 10 block changes: 4 of table and index blocks, their 4 undo records' 480 bytes of redo.
    assert_close!(t.redo_bytes, 2000.0 - 4.0 * 120.0);
    assert_close!(t.statements, 8.0);
    assert_close!(c.observed.unwrap().elapsed_s.unwrap(), 1200.0);
    assert!(has_warning(&r, "no DB CPU"), "{:?}", r.warnings);
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

/// The CPU a report gives: the sessions' per transaction from the Load Profile's DB CPU (Time
/// Model's when the Load Profile has none), the host's CPUs, the background CPU, and the log
/// writer's CPU per write (all background CPU over the redo writes: 288 s over 720,000).
#[test]
fn cpu_from_the_time_model_and_the_os_statistics() {
    let (c, r) = read("acme-awr.txt");
    assert!(r.found.contains(&"Time Model Statistics".to_string()));
    assert!(r.found.contains(&"Operating System Statistics".to_string()));
    assert_close!(c.transactions[0].cpu_ms, 24.0);
    assert_eq!(c.instance.cpus, 16);
    let o = c.observed.as_ref().unwrap();
    assert_close!(o.db_cpu_per_s.unwrap(), 6.0);
    assert_close!(o.background_cpu_per_s.unwrap(), 288.0 / 3600.0);
    assert_eq!(
        c.instance
            .settings
            .get("log_writer_cpu_us")
            .map(String::as_str),
        Some("400")
    );

    let text = std::fs::read_to_string(fixture("acme-awr.txt")).unwrap();
    // Without the Load Profile's DB CPU, the header's CPUs and Host CPU: Time Model's DB CPU
    // (21,600 s over 900,000 transactions), NUM_CPUS, and BUSY_TIME over BUSY_TIME + IDLE_TIME.
    let cut: String = text
        .lines()
        .filter(|l| !l.contains("DB CPU(s):") && !l.starts_with("acmedb01"))
        .map(|l| l.replace("CPUs:   16", "").replace("Host CPU", "Host Load"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (c, r) = parse_report(cut.as_bytes(), "cut.txt").unwrap();
    assert!(!r.found.contains(&"Host CPU".to_string()), "{:?}", r.found);
    assert_close!(c.transactions[0].cpu_ms, 24.0);
    assert_eq!(c.instance.cpus, 16);
    assert_close!(c.instance.cpu_busy_pct.unwrap(), 45.0);
    let o = c.observed.as_ref().unwrap();
    assert_close!(o.db_cpu_per_s.unwrap(), 6.0);

    // Without redo writes the log writer's CPU is not known, and a warning says so.
    let cut: String = text
        .lines()
        .filter(|l| !l.starts_with("redo writes"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (c, r) = parse_report(cut.as_bytes(), "cut.txt").unwrap();
    assert!(!c.instance.settings.contains_key("log_writer_cpu_us"));
    assert!(has_warning(&r, "no redo writes"), "{:?}", r.warnings);
}
