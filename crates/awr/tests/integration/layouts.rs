//! Every field of each report layout (AWR text and HTML, Statspack, an older Statspack) as
//! the report says.

use storlab_awr::{parse_report, Format, ReadReport};
use storlab_core::character::{Characterization, Engine, SegmentKind, SegmentSize};
use storlab_core::ByteSize;

use super::{close, has_warning, read};

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
