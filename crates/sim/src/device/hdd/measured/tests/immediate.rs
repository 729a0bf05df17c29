//! Zero-latency writes.

use super::{drive, Hdd, HddParams};
use crate::device::hdd::measured::immediate::TrackWrite;
use crate::device::hdd::Access;

/// A write of `n` blocks from `lba` issued at `now` to an idle HP C2247 whose write bus runs
/// at `mbps`, zero-latency or not.
fn c2247_write(mbps: f64, immediate: bool, now: u64, lba: u64, n: u32) -> Access {
    let mut p = HddParams {
        interface_write_mbps: mbps,
        ..drive("hp_c2247a")
    };
    p.command_overheads_ms
        .as_mut()
        .expect("overheads")
        .immediate_write = immediate;
    let mut disk = Hdd::new(&p, 0).expect("builds");
    disk.enqueue(now, 0, lba, n, true);
    disk.start_next(now).expect("starts").1
}

#[test]
fn a_zero_latency_track_writes_a_run_out_of_order_and_forgets_it_when_another_starts() {
    // Ten blocks, all buffered, the head starting at the fifth (index 4): 4 to 9 are one
    // run, then 0 to 3 in order; at 3 the blocks in order reach the run and jump past it.
    let mut t = TrackWrite::new();
    for k in 4..10 {
        assert!(!t.pass(k, 10));
    }
    for k in 0..3 {
        assert!(!t.pass(k, 10));
    }
    assert!(t.pass(3, 10));
    // A run 4..6 whose next block (6) was not buffered when it passed, then blocks 7 and 8:
    // a new run 7..9 replaces it, and 4 and 5 are written again in order. Block 6 in
    // order reaches the run: the blocks jump to 9, the last left.
    let mut t = TrackWrite::new();
    assert!(!t.pass(4, 10) && !t.pass(5, 10) && !t.pass(7, 10) && !t.pass(8, 10));
    for k in 0..7 {
        assert!(!t.pass(k, 10));
    }
    assert!(t.pass(9, 10));
}

#[test]
fn a_zero_latency_write_landing_inside_its_sectors_saves_those_ahead_of_the_head() {
    // 40 blocks from sector 10 of a 96-sector track of the C2247 (0.11574 ms a sector),
    // their data buffered long before the head lands (a bus of 1,000 MB/s). Writing in
    // block order the head waits for sector 10 and writes the 40: it ends when sector 50
    // ends. Zero-latency, a head landing past sector 10's start by `past`, inside the 40,
    // starts at the next boundary c = ceil(past / 0.11574 ms) sectors on, writes to the
    // end of the 40, passes the track round and writes the c before: it ends where it
    // started, one revolution later, (40 - c) sectors sooner than in block order. Landing
    // outside them, it waits for sector 10 either way: the same time.
    let lba = 300 * 96 - 1632 + 10;
    let rev_ns = 60_000_000_000u64 / 5400;
    let w = rev_ns as f64 / 96.0;
    let (mut inside, mut outside) = (0, 0);
    for i in 0..24u64 {
        let now = i * rev_ns / 24 + 7;
        let run = |immediate| c2247_write(1000.0, immediate, now, lba, 40);
        let (plain, zero) = (run(false), run(true));
        let past = if plain.rotate_ns > 0 {
            (rev_ns - plain.rotate_ns) as f64
        } else {
            0.0
        };
        let saved = plain.total_ns() as f64 - zero.total_ns() as f64;
        if past > 0.0 && past < 40.0 * w {
            let c = (past / w).ceil();
            assert!((saved - (40.0 - c) * w).abs() < 3.0, "{i}: {saved} {c}");
            inside += 1;
        } else {
            assert!(saved.abs() < 3.0, "{i}: {saved}");
            outside += 1;
        }
    }
    assert!(inside > 0 && outside > 0, "{inside} {outside}");
}

#[test]
fn a_zero_latency_write_fed_slower_than_a_revolution_a_block_ends_as_one_in_block_order() {
    // Three blocks over a bus of 0.0000005 MB/s (1,024 s a block, some 92,000 revolutions
    // of the C2247): each block's data comes in long after the head has passed the block,
    // so zero-latency or not, each is written the first time it comes round after its
    // data: the two times are equal, and the revolutions without data pass whole (not
    // sector by sector, 96 steps a revolution: 26 million steps here, and without bound as
    // the bus slows).
    let run = |immediate| c2247_write(0.000_000_5, immediate, 0, 1_000, 3).total_ns();
    let (plain, zero) = (run(false), run(true));
    assert!(plain > 3_000_000_000_000, "{plain}");
    assert!(zero.abs_diff(plain) < 10, "{zero} against {plain}");
}
