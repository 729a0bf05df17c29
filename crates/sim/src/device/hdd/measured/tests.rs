use super::super::layout::MediaRun;
use super::*;
use crate::device::drive_spec::import;
use std::path::PathBuf;

const REV: u64 = 1000;

fn data(first_ns: u64, ns_per_sector: f64) -> BufferedData {
    BufferedData {
        first_ns,
        ns_per_sector,
        sectors_first: 0,
    }
}

/// [`write_from_buffer_ns`] for a write of `sectors` taking `media_ns` on one track.
fn on_one_track(start_ns: u64, media_ns: u64, sectors: u64, data: BufferedData, rev: u64) -> u64 {
    let run = MediaRun {
        start_ns: 0,
        sectors,
        ns_per_sector: media_ns as f64 / sectors as f64,
    };
    write_from_buffer_ns(start_ns, &[run], media_ns, data, rev)
}

#[test]
fn a_write_across_a_track_switch_reaches_each_sector_when_the_geometry_says() {
    // Two sectors of 100 ns on each track, the next track's first sector 300 ns after the
    // first track's last one ends: the head reaches them at 150, 250, 650 and 750 ns. The
    // data of the second sector is in at 300 ns, after the head passed it: it and the rest
    // are written a revolution later, ending at 1,150 + 700 ns. Spreading the switch over
    // the sectors (175 ns each) would find every sector's data in (150, 300, 450, 600
    // against 150, 325, 500, 675) and end the write at 850 ns.
    let runs = [
        MediaRun {
            start_ns: 0,
            sectors: 2,
            ns_per_sector: 100.0,
        },
        MediaRun {
            start_ns: 500,
            sectors: 2,
            ns_per_sector: 100.0,
        },
    ];
    assert_eq!(
        write_from_buffer_ns(150, &runs, 700, data(0, 150.0), REV),
        1850
    );
    // Data ahead of the head: the switch costs its own time and nothing more.
    assert_eq!(
        write_from_buffer_ns(300, &runs, 700, data(0, 50.0), REV),
        1000
    );
}

#[test]
fn a_write_fed_faster_than_the_media_ends_a_media_time_after_its_first_sector() {
    // 4 sectors of 100 ns on the media, their data 50 ns each from the command's start.
    assert_eq!(on_one_track(300, 400, 4, data(0, 50.0), REV), 700);
}

#[test]
fn a_first_sector_reached_before_its_data_is_written_a_revolution_later() {
    // The head reaches the first sector at 100 ns; its data is in at 150 ns.
    assert_eq!(on_one_track(100, 400, 4, data(0, 150.0), REV), 1500);
    // At 500 ns every sector's data is ahead of the head: 150, 300, 450, 600 against
    // 500, 600, 700, 800.
    assert_eq!(on_one_track(500, 400, 4, data(0, 150.0), REV), 900);
}

#[test]
fn a_drive_that_buffers_part_of_a_write_first_writes_nothing_before() {
    // Data in at 50, 100, 150, 200 ns; the head reaches the sectors at 120, 220, 320, 420
    // ns, each after its data: the write ends at 520 ns. Holding for all four, the drive
    // lets the first sector pass (its data is in, the fourth's is not) and starts a
    // revolution later, at 1,120 ns.
    assert_eq!(on_one_track(120, 400, 4, data(0, 50.0), REV), 520);
    let held = BufferedData {
        sectors_first: 4,
        ..data(0, 50.0)
    };
    assert_eq!(on_one_track(120, 400, 4, held, REV), 1520);
}

#[test]
fn a_media_that_catches_up_with_its_data_loses_a_revolution_mid_write() {
    // Sectors reached at 200, 300, 400, 500; data in at 150, 300, 450, 600: the third is
    // missed and written when it comes round, 1,000 ns later, then the fourth.
    assert_eq!(on_one_track(200, 400, 4, data(0, 150.0), REV), 1600);
}

fn drive(name: &str) -> HddParams {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../references/drives");
    import(&dir.join(format!("{name}.diskspecs")))
        .expect("imports")
        .params
}

