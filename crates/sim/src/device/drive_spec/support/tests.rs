use std::ops::Deref;
use std::path::{Path, PathBuf};

use super::super::test_copies::{copy_drive, drives, set};
use super::super::{import, parse_trace, replay, ImportedDrive};
use crate::device::hdd::Sparing;
use crate::test_dir::TestDir;

/// The description of a drive copied into a directory of its own (derefs to its path); the
/// directory is removed when this is dropped.
struct Variant {
    specs: PathBuf,
    _dir: TestDir,
}

impl Deref for Variant {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.specs
    }
}

/// A copy of a shipped drive (its description, model, seek curve and bus) in a directory
/// of its own, with `edit` applied to the description and `edit_model` to the model.
fn variant(
    drive: &str,
    model: &str,
    tag: &str,
    edit: impl Fn(String) -> String,
    edit_model: impl Fn(String) -> String,
) -> Variant {
    let dir = copy_drive(
        drive,
        model,
        &format!("drive-support-{tag}"),
        edit,
        edit_model,
    );
    Variant {
        specs: dir.path().join(format!("{drive}.diskspecs")),
        _dir: dir,
    }
}

/// The shipped drive `drive` with `edits` made to its description, imported.
fn edited(drive: &str, tag: &str, edits: &[(&str, &str)]) -> Result<ImportedDrive, String> {
    let specs = variant(
        drive,
        drive,
        tag,
        |mut t| {
            for (k, v) in edits {
                t = set(t, k, v);
            }
            t
        },
        |t| t,
    );
    import(&specs)
}

fn barracuda(tag: &str, edits: &[(&str, &str)]) -> Result<ImportedDrive, String> {
    edited("barracuda", tag, edits)
}

#[test]
fn every_shipped_drive_imports_and_notes_what_it_models_approximately() {
    for d in [
        "atlas_III",
        "barracuda",
        "cheetah4LP",
        "dec_rz26",
        "hp_c2247a",
        "hp_c2490a",
    ] {
        import(&drives().join(format!("{d}.diskspecs"))).unwrap_or_else(|e| panic!("{d}: {e}"));
    }
    // The RZ26 reads with zero latency, which the model does not: it says so.
    let rz = import(&drives().join("dec_rz26.diskspecs")).expect("imports");
    assert!(
        rz.notes
            .iter()
            .any(|n| n.contains("Immediate buffer read = 1")),
        "{:?}",
        rz.notes
    );
}

#[test]
fn a_value_the_model_cannot_honour_is_refused_with_the_file_key_and_what_is_supported() {
    for (key, value, supported) in [
        // Values DiskSim 4.0 refuses too.
        ("Immediate buffer write", "3", "only 0 or 1 or 2"),
        ("Read any free blocks", "2", "only 0 or 1"),
        ("Hold bus entire read xfer", "2", "only 0 or 1"),
        ("Read initiation delay", "-0.5", "accepts 0 or more"),
        // Times the model would have taken as 0 (DiskSim's `d >= 0.0`).
        ("Read miss over. after write", "-0.2", "accepts 0 or more"),
        ("Other reselect overhead", "-1", "accepts 0 or more"),
        ("Per-request overhead time", "-0.01", "accepts 0 or more"),
        ("Minimum read-ahead (blks)", "300", "segment size (281)"),
    ] {
        let err = barracuda("only", &[(key, value)]).unwrap_err();
        assert!(
            err.contains("barracuda.diskspecs")
                && err.contains(&format!("`{key} = {value}`"))
                && err.contains(supported),
            "{err}"
        );
    }
    // A key DiskSim 4.0 does not know is ignored, as DiskSim ignores it, with a note.
    let d =
        barracuda("unknown", &[("Print stats", "1,\n   Spin-down delay = 3")]).expect("imports");
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("`Spin-down delay`") && n.contains("not a DiskSim 4.0 parameter")),
        "{:?}",
        d.notes
    );
}

