//! The read water mark set by the segment, and partial hits that wait for it.

use super::{drive, ms_ns, Hdd, HddParams};

#[test]
fn a_water_mark_set_by_the_segment_holds_a_short_read_until_it_is_all_in() {
    // The C2247's high water mark is three quarters; set by the request, a 40-block read
    // reconnects once 30 blocks are in. Set by its 256-block segment it is 192 blocks
    // (96 KiB), more than the read: the drive reconnects once all 40 are in, then pays
    // its reselect and data preparation (0.16249 + 0.02519 ms), sends the 40 blocks at
    // the bus rate and completes (0.05665 ms). The read starts 10 blocks before the end
    // of a track, so the 40 cross a track switch.
    let (lba, n) = (300 * 96 - 1632 - 10, 40u32);
    for (kib, held) in [(0.0, 30), (96.0, 40)] {
        let p = HddParams {
            read_watermark_kib: kib,
            ..drive("hp_c2247a")
        };
        let mut disk = Hdd::new(&p, 0).expect("builds");
        disk.enqueue(0, 0, lba, n, false);
        let (_, a) = disk.start_next(0).expect("starts");
        let lead = ms_ns(0.55821) + a.seek_ns + a.rotate_ns;
        let send = lead + disk.transfer_measured_ns(lba, held) + ms_ns(0.16249 + 0.02519);
        let want = send + disk.iface_ns(u64::from(n)) + ms_ns(0.05665);
        assert!(
            a.total_ns().abs_diff(want) <= 2,
            "{kib} KiB: {a:?}: {} ns against {want} ns",
            a.total_ns()
        );
    }
}

#[test]
fn a_partial_hit_short_of_its_water_mark_waits_for_it_on_a_drive_that_does_so() {
    // The RZ26 scene of `a_partial_hit_sends_its_buffered_blocks_at_once`: 14 of a
    // 17-block read are buffered, 3 come from the next track. With a water mark of 16
    // blocks (8 KiB), a drive that sends a partial hit at once only when its water mark
    // is in waits for 2 more blocks off the media (the RZ26 never disconnects: no
    // reselect), then sends all 17 (0.07069 ms each); one that sends at once is the
    // scene's: the larger of the hit (1.229 ms and the 17 sectors) and the media path.
    let (first, second) = ((404_612u64, 17u32), (404_629u64, 17u32));
    let run = |waits: bool| {
        let p = HddParams {
            read_watermark_kib: 8.0,
            partial_hit_waits: waits,
            ..drive("dec_rz26")
        };
        let mut disk = Hdd::new(&p, 0).expect("builds");
        disk.enqueue(0, 0, first.0, first.1, false);
        let (_, a) = disk.start_next(0).expect("starts");
        disk.finish(a.total_ns());
        let now_ns = a.total_ns() + 9_500_000;
        disk.enqueue(now_ns, 1, second.0, second.1, false);
        (disk.start_next(now_ns).expect("starts").1, disk)
    };
    let (a, disk) = run(true);
    let lead = ms_ns(1.489) + a.seek_ns + a.rotate_ns;
    let want = lead + disk.transfer_measured_ns(404_643, 2) + disk.iface_ns(17);
    assert!(a.seek_ns > 0, "{a:?}");
    assert!(a.total_ns().abs_diff(want) <= 2, "{a:?} against {want} ns");
    let (b, disk) = run(false);
    let hit = ms_ns(1.229) + disk.iface_ns(17);
    let media = lead + disk.transfer_measured_ns(404_643, 3) + disk.iface_ns(1);
    assert!(b.total_ns().abs_diff(hit.max(media)) <= 2, "{b:?}");
    assert!(a.total_ns() > b.total_ns(), "{a:?} {b:?}");
}
