use std::path::PathBuf;

use super::super::{ms_ns, Access, Hdd, HddParams};
use crate::device::drive_spec::import;

/// The HP C2247 (read-ahead 128 blocks past a read) with a least read-ahead of
/// `min_kib`, and writes overlapping the data read ahead waiting for it when `keep`.
fn c2247(min_kib: f64, keep: bool) -> HddParams {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../references/drives");
    HddParams {
        readahead_min_kib: min_kib,
        write_hit_keeps_readahead: keep,
        ..import(&dir.join("hp_c2247a.diskspecs"))
            .expect("imports")
            .params
    }
}

/// First block of a track in the C2247's first zone (96 sectors a track).
const TRACK: u64 = 300 * 96 - 1632;

/// An 8-block read at [`TRACK`] from time zero, then `second` (LBA, sectors, write) the
/// moment it completes: the drive, the two commands' times and when the second arrived.
fn after_read(p: &HddParams, second: (u64, u32, bool)) -> (Hdd, Access, Access, u64) {
    let mut disk = Hdd::new(p, 0).expect("builds");
    disk.enqueue(0, 0, TRACK, 8, false);
    let (_, first) = disk.start_next(0).expect("starts");
    let now_ns = first.total_ns();
    disk.finish(now_ns);
    disk.enqueue(now_ns, 1, second.0, second.1, second.2);
    let (_, a) = disk.start_next(now_ns).expect("starts");
    (disk, first, a, now_ns)
}

/// When read-ahead after the first read of [`after_read`] has brought in `blocks` past
/// it: it starts where the read's media transfer ends (the read-miss overhead, its seek,
/// its rotation and its 8 blocks after time zero) and reads a block a sector time.
fn read_ahead_at(disk: &Hdd, first: &Access, blocks: u64) -> u64 {
    let o = c2247(0.0, false).command_overheads_ms.expect("overheads");
    let media_end = ms_ns(o.read_miss_after_read)
        + first.seek_ns
        + first.rotate_ns
        + disk.transfer_measured_ns(TRACK, 8);
    let per = disk.media_ns_per_sector(TRACK + 8);
    media_end + (blocks as f64 * per).ceil() as u64 + 1
}

#[test]
fn a_command_that_needs_the_head_waits_for_the_least_read_ahead() {
    // The C2247 turns at 5,400 rpm: 11.111 ms a revolution, 0.1157 ms for each of the 96
    // sectors of a first-zone track. Its 8-block read reconnects once 6 blocks are in and
    // sends 8 sectors at 0.1701 ms: it completes about 1.4 ms after its last block left
    // the media, read-ahead then having some 12 blocks. With a least read-ahead of 64
    // blocks (32 KiB) a read far away may not position before the 64th block is in, 64 *
    // 0.1157 = 7.41 ms after the read's media end: its command overhead (0.55821 ms) runs
    // meanwhile, and the rest of the wait (7.41 - 1.4 - 0.56, about 5.5 ms) adds to it.
    // Without one the head is free at once.
    let far = (1_500_000, 8, false);
    let (disk, first, a, now_ns) = after_read(&c2247(32.0, false), far);
    let (_, _, b, _) = after_read(&c2247(0.0, false), far);
    let o = c2247(0.0, false).command_overheads_ms.expect("overheads");
    assert_eq!(disk.locate(TRACK).sector, 0);
    assert_eq!(disk.locate(TRACK + 72).head, disk.locate(TRACK).head);
    let (miss, done) = (ms_ns(o.read_miss_after_read), ms_ns(o.read_completion));
    assert_eq!(b.overhead_ns, miss + done, "{b:?}");
    let held = read_ahead_at(&disk, &first, 64) - now_ns - miss;
    assert!((5_200_000..5_800_000).contains(&held), "{held} ns");
    assert_eq!(a.overhead_ns, miss + held + done, "{a:?}");
    // A read hit on the blocks read ahead needs no head: the same either way.
    let hit = (TRACK + 8, 8, false);
    let (_, _, a, _) = after_read(&c2247(32.0, false), hit);
    let (_, _, b, _) = after_read(&c2247(0.0, false), hit);
    assert_eq!((a.total_ns(), a.seek_ns), (b.total_ns(), 0), "{a:?} {b:?}");
}

#[test]
fn a_least_read_ahead_already_in_holds_nothing() {
    // 20 ms after the read, read-ahead has its 128 blocks (14.8 ms): a far read positions
    // after its overhead alone, as on a drive without a least read-ahead.
    let mut times = Vec::new();
    for min in [32.0, 0.0] {
        let mut disk = Hdd::new(&c2247(min, false), 0).expect("builds");
        disk.enqueue(0, 0, TRACK, 8, false);
        let (_, first) = disk.start_next(0).expect("starts");
        disk.finish(first.total_ns());
        let now_ns = first.total_ns() + 20_000_000;
        disk.enqueue(now_ns, 1, 1_500_000, 8, false);
        times.push(disk.start_next(now_ns).expect("starts").1);
    }
    assert_eq!(times[0], times[1]);
}

#[test]
fn a_write_on_the_data_read_ahead_stops_it_unless_the_drive_keeps_it() {
    // A 2-block write at 10 blocks past the read's start overlaps the blocks read ahead
    // (about 12 are in). With `Write hit stop prefetch = 1` it stops read-ahead at once:
    // its times are those of a drive without a least read-ahead. With 0 it waits for the
    // 64th block like any other command: its write-hit overhead (0.82391 ms) runs
    // meanwhile and the rest adds to it. A write elsewhere waits either way.
    let o = c2247(0.0, false).command_overheads_ms.expect("overheads");
    let on = (TRACK + 10, 2, true);
    let (_, _, none, _) = after_read(&c2247(0.0, false), on);
    let (_, _, stops, _) = after_read(&c2247(32.0, false), on);
    assert_eq!(stops, none);
    let (disk, first, keeps, now_ns) = after_read(&c2247(32.0, true), on);
    let held = read_ahead_at(&disk, &first, 64) - now_ns - ms_ns(o.write_hit_after_read);
    assert_eq!(
        keeps.overhead_ns,
        none.overhead_ns + held,
        "{keeps:?} {none:?}"
    );
    let elsewhere = (1_500_000, 2, true);
    let (_, _, none, _) = after_read(&c2247(0.0, false), elsewhere);
    let (_, _, waits, _) = after_read(&c2247(32.0, false), elsewhere);
    let held = read_ahead_at(&disk, &first, 64) - now_ns - ms_ns(o.write_miss_after_read);
    assert_eq!(
        waits.overhead_ns,
        none.overhead_ns + held,
        "{waits:?} {none:?}"
    );
}
