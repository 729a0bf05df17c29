//! The measured layout: slipped tracks, first-block offsets, the order of the surfaces,
//! remapped defects and spares at the front of a cylinder.

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

#[test]
fn a_cylinder_switch_stays_on_its_surface_when_the_surfaces_alternate() {
    // The HP C2247 (13 surfaces, zone 2 from cylinder 559) with a head switch of 4 ms, longer
    // than its one-cylinder seek of 2.89 ms: the arm moves while the heads switch, so a move
    // to the next cylinder takes 4 ms when the surface changes and 2.89 ms when it does not.
    // From cylinder 10's last track (12) to cylinder 11's first (0): in ascending order
    // surface 12 to surface 0, 4 ms; with the surfaces reversed on odd cylinders (scheme 2,
    // and scheme 1 in zone 1, which starts at cylinder 0) track 0 of cylinder 11 is surface
    // 12, 2.89 ms. From cylinder 558 (zone 1's last) to 559 (zone 2's first): scheme 2
    // reverses the odd 559, 2.89 ms; scheme 1 starts zone 2 in ascending order, 4 ms.
    let mut p = imported("hp_c2247a");
    p.head_switch_ms = 4.0;
    let drive = |order: SurfaceOrder| {
        let mut p = p.clone();
        p.surface_order = order;
        Hdd::new(&p, 0).expect("builds")
    };
    let (asc, alt, in_zone) = (
        drive(SurfaceOrder::Ascending),
        drive(SurfaceOrder::Alternate),
        drive(SurfaceOrder::AlternateInZone),
    );
    let one = asc.seek.time_ns(1);
    assert_eq!((one, asc.head_switch_ns), (2_890_000, 4_000_000));
    assert_eq!(asc.move_ns(10, 12, 11, 0), 4_000_000);
    assert_eq!(alt.move_ns(10, 12, 11, 0), one);
    assert_eq!(in_zone.move_ns(10, 12, 11, 0), one);
    assert_eq!(alt.move_ns(558, 12, 559, 0), one);
    assert_eq!(in_zone.move_ns(558, 12, 559, 0), 4_000_000);
    // The block order and the rotational positions do not change: only the surfaces do.
    let lba = alt.zones.list[1].first_lba + 5000;
    assert_eq!(alt.locate(lba), asc.locate(lba));
    assert_eq!(SurfaceOrder::Alternate.surface(559, 559, 0, 13), 12);
    assert_eq!(SurfaceOrder::AlternateInZone.surface(560, 559, 3, 13), 9);
    // A head switch on one cylinder is one whatever the order.
    assert_eq!(alt.move_ns(11, 0, 11, 1), 4_000_000);
}

/// The Cheetah 4LP with block 1,000 of its first zone kept in the spare sector 18,700.
fn cheetah_remapped(pairs: Vec<[u64; 2]>) -> Hdd {
    let mut p = imported("cheetah4LP");
    p.zone_table[0].remaps = pairs;
    Hdd::new(&p, 0).expect("builds")
}

#[test]
fn a_block_remapped_to_a_spare_is_read_there() {
    // The Cheetah 4LP's first zone: 8 surfaces of 195 sectors (1,560 a cylinder), spares at
    // the end of each range of 12 cylinders (18,720 sectors, 18,612 of them data). Block
    // 1,000 lies at sector 1,000 of the zone: cylinder 0, track 5 (975), sector 25. Remapped
    // to spare 18,700 (range 0: cylinder 11 at 17,160, track 7 at 17,160 + 1,365, sector
    // 175), it is read there; its neighbours stay.
    let plain = cheetah_remapped(Vec::new());
    let moved = cheetah_remapped(vec![[1000, 18_700]]);
    let at = |d: &Hdd, lba| {
        let p = d.locate(lba);
        (p.cyl, p.head, p.sector)
    };
    assert_eq!(at(&plain, 1000), (0, 5, 25));
    assert_eq!(at(&moved, 1000), (11, 7, 175));
    assert_eq!(
        (at(&moved, 999), at(&moved, 1001)),
        ((0, 5, 24), (0, 5, 26))
    );
    // Blocks 999 to 1,001 in place pass under the head in three sector times. With 1,000
    // in its spare the heads seek 11 cylinders there and 11 back, each followed by the
    // wait for the sector: at least two seeks more, less than two seeks and two
    // revolutions more.
    let ns = plain.zones.list[0].ns_per_sector;
    assert_eq!(plain.transfer_measured_ns(999, 3), (3.0 * ns) as u64);
    let seek = moved.seek.time_ns(11);
    let t = moved.transfer_measured_ns(999, 3);
    let sector = ns as u64;
    assert!(t >= 3 * sector + 2 * seek, "{t}");
    assert!(t < 3 * sector + 2 * (seek + moved.rev_ns), "{t}");
    // A defect that is a spare itself holds no block: nothing moves.
    let none = cheetah_remapped(vec![[18_650, 18_700]]);
    assert!(none.zones.remapped.iter().all(|z| z.is_empty()));
}

#[test]
fn a_track_remapped_to_a_spare_track_moves_whole() {
    // The HP C2247 spares whole tracks: a pair names tracks of the zone. Track 200 of zone
    // 1 kept in its last track (cylinder 558, surface 12): each of its blocks lies there at
    // its own sector.
    let mut p = imported("hp_c2247a");
    let d = Hdd::new(&p, 0).expect("builds");
    let lba = (0..100_000)
        .find(|&b| {
            let at = d.locate(b);
            at.cyl * 13 + at.head == 200 && at.sector == 7
        })
        .expect("a block of track 200");
    p.zone_table[0].remaps = vec![[200, 558 * 13 + 12]];
    let moved = Hdd::new(&p, 0).expect("builds").locate(lba);
    assert_eq!((moved.cyl, moved.head, moved.sector), (558, 12, 7));
}

#[test]
fn spares_at_the_front_of_a_cylinder_come_before_its_first_block() {
    // The Cheetah 4LP's first zone with 9 spares at the front of each cylinder: 1,551 blocks
    // a cylinder, the first at sector 9 of track 0, the last (1,550) at 9 + 1,550 = 1,559:
    // track 7, sector 194; block 1,551 starts cylinder 1 at sector 9. With the spares at the
    // end, block 1,550 is track 7's sector 185 and block 0 sector 0.
    let mut p = imported("cheetah4LP");
    for z in &mut p.zone_table {
        z.spares = 9;
    }
    let drive = |sparing: Sparing| {
        let mut p = p.clone();
        p.sparing = sparing;
        Hdd::new(&p, 0).expect("builds")
    };
    let (front, end) = (
        drive(Sparing::SectorsPerCylinderAtFront),
        drive(Sparing::SectorsPerCylinder),
    );
    let at = |d: &Hdd, lba| {
        let p = d.locate(lba);
        (p.cyl, p.head, p.sector)
    };
    assert_eq!((at(&front, 0), at(&front, 1550)), ((0, 0, 9), (0, 7, 194)));
    assert_eq!(at(&front, 1551), (1, 0, 9));
    assert_eq!((at(&end, 0), at(&end, 1550)), ((0, 0, 0), (0, 7, 185)));
    // A transfer of the cylinder's last two blocks reads one sector on each cylinder.
    let mut runs = Vec::new();
    front.media_runs(1550, 2, |r| runs.push(r.sectors));
    assert_eq!(runs, [1, 1]);
}
