//! Truncated, binary, empty, foreign and out-of-bound reports: errors naming the file and
//! the reason, never a panic.

use storlab_awr::{parse_report, read_report, Error};

use super::fixture;

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
