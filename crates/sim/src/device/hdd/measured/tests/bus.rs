//! A read on a drive that frees the bus while its buffer runs dry, and a read miss that
//! reads the blocks it passes before its own.

use super::{drive, ms_ns, Access, Hdd, HddParams};

/// The C2247 with a bus of 0.01 ms a sector (its media brings one every 0.11574 ms),
/// freeing the bus during reads or not, with `disconnect_ms` to disconnect after a read.
fn fast_bus_c2247(frees: bool, disconnect_ms: f64) -> HddParams {
    let mut p = HddParams {
        interface_mbps: 51.2,
        ..drive("hp_c2247a")
    };
    let o = p.command_overheads_ms.as_mut().expect("overheads");
    o.read_frees_bus = frees;
    o.read_disconnect_after_read = disconnect_ms;
    p
}

#[test]
fn a_read_that_frees_the_bus_reconnects_at_its_water_mark_each_time_it_runs_dry() {
    // A 40-block read from the start of a 96-block track of the C2247 (0.11574 ms a block
    // off the media), water mark three quarters: 30 blocks. The drive reconnects once 30
    // are in (3.4722 ms after its first block comes under the head), paying its reselect
    // and data preparation (0.16249 + 0.02519 = 0.18768 ms): at 3.6599 ms 31 are in; it
    // sends them (0.31 ms), then the 3 more in by 3.9699 ms (0.03 ms). At 3.9999 ms it
    // has sent all 34 it holds. Holding the bus, it sends each of the 6 others as it
    // comes in: the last crosses 0.01 ms after the media's end (4.6296 ms). Freeing it,
    // it disconnects (0.02266 ms after a read) and comes back when the rest is in, the
    // water mark being more than the 6 left: 4.6296 + 0.18768 ms, then sends the 6
    // (0.06 ms), 0.2377 ms later than holding it. With a disconnect of 1 ms the
    // reconnection waits for the disconnect instead: 3.9999 + 1 + 0.18768 + 0.06 ms.
    let (lba, n) = (300 * 96 - 1632, 40u32);
    let run = |p: &HddParams| {
        let mut disk = Hdd::new(p, 0).expect("builds");
        disk.enqueue(0, 0, lba, n, false);
        let (_, a) = disk.start_next(0).expect("starts");
        (a, disk)
    };
    let reconnect = ms_ns(0.16249 + 0.02519);
    let completion = ms_ns(0.05665);
    let (held, disk) = run(&fast_bus_c2247(false, 0.02266));
    let start = ms_ns(0.55821) + held.seek_ns + held.rotate_ns;
    let media = disk.transfer_measured_ns(lba, 40);
    assert_eq!(disk.iface_ns(1), 10_000);
    let want = start + media + disk.iface_ns(1) + completion;
    assert!(
        held.total_ns().abs_diff(want) <= 2,
        "{held:?} against {want}"
    );
    let (freed, _) = run(&fast_bus_c2247(true, 0.02266));
    let want = start + media + reconnect + disk.iface_ns(6) + completion;
    assert!(
        freed.total_ns().abs_diff(want) <= 2,
        "{freed:?} against {want}"
    );
    assert!(freed.total_ns() > held.total_ns() + ms_ns(0.2));
    let (slow, _) = run(&fast_bus_c2247(true, 1.0));
    let drained = start + disk.transfer_measured_ns(lba, 30) + reconnect + disk.iface_ns(34);
    let want = drained + ms_ns(1.0) + reconnect + disk.iface_ns(6) + completion;
    assert!(
        slow.total_ns().abs_diff(want) <= 2,
        "{slow:?} against {want}"
    );
}

#[test]
fn freeing_the_bus_at_no_cost_with_a_one_block_water_mark_sends_each_block_as_it_comes() {
    // Blocks in every 115,741 ns from 1 ms on, a bus of 10,000 ns a block, the first
    // reconnection once the first block is in: each block crosses as it comes, and the
    // last 10,000 ns after the media's end, as on a drive holding the bus.
    let disk = Hdd::new(&fast_bus_c2247(true, 0.0), 0).expect("builds");
    let ready = |k: u64| 1_000_000 + (k + 1) * 115_741;
    for n in [1, 2, 40] {
        let end = disk.read_bus_cycles_end_ns(n, 1, (0, 0), ready(0), ready);
        assert_eq!(end, ready(n - 1) + 10_000, "{n}");
    }
    // A water mark of 4 blocks holds the last 3 of 40 until all are in, the drive being
    // back at each reconnection only when 4 more are: 36 are sent at 4 blocks a cycle,
    // then the 4 left when the 40th is in.
    let end = disk.read_bus_cycles_end_ns(40, 4, (0, 0), ready(3), ready);
    assert_eq!(end, ready(39) + 40_000);
}

#[test]
fn a_read_miss_landing_past_its_sector_reads_the_blocks_before_it_on_its_track() {
    // A read of 8 blocks at sector 50 of a 96-block track of the C2247 (0.11574 ms a
    // block, a revolution of 11.111 ms). Its head lands somewhere on the track; when it
    // lands past sector 50's start and before the last sector's (45 sectors, 5.2083 ms,
    // later), it passes the track's end and sectors 0 to 49 while it waits for sector 50:
    // with `read_any_free_blocks` those 50 blocks go into the segment, and a read of the
    // track's first 8 blocks right after is a hit (no positioning, its 8 blocks at the
    // bus rate). The first read itself takes the same time either way.
    let track = 300 * 96 - 1632;
    let rev_ns = 60_000_000_000u64 / 5400;
    let spt_to_last = 45.0 * rev_ns as f64 / 96.0;
    let (mut kept, mut passed_by) = (0, 0);
    for i in 0..24u64 {
        let now = i * rev_ns / 24 + 1;
        let run = |free: bool| {
            let mut p = drive("hp_c2247a");
            p.command_overheads_ms
                .as_mut()
                .expect("overheads")
                .read_any_free_blocks = free;
            let mut disk = Hdd::new(&p, 0).expect("builds");
            disk.enqueue(now, 0, track + 50, 8, false);
            let (_, a) = disk.start_next(now).expect("starts");
            let then = now + a.total_ns();
            disk.finish(then);
            disk.enqueue(then, 1, track, 8, false);
            let (_, b) = disk.start_next(then).expect("starts");
            (a, b, disk.iface_ns(8))
        };
        let (a, b, iface) = run(true);
        let (a0, b0, _) = run(false);
        assert_eq!(a, a0);
        let hit = |b: &Access| b.seek_ns == 0 && b.rotate_ns == 0 && b.transfer_ns == iface;
        let past = rev_ns.saturating_sub(a.rotate_ns) as f64;
        let passes = a.rotate_ns > 0 && past < spt_to_last;
        assert_eq!(hit(&b), passes, "{i}: {a:?} {b:?}");
        assert!(!hit(&b0), "{i}: {b0:?}");
        if passes {
            kept += 1;
        } else {
            passed_by += 1;
        }
    }
    assert!(kept > 0 && passed_by > 0, "{kept} {passed_by}");
}
