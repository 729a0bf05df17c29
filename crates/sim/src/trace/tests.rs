//! Tests of the trace readers on the fixture files (tests/fixtures/traces).

use super::*;

const SPC: &str = include_str!("../../tests/fixtures/traces/spc.csv");
const MSR: &str = include_str!("../../tests/fixtures/traces/msr.csv");
const BLKPARSE: &str = include_str!("../../tests/fixtures/traces/blkparse.txt");
const FIO_V2: &str = include_str!("../../tests/fixtures/traces/fio-v2.log");
const FIO_V3: &str = include_str!("../../tests/fixtures/traces/fio-v3.log");
const SPC_BAD: &str = include_str!("../../tests/fixtures/traces/spc-bad.csv");
const MSR_BAD: &str = include_str!("../../tests/fixtures/traces/msr-bad.csv");
const BLKPARSE_BAD: &str = include_str!("../../tests/fixtures/traces/blkparse-bad.txt");
const FIO_BAD: &str = include_str!("../../tests/fixtures/traces/fio-bad.log");

pub(super) type Errors = Vec<(u64, String)>;

/// Reads everything, keeping going after errors.
pub(super) fn read_all<R: BufRead>(
    mut r: TraceReader<R>,
) -> (Vec<TraceRecord>, Errors, TraceReader<R>) {
    let (mut recs, mut errs) = (Vec::new(), Vec::new());
    for item in r.by_ref() {
        match item {
            Ok(rec) => recs.push(rec),
            Err(e) => errs.push((e.line, e.reason)),
        }
    }
    (recs, errs, r)
}

pub(super) fn reader(text: &str, format: TraceFormat) -> TraceReader<&[u8]> {
    TraceReader::new(text.as_bytes(), format, "test")
}

/// Reads a trace that must have no errors.
pub(super) fn read_ok(text: &str, format: TraceFormat) -> (Vec<TraceRecord>, TraceReader<&[u8]>) {
    let (recs, errs, r) = read_all(reader(text, format));
    assert_eq!(errs, Vec::new(), "unexpected errors");
    (recs, r)
}

pub(super) fn rec(
    time_ns: u64,
    device: u32,
    offset_bytes: u64,
    bytes: u32,
    write: bool,
) -> TraceRecord {
    TraceRecord {
        time_ns,
        device,
        offset_bytes,
        bytes,
        write,
    }
}

pub(super) fn errs(list: &[(u64, &str)]) -> Errors {
    list.iter().map(|(l, r)| (*l, r.to_string())).collect()
}

#[test]
fn format_names_round_trip() {
    for f in TraceFormat::ALL {
        assert_eq!(TraceFormat::parse(f.name()), Some(f));
    }
    assert_eq!(TraceFormat::parse("blkparse"), Some(TraceFormat::Blkparse));
    assert_eq!(TraceFormat::parse("csv"), None);
    assert_eq!(TraceFormat::parse("SPC"), None);
}

#[test]
fn spc_fixture() {
    let (recs, r) = read_ok(SPC, TraceFormat::Spc);
    assert_eq!(recs.len(), 60);
    assert_eq!(r.devices(), ["asu0", "asu2", "asu1"]);
    assert_eq!((r.lines(), r.skipped()), (63, 0));
    // 0,20941264,8192,W,0.551706: LBA in 512-byte blocks.
    assert_eq!(recs[0], rec(0, 0, 20_941_264 * 512, 8192, true));
    // 2,25242576,512,w,0.566189
    assert_eq!(recs[1], rec(14_483_000, 1, 25_242_576 * 512, 512, true));
    // 1,37890296,65536,R,0.841840,1,0 (extra fields ignored)
    assert_eq!(recs[4], rec(290_134_000, 2, 37_890_296 * 512, 65536, false));
    // Out of order (1.988986 s then 1.900632 s) is reported as is.
    assert_eq!(recs[20].time_ns, 1_437_280_000);
    assert_eq!(recs[21].time_ns, 1_348_926_000);
    // 2,1015,4096,r,12.000001,extra,fields
    assert_eq!(recs[59], rec(11_448_295_000, 1, 1015 * 512, 4096, false));
}

#[test]
fn msr_fixture() {
    let (recs, r) = read_ok(MSR, TraceFormat::Msr);
    assert_eq!(recs.len(), 80);
    assert_eq!(r.devices(), ["hm_0", "src1_2", "hm_1"]);
    assert_eq!(recs[0], rec(0, 0, 3_154_317_312, 4096, false));
    // 379734 filetime ticks of 100 ns after the first record.
    assert_eq!(recs[1], rec(37_973_400, 1, 10_057_394_176, 4096, false));
    // hm,1,WRITE: type is case-insensitive.
    assert_eq!(recs[3], rec(178_705_000, 2, 5_711_781_888, 4096, true));
    assert_eq!(recs[79], rec(12_345_678_900, 1, 8192, 65536, true));
}