#[test]
fn an_uncached_write_ends_when_its_last_sector_passes_under_the_head() {
    // The HP C2247 takes 0.187 ms a sector over its bus and writes at most 0.116 ms a sector:
    // the data of a long write runs behind the head, which must wait for each late sector to
    // come round, so the write always ends at the angle where its last sector ends.
    let p = drive("hp_c2247a");
    assert!(!p.write_cache);
    let (lba, n) = (1_000_000u64, 200u32);
    for i in 0..40u64 {
        let mut disk = Hdd::new(&p, 0).expect("builds");
        // A read puts the head on the write's track: no seek hides the interface time.
        disk.enqueue(0, 0, lba - 1, 1, false);
        let (_, read) = disk.start_next(0).expect("starts");
        let now_ns = read.total_ns() + i * 277_777;
        disk.finish(read.total_ns());
        disk.enqueue(now_ns, 1, lba, n, true);
        let (_, a) = disk.start_next(now_ns).expect("starts");
        // After the last sector the drive reconnects (reselect) and reports completion.
        let o = p.command_overheads_ms.as_deref().expect("overheads");
        let end_ns = now_ns + a.total_ns() - ms_ns(o.write_completion) - ms_ns(o.reselect);
        let last = lba + u64::from(n) - 1;
        let zone = disk.zones.index_of(last);
        let pos = disk.locate(last);
        let last_end = disk.angle_of(zone, &pos) as f64 + disk.zones.list[zone].ns_per_sector;
        let at = disk.wrap_rev(end_ns) as f64;
        let off = (at - last_end).rem_euclid(disk.rev_ns as f64);
        let off = off.min(disk.rev_ns as f64 - off);
        // Within the rounding of the per-sector average over a track switch or two.
        assert!(
            off < 0.02 * disk.rev_ns as f64,
            "start {now_ns}: {a:?} off by {off} ns"
        );
    }
}

/// The overheads of a one-sector write on the HP C2247 at `lba`, right after a one-sector
/// write at `before`.
fn write_after_write(before: u64, lba: u64) -> Access {
    let p = drive("hp_c2247a");
    let mut disk = Hdd::new(&p, 0).expect("builds");
    disk.enqueue(0, 0, before, 1, true);
    let (_, first) = disk.start_next(0).expect("starts");
    let now_ns = first.total_ns();
    disk.finish(now_ns);
    disk.enqueue(now_ns + 5_000_000, 1, lba, 1, true);
    disk.start_next(now_ns + 5_000_000).expect("starts").1
}

#[test]
fn a_write_after_a_write_elsewhere_disconnects_before_taking_its_data() {
    // The C2247's extra write disconnect: the head starts 0.64244 + 0.25 ms after the
    // command and the completion costs the other reselect (0.12883 ms), against the write
    // overhead (0.82391 ms) and the first reselect (0.16249 ms) of a write continuing the
    // last one; both end with the write completion overhead (0.05045 ms).
    let ns = |ms: f64| ms_ns(ms);
    let elsewhere = write_after_write(500_000, 1_000_000);
    assert_eq!(
        elsewhere.overhead_ns,
        ns(0.64244 + 0.25) + ns(0.12883) + ns(0.05045)
    );
    let continuing = write_after_write(999_999, 1_000_000);
    assert_eq!(
        continuing.overhead_ns,
        ns(0.82391) + ns(0.16249) + ns(0.05045)
    );
}

#[test]
fn a_read_miss_positions_after_its_command_overhead_and_sends_after_a_reselect() {
    // The C2247 starts positioning 0.55821 ms after a read command (its disconnect, 0.02266
    // ms, runs meanwhile) and sends the data, 0.1701 ms a sector, once it reconnected: a
    // reselect and data preparation (0.16249 + 0.02519 ms) after three quarters of the
    // read (its water mark) is buffered. The interface being slower than the media, the
    // read ends then plus the whole read's interface time and the completion overhead.
    // The read starts 10 blocks before the end of a track (zone 0: 96 sectors a track,
    // 1,632 reserved at the front): the 30 blocks held cross the switch to the next track
    // and take its skew too.
    let p = drive("hp_c2247a");
    let mut disk = Hdd::new(&p, 0).expect("builds");
    let (lba, n) = (300 * 96 - 1632 - 10, 40u32);
    let (at, next) = (disk.locate(lba + 9), disk.locate(lba + 10));
    assert_eq!((at.head + 1, at.sector, next.sector), (next.head, 95, 0));
    disk.enqueue(0, 0, lba, n, false);
    let (_, a) = disk.start_next(0).expect("starts");
    let lead = ms_ns(0.55821) + a.seek_ns + a.rotate_ns;
    let held_ns = disk.transfer_measured_ns(lba, 30);
    assert!(held_ns > (30.0 * disk.media_ns_per_sector(lba)) as u64);
    let send = lead + held_ns + ms_ns(0.16249 + 0.02519);
    let want = send + disk.iface_ns(u64::from(n)) + ms_ns(0.05665);
    assert!(
        a.total_ns().abs_diff(want) <= 2,
        "{a:?}: {} ns against {want} ns",
        a.total_ns()
    );
}

/// A one-command drive of model `name` that served `first` (LBA, sectors, a read) from
/// time zero and got `second` (a read) `idle_ns` after: the second's times.
fn read_after_read(name: &str, first: (u64, u32), idle_ns: u64, second: (u64, u32)) -> Access {
    let mut disk = Hdd::new(&drive(name), 0).expect("builds");
    disk.enqueue(0, 0, first.0, first.1, false);
    let (_, a) = disk.start_next(0).expect("starts");
    disk.finish(a.total_ns());
    let now_ns = a.total_ns() + idle_ns;
    disk.enqueue(now_ns, 1, second.0, second.1, false);
    disk.start_next(now_ns).expect("starts").1
}

