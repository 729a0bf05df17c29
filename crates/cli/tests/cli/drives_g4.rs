//! Drives described with DiskSim's table layout (`dm_layout_g4`): a hand-made table against
//! the same drive described zone by zone (`dm_layout_g1`), and tables that are refused.

use std::path::Path;

use super::drive_copies::{demerit, import_refused, imported, write_cheetah};

/// Cylinders of the drive: cylinders 6 on hold 200 sectors a track.
const CYLS: u32 = 3006;
/// Blocks: the table's 1,202,160 positions less its slip and some to spare.
const BLOCKS: u64 = 1_202_000;

/// 3,006 cylinders of 2 surfaces: cylinders 0 to 5 repeat a group of two cylinders three
/// times (200 sectors a track on the even one, the second surface 40 sectors on; 160 on
/// the odd one, at 60 and 100 sectors; each repeat 0.1 revolution on), then cylinders 6
/// to 3,005 of 200 sectors (the second surface 20 sectors on, each cylinder 60 on).
/// Position 2,400 is slipped; blocks 2,600 and 2,601 are kept on sectors 198 and 199 of
/// the last cylinder's surface 1, past the last block.
const TABLE: &str = "dm_layout_g4 {
 TP = [ 0, 199, 200,  0, 159, 160 ],
 IDX = [
  [ 0, 0, 0.0, 200, 1, 0.0, 200, 1, TRACK, 0, 0,
    200, 0, 0.2, 200, 1, 0.0, 200, 1, TRACK, 0, 1,
    400, 1, 0.375, 160, 1, 0.0, 160, 1, TRACK, 1, 0,
    560, 1, 0.625, 160, 1, 0.0, 160, 1, TRACK, 1, 1 ],
  [ 0, 0, 0.0, 200, 1, 0.0, 200, 1, TRACK, 0, 0,
    200, 0, 0.1, 200, 1, 0.0, 200, 1, TRACK, 0, 1 ],
  [ 0, 0, 0.0, 720, 2, 0.1, 2160, 6, IDX, 0,
    2160, 6, 0.0, 400, 1, 0.3, 1200000, 3000, IDX, 1 ]
 ],
 Slips = [ 2400, 1 ],
 Remaps = [ 2600, 2, 3005, 1, 198, 200 ]
}";

/// One `dm_layout_g1_zone` (whole-sector skews, no spares beyond its slips).
fn zone(cyls: (u32, u32), spt: u32, skews: (u32, u32, u32), slips: &str, defects: &str) -> String {
    format!(
        "dm_layout_g1_zone {{ First cylinder number = {}, Last cylinder number = {}, \
         Blocks per track = {spt}, Offset of first block = {}, Empty space at zone front = 0, \
         Skew for track switch = {}, Skew for cylinder switch = {}, Number of spares = 0, \
         slips = [{slips}], defects = [{defects}] }}",
        cyls.0, cyls.1, skews.0, skews.1, skews.2
    )
}

/// [`TABLE`] zone by zone: one zone per cylinder up to 5 (offsets 20 sectors a repeat on
/// the 200-sector cylinders, 16 on the 160-sector ones, from 60), then cylinders 6 on
/// with the slip (sector 240 of the zone) and the remaps (sectors 441 and 442, the two
/// blocks' own places, to sectors 198 and 199 of the zone's last track), the slip taken
/// from a spare at the zone's end (scheme 10) as the table's blocks run on past it.
fn zones() -> String {
    let mut z = Vec::new();
    for q in 0..3 {
        z.push(zone((2 * q, 2 * q), 200, (20 * q, 40, 0), "", ""));
        z.push(zone(
            (2 * q + 1, 2 * q + 1),
            160,
            (60 + 16 * q, 40, 0),
            "",
            "",
        ));
    }
    let last = (u64::from(CYLS - 6) * 2 - 1) * 200;
    z.push(zone(
        (6, CYLS - 1),
        200,
        (0, 20, 40),
        "240",
        &format!("441, {}, 442, {}", last + 198, last + 199),
    ));
    format!(
        "dm_layout_g1 {{ LBN-to-PBN mapping scheme = 0, Sparing scheme used = 10, \
         Rangesize for sparing = 1, Zones = [ {} ] }}",
        z.join(", ")
    )
}