#[test]
fn blkparse_fixture() {
    let (recs, r) = read_ok(BLKPARSE, TraceFormat::Blkparse);
    assert_eq!(recs.len(), 30);
    assert_eq!(r.devices(), ["8,16", "8,32"]);
    assert_eq!(r.lines(), 167);
    // G/I/D/C/m/U events, the discard, the data-less flush, the N request, 9 summary lines.
    assert_eq!(r.skipped(), 136);
    // 8,16 ... 0.000123456 4000 Q W 123456 + 8: sectors of 512 bytes.
    assert_eq!(recs[0], rec(0, 0, 123_456 * 512, 4096, true));
    // 8,32 ... 1.234567890 4029 Q R 987654 + 16
    assert_eq!(recs[29], rec(1_234_444_434, 1, 987_654 * 512, 8192, false));
    assert!(recs.iter().all(|r| r.time_ns <= 1_234_444_434));

    // The completions instead of the queue events: one less (the last I/O has no C).
    let (recs, errs, r) =
        read_all(reader(BLKPARSE, TraceFormat::Blkparse).with_blkparse_action("C"));
    assert_eq!((recs.len(), errs.len()), (29, 0));
    assert_eq!(recs[0], rec(0, 0, 123_456 * 512, 4096, true));
    assert_eq!(r.skipped(), 167 - 1 - 29);
}

#[test]
fn fio_v2_fixture() {
    let (recs, r) = read_ok(FIO_V2, TraceFormat::Fio);
    assert_eq!(recs.len(), 38);
    assert_eq!(r.devices(), ["/dev/sdb", "/dev/sdc"]);
    // Header, add/open/close, waits, syncs, trim and datasync.
    assert_eq!(r.skipped(), 23);
    assert_eq!(recs[0], rec(0, 1, 1_048_576, 4096, true));
    assert_eq!(recs[1], rec(0, 1, 21_266_432, 8192, false));
    // After "wait 2970" (microseconds).
    assert_eq!(recs[2], rec(2_970_000, 0, 537_133_056, 8192, false));
    // Total of all waits: 21202 us.
    assert_eq!(recs[37], rec(21_202_000, 0, 4096, 512, false));
}

#[test]
fn fio_v3_fixture() {
    let (recs, r) = read_ok(FIO_V3, TraceFormat::Fio);
    assert_eq!(recs.len(), 42);
    assert_eq!(r.devices(), ["/dev/nvme0n1", "/dev/nvme1n1"]);
    assert_eq!(r.skipped(), 8);
    // 15 /dev/nvme1n1 write 0 16384: the first record is time 0.
    assert_eq!(recs[0], rec(0, 1, 0, 16384, true));
    // 14552 us: microseconds relative to the first record.
    assert_eq!(recs[1], rec(14_537_000, 1, 29_764_046_848, 4096, true));
    assert_eq!(
        recs[41],
        rec(2_000_000_000, 0, 8_589_934_592, 131_072, false)
    );
}

#[test]
fn detects_each_fixture() {
    for (text, format) in [
        (SPC, TraceFormat::Spc),
        (MSR, TraceFormat::Msr),
        (BLKPARSE, TraceFormat::Blkparse),
        (FIO_V2, TraceFormat::Fio),
        (FIO_V3, TraceFormat::Fio),
    ] {
        let lines: Vec<&str> = text.lines().take(10).collect();
        assert_eq!(detect_format(&lines), Some(format), "{lines:?}");
        assert_eq!(detect_format(&lines[..3]), Some(format));
    }
    // Summary lines are accepted after blkparse events.
    let tail: Vec<&str> = BLKPARSE.lines().skip(155).collect();
    assert_eq!(detect_format(&tail), Some(TraceFormat::Blkparse));
    assert_eq!(
        detect_format(&["ASU,LBA,Size,Opcode,Timestamp", "0,1,512,r,0.1"]),
        Some(TraceFormat::Spc)
    );
    assert_eq!(
        detect_format(&["Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"]),
        Some(TraceFormat::Msr)
    );
}

#[test]
fn detection_is_unsure_on_garbage() {
    assert_eq!(detect_format(&[]), None);
    assert_eq!(detect_format(&["", "# only a comment"]), None);
    assert_eq!(detect_format(&["hello world", "1,2,3"]), None);
    assert_eq!(detect_format(&["0,1,512,x,0.1"]), None);
    assert_eq!(detect_format(&["/dev/sdb read 0 4096"]), None);
    assert_eq!(
        detect_format(&["CPU0 (8,16):", " Reads Queued: 1, 4KiB"]),
        None
    );
    // Lines of two formats.
    assert_eq!(
        detect_format(&["0,1,512,r,0.1", "128166372000000000,hm,0,Read,0,4096,1"]),
        None
    );
    // A fio header that is not the first line.
    assert_eq!(
        detect_format(&["0,1,512,r,0.1", "fio version 2 iolog"]),
        None
    );
}