#[test]
fn a_defect_remapped_inside_its_zone_imports_and_one_outside_is_refused() {
    let remap = |to: &str| {
        let to = to.to_string();
        variant(
            "cheetah4LP",
            "cheetah4LP",
            &format!("defect{to}"),
            |t| t,
            move |t| {
                t.replacen(
                    "233375,\n               233375",
                    &format!("233375, {to}"),
                    1,
                )
            },
        )
    };
    let kept = import(&remap("233375")).expect("a block remapped to itself moves nothing");
    assert!(kept.params.zone_table[1].remaps.is_empty());
    let moved = import(&remap("233999")).expect("a block remapped to a spare imports");
    assert_eq!(moved.params.zone_table[1].remaps, [[233_375, 233_999]]);
    // Zone 2 has 1,104 cylinders of 8 tracks of 187 sectors: 1,651,584 sectors.
    let err = import(&remap("1651584")).unwrap_err();
    assert!(
        err.contains("cheetah4LP.model")
            && err.contains("remaps 233375 to 1651584")
            && err.contains("below 1651584"),
        "{err}"
    );
}

/// The Cheetah 4LP's description with `edit_model` applied to its model file.
fn cheetah(tag: &str, edit_model: impl Fn(String) -> String) -> Result<ImportedDrive, String> {
    import(&variant("cheetah4LP", "cheetah4LP", tag, |t| t, edit_model))
}

#[test]
fn the_mapping_schemes_disksim_implements_import_and_others_are_refused() {
    use crate::device::hdd::SurfaceOrder;
    for (scheme, order) in [
        ("0", SurfaceOrder::Ascending),
        ("1", SurfaceOrder::AlternateInZone),
        ("2", SurfaceOrder::Alternate),
    ] {
        let d = cheetah(&format!("map{scheme}"), |t| {
            set(t, "LBN-to-PBN mapping scheme", scheme)
        })
        .expect("imports");
        assert_eq!(d.params.surface_order, order);
    }
    // DiskSim 4.0 stops at an unknown scheme; so does the import, saying which it honours.
    let err = cheetah("map3", |t| set(t, "LBN-to-PBN mapping scheme", "3")).unwrap_err();
    assert!(
        err.contains("`LBN-to-PBN mapping scheme = 3`") && err.contains("only 0 or 1 or 2"),
        "{err}"
    );
    let err = cheetah("spare11", |t| set(t, "Sparing scheme used", "11")).unwrap_err();
    assert!(err.contains("`Sparing scheme used = 11`"), "{err}");
}

#[test]
fn spares_at_the_front_of_each_cylinder_import_with_their_scheme() {
    // 9 spares a cylinder in every zone, where the Cheetah keeps 108 a range of 12.
    for (scheme, sparing) in [
        ("5", Sparing::SectorsPerCylinderAtFront),
        ("6", Sparing::SectorsPerCylinderAtFront),
        ("2", Sparing::SectorsPerCylinder),
    ] {
        let d = cheetah(&format!("front{scheme}"), |t| {
            set(t, "Sparing scheme used", scheme)
                .replace("Number of spares = 108", "Number of spares = 9")
        })
        .expect("imports");
        assert_eq!(d.params.sparing, sparing, "{:?}", d.notes);
    }
}

