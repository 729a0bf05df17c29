//! Edge cases of the trace readers on in-memory text, and an SPC round-trip property.

use super::tests::{errs, read_all, read_ok, reader, rec};
use super::*;
use proptest::prelude::*;
use std::io::{BufReader, Read};

#[test]
fn fio_needs_its_header() {
    let (recs, e, _) = read_all(reader(
        "\n# c\n/dev/sdb add\n/dev/sdb read 0 512\n",
        TraceFormat::Fio,
    ));
    let reason = r#"expected the header "fio version 2 iolog" or "fio version 3 iolog", found "/dev/sdb add""#;
    assert_eq!(e[0], (3, reason.to_string()));
    // Until a header is found, every line is taken for a missing header.
    assert_eq!(e.len(), 2);
    assert_eq!(e[1].0, 4);
    assert!(recs.is_empty());
}

#[test]
fn fio_v3_wait_is_skipped_and_v2_waits_add_up() {
    let v3 = "fio version 3 iolog\n5 f wait 1000 0\n7 f read 0 512\n9 f write 512 512\n";
    let (recs, r) = read_ok(v3, TraceFormat::Fio);
    assert_eq!(
        recs,
        [rec(0, 0, 0, 512, false), rec(2_000, 0, 512, 512, true)]
    );
    assert_eq!((r.devices(), r.skipped()), (&["f".to_string()][..], 2));
    let v2 = "fio version 2 iolog\nf wait 100 0\nf read 0 512\nf wait 250 0\nf wait 50 0\nf write 0 512\n";
    let (recs, _) = read_ok(v2, TraceFormat::Fio);
    assert_eq!(
        recs,
        [rec(0, 0, 0, 512, false), rec(300_000, 0, 0, 512, true)]
    );
}

#[test]
fn blanks_comments_crlf_and_headers() {
    let spc = "ASU,LBA,Size,Opcode,Timestamp\r\n\r\n   # indented comment\r\n 3 , 7 , 1024 , R , 2.5 \r\n3,8,4294967295,w,3\r\n";
    let (recs, r) = read_ok(spc, TraceFormat::Spc);
    assert_eq!(
        recs,
        [
            rec(0, 0, 3584, 1024, false),
            rec(500_000_000, 0, 4096, u32::MAX, true)
        ]
    );
    assert_eq!(
        (r.devices(), r.lines(), r.skipped()),
        (&["asu3".to_string()][..], 5, 1)
    );
    let msr = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n10,web,01,read,0,512\n";
    let (recs, r) = read_ok(msr, TraceFormat::Msr);
    assert_eq!(recs, [rec(0, 0, 0, 512, false)]);
    assert_eq!(r.devices(), ["web_1"]);
}

#[test]
fn timestamps_and_offsets_at_the_edges() {
    // Fractions past nanoseconds are truncated; ".5" and "7" are numbers of seconds.
    let (recs, _) = read_ok(
        "0,0,1,r,1.0000000019\n0,0,1,r,.5\n0,0,1,r,7\n",
        TraceFormat::Spc,
    );
    let times: Vec<u64> = recs.iter().map(|r| r.time_ns).collect();
    // A record earlier than the first one saturates at 0.
    assert_eq!(times, [0, 0, 5_999_999_999]);
    let (_, e, _) = read_all(reader(
        "0,36028797018963968,1,r,0\n0,0,1,r,1e-3\n0,0,1,r,.\n",
        TraceFormat::Spc,
    ));
    assert_eq!(
        e,
        errs(&[
            (
                1,
                r#"field 2 (LBA): "36028797018963968" is too large: the byte offset does not fit 64 bits"#
            ),
            (
                2,
                r#"field 5 (Timestamp): "1e-3" is not a number of seconds"#
            ),
            (3, r#"field 5 (Timestamp): "." is not a number of seconds"#),
        ])
    );
    let (_, e, _) = read_all(reader(
        "99999999999999999999,h,0,Read,0,1\n",
        TraceFormat::Msr,
    ));
    assert_eq!(
        e,
        errs(&[(
            1,
            r#"field 1 (Timestamp): "99999999999999999999" is too large"#
        )])
    );
}

#[test]
fn blkparse_rwbs_kinds() {
    let text = "8,0 0 1 0.1 1 Q FWFS 64 + 8 [j]\n8,0 0 2 0.2 1 Q D 64 + 8 [t]\n8,0 0 3 0.3 1 Q RA 8 + 8 [r]\n\
                8,0 0 4 0.4 1 Q N 0 + 0 [k]\n8,0 0 5 0.5 1 Q FN 0 + 0 [k]\n8,0 0 6 0.6 1 Q WFS 0 + 0 [k]\n";
    let (recs, r) = read_ok(text, TraceFormat::Blkparse);
    assert_eq!(
        recs,
        [
            rec(0, 0, 32_768, 4096, true),
            rec(200_000_000, 0, 4096, 4096, false)
        ]
    );
    assert_eq!(r.skipped(), 4);
}

/// A stream that fails after its first line.
struct Failing(bool);

impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if std::mem::replace(&mut self.0, true) {
            return Err(std::io::Error::other("disk on fire"));
        }
        let line = b"0,1,512,r,0\n";
        let n = line.len().min(buf.len());
        buf[..n].copy_from_slice(&line[..n]);
        Ok(n)
    }
}

