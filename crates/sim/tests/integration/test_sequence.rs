//! Tests run one after another on the same simulated database (`[database] after`): the
//! state a test leaves (blocks uncleaned, dirty, the log) carries into the next one, whose
//! run is measured.

use storlab_core::result::Run;
use storlab_sim::{parse_workload, simulate};

use super::oracle_engine::{class, run_split};
use super::{opts, system, ENTERPRISE_RAID5};

fn param(r: &Run, key: &str) -> f64 {
    r.workload.parameters[key].as_f64().unwrap_or(0.0)
}

/// DPAWS select-row on Oracle's engine over 2 tables of 1,000,000 rows (about 33,000 blocks)
/// and an 8 MiB buffer cache (1,024 frames: a commit cleans out at most 102 blocks), with
/// `extra` keys.
fn select_row(extra: &str) -> Run {
    run_split(
        &format!(
            "test = \"dpaws/select-row\"\nsessions = 8\ntables = 2\nrows = 1000000\n\
             row_bytes = 100\nrange_rows = 10000\nbuffer = \"8MiB\"\n{extra}"
        ),
        5,
        2,
    )
}

/// After 10 s of update range (10,000 rows a transaction: about 170 blocks, beyond the 102 a
/// commit cleans out, and some written by the database writer before the commit), the
/// blocks left uncleaned are cleaned out by the selects that visit them: the select test
/// writes data blocks and generates redo, which the log writer writes. On a database no
/// transaction has changed the same select writes nothing.
#[test]
fn a_select_after_an_update_range_cleans_out_blocks_and_a_fresh_one_writes_nothing() {
    let fresh = select_row("");
    let after =
        select_row("after = [{ test = \"dpaws/update-range\", sessions = 4, duration = \"10s\" }]");
    for r in [&fresh, &after] {
        assert!(
            r.metrics.rows_per_s.unwrap_or(0.0) > 100.0,
            "{:?}",
            r.metrics
        );
    }
    let (f, a) = (
        &class(&fresh, "data").metrics,
        &class(&after, "data").metrics,
    );
    assert_eq!(
        f.write_iops, 0.0,
        "a fresh database's selects write no block"
    );
    assert_eq!(param(&fresh, "delayed_cleanouts_per_s"), 0.0);
    assert_eq!(class(&fresh, "log").metrics.write_iops, 0.0);
    let delayed = param(&after, "delayed_cleanouts_per_s");
    assert!(delayed > 20.0, "{delayed} delayed cleanouts/s");
    assert!(
        a.write_iops > 0.0,
        "the cleaned-out blocks are written: {a:?}"
    );
    let log = &class(&after, "log").metrics;
    // 100 bytes of redo a cleanout, written by the log writer (every 3 s at least).
    assert!(log.write_iops > 0.0 && log.write_mbps > 0.0, "{log:?}");
    assert!(
        log.write_mbps * 1e6 >= 0.5 * 100.0 * delayed,
        "{} MB/s of redo for {delayed} cleanouts/s",
        log.write_mbps
    );
    // The selects themselves change nothing: no commits.
    assert_eq!(after.metrics.tx_per_min, None);
}

/// The tests before the section's run first, then its warm-up and window; a test with more
/// sessions than the section's leaves the extra sessions idle after it. `after` is refused
/// where it cannot apply, naming the key.
#[test]
fn after_runs_first_and_is_checked() {
    let s = system(ENTERPRISE_RAID5);
    let base = "name = \"w\"\n[database]\ndata = \"datavol\"\nlog = \"logvol\"\nrows = 100000\n\
                tables = 2\nbuffer = \"8MiB\"\n";
    let parse = |extra: &str| parse_workload(&format!("{base}{extra}"), "w.toml", &s);
    let w = parse("test = \"dpaws/select-range\"\nsessions = 2\nafter = [\"dpaws/update-row\"]")
        .unwrap_or_else(|e| panic!("{e}"));
    let r = simulate(&s, &w, opts(2, 1, 1)).unwrap_or_else(|e| panic!("{e}"));
    // update-row (80 sessions) for the 1 s warm-up, then the warm-up again.
    assert_eq!(r.workload.warmup_s, 2.0);
    assert!(r.metrics.rows_per_s.unwrap_or(0.0) > 0.0);
    for (extra, key, says) in [
        ("test = \"dpaws/select-row\"\nafter = [\"oltp/medium\"]", "after[0]", "cannot run before"),
        ("test = \"dpaws/select-row\"\nafter = \"dpaws/update-row\"", "after", "must be a list"),
        (
            "test = \"dpaws/select-row\"\nafter = [{ test = \"dpaws/update-row\", duration = \"0s\" }]",
            "after[0].duration",
            "1ns",
        ),
        (
            "test = \"dpaws/select-row\"\nafter = [{ test = \"dpaws/update-row\", users = 3 }]",
            "after[0].users",
            "unknown key",
        ),
        (
            "test = \"orabench/load-conventional\"\nafter = [\"dpaws/update-row\"]",
            "after",
            "changes its tables",
        ),
    ] {
        let e = parse(extra).expect_err(extra).to_string();
        assert!(e.contains(&format!("database.{key}")) && e.contains(says), "{e}");
    }
    let mut auto = opts(2, 1, 1);
    auto.warmup_auto = true;
    let e = simulate(&s, &w, auto)
        .expect_err("auto warm-up")
        .to_string();
    assert!(
        e.contains("database.after") && e.contains("needs a duration"),
        "{e}"
    );
    // With their durations the tests run first, then the automatic warm-up.
    let timed = parse(
        "test = \"dpaws/select-range\"\nsessions = 2\n\
         after = [{ test = \"dpaws/update-row\", duration = \"3s\" }]",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let r = simulate(&s, &timed, auto).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        r.workload.warmup_auto && r.workload.warmup_s >= 3.0,
        "{:?}",
        r.workload
    );
    assert!(r.metrics.rows_per_s.unwrap_or(0.0) > 0.0);
    let e = simulate(&s, &w, opts(2, 0, 1))
        .expect_err("no warm-up")
        .to_string();
    assert!(e.contains("0 s") && e.contains("duration"), "{e}");
}
