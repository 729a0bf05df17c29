use std::path::Path;

use super::super::test_copies::{copy_drive, drives, set, with_layout};
use super::super::{import, read_trace, replay, ImportedDrive};
use crate::device::hdd::{Hdd, HddParams, Sparing};
use crate::test_dir::TestDir;

/// A copy of shipped drive `drive` (model file `model`) in its own directory, its model's
/// layout replaced by `layout` and its keys set as `keys` say.
fn copy_with(drive: &str, model: &str, tag: &str, layout: &str, keys: &[(&str, &str)]) -> TestDir {
    copy_drive(
        drive,
        model,
        &format!("g4-{tag}"),
        |t| t,
        |t| {
            let mut t = with_layout(&t, layout);
            for (k, v) in keys {
                t = set(&t, k, v);
            }
            t
        },
    )
}

/// A g4 description of a drive's zone table (surfaces ascending, whole tracks of data or
/// spares at each zone's end equal to its slips, no remaps), as DiskSim's
/// `layout_g4_load.c` reads it: per zone one root entry for the surfaces of its first
/// cylinder after the reserved front and one for its whole cylinders, each over an index
/// node with one `TRACK` entry per surface; angles in revolutions.
fn g4_description(p: &HddParams) -> String {
    let h = u64::from(p.heads);
    let (mut tp, mut idx, mut root, mut slips) = (vec![], vec![], vec![], vec![]);
    let mut lbn = 0u64;
    for z in &p.zone_table {
        assert!(z.remaps.is_empty());
        let spt = u64::from(z.sectors_per_track);
        let data = if p.sparing == Sparing::SectorsPerTrack {
            spt - u64::from(z.spares)
        } else {
            assert_eq!(u64::from(z.spares), z.slips.len() as u64);
            spt
        };
        let t = tp.len();
        tp.push(format!("0, {}, {spt}", data - 1));
        let (fo, ts, cs) = (
            z.first_block_offset_sectors,
            z.track_skew_sectors,
            z.cylinder_skew_sectors,
        );
        let s = spt as f64;
        assert_eq!(z.reserved_front_sectors % data, 0);
        let first_track = z.reserved_front_sectors / data;
        let cyls = u64::from(z.last_cylinder - z.first_cylinder + 1);
        let zone_start = lbn;
        let base = |c: u64| (fo + ts * ((h - 1) * c) as f64 + cs * c as f64) / s;
        let mut node = |from: u64| {
            let ents: Vec<String> = (from..h)
                .map(|head| {
                    let off = ts * head as f64 / s;
                    let l = (head - from) * data;
                    format!("{l}, 0, {off:?}, {data}, 1, 0.0, {data}, 1, TRACK, {t}, {head}")
                })
                .collect();
            idx.push(format!("[ {} ]", ents.join(",\n  ")));
            idx.len() - 1
        };
        let mut c = first_track / h;
        if first_track % h != 0 {
            let from = first_track % h;
            let k = node(from);
            let len = (h - from) * data;
            let (cyl, off) = (u64::from(z.first_cylinder) + c, base(c));
            root.push(format!(
                "{lbn}, {cyl}, {off:?}, {len}, 1, 0.0, {len}, 1, IDX, {k}"
            ));
            lbn += len;
            c += 1;
        }
        if c < cyls {
            let k = node(0);
            let (len, n) = (h * data, cyls - c);
            let alen = ((h - 1) as f64 * ts + cs) / s;
            let (cyl, off) = (u64::from(z.first_cylinder) + c, base(c));
            root.push(format!(
                "{lbn}, {cyl}, {off:?}, {len}, 1, {alen:?}, {}, {n}, IDX, {k}",
                len * n
            ));
            lbn += len * n;
        }
        // Slips count from the zone's first data sector, the reserved front included.
        for &sl in &z.slips {
            assert!(sl >= z.reserved_front_sectors);
            slips.push(format!("{}, 1", zone_start + sl - z.reserved_front_sectors));
        }
    }
    idx.push(format!("[ {} ]", root.join(",\n  ")));
    format!(
        "dm_layout_g4 {{\n TP = [ {} ],\n IDX = [ {} ],\n Slips = [ {} ],\n Remaps = [ ]\n }}",
        tp.join(",\n "),
        idx.join(",\n "),
        slips.join(", ")
    )
}

/// Every block's cylinder, surface, sector and start angle in both drives.
fn same_mapping(a: &HddParams, b: &HddParams) {
    let (x, y) = (
        Hdd::new(a, 0).expect("builds"),
        Hdd::new(b, 0).expect("builds"),
    );
    assert_eq!(x.capacity_sectors(), y.capacity_sectors());
    for lba in 0..x.capacity_sectors() {
        let (p, q) = (x.locate(lba), y.locate(lba));
        assert_eq!(
            (p.cyl, p.head, p.sector),
            (q.cyl, q.head, q.sector),
            "block {lba}"
        );
        assert_eq!(x.block_angle_ns(lba), y.block_angle_ns(lba), "block {lba}");
    }
}