#[test]
fn read_error_ends_iteration() {
    let mut r = TraceReader::new(BufReader::new(Failing(false)), TraceFormat::Spc, "f");
    assert_eq!(r.next(), Some(Ok(rec(0, 0, 512, 512, false))));
    let e = r.next();
    assert_eq!(
        e.map(|e| e.map_err(|e| e.to_string())),
        Some(Err("f:2: read error: disk on fire".to_string()))
    );
    assert_eq!(r.next(), None);
    assert_eq!(r.lines(), 1);
}

#[test]
fn empty_input() {
    let (recs, r) = read_ok("", TraceFormat::Msr);
    assert!(recs.is_empty() && r.devices().is_empty());
    assert_eq!(r.lines(), 0);
}

/// Formats records as SPC lines the way a trace writer might.
fn spc_lines(recs: &[(u64, u64, u32, bool, u64, u8)]) -> String {
    let mut s = String::new();
    for &(asu, lba, size, write, t, style) in recs {
        let op = match (write, style % 2) {
            (false, 0) => "r",
            (false, _) => "R",
            (true, 0) => "w",
            (true, _) => "W",
        };
        let (secs, ns) = (t / 1_000_000_000, t % 1_000_000_000);
        let ts = match style % 3 {
            0 => format!("{secs}.{ns:09}"),
            1 => format!("{secs}.{ns:09}000"),
            _ => format!("{secs}.{ns:09},extra"),
        };
        s.push_str(&format!("{asu},{lba},{size},{op},{ts}\n"));
    }
    s
}

proptest! {
    #[test]
    fn spc_round_trip(recs in prop::collection::vec(
        (0u64..6, 0u64..(1 << 54), 1u32..=u32::MAX, any::<bool>(), 0u64..(1 << 50), any::<u8>()),
        1..40,
    )) {
        let text = spc_lines(&recs);
        let (got, r) = read_ok(&text, TraceFormat::Spc);
        let mut names: Vec<String> = Vec::new();
        let t0 = recs[0].4;
        let want: Vec<TraceRecord> = recs.iter().map(|&(asu, lba, size, write, t, _)| {
            let name = format!("asu{asu}");
            let device = names.iter().position(|n| *n == name).unwrap_or_else(|| {
                names.push(name);
                names.len() - 1
            });
            rec(t.saturating_sub(t0), device as u32, lba * 512, size, write)
        }).collect();
        prop_assert_eq!(got, want);
        prop_assert_eq!(r.devices(), &names[..]);
    }
}

#[test]
fn an_endless_line_is_an_error_after_the_bound_not_read_whole() {
    // Zeros without a line break, forever: the reader must stop at the bound.
    for format in TraceFormat::ALL {
        let zeros = BufReader::new(std::io::repeat(0));
        let mut r = TraceReader::new(zeros, format, "zeros.bin");
        let e = r.next().expect("an error").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.reason.contains("longer than 4096 bytes"), "{}", e.reason);
        assert!(r.next().is_none(), "nothing after the long line is read");
    }
}

#[test]
fn lines_up_to_the_bound_are_read_and_one_byte_more_is_refused() {
    let at_bound = format!("{}\nnext\n", "a".repeat(MAX_LINE_BYTES));
    let mut input = at_bound.as_bytes();
    let mut buf = Vec::new();
    let first = read_line_limited(&mut input, &mut buf, MAX_LINE_BYTES).unwrap();
    assert_eq!((first, buf.len()), (Some(false), MAX_LINE_BYTES + 1));
    let second = read_line_limited(&mut input, &mut buf, MAX_LINE_BYTES).unwrap();
    assert_eq!((second, &buf[..]), (Some(false), &b"next\n"[..]));
    assert_eq!(
        read_line_limited(&mut input, &mut buf, MAX_LINE_BYTES).unwrap(),
        None
    );
    let over = "a".repeat(MAX_LINE_BYTES + 1);
    let mut input = over.as_bytes();
    let long = read_line_limited(&mut input, &mut buf, MAX_LINE_BYTES).unwrap();
    assert_eq!(long, Some(true));
}

#[test]
fn one_bad_line_among_good_ones_does_not_hide_the_format() {
    let mut lines: Vec<String> = (0..20)
        .map(|i| format!("0,{},4096,r,{i}.5", i * 8))
        .collect();
    lines[10] = "0,abc,4096,r,10.5".into();
    let head: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(detect_format(&head), Some(TraceFormat::Spc));
    // Reading then stops at that line with its number and reason.
    let text = lines.join("\n");
    let (recs, e, _) = read_all(reader(&text, TraceFormat::Spc));
    assert_eq!(recs.len(), 19);
    assert_eq!(e[0].0, 11);
    assert!(e[0].1.contains(r#"field 2 (LBA): "abc""#), "{}", e[0].1);
    // Mostly unrecognisable text is still no trace.
    assert_eq!(detect_format(&["0,1,512,r,0.1", "hello", "world"]), None);
}

#[test]
fn a_timestamp_too_large_for_nanoseconds_says_so() {
    let (_, e, _) = read_all(reader("0,1,512,r,99999999999.0\n", TraceFormat::Spc));
    assert_eq!(e[0].0, 1);
    assert!(
        e[0].1.contains(r#""99999999999.0" is too large"#),
        "{}",
        e[0].1
    );
    assert!(
        e[0].1.contains("18446744073.709551615 seconds"),
        "{}",
        e[0].1
    );
}
