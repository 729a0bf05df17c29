//! Drives described with DiskSim's extent-map layout (`dm_layout_g2`): a drive against the
//! same drive described zone by zone (`dm_layout_g1`), and map files that are refused.

use std::path::Path;

use super::drive_copies::{demerit, import_refused, imported, write_cheetah};

/// Blocks: zone 1's 512,000 and zone 2's 255,999 positions after its slip, less 9.
const BLOCKS: u64 = 767_990;

/// The slipped sector: cylinder 1500, surface 1, sector 7 (sector 128,135 of zone 2).
const SLIP: (u32, u32, u32) = (1500, 1, 7);

/// 2,000 cylinders of 2 surfaces: cylinders 0 to 999 of 256 sectors a track (track skew
/// 20 sectors, cylinder skew 40), 1,000 to 1,999 of 128 (10 and 24); sectors a power of
/// two, so that DiskSim's fixed-point sector is exact and no zone skew, so that g2's
/// angles are g1's.
const G2: &str = "dm_layout_g2 {
 Layout Map File = drive.layout,
 Zones = [
  dm_layout_g2_zone { First cylinder number = 0, Last cylinder number = 999,
   First LBN = 0, Last LBN = 511999, Blocks per track = 256,
   Skew for track switch = 20, Skew for cylinder switch = 40 },
  dm_layout_g2_zone { First cylinder number = 1000, Last cylinder number = 1999,
   First LBN = 512000, Last LBN = 767989, Blocks per track = 128,
   Skew for track switch = 10, Skew for cylinder switch = 24 }
 ]
}";

/// [`G2`] zone by zone, the slip taken from a spare at the zone's end (scheme 10).
const G1: &str = "dm_layout_g1 { LBN-to-PBN mapping scheme = 0, Sparing scheme used = 10,
 Rangesize for sparing = 1, Zones = [
  dm_layout_g1_zone { First cylinder number = 0, Last cylinder number = 999,
   Blocks per track = 256, Offset of first block = 0, Empty space at zone front = 0,
   Skew for track switch = 20, Skew for cylinder switch = 40, Number of spares = 0,
   slips = [], defects = [] },
  dm_layout_g1_zone { First cylinder number = 1000, Last cylinder number = 1999,
   Blocks per track = 128, Offset of first block = 0, Empty space at zone front = 0,
   Skew for track switch = 10, Skew for cylinder switch = 24, Number of spares = 0,
   slips = [128135], defects = [] }
 ]
}";

/// The map file of [`G2`]: one extent a track, two on the slip's track.
fn map() -> String {
    let mut out = String::from("SEAGATE\nST34501N\n2000 cylinders, 10033 rot, 2 heads\n");
    let mut lbn = 0u64;
    for cyl in 0..2000u32 {
        let spt = if cyl < 1000 { 256 } else { 128 };
        for head in 0..2u32 {
            let mut runs = vec![(0, spt)];
            if (cyl, head) == (SLIP.0, SLIP.1) {
                runs = vec![(0, SLIP.2), (SLIP.2 + 1, spt)];
            }
            for (from, to) in runs {
                let n = (u64::from(to - from)).min(BLOCKS - lbn);
                out += &format!(
                    "lbn {lbn} --> cyl {cyl}, head {head}, sect {from}, seqcnt {}\n",
                    n - 1
                );
                lbn += n;
            }
        }
    }
    out + "Defect at cyl 1500, head 1, sect 7\n"
}

/// The Cheetah 4LP on [`G2`]'s 2,000 cylinders of 2 surfaces with the layout `layout`,
/// the map file `map` and a trace with 40 requests across the slip.
fn write_drive(dir: &Path, layout: &str, map: &str) {
    write_cheetah(
        dir,
        layout,
        (2000, BLOCKS),
        &[("drive.layout", map)],
        &[(640_120, 30)],
    );
}

#[test]
fn an_extent_map_layout_replays_as_the_same_drive_described_zone_by_zone() {
    let (a, b) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    write_drive(a.path(), G2, &map());
    write_drive(b.path(), G1, "");
    let (g2, g1) = (demerit(a.path()), demerit(b.path()));
    assert!(g2 > 0.0);
    assert_eq!(g2.to_bits(), g1.to_bits(), "{g2} {g1}");
    let text = imported(a.path());
    assert!(text.contains("slips = [128135]"), "{text}");
}

/// `drive import` of [`G2`] with its map file edited by `edit` (or none when `None`):
/// refused with exit code 2, saying each of `what`.
fn refused(edit: Option<&dyn Fn(&str) -> String>, what: &[&str]) {
    let dir = tempfile::tempdir().expect("dir");
    write_drive(dir.path(), G2, &edit.map_or(String::new(), |e| e(&map())));
    if edit.is_none() {
        std::fs::remove_file(dir.path().join("drive.layout")).expect("remove");
    }
    import_refused(dir.path(), what);
}

#[test]
fn a_bad_map_file_is_refused_naming_the_file_the_line_and_the_bound() {
    refused(None, &["drive.layout: cannot read"]);
    // Out of order: the second extent starts before the first ends.
    refused(
        Some(&|m| m.replacen("lbn 256 -->", "lbn 250 -->", 1)),
        &["drive.layout: line 5: the extent starts at block 250, the one before ends at block 256", "overlaps"],
    );
    // Beyond the drive's cylinders, surfaces, block count and a track's sectors.
    refused(
        Some(&|m| m.replacen("cyl 1999, head 0", "cyl 2000, head 0", 1)),
        &["drive.layout: line 4003: cylinder `2000` must be below the drive's 2000 cylinders"],
    );
    refused(
        Some(&|m| m.replacen("cyl 3, head 1", "cyl 3, head 2", 1)),
        &["drive.layout: line 11: head `2` must be below the drive's 2 surfaces"],
    );
    refused(
        Some(&|m| m.replacen("seqcnt 118\n", "seqcnt 127\n", 1)),
        &["drive.layout: line 4004: the extent runs to block 767998, beyond the drive's block count 767990"],
    );
    refused(
        Some(&|m| {
            m.replacen(
                "lbn 512 --> cyl 1, head 0, sect 0",
                "lbn 512 --> cyl 1, head 0, sect 1",
                1,
            )
        }),
        &["drive.layout: line 6: sectors 1 to 256 pass the zone's 256 sectors per track"],
    );
    // A malformed line, and the header line.
    refused(
        Some(&|m| m.replacen("lbn 768 --> cyl 1, head 1, sect 0, seqcnt 255", "lbn 768 --> cyl 1 / 1", 1)),
        &["drive.layout: line 7: expected `lbn L --> cyl C, head H, sect S, seqcnt N`; got `lbn 768 --> cyl 1 / 1`"],
    );
    refused(
        Some(&|m| m.replacen("2000 cylinders", "1999 cylinders", 1)),
        &["drive.layout: line 3: the map gives 1999 cylinders and 2 heads; the drive has 2000 cylinders"],
    );
}

#[test]
fn zones_out_of_order_are_refused_naming_the_zone_and_the_bound() {
    let dir = tempfile::tempdir().expect("dir");
    let layout = G2.replace(
        "First cylinder number = 1000",
        "First cylinder number = 999",
    );
    write_drive(dir.path(), &layout, &map());
    import_refused(dir.path(), &["cheetah4LP.model: zone 2 of dm_layout_g2 (cylinders 999 to 1999, blocks 512000 to 767989): zones must follow one another in ascending cylinders and blocks, apart, within the drive's 2000 cylinders"]);
}