#[test]
fn a_description_with_a_layout_refused_before_replays_its_trace() {
    // The Cheetah 4LP with its surfaces alternating (scheme 2), spares at the front of each
    // cylinder (scheme 5, 9 a cylinder) and block 1,000 kept in the spare 1,560 (cylinder 1's
    // first sector): each was refused. Its whole trace replays; a read of blocks 999 to
    // 1,001 leaves the track for the spare and comes back, two one-cylinder seeks (at least
    // 2 x 0.636 ms) more than the same read with the block in place, and less than two
    // seeks and two revolutions (6 ms at 10,033 rpm) more.
    let edit = |remap: &'static str| {
        move |t: String| {
            set(t, "LBN-to-PBN mapping scheme", "2")
                .replace("Sparing scheme used = 8", "Sparing scheme used = 5")
                .replace("Number of spares = 108", "Number of spares = 9")
                .replacen("defects = []", remap, 1)
        }
    };
    let plain = cheetah("layout0", edit("defects = []")).expect("imports");
    let moved = cheetah("layout1", edit("defects = [1009, 1560]")).expect("imports");
    assert_eq!(moved.params.zone_table[0].remaps, [[1009, 1560]]);
    let trace = super::super::read_trace(&drives().join("cheetah4LP.trace")).expect("trace");
    let r = replay(&moved.params, &trace).expect("replays");
    assert_eq!(r.service_ms.len(), trace.len());
    // Block 1,000 lies at sector 9 + 1,000 = 1,009 of the zone (track 5, sector 34).
    let one = parse_trace("R x 999 3 0 0\n").expect("parses");
    let (a, b) = (
        replay(&plain.params, &one).expect("replays").service_ms[0],
        replay(&moved.params, &one).expect("replays").service_ms[0],
    );
    let seek = crate::device::hdd::seek_table_ms(&moved.params.seek_curve)(1.0);
    let rev = 60_000.0 / f64::from(moved.params.rpm);
    assert!(seek >= 0.636 && b - a >= 2.0 * seek - 0.001, "{a} {b}");
    assert!(b - a < 2.0 * (seek + rev), "{a} {b}");
}

#[test]
fn overheads_are_scaled_and_the_per_request_overhead_comes_before_each_command() {
    // A read of blocks still in the buffer pays its hit overhead, the data preparation,
    // the transfer and the completion: on the Barracuda 0.082 ms after a read, 0.134 ms a
    // sector, nothing else. With every overhead doubled and 0.1 ms more on each command,
    // the hit overhead becomes (0.082 + 0.1) * 2 = 0.364 ms: 0.282 ms more.
    let trace = parse_trace("R x 1000 8 0 30\nR x 1000 8 0 0\n").expect("parses");
    let base = barracuda("scale0", &[]).expect("imports").params;
    let scaled = barracuda(
        "scale1",
        &[
            ("Time scale for overheads", "2.0"),
            ("Per-request overhead time", "0.1"),
        ],
    )
    .expect("imports")
    .params;
    let (a, b) = (
        replay(&base, &trace).expect("replays"),
        replay(&scaled, &trace).expect("replays"),
    );
    assert_eq!((a.read_hits, b.read_hits), (1, 1));
    assert!(
        (a.service_ms[1] - (0.082 + 8.0 * 0.134)).abs() < 1e-5,
        "{a:?}"
    );
    assert!(
        (b.service_ms[1] - a.service_ms[1] - 0.282).abs() < 1e-5,
        "{a:?} {b:?}"
    );
}

#[test]
fn a_drive_that_never_disconnects_pays_no_reselect_and_keeps_no_water_mark() {
    let specs = variant(
        "hp_c2247a",
        "hp_c2247a",
        "never",
        |t| {
            set(
                set(t, "Never disconnect", "1"),
                "Extra write disconnect",
                "1",
            )
        },
        |t| t,
    );
    let p = import(&specs).expect("imports").params;
    let o = p.command_overheads_ms.as_deref().expect("overheads");
    assert_eq!(
        (o.reselect, o.read_disconnect_after_read, o.write_disconnect),
        (0.0, 0.0, 0.0)
    );
    assert_eq!(o.data_prep, 0.02519);
    assert_eq!(p.read_watermark, 0.0);
    assert_eq!(p.extra_write_disconnect_ms, None);
}

