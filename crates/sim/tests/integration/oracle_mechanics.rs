//! Oracle mechanics beyond the log writer's triggers, each in isolation on a simulated
//! array: the `log buffer space` wait.

use storlab_core::result::{Run, WaitEvent};

use super::oracle_engine::{class, run_split};

fn wait<'a>(r: &'a Run, event: &str) -> Option<&'a WaitEvent> {
    r.metrics.waits.iter().find(|w| w.event == event)
}

/// Sessions loading 1,000 rows per commit generate 286 bytes of redo a row (100-byte rows:
/// 100 + 52 + 64 bytes of change, 70 of undo) into a 256 KiB log buffer. The log writer,
/// always busy, writes what the buffer holds, and the sessions wait for space in it (`log
/// buffer space`): the rows per second are the log's write bandwidth over the redo per row,
/// and doubling the sessions adds none.
#[test]
fn a_full_log_buffer_makes_sessions_wait_and_caps_them_at_the_log_bandwidth() {
    let run = |sessions: u32| {
        run_split(
            &format!(
                "test = \"orabench/load-conventional\"\nsessions = {sessions}\nrows = 2000000\n\
                 rows_per_commit = 1000\nlog_buffer = \"256KiB\"\nbuffer = \"256MiB\""
            ),
            10,
            2,
        )
    };
    let (four, eight) = (run(4), run(8));
    for r in [&four, &eight] {
        let space = wait(r, "log buffer space").expect("sessions wait for log buffer space");
        assert!(space.time_pct > 20.0, "{:?}", r.metrics.waits);
        let lgwr = wait(r, "log file parallel write").expect("the log writer's writes");
        assert!(
            lgwr.time_pct > 95.0,
            "the log writer is always busy: {lgwr:?}"
        );
        // The log device's write bandwidth at the writes' size, one write at a time.
        let log = &class(r, "log").metrics;
        let write_bytes = log.write_mbps * 1e6 / log.write_iops;
        let bandwidth = write_bytes / (lgwr.avg_ms.unwrap_or(0.0) / 1e3);
        assert!(
            (log.write_mbps * 1e6 - bandwidth).abs() < 0.05 * bandwidth,
            "log writes {} MB/s; one at a time of {write_bytes:.0} bytes: {:.3} MB/s",
            log.write_mbps,
            bandwidth / 1e6
        );
        let redo_per_row = 100.0 + 52.0 + 64.0 + 70.0 + 50.0 / 1000.0;
        let rows = r.metrics.rows_per_s.unwrap_or(0.0);
        assert!(
            (rows * redo_per_row - log.write_mbps * 1e6).abs() < 0.05 * log.write_mbps * 1e6,
            "{rows} rows/s of {redo_per_row} bytes of redo; the log writes {} MB/s",
            log.write_mbps
        );
    }
    let (a, b) = (
        four.metrics.rows_per_s.unwrap_or(0.0),
        eight.metrics.rows_per_s.unwrap_or(0.0),
    );
    assert!(
        (b - a).abs() < 0.05 * a && a > 0.0,
        "4 sessions {a} rows/s, 8 sessions {b}"
    );
}
