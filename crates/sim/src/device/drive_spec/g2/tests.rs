use std::fmt::Write;

use super::super::test_copies::{copy_drive, drives, set, with_layout};
use super::super::{import, ImportedDrive};
use crate::device::hdd::{Hdd, HddParams};
use crate::test_dir::TestDir;

/// A copy of shipped drive `drive` (model file `model`) with its layout replaced by
/// `layout`, its model keys set by `keys`, and `map` written as `drive.layout`.
fn g2_drive(drive: &str, model: &str, layout: &str, keys: &[(&str, &str)], map: &str) -> TestDir {
    let dir = copy_drive(
        drive,
        model,
        &format!("g2-{drive}"),
        |t| t,
        |t| {
            let mut t = with_layout(&t, layout);
            for (k, v) in keys {
                t = set(&t, k, v);
            }
            t
        },
    );
    std::fs::write(dir.path().join(format!("{drive}.layout")), map).expect("write map");
    dir
}

/// A g2 description of an imported drive (no remaps): its map file, one extent per run of
/// blocks on consecutive sectors of a track as the drive places them, and its zones with
/// the drive's sectors per track and skews in sectors, each zone's blocks those of its
/// cylinders.
fn g2_description(p: &HddParams, map_name: &str) -> (String, String) {
    let hdd = Hdd::new(p, 0).expect("builds");
    let blocks = (p.capacity_gb * 1e9 / 512.0).floor() as u64;
    let cyls = p.zone_table.last().expect("zones").last_cylinder + 1;
    let mut map = format!(
        "vendor\nmodel\n{cyls} cylinders, 7200 rot, {} heads\n",
        p.heads
    );
    let mut zone_lbns = vec![(u64::MAX, 0u64); p.zone_table.len()];
    let mut lbn = 0;
    while lbn < blocks {
        let a = hdd.locate(lbn);
        let mut n = 1;
        while lbn + n < blocks {
            let b = hdd.locate(lbn + n);
            if (b.cyl, b.head, b.sector) != (a.cyl, a.head, a.sector + n as u32) {
                break;
            }
            n += 1;
        }
        writeln!(
            map,
            "lbn {lbn} --> cyl {}, head {}, sect {}, seqcnt {}",
            a.cyl,
            a.head,
            a.sector,
            n - 1
        )
        .unwrap();
        let z = p
            .zone_table
            .iter()
            .position(|z| (z.first_cylinder..=z.last_cylinder).contains(&a.cyl))
            .expect("a zone");
        zone_lbns[z].0 = zone_lbns[z].0.min(lbn);
        zone_lbns[z].1 = lbn + n - 1;
        lbn += n;
    }
    let zones: Vec<String> = p
        .zone_table
        .iter()
        .zip(&zone_lbns)
        .map(|(z, (lo, hi))| {
            format!(
                "dm_layout_g2_zone {{ First cylinder number = {}, Last cylinder number = {}, First LBN = {lo}, Last LBN = {hi}, Blocks per track = {}, Zone Skew = {}, Skew for track switch = {}, Skew for cylinder switch = {} }}",
                z.first_cylinder,
                z.last_cylinder,
                z.sectors_per_track,
                z.first_block_offset_sectors,
                z.track_skew_sectors,
                z.cylinder_skew_sectors
            )
        })
        .collect();
    let layout = format!(
        "dm_layout_g2 {{ Layout Map File = {map_name}, Zones = [ {} ] }}",
        zones.join(",\n ")
    );
    (layout, map)
}

/// Distance between two angles on a revolution of `rev` ns.
fn apart(a: f64, b: f64, rev: f64) -> f64 {
    let d = (a - b).rem_euclid(rev);
    d.min(rev - d)
}

