//! The measured layout: slipped tracks and the zones' first-block offsets.

use super::*;

fn imported(name: &str) -> HddParams {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../references/drives");
    crate::device::drive_spec::import(&dir.join(format!("{name}.diskspecs")))
        .expect("imports")
        .params
}

#[test]
fn track_sparing_slips_whole_tracks() {
    // The HP C2490's first zone: 18 surfaces, 108 sectors a track, 2,376 reserved sectors
    // at its front (22 tracks) and tracks 1,626 and 1,850 slipped. Block 173,232 is the
    // first of physical track 1,626 counted without slips: it moves to track 1,627 (cylinder
    // 90, surface 7) and keeps its sector 0; the block before it stays on track 1,625. Read
    // as slipped sectors, the two blocks would stay on track 1,625/1,626, one sector on.
    let p = imported("hp_c2490a");
    assert_eq!(p.sparing, Sparing::Tracks);
    assert_eq!(p.zone_table[0].slips, [1626, 1850]);
    let d = Hdd::new(&p, 0).expect("builds");
    let lba = 1626 * 108 - 2376;
    let at = d.locate(lba);
    assert_eq!((at.cyl, at.head, at.sector), (90, 7, 0));
    let before = d.locate(lba - 1);
    assert_eq!((before.cyl, before.head, before.sector), (90, 5, 107));
    // Past the second slipped track, two tracks on.
    let far = d.locate(1900 * 108 - 2376 + 5);
    assert_eq!((far.cyl, far.head, far.sector), (105, 12, 5));
}

#[test]
fn a_zone_first_block_offset_turns_its_tracks() {
    // The C2490's second zone starts at cylinder 187 with its first block 60 sectors (of
    // 104) round from the index: a read of it issued at time zero with the head already on
    // its track waits for the spindle to bring those 60 sectors round.
    let p = imported("hp_c2490a");
    assert_eq!(p.zone_table[1].first_block_offset_sectors, 60.0);
    let d = Hdd::new(&p, 0).expect("builds");
    let first = d.zones.list[1].first_lba;
    let at = d.locate(first);
    assert_eq!((at.cyl, at.head, at.sector), (187, 0, 0));
    let sector_ns = d.rev_ns as f64 / 104.0;
    let want = (60.0 * sector_ns) as u64;
    assert_eq!(d.angle_of(1, &at), want);
    // A queued command carries the same angle.
    let mut q = d.clone();
    q.enqueue(0, 1, first, 1, false);
    assert_eq!(u64::from(q.pending[0].angle_ns), want);
}