/// The Cheetah 4LP on `cylinders` cylinders of 2 surfaces and `blocks` blocks with the
/// layout `layout`, and a trace with 40 requests across the slip and the remapped blocks.
fn write_drive(dir: &Path, layout: &str, cylinders: u32, blocks: u64) {
    write_cheetah(
        dir,
        layout,
        (cylinders, blocks),
        &[],
        &[(2590, 20), (2390, 20)],
    );
}

#[test]
fn a_table_layout_replays_as_the_same_drive_described_zone_by_zone() {
    let (a, b) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    write_drive(a.path(), TABLE, CYLS, BLOCKS);
    write_drive(b.path(), &zones(), CYLS, BLOCKS);
    let (g4, g1) = (demerit(a.path()), demerit(b.path()));
    assert!(g4 > 0.0);
    assert_eq!(g4.to_bits(), g1.to_bits(), "{g4} {g1}");
    // The import writes the zones the table comes to.
    let text = imported(a.path());
    assert_eq!(text.matches("sectors_per_track = 160").count(), 3, "{text}");
    assert!(
        text.contains("remaps = [[441, 1199998], [442, 1199999]]"),
        "{text}"
    );
}

/// `drive import` of [`TABLE`] edited by `edit` on a drive of `cylinders` cylinders:
/// refused with exit code 2, naming the model file and saying `what`.
fn refused(edit: impl Fn(&str) -> String, cylinders: u32, blocks: u64, what: &[&str]) {
    let dir = tempfile::tempdir().expect("dir");
    write_drive(dir.path(), &edit(TABLE), cylinders, blocks);
    import_refused(dir.path(), &[&["cheetah4LP.model"], what].concat());
}

#[test]
fn a_malformed_table_is_refused_naming_the_file_the_key_and_the_bound() {
    // A child index past the list.
    refused(
        |t| t.replace("3000, IDX, 1", "3000, IDX, 7"),
        CYLS,
        BLOCKS,
        &["`IDX` node 2 entry 1 names IDX 7, but there are 3"],
    );
    // Overlapping runs: the second surface's entry starts inside the first's.
    refused(
        |t| t.replacen("200, 0, 0.2,", "150, 0, 0.2,", 1),
        CYLS,
        BLOCKS,
        &[
            "`IDX` node 0 entry 1 starts at block 150",
            "no gap or overlap",
        ],
    );
    // More blocks than the table maps, and a remap past the block count.
    refused(
        |t| t.to_string(),
        CYLS,
        1_202_160,
        &["hold 1202159 blocks", "`Block count` is 1202160"],
    );
    refused(
        |t| t.replace("2600, 2, 3005,", "1201999, 2, 3005,"),
        CYLS,
        BLOCKS,
        &["`Remaps` row 0", "below the block count 1202000"],
    );
    // A cycle: node 0's first entry names node 0.
    refused(
        |t| {
            t.replacen(
                "TRACK, 0, 0,\n    200, 0, 0.2",
                "IDX, 0,\n    200, 0, 0.2",
                1,
            )
        },
        CYLS,
        BLOCKS,
        &["more than 16 levels"],
    );
    // Tracks beyond the drive: a table of 3,006 cylinders on a drive of 3,005.
    refused(
        |t| t.to_string(),
        CYLS - 1,
        BLOCKS,
        &["cylinder 3005, outside the drive's 0 to 3004"],
    );
    // A repeat count far past the drive's cylinders x surfaces.
    refused(
        |t| {
            t.replace(
                "720, 2, 0.1, 2160, 6, IDX, 0,\n    2160, 6, 0.0, 400, 1, 0.3, 1200000, 3000, IDX, 1",
                "720, 0, 0.1, 1000000000000, 6, IDX, 0",
            )
        },
        CYLS,
        BLOCKS,
        &["expands to more than 6012 tracks"],
    );
    // A slip past the table's positions, and a track type whose blocks do not start at 0.
    refused(
        |t| t.replace("Slips = [ 2400, 1 ]", "Slips = [ 1202159, 2 ]"),
        CYLS,
        BLOCKS,
        &["`Slips` pair 0 (1202159, 2)", "1202160 block positions"],
    );
    refused(
        |t| t.replace("0, 159, 160", "1, 159, 160"),
        CYLS,
        BLOCKS,
        &["`TP` track type 1 (1, 159, 160)", "low 0"],
    );
}
