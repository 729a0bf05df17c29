use super::*;
use crate::device::drive_spec::import;
use std::path::PathBuf;

const REV: u64 = 1000;

fn data(first_ns: u64, ns_per_sector: f64) -> BufferedData {
    BufferedData {
        first_ns,
        ns_per_sector,
    }
}

#[test]
fn a_write_fed_faster_than_the_media_ends_a_media_time_after_its_first_sector() {
    // 4 sectors of 100 ns on the media, their data 50 ns each from the command's start.
    assert_eq!(write_from_buffer_ns(300, 400, 4, data(0, 50.0), REV), 700);
}

#[test]
fn a_first_sector_reached_before_its_data_is_written_a_revolution_later() {
    // The head reaches the first sector at 100 ns; its data is in at 150 ns.
    assert_eq!(write_from_buffer_ns(100, 400, 4, data(0, 150.0), REV), 1500);
    // At 500 ns every sector's data is ahead of the head: 150, 300, 450, 600 against
    // 500, 600, 700, 800.
    assert_eq!(write_from_buffer_ns(500, 400, 4, data(0, 150.0), REV), 900);
}

#[test]
fn a_media_that_catches_up_with_its_data_loses_a_revolution_mid_write() {
    // Sectors reached at 200, 300, 400, 500; data in at 150, 300, 450, 600: the third is
    // missed and written when it comes round, 1,000 ns later, then the fourth.
    assert_eq!(write_from_buffer_ns(200, 400, 4, data(0, 150.0), REV), 1600);
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
        let completion_ns = ms_ns(p.command_overheads_ms.expect("overheads").write_completion);
        let end_ns = now_ns + a.total_ns() - completion_ns;
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