#[test]
fn a_g1_drive_written_as_g2_maps_every_block_at_disksims_g2_angles() {
    // The Atlas III with its slips taken from spares at each zone's end (scheme 10: no
    // slip pushes a block past its zone) written as a g2 map: 9 zones with 4 to 26 slips
    // (each a gap between two extents of a track), skews in whole sectors, no zone skew,
    // the first zone's 50 reserved cylinders before its first block. Every block lies on the g1 drive's cylinder, surface and sector. Its angle
    // is DiskSim's g2 angle, by hand: in a zone whose first mapped cylinder is `f`, a track
    // `c, h` starts `(c - f) * ((heads - 1) * ts + cs) + h * ts` sector widths round (a
    // sector width is 2^32 / spt rounded down, of 2^32 to a revolution), the sector `s`
    // widths further. From the second zone on that is the g1 angle too (the g1 zones
    // count their cylinders from the zone's first, where g2 starts); in the first zone g2
    // counts from cylinder 50, its first block, where g1 counts from cylinder 0.
    let g1_dir = TestDir::new("g2-atlas-g1");
    for name in [
        "atlas_III.diskspecs",
        "atlas_III.model",
        "atlas_III.seek",
        "atlas_III.parv",
    ] {
        let mut text = std::fs::read_to_string(drives().join(name)).expect("read");
        if name.ends_with(".model") {
            text = set(&text, "Sparing scheme used", "10");
        }
        std::fs::write(g1_dir.path().join(name), text).expect("write");
    }
    let g1 = import(&g1_dir.path().join("atlas_III.diskspecs")).expect("g1 imports");
    let (layout, map) = g2_description(&g1.params, "atlas_III.layout");
    let dir = g2_drive("atlas_III", "atlas_III", &layout, &[], &map);
    let g2 = import(&dir.path().join("atlas_III.diskspecs")).expect("g2 imports");
    assert!(g2.params.zone_table.iter().all(|z| !z.slips.is_empty()));
    let (x, y) = (
        Hdd::new(&g1.params, 0).expect("g1 builds"),
        Hdd::new(&g2.params, 0).expect("g2 builds"),
    );
    let rev = 60e9 / f64::from(g1.params.rpm);
    let heads = u64::from(g1.params.heads);
    let blocks = 17_783_250;
    let mut first_cyl = vec![None; g1.params.zone_table.len()];
    let mut worst = 0.0f64;
    for lba in 0..blocks {
        let (p, q) = (x.locate(lba), y.locate(lba));
        assert_eq!(
            (p.cyl, p.head, p.sector),
            (q.cyl, q.head, q.sector),
            "block {lba}"
        );
        let zi = g1
            .params
            .zone_table
            .iter()
            .position(|z| (z.first_cylinder..=z.last_cylinder).contains(&p.cyl))
            .expect("zone");
        let z = &g1.params.zone_table[zi];
        let f = *first_cyl[zi].get_or_insert(p.cyl);
        let spt = u64::from(z.sectors_per_track);
        let width = (1u64 << 32) / spt;
        let (ts, cs) = (z.track_skew_sectors as u64, z.cylinder_skew_sectors as u64);
        let widths = u64::from(p.cyl - f) * ((heads - 1) * ts + cs) + u64::from(p.head) * ts;
        let turn = ((widths * width) % (1 << 32)) as f64 / 4_294_967_296.0;
        let want = (turn + f64::from(p.sector) / spt as f64).rem_euclid(1.0) * rev;
        let got = y.block_angle_ns(lba) as f64;
        assert!(
            apart(got, want, rev) <= 2.0,
            "block {lba}: {got} ns, want {want}"
        );
        if zi > 0 {
            // g1 turns whole sectors of 1/spt; DiskSim's g2 sector widths fall short of
            // that by (2^32 mod spt) / 2^32 of a sector each.
            let drift = (widths * ((1 << 32) % spt)) as f64 / 4_294_967_296.0;
            let g1_angle = x.block_angle_ns(lba) as f64;
            let d = apart(got, g1_angle, rev);
            assert!(
                d <= drift * rev / spt as f64 + 2.0,
                "block {lba}: g1 {g1_angle} ns, g2 {got}"
            );
            worst = worst.max(d);
        }
    }
    // The drift is there (up to some microseconds at a zone's last cylinder), and small.
    assert!(worst > 2.0 && worst < 0.1 * rev / 224.0, "{worst}");
    assert_eq!(first_cyl[0], Some(50));
}

/// The hand-made drive's layout: 2 surfaces, 6 cylinders, 3,680 blocks.
const HAND_LAYOUT: &str = "dm_layout_g2 {
 Layout Map File = hand.layout,
 Zones = [
  dm_layout_g2_zone { First cylinder number = 0, Last cylinder number = 2, First LBN = 0,
   Last LBN = 2398, Blocks per track = 400, Zone Skew = 4, Skew for track switch = 2,
   Skew for cylinder switch = 4 },
  dm_layout_g2_zone { First cylinder number = 3, Last cylinder number = 5, First LBN = 2399,
   Last LBN = 3679, Blocks per track = 256, Skew for cylinder switch = 2,
   Skew units = revolutions, Skew for track switch = 0.00390625, Zone Skew = 0.01171875 }
 ]
}";