#[test]
fn a_read_miss_sends_nothing_before_one_whole_sector_is_buffered() {
    // The HP C2490 has no read water mark, but the drive reconnects only once a sector is
    // in its buffer: its bus (0.14841 ms a sector) being slower than its media (0.0938 ms
    // a sector here), a 14-block read ends one sector of media time plus 14 sectors of bus
    // time after the head reaches it (then the completion overhead, 0.081 ms).
    let p = drive("hp_c2490a");
    let mut disk = Hdd::new(&p, 0).expect("builds");
    let lba = 1_390_472;
    disk.enqueue(0, 0, lba, 14, false);
    let (_, a) = disk.start_next(0).expect("starts");
    let head_there = ms_ns(3.616) + a.seek_ns + a.rotate_ns;
    let want = head_there + disk.transfer_measured_ns(lba, 1) + disk.iface_ns(14) + ms_ns(0.081);
    assert!(a.total_ns().abs_diff(want) <= 2, "{a:?} against {want} ns");
    // The C2247's water mark (three quarters) of a 2-block read is one whole block.
    let p = drive("hp_c2247a");
    let mut disk = Hdd::new(&p, 0).expect("builds");
    disk.enqueue(0, 0, 1_000_000, 2, false);
    let (_, a) = disk.start_next(0).expect("starts");
    let head_there = ms_ns(0.55821) + a.seek_ns + a.rotate_ns;
    let send = head_there + disk.transfer_measured_ns(1_000_000, 1) + ms_ns(0.16249 + 0.02519);
    let want = send + disk.iface_ns(2) + ms_ns(0.05665);
    assert!(a.total_ns().abs_diff(want) <= 2, "{a:?} against {want} ns");
}

#[test]
fn a_partial_hit_sends_its_buffered_blocks_at_once() {
    // The DEC RZ26 reads ahead to the end of the track (block 404,645 ends it): 9.5 ms
    // after a read of 404,612-404,628 the rest of the track is buffered. A read of
    // 404,629-404,645 finds 14 blocks there and 3 on the next track: the 14 go out after
    // the read-hit overhead (1.229 ms), the 3 are read after the read-miss overhead (1.489
    // ms), the head switch and the rotation, and follow a sector (0.07069 ms) after the
    // media.
    let a = read_after_read("dec_rz26", (404_612, 17), 9_500_000, (404_629, 17));
    let disk = Hdd::new(&drive("dec_rz26"), 0).expect("builds");
    let hit = ms_ns(1.229) + disk.iface_ns(17);
    let media = ms_ns(1.489)
        + a.seek_ns
        + a.rotate_ns
        + disk.transfer_measured_ns(404_643, 3)
        + disk.iface_ns(1);
    assert!(a.seek_ns > 0, "{a:?}: the 3 blocks are on the next track");
    let want = hit.max(media);
    assert!(a.total_ns().abs_diff(want) <= 2, "{a:?} against {want} ns");
}

#[test]
fn a_read_past_a_read_ahead_in_progress_reads_on_without_positioning() {
    // 0.5 ms after the same first read, read-ahead is still bringing in the track: the
    // head reads on across the switch to the next track, and the read ends at most the
    // read-hit overhead, the media time of the whole read and a sector after its command
    // (a new positioning after the read-miss overhead would lose most of a revolution,
    // 11.19 ms).
    let a = read_after_read("dec_rz26", (404_612, 17), 500_000, (404_629, 17));
    let disk = Hdd::new(&drive("dec_rz26"), 0).expect("builds");
    let most = ms_ns(1.229) + disk.transfer_measured_ns(404_629, 17) + disk.iface_ns(1);
    assert!(a.total_ns() <= most, "{a:?}: more than {most} ns");
    assert!(a.total_ns() >= ms_ns(1.229) + disk.iface_ns(17));
}

#[test]
fn a_write_crosses_the_interface_at_its_own_rate() {
    // The C2247's bus takes 0.18686 ms a sector of a write and 0.1701 ms of a read. With
    // write caching on, a write is done once its data crossed: its transfer is the write
    // rate's.
    let mut p = drive("hp_c2247a");
    assert!((p.interface_write_mbps - 0.512 / 0.18686).abs() < 1e-9);
    assert!((p.interface_mbps - 0.512 / 0.1701).abs() < 1e-9);
    p.write_cache = true;
    let mut disk = Hdd::new(&p, 0).expect("builds");
    disk.enqueue(0, 0, 1_000_000, 20, true);
    let (_, a) = disk.start_next(0).expect("starts");
    assert_eq!(
        a.transfer_ns,
        (20.0 * 512.0 * 1e3 / p.interface_write_mbps) as u64
    );
}