#[test]
fn skews_in_revolutions_are_a_share_of_the_track() {
    // Zone 1 of the Atlas III: 256 blocks a track; a quarter revolution is 64 sectors. Every
    // zone's skews are given in revolutions (a zone left in sectors would read 75 as 75
    // revolutions, beyond what a model allows).
    let specs = variant(
        "atlas_III",
        "atlas_III",
        "revs",
        |t| t,
        |t| {
            let t = t.replacen(
                "LBN-to-PBN mapping scheme = 0,",
                "LBN-to-PBN mapping scheme = 0,\n      Skew units = revolutions,",
                1,
            );
            t.lines()
                .map(|line| match line.split_once(" = ") {
                    Some((key, value)) if key.trim() == "Skew for track switch" => {
                        format!(
                            "{key} = 0.25{}",
                            if value.ends_with(',') { "," } else { "" }
                        )
                    }
                    Some((key, value)) if key.trim() == "Skew for cylinder switch" => {
                        format!("{key} = 0.5{}", if value.ends_with(',') { "," } else { "" })
                    }
                    _ => line.to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n")
        },
    );
    let z = &import(&specs).expect("imports").params.zone_table[0];
    assert_eq!(
        (z.track_skew_sectors, z.cylinder_skew_sectors),
        (64.0, 128.0)
    );
}

#[test]
fn the_three_point_seek_forms_follow_their_equations() {
    // The C2247: 2,051 cylinders. Its single-cylinder, average and full-strobe times read
    // 0.2, 1.1 and 2.3 ms; set them to 2, 10 and 20 ms.
    let seek = |form: &str| {
        let form = form.to_string();
        let specs = variant(
            "hp_c2247a",
            "hp_c2247a",
            &format!("seek-{form}"),
            |t| t,
            move |t| {
                t.replacen("Seek type = hplplus10", &format!("Seek type = {form}"), 1)
                    .replacen(
                        "Single cylinder seek time = 0.200000",
                        "Single cylinder seek time = 2",
                        1,
                    )
                    .replacen(
                        "Average seek time = 1.100000",
                        "Average seek time = 10,\n      Constant seek time = 7",
                        1,
                    )
                    .replacen(
                        "Full strobe seek time = 2.300000",
                        "Full strobe seek time = 20",
                        1,
                    )
            },
        );
        import(&specs).expect("imports").params.seek_curve
    };
    let at = |c: &[[f64; 2]], d: f64| c.iter().find(|p| p[0] == d).map(|p| p[1]);
    let n = 2051.0f64;
    let constant = seek("constant");
    assert!(constant.iter().all(|p| p[1] == 7.0));
    let linear = seek("linear");
    assert_eq!(at(&linear, 1.0), Some(2.0));
    assert!((at(&linear, 1.0 + n / 3.0).expect("the knee") - 10.0).abs() < 1e-9);
    assert!((at(&linear, n - 1.0).expect("the longest") - 20.0).abs() < 1e-9);
    let curve = seek("curve");
    let (a, b) = (
        (-10.0 * 2.0 + 15.0 * 10.0 - 5.0 * 20.0) / (3.0 * n.sqrt()),
        (7.0 * 2.0 - 15.0 * 10.0 + 8.0 * 20.0) / (3.0 * n),
    );
    let d = curve[curve.len() / 2][0];
    let want = 2.0 + a * (d - 1.0).sqrt() + b * (d - 1.0);
    assert!((at(&curve, d).expect("sampled") - want).abs() < 1e-9);
    assert_eq!(at(&curve, 1.0), Some(2.0));
}

#[test]
fn the_controllers_sector_time_counts_when_it_is_the_slowest() {
    // DiskSim moves a sector at the slowest of the drive, the bus and the controller: the
    // C2247's bus reads a sector in 0.1701 ms; a controller taking 0.3 ms sets the rate.
    let dir = variant("hp_c2247a", "hp_c2247a", "ctlr", |t| t, |t| t);
    let parv = dir.with_extension("parv");
    let text = std::fs::read_to_string(&parv).expect("parv");
    let slow = text.replacen(
        "Scale for delays = 0.0,\nBulk sector transfer time = 0.0,",
        "Scale for delays = 0.0,\nBulk sector transfer time = 0.3,",
        1,
    );
    assert_ne!(slow, text);
    std::fs::write(&parv, slow).expect("write");
    let p = import(&dir).expect("imports").params;
    assert!(
        (p.interface_mbps - 0.512 / 0.3).abs() < 1e-9,
        "{}",
        p.interface_mbps
    );
}

#[test]
fn a_hit_on_an_older_segment_reads_ahead_from_its_end_on_a_drive_that_does_so() {
    // The C2247 (two segments, read-ahead 128 blocks past a read) reads ahead after a read
    // served whole from its buffer (`Read-ahead on idle hit = 1`). A read at 100,000 fills
    // its segment to 100,136; a far read moves read-ahead elsewhere; a read of 100,120-127
    // is served from the older segment and starts read-ahead to 100,256, so after a pause
    // a read at 100,200 is a hit: its hit overhead, data preparation, eight sectors over
    // the bus and the completion, 0.95343 + 0.02519 + 8 * 0.1701 + 0.05665 ms (50 ms
    // between reads).
    let trace = parse_trace(
        "R x 100000 8 0 50000\nR x 1500000 8 0 50000\nR x 100120 8 0 50000\nR x 100200 8 0 0\n",
    )
    .expect("parses");
    let on = import(&drives().join("hp_c2247a.diskspecs"))
        .expect("imports")
        .params;
    assert!(on.readahead_after_hit);
    let off = crate::device::hdd::HddParams {
        readahead_after_hit: false,
        ..on.clone()
    };
    let (a, b) = (
        replay(&on, &trace).expect("replays"),
        replay(&off, &trace).expect("replays"),
    );
    let hit = 0.95343 + 0.02519 + 8.0 * 0.1701 + 0.05665;
    assert_eq!(a.read_hits, 2, "{a:?}");
    assert!((a.service_ms[3] - hit).abs() < 1e-4, "{a:?}");
    // Without it the last read goes to the media.
    assert_eq!(b.read_hits, 1, "{b:?}");
    assert!(b.service_ms[3] > hit + 0.5, "{b:?}");
}

#[test]
fn slips_and_remapped_tracks_beyond_the_spare_tracks_are_refused_as_disksim_does() {
    // The HP C2247 spares whole tracks; its third zone has 65 spare tracks and 4 slips.
    // With 3 spare tracks, the 4 slipped tracks outnumber them: DiskSim stops there.
    let c2247 = |tag: &str, edit: &'static dyn Fn(String) -> String| {
        import(&variant(
            "hp_c2247a",
            "hp_c2247a_validate",
            tag,
            |t| t,
            edit,
        ))
    };
    c2247("spares65", &|t| t).expect("imports");
    let err = c2247("spares3", &|t| {
        t.replacen("Number of spares = 65", "Number of spares = 3", 1)
    })
    .unwrap_err();
    assert!(
        err.contains("zone 3 has 4 slipped and 0 remapped tracks but 3 spare tracks"),
        "{err}"
    );
    let err = c2247("negative", &|t| t.replacen("slips = [", "slips = [-1, ", 1)).unwrap_err();
    assert!(
        err.contains("`slips` in zone 1") && err.contains("`-1`"),
        "{err}"
    );
}

#[test]
fn spares_at_the_end_of_each_zone_start_the_next_zone_sooner() {
    // The Cheetah 4LP's first zone: 1,344 cylinders of 8 x 195 sectors (2,096,640), 108
    // spares and 5 slipped sectors. With its spares at the zone's end (scheme 9) it holds
    // 2,096,640 - 108 = 2,096,532 blocks, where the second zone starts; scheme 10 takes
    // the slips from the zone too: 2,096,527. The first zone's blocks stay in place.
    for (scheme, second) in [("9", 2_096_532), ("10", 2_096_527)] {
        let d = cheetah(&format!("zone{scheme}"), |t| {
            set(t, "Sparing scheme used", scheme)
        })
        .expect("imports");
        assert_eq!(d.params.sparing, Sparing::SectorsPerZone, "{:?}", d.notes);
        assert_eq!(d.params.zone_table[0].slips.len(), 5);
        let hdd = crate::device::hdd::Hdd::new(&d.params, 0).expect("builds");
        let (last, next) = (hdd.locate(second - 1), hdd.locate(second));
        assert_eq!((next.cyl, next.head, next.sector), (1345, 0, 0));
        assert!(last.cyl <= 1343, "{last:?}");
    }
}

mod cache;
mod reads;
mod writes;