const HAND_MAP: &str = "hand-made
drive
6 cylinders, 7200 rot, 2 heads
lbn 0 --> cyl 0, head 0, sect 0, seqcnt 399
lbn 400 --> cyl 0, head 1, sect 0, seqcnt 399
lbn 800 --> cyl 1, head 0, sect 0, seqcnt 3
lbn 804 --> cyl 1, head 0, sect 5, seqcnt 394
lbn 1199 --> cyl 1, head 1, sect 0, seqcnt 399
lbn 1599 --> cyl 2, head 0, sect 0, seqcnt 399
lbn 1999 --> cyl 2, head 1, sect 0, seqcnt 399
lbn 2399 --> cyl 3, head 0, sect 0, seqcnt 255
lbn 2655 --> cyl 3, head 1, sect 0, seqcnt 255
lbn 2911 --> cyl 4, head 0, sect 0, seqcnt 255
lbn 3167 --> cyl 4, head 1, sect 0, seqcnt 255
lbn 3423 --> cyl 5, head 0, sect 0, count 77
lbn 3500 --> cyl 5, head 1, sect 200, count 1
lbn 3501 --> cyl 5, head 0, sect 78, count 178
lbn 3679 --> cyl 5, head 1, sect 0, count 1
Defect at cyl 1, head 0, sect 4
";

fn hand_drive(map: &str) -> (TestDir, Result<ImportedDrive, String>) {
    hand_drive_of(map, HAND_LAYOUT, 3680)
}