fn g1_and_g4(drive: &str, g1_keys: &[(&str, &str)]) -> (ImportedDrive, ImportedDrive) {
    let g1_dir = copy_drive(
        drive,
        drive,
        &format!("g4-{drive}-g1"),
        |t| t,
        |t| g1_keys.iter().fold(t, |t, (k, v)| set(t, k, v)),
    );
    let g1 = import(&g1_dir.path().join(format!("{drive}.diskspecs"))).expect("g1 imports");
    let model = std::fs::read_dir(g1_dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with(".model"))
        .expect("a model");
    let model = model.trim_end_matches(".model").to_string();
    let dir = copy_with(
        drive,
        &model,
        &format!("{drive}-g4"),
        &g4_description(&g1.params),
        &[],
    );
    let g4 = import(&dir.path().join(format!("{drive}.diskspecs"))).expect("g4 imports");
    (g1, g4)
}

#[test]
fn a_g1_drive_written_as_g4_maps_every_block_and_replays_the_same() {
    // The Atlas III with its slips taken from spares at each zone's end (scheme 10, so
    // that no slip pushes a block past its zone, which a table cannot say), written as a
    // g4 table by `g4_description`: 17.8 million blocks, 9 zones with 4 to 26 slips, the
    // first zone's 128,000 reserved sectors (50 cylinders) before its first block. Every
    // block lies on the same cylinder, surface and sector at the same angle, and the
    // trace replays to the same service times (so `validate --drives` gives the same
    // demerit).
    let (g1, g4) = g1_and_g4("atlas_III", &[("Sparing scheme used", "10")]);
    assert_eq!(g4.params.sparing, Sparing::SectorsPerZone);
    assert!(g1.params.zone_table.iter().all(|z| !z.slips.is_empty()));
    same_mapping(&g1.params, &g4.params);
    let trace = read_trace(&drives().join("atlas_III.trace")).expect("trace");
    let (a, b) = (
        replay(&g1.params, &trace).expect("replays"),
        replay(&g4.params, &trace).expect("replays"),
    );
    assert_eq!(a.service_ms, b.service_ms);
}

#[test]
fn a_drive_with_spares_on_every_track_written_as_g4_maps_every_block() {
    // The DEC RZ26: one zone, 58 sectors a track of which the last is spare (scheme 3),
    // 23,142 reserved blocks (29 cylinders of 14 surfaces) before its first block.
    let (g1, g4) = g1_and_g4("dec_rz26", &[]);
    assert_eq!(g4.params.sparing, Sparing::SectorsPerTrack);
    same_mapping(&g1.params, &g4.params);
}

/// A table storlab's g1 zones can only hold as one zone per cylinder: 8 cylinders of 2
/// surfaces. Root entry 0 repeats index node 0 three times (cylinders 0 to 5, `alen` 0.1
/// revolution a repeat): its even cylinder holds track type 0 (200 sectors, the second
/// surface 0.2 revolution on), its odd one track type 1 (160 sectors, at 0.375 and 0.625).
/// Root entry 1 puts cylinders 6 and 7 at 0.3 revolution a cylinder, the second surface
/// 0.1 on. Position 2,400 (cylinder 6, surface 1, sector 40) is slipped; blocks 2,600 and
/// 2,601 are kept on sectors 198 and 199 of cylinder 7 surface 1, past the 2,800 blocks.
const HAND_TABLE: &str = "dm_layout_g4 {
 TP = [ 0, 199, 200,  0, 159, 160 ],
 IDX = [
  [ 0, 0, 0.0, 200, 1, 0.0, 200, 1, TRACK, 0, 0,
    200, 0, 0.2, 200, 1, 0.0, 200, 1, TRACK, 0, 1,
    400, 1, 0.375, 160, 1, 0.0, 160, 1, TRACK, 1, 0,
    560, 1, 0.625, 160, 1, 0.0, 160, 1, TRACK, 1, 1 ],
  [ 0, 0, 0.0, 200, 1, 0.0, 200, 1, TRACK, 0, 0,
    200, 0, 0.1, 200, 1, 0.0, 200, 1, TRACK, 0, 1 ],
  [ 0, 0, 0.0, 720, 2, 0.1, 2160, 6, IDX, 0,
    2160, 6, 0.0, 400, 1, 0.3, 800, 2, IDX, 1 ]
 ],
 Slips = [ 2400, 1 ],
 Remaps = [ 2600, 2, 7, 1, 198, 200 ]
}";

/// The keys that make the Cheetah 4LP's model the 8-cylinder, 2-surface drive of
/// [`HAND_TABLE`].
const HAND_KEYS: [(&str, &str); 3] = [
    ("Number of data surfaces", "2"),
    ("Number of cylinders", "8"),
    ("Block count", "2800"),
];