#[test]
fn a_read_finds_its_own_data_until_read_ahead_overwrites_it() {
    // The Cheetah 4LP's segment holds 282 blocks and it reads 282 ahead: 0.5 ms after a
    // read of 8 blocks its segment still holds them (the read-ahead has brought in a few
    // blocks), and reading them again is a hit: the read-hit overhead (0.068 ms) and the
    // bus, nothing on the media. 100 ms later the segment holds the 282 blocks read ahead
    // and the read's own were overwritten: the same read goes to the media.
    let p = drive("cheetah4LP");
    assert_eq!(p.cache_segment_kib, 141.0);
    let disk = Hdd::new(&p, 0).expect("builds");
    let (lba, n) = (2_000_000, 8);
    let soon = read_after_read("cheetah4LP", (lba, n), 500_000, (lba, n));
    let hit = ms_ns(
        p.command_overheads_ms
            .as_deref()
            .expect("overheads")
            .read_hit_after_read,
    ) + disk.iface_ns(u64::from(n));
    assert_eq!(soon.seek_ns + soon.rotate_ns, 0, "{soon:?}");
    assert!(
        soon.total_ns().abs_diff(hit) <= 1,
        "{soon:?} against {hit} ns"
    );
    let late = read_after_read("cheetah4LP", (lba, n), 100_000_000, (lba, n));
    assert!(late.seek_ns + late.rotate_ns > 0, "{late:?}");
    assert!(late.total_ns() > hit + ms_ns(1.0), "{late:?}");
}

#[test]
fn a_read_inside_the_last_one_is_a_hit_while_read_ahead_runs() {
    // The DEC RZ26 keeps a read's data in its 57-block segment: 6.3 ms after a read of
    // 405,285-405,305, read-ahead has brought in some 33 blocks past it and the segment
    // still starts at 405,285, so a read of 405,288-405,292 costs the read-hit overhead
    // (1.229 ms) and the bus (the real drive took 1.248 ms).
    let a = read_after_read("dec_rz26", (405_285, 21), 6_300_000, (405_288, 5));
    let disk = Hdd::new(&drive("dec_rz26"), 0).expect("builds");
    let want = ms_ns(1.229) + disk.iface_ns(5);
    assert_eq!(a.seek_ns + a.rotate_ns, 0, "{a:?}");
    assert!(a.total_ns().abs_diff(want) <= 1, "{a:?} against {want} ns");
}

#[test]
fn a_hit_on_blocks_read_ahead_is_still_bringing_in_overlaps_its_overhead() {
    // The DEC RZ26 reads ahead to the end of the track, and a read of 514,228-514,268 ends
    // 41 blocks before the end of its track (0.193 ms a block). 1 ms after it completed, a
    // read of those 41 blocks waits for the media, its read-hit overhead (1.229 ms) running
    // meanwhile, and sends its last block a sector of bus time after it is in: it ends the
    // 41 blocks' media time after the first read's media ended (its own completion was a
    // sector of bus time later), less the 1 ms. Overhead then wait would take 1.26 ms more.
    let a = read_after_read("dec_rz26", (514_228, 41), 1_000_000, (514_269, 41));
    let disk = Hdd::new(&drive("dec_rz26"), 0).expect("builds");
    let want = disk.transfer_measured_ns(514_269, 41) - ms_ns(1.0);
    assert_eq!(a.seek_ns + a.rotate_ns, 0, "{a:?}");
    assert!(
        a.total_ns().abs_diff(want) <= 1_000,
        "{a:?} against {want} ns"
    );
}

#[test]
fn a_negative_write_settle_shortens_a_write_seek() {
    // The HP C2490's writes position 0.642 ms faster than its measured (read) seeks.
    let p = drive("hp_c2490a");
    assert_eq!(p.write_settle_ms, -0.642);
    let mut disk = Hdd::new(&p, 0).expect("builds");
    let (read_at, write_at) = (1_000_000, 2_000_000);
    disk.enqueue(0, 0, read_at, 1, false);
    let (_, read) = disk.start_next(0).expect("starts");
    disk.finish(read.total_ns());
    disk.enqueue(read.total_ns(), 1, write_at, 8, true);
    let (_, write) = disk.start_next(read.total_ns()).expect("starts");
    let d = disk.locate(write_at).cyl.abs_diff(disk.locate(read_at).cyl);
    assert!(d > 100, "{d} cylinders");
    assert_eq!(write.seek_ns, disk.seek_ns(d) - 642_000, "{write:?}");
}

mod bus;
mod immediate;
mod watermark;
mod write_data;