fn hand_drive_of(map: &str, layout: &str, blocks: u64) -> (TestDir, Result<ImportedDrive, String>) {
    let blocks = blocks.to_string();
    let keys = [
        ("Number of data surfaces", "2"),
        ("Number of cylinders", "6"),
        ("Block count", blocks.as_str()),
    ];
    let dir = TestDir::new("g2-hand");
    for (name, model) in [
        ("hp_c2247a.diskspecs", false),
        ("hp_c2247a_validate.model", true),
    ] {
        let mut text = std::fs::read_to_string(drives().join(name)).expect("read");
        if model {
            text = with_layout(&text, layout);
            for (k, v) in keys {
                text = set(&text, k, v);
            }
        }
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    std::fs::write(dir.path().join("hand.layout"), map).expect("write map");
    let drive = import(&dir.path().join("hp_c2247a.diskspecs"));
    (dir, drive)
}

#[test]
fn a_hand_made_g2_drive_maps_blocks_as_disksim_does() {
    let (_dir, drive) = hand_drive(HAND_MAP);
    let d = drive.expect("imports");
    let hdd = Hdd::new(&d.params, 0).expect("builds");
    let rev = 60e9 / f64::from(d.params.rpm);
    // (block, cylinder, surface, sector, start angle in sector widths of its zone), by
    // DiskSim's precompute_skews and pbn_skew_new. Zone 1 (400 sectors): cylinder 0 keeps
    // skew 0 (its first extent is preset: the zone skew 4 is never read); surface 1 is one
    // track switch on (2); cylinder 1 starts at cylinder 0's skew plus a track and a
    // cylinder switch (2 + 4 = 6), cylinder 2 at 12. Zone 2 (256 sectors): its cylinder
    // switch skew, written before `Skew units`, is 2 sectors; the track switch (1/256
    // revolution) and zone skew (3/256) after it are 1 and 3 sectors. Cylinder 3, the
    // zone's first, starts at the zone skew, 3; cylinder 4 at cylinder 3's track and
    // cylinder switches alone, 1 + 2 = 3 (the zone skew is dropped); cylinder 5 at 3 + 3.
    let want = [
        (0, 0, 0, 0, 0.0),
        (405, 0, 1, 5, 2.0 + 5.0),
        (803, 1, 0, 3, 6.0 + 3.0),
        // sector 4 of cylinder 1 surface 0 is slipped: block 804 is on sector 5.
        (804, 1, 0, 5, 6.0 + 5.0),
        (1199, 1, 1, 0, 8.0),
        (1599, 2, 0, 0, 12.0),
        (2398, 2, 1, 399, 14.0 + 399.0),
        (2399, 3, 0, 0, 3.0),
        (2655, 3, 1, 0, 4.0),
        (2911, 4, 0, 0, 3.0),
        (3422, 4, 1, 255, 4.0 + 255.0),
        (3423, 5, 0, 0, 6.0),
        // block 3500 is kept on sector 200 of surface 1 (its own sector 77 stays empty);
        // DiskSim's walk for surface 1 stops at that extent, one track switch on (7).
        (3500, 5, 1, 200, 7.0 + 200.0),
        (3501, 5, 0, 78, 6.0 + 78.0),
        (3679, 5, 1, 0, 7.0),
    ];
    for (lba, cyl, head, sector, sectors) in want {
        let p = hdd.locate(lba);
        assert_eq!(
            (p.cyl, p.head, p.sector),
            (cyl, head, sector),
            "block {lba}"
        );
        let spt: f64 = if cyl < 3 { 400.0 } else { 256.0 };
        // DiskSim's sector is 2^32 / spt rounded down: 96 / 2^32 of a revolution short of
        // 1/400 in zone 1 (exact in zone 2).
        let width = (4_294_967_296.0 / spt).floor() / 4_294_967_296.0;
        let want = (sectors * width).rem_euclid(1.0) * rev;
        let got = hdd.block_angle_ns(lba) as f64;
        assert!(
            apart(got, want, rev) <= 2.0,
            "block {lba}: {got} ns, want {want}"
        );
    }
    // Zone 2's cylinders 3 and 4 start at 3 and 3, cylinder 5 at 6: storlab's zones take
    // 3 and 4 as one zone with a cylinder skew of -1 (255) sectors and 5 as another.
    let firsts: Vec<u32> = d
        .params
        .zone_table
        .iter()
        .map(|z| z.first_cylinder)
        .collect();
    assert_eq!(firsts, [0, 3, 5]);
}

#[test]
fn bad_map_files_are_refused_with_file_line_and_bound() {
    let cases = [
        ("lbn 804 --> cyl 1, head 0, sect 5, seqcnt 394", "lbn 805 --> cyl 1, head 0, sect 5, seqcnt 393", "line 7: the extent starts at block 805, the one before ends at block 804: it leaves blocks before it unmapped"),
        ("lbn 804 --> cyl 1, head 0, sect 5, seqcnt 394", "lbn 803 --> cyl 1, head 0, sect 5, seqcnt 395", "line 7: the extent starts at block 803, the one before ends at block 804: it overlaps"),
        ("lbn 3423 --> cyl 5,", "lbn 3423 --> cyl 6,", "line 15: cylinder `6` must be below the drive's 6 cylinders"),
        ("lbn 3423 --> cyl 5, head 0,", "lbn 3423 --> cyl 5, head 2,", "line 15: head `2` must be below the drive's 2 surfaces"),
        ("sect 0, count 1\n", "sect 0, count 2\n", "line 18: the extent runs to block 3680, beyond the drive's block count 3680"),
        ("lbn 1199 --> cyl 1, head 1, sect 0, seqcnt 399", "lbn 1199 --> cyl 1, head 1 sect zero", "line 8: expected `lbn L --> cyl C, head H, sect S, seqcnt N`"),
        ("lbn 2655 --> cyl 3, head 1, sect 0,", "lbn 2655 --> cyl 3, head 1, sect 1,", "line 12: sectors 1 to 256 pass the zone's 256 sectors per track"),
        ("lbn 1599 --> cyl 2, head 0, sect 0, seqcnt 399", "lbn 1599 --> cyl 1, head 0, sect 0, seqcnt 399", "line 9: cylinder 1 head 0 comes back after other tracks"),
        ("6 cylinders, 7200 rot, 2 heads", "6 cylinders, 2 heads", "line 3: expected `C cylinders, R rot, H heads`"),
        ("head 1, sect 0, count 1\n", "head 1, sect 0, count 1\nlbn 3680 --> cyl 5, head 1, sect 1, seqcnt 0\n", "line 19: the extent runs to block 3680"),
    ];
    for (from, to, why) in cases {
        assert!(HAND_MAP.contains(from), "{from}");
        let (_dir, drive) = hand_drive(&HAND_MAP.replacen(from, to, 1));
        let e = drive.expect_err(to);
        assert!(e.contains("hand.layout") && e.contains(why), "{to}: {e}");
    }
    let (dir, _) = hand_drive(HAND_MAP);
    std::fs::remove_file(dir.path().join("hand.layout")).expect("remove");
    let e = import(&dir.path().join("hp_c2247a.diskspecs")).expect_err("no map file");
    assert!(e.contains("hand.layout: cannot read"), "{e}");
}

#[test]
fn a_block_kept_on_a_track_the_zones_turn_otherwise_is_refused() {
    // Without block 3679, surface 1 of cylinder 5 holds only block 3500, kept there:
    // DiskSim turns it one track switch on from surface 0 (7 sectors), storlab's zone of
    // cylinder 5 (one track, so no track skew) as surface 0 (6).
    let map = HAND_MAP.replace("lbn 3679 --> cyl 5, head 1, sect 0, count 1\n", "");
    let layout = HAND_LAYOUT.replace("Last LBN = 3679", "Last LBN = 3678");
    let (_dir, drive) = hand_drive_of(&map, &layout, 3679);
    let e = drive.expect_err("refused");
    assert!(
        e.contains("block 3500 is kept on cylinder 5 surface 1, which DiskSim turns to 0.027344 revolutions and storlab's zones to 0.023438"),
        "{e}"
    );
}