#[test]
fn a_hand_made_table_maps_blocks_as_disksim_ltop_does() {
    let dir = copy_with("cheetah4LP", "cheetah4LP", "hand", HAND_TABLE, &HAND_KEYS);
    let d = import(&dir.path().join("cheetah4LP.diskspecs")).expect("imports");
    let hdd = Hdd::new(&d.params, 0).expect("builds");
    let rev = hdd.revolution_ns() as f64;
    // (block, cylinder, surface, sector, start angle in revolutions), by ltop's steps:
    let want = [
        // root entry 0, repeat 0, entry 0: sector 0 at angle 0.
        (0, 0, 0, 0, 0.0),
        // repeat 0, entry 1 (blocks 200-399): sector 50 at 0.2 + 50/200.
        (250, 0, 1, 50, 0.45),
        // repeat 1 (blocks 720-1439, cylinder 2, angle 0.1): its block 280 is entry 1's
        // sector 80, at 0.1 + 0.2 + 80/200.
        (1000, 2, 1, 80, 0.7),
        // repeat 2 (blocks 1440-2159, cylinder 4, angle 0.2): its block 560 is entry 3's
        // sector 0 on cylinder 5, at 0.2 + 0.625.
        (2000, 5, 1, 0, 0.825),
        // root entry 1 from block 2160: block 2399 is position 2399, cylinder 6 surface 1
        // sector 39, at 0.1 + 39/200.
        (2399, 6, 1, 39, 0.295),
        // block 2400 slides past the slipped position 2400 to 2401: sector 41.
        (2400, 6, 1, 41, 0.305),
        // blocks 2600 and 2601 are remapped to cylinder 7 surface 1 sectors 198 and 199:
        // 0.3 + 0.1 + 198/200.
        (2600, 7, 1, 198, 0.39),
        (2601, 7, 1, 199, 0.395),
        // block 2602 is position 2603 (the remapped blocks' own positions 2601 and 2602
        // stay empty): cylinder 7 surface 0 sector 43, at 0.3 + 43/200.
        (2602, 7, 0, 43, 0.515),
        // the last block, 2799, is position 2800: cylinder 7 surface 1 sector 40.
        (2799, 7, 1, 40, 0.6),
    ];
    for (lba, cyl, head, sector, angle) in want {
        let p = hdd.locate(lba);
        assert_eq!(
            (p.cyl, p.head, p.sector),
            (cyl, head, sector),
            "block {lba}"
        );
        let got = hdd.block_angle_ns(lba) as f64;
        let want = f64::rem_euclid(angle, 1.0) * rev;
        assert!(
            (got - want).abs() <= 2.0,
            "block {lba}: {got} ns, want {want}"
        );
    }
    // Different sectors per track within one g4 zone: one storlab zone per cylinder.
    let spt: Vec<u32> = d
        .params
        .zone_table
        .iter()
        .map(|z| z.sectors_per_track)
        .collect();
    assert_eq!(spt, [200, 160, 200, 160, 200, 160, 200]);
}

#[test]
fn the_check_finds_zones_that_map_a_block_elsewhere_on_any_drive_size() {
    // The hand table's zones as imported pass the check block by block and by track ends;
    // without the slip (the blocks after it stay one sector early) or with the remaps
    // dropped, both checks name the first block out of place.
    let dir = copy_with("cheetah4LP", "cheetah4LP", "check", HAND_TABLE, &HAND_KEYS);
    let d = import(&dir.path().join("cheetah4LP.diskspecs")).expect("imports");
    let model = std::fs::read_to_string(dir.path().join("cheetah4LP.model")).expect("model");
    let blocks = super::super::parse(&model).expect("parses");
    let layout = blocks[0].block("Layout Model").expect("layout");
    let geo = super::Geometry {
        cylinders: 8,
        heads: 2,
        blocks: 2800,
    };
    let file = Path::new("hand.model");
    let t = super::to_zones(
        super::read_table(layout, geo, file).expect("reads"),
        geo,
        file,
    )
    .expect("zones");
    for full in [0, u64::MAX] {
        t.verify_up_to(&d.params, full)
            .expect("the zones map the table");
        let mut p = d.params.clone();
        p.zone_table[6].slips.clear();
        let e = t.verify_up_to(&p, full).expect_err("a block out of place");
        assert!(
            e.contains("block 2400 lies at cylinder 6 surface 1 sector 41"),
            "{e}"
        );
        let mut p = d.params.clone();
        p.zone_table[6].remaps.clear();
        let e = t.verify_up_to(&p, full).expect_err("a block out of place");
        assert!(
            e.contains("block 2600 lies at cylinder 7 surface 1 sector 198"),
            "{e}"
        );
    }
}