#[test]
fn spc_malformed_fixture() {
    let (recs, e, _) = read_all(TraceReader::new(
        SPC_BAD.as_bytes(),
        TraceFormat::Spc,
        "spc-bad.csv",
    ));
    let want = errs(&[
        (
            3,
            r#"field 2 (LBA): "abc" is not a number of 512-byte blocks"#,
        ),
        (4, r#"field 3 (Size): "abc" is not a number of bytes"#),
        (6, r#"field 2 (LBA): "-5" is negative"#),
        (
            7,
            r#"field 4 (Opcode): "x" is not an opcode (r, R, w or W)"#,
        ),
        (
            8,
            r#"field 3 (Size): "0" is zero; sizes must be at least 1 byte"#,
        ),
        (
            9,
            r#"field 3 (Size): "4294967296" is over 4 GiB; sizes must be at most 4294967295 bytes"#,
        ),
        (
            10,
            r#"field 5 (Timestamp): "abc" is not a number of seconds"#,
        ),
        (11, r#"field 5 (Timestamp): "-1.5" is negative"#),
        (13, "field 4 (Opcode) is missing"),
    ]);
    assert_eq!(e, want);
    // Reading went on after each error.
    assert_eq!(
        recs,
        [
            rec(0, 0, 51_200, 4096, false),
            rec(300_000, 1, 102_400, 512, true),
            rec(900_000, 1, 153_600, 512, false)
        ]
    );
    let first = TraceReader::new(SPC_BAD.as_bytes(), TraceFormat::Spc, "spc-bad.csv").nth(1);
    let msg = first.map(|r| r.map_err(|e| e.to_string()));
    assert_eq!(
        msg,
        Some(Err(
            r#"spc-bad.csv:3: field 2 (LBA): "abc" is not a number of 512-byte blocks"#.into()
        ))
    );
}

#[test]
fn msr_malformed_fixture() {
    let (recs, e, r) = read_all(reader(MSR_BAD, TraceFormat::Msr));
    let want = errs(&[
        (
            2,
            r#"field 4 (Type): "Delete" is not a type (Read or Write)"#,
        ),
        (3, r#"field 6 (Size): "-4096" is negative"#),
        (
            4,
            r#"field 1 (Timestamp): "12.5e3" is not a Windows filetime (100 ns ticks)"#,
        ),
        (5, r#"field 3 (DiskNumber): "x" is not a disk number"#),
        (7, r#"field 2 (Hostname): "" is empty"#),
        (
            8,
            r#"field 6 (Size): "5000000000" is over 4 GiB; sizes must be at most 4294967295 bytes"#,
        ),
    ]);
    assert_eq!(e, want);
    assert_eq!(
        recs,
        [
            rec(0, 0, 3_154_317_312, 4096, false),
            rec(500_000, 1, 8192, 8192, true)
        ]
    );
    assert_eq!(r.devices(), ["hm_0", "hm_1"]);
}

#[test]
fn blkparse_malformed_fixture() {
    let (recs, e, _) = read_all(reader(BLKPARSE_BAD, TraceFormat::Blkparse));
    let want = errs(&[
        (
            2,
            r#"field 8 (sector): "abc" is not a number of 512-byte sectors"#,
        ),
        (3, r#"field 4 (time): "x.y" is not a number of seconds"#),
        (4, r#"field 9 (+): "-" is not "+" between sector and count"#),
        (
            5,
            r#"field 10 (count): "0" is zero; sizes must be at least 1 byte"#,
        ),
        (7, "field 9 (+) is missing"),
        (
            8,
            r#"field 10 (count): "9000000" is over 4 GiB; sizes must be at most 4294967295 bytes"#,
        ),
    ]);
    assert_eq!(e, want);
    assert_eq!(
        recs,
        [
            rec(0, 0, 512_000, 4096, true),
            rec(500_000, 0, 1_024_000, 8192, false)
        ]
    );
}

#[test]
fn fio_malformed_fixture() {
    let (recs, e, _) = read_all(reader(FIO_BAD, TraceFormat::Fio));
    let want = errs(&[
        (3, r#"field 4 (offset): "abc" is not a number of bytes"#),
        (
            4,
            r#"field 3 (action): "frobnicate" is not an iolog action (add, open, close, read, write, sync, datasync, sync_file_range, trim, wait)"#,
        ),
        (5, r#"field 1 (timestamp): "-5" is negative"#),
        (
            6,
            r#"field 5 (length): "0" is zero; sizes must be at least 1 byte"#,
        ),
        (8, "field 5 (length) is missing"),
    ]);
    assert_eq!(e, want);
    assert_eq!(recs, [rec(0, 0, 8192, 4096, true)]);
}
