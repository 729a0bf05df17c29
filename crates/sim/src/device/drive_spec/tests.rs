use std::path::{Path, PathBuf};

use super::*;
use crate::device::hdd::{Hdd, HddParams, Sparing};

fn drives() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../references/drives")
}

#[test]
fn the_syntax_reads_blocks_lists_comments_and_keys_with_punctuation() {
    let text = "# a drive\ndisksim_disk D1 {\n  Read hit over. after read = 0.374, # overhead\n  \
                Model = source d.model,\n  Inner = dm_thing {\n    Zones = [ z { A = 1 }, z { A = 2 } ],\n    \
                slips = [ 3, 4 ],\n    defects = []\n  },\n  Add. write settling delay = -0.483, \n}\n";
    let blocks = parse(text).expect("parses");
    assert_eq!(blocks.len(), 1);
    let d = &blocks[0];
    assert_eq!(d.header, "disksim_disk D1");
    assert_eq!(d.num("Read hit over. after read"), Some(0.374));
    assert_eq!(d.word("Model"), Some("source d.model"));
    assert_eq!(d.num("Add. write settling delay"), Some(-0.483));
    let inner = d.block("Inner").expect("nested block");
    assert_eq!(inner.header, "dm_thing");
    let zones = inner.list("Zones").expect("list");
    assert_eq!(zones.len(), 2);
    let Value::Block(z) = &zones[1] else {
        panic!("zone is a block")
    };
    assert_eq!(z.num("A"), Some(2.0));
    assert_eq!(inner.list("slips").map(<[Value]>::len), Some(2));
    assert_eq!(inner.list("defects").map(<[Value]>::len), Some(0));
}

#[test]
fn the_syntax_names_the_line_of_an_error() {
    let err = parse("disksim_disk D {\n A = 1,\n B 2\n}\n").unwrap_err();
    assert!(err.contains("line 3") && err.contains('='), "{err}");
    let err = parse("disksim_disk D {\n A = [1, 2\n").unwrap_err();
    assert!(err.contains("not closed"), "{err}");
}

#[test]
fn an_extracted_drive_imports_its_zones_seeks_overheads_and_cache() {
    let d = import(&drives().join("atlas_III.diskspecs")).expect("imports");
    let p = &d.params;
    assert_eq!(d.disksim_name, "QUANTUM_QM39100TD-SW");
    assert_eq!((p.rpm, p.heads, p.zones), (7200, 10, 9));
    assert_eq!(p.zone_table.len(), 9);
    let z0 = &p.zone_table[0];
    assert_eq!(
        (z0.first_cylinder, z0.last_cylinder, z0.sectors_per_track),
        (0, 615, 256)
    );
    assert_eq!(
        (z0.track_skew_sectors, z0.cylinder_skew_sectors),
        (75.0, 86.0)
    );
    assert_eq!(z0.reserved_front_sectors, 128_000);
    assert_eq!(z0.slips, vec![272_037, 1_464_716, 1_467_276, 1_508_869]);
    assert_eq!(p.seek_curve.len(), 117);
    assert_eq!(p.seek_curve[0], [1.0, 1.663]);
    assert_eq!(p.head_switch_ms, 0.999);
    let o = p.command_overheads_ms.as_deref().expect("overheads");
    assert_eq!(
        (o.read_hit_after_read, o.write_miss_after_write),
        (0.374, 0.5002)
    );
    assert_eq!((p.cache_segments, p.readahead_kib), (6, 32));
    assert!(p.write_cache && p.cache_keeps_read_data);
    assert_eq!(p.cache_segment_kib, 32.0);
    assert!((p.interface_mbps - 0.512 / 0.106).abs() < 1e-9);
    let hdd = Hdd::new(p, 0).expect("builds");
    assert_eq!(hdd.capacity_sectors(), 17_783_250);
    assert_eq!(hdd.cylinders(), 8057);
    // The measured curve, interpolated: 12 cylinders measured 2.346 ms, 14 2.423 ms.
    assert_eq!(hdd.seek_ns(12), 2_346_000);
    assert_eq!(hdd.seek_ns(13), 2_384_500);
}

#[test]
fn an_hpl_drive_imports_its_equation_its_spare_tracks_and_its_bus() {
    let d = import(&drives().join("hp_c2247a.diskspecs")).expect("imports");
    let p = &d.params;
    assert_eq!(p.sparing, Sparing::Tracks);
    assert_eq!(p.seek_curve[..2], [[1.0, 2.89], [2.0, 3.68]]);
    // Beyond the first ten: 3.81 + 0.33 sqrt(d) below 300 cylinders, 7.75 + 0.0059 d above.
    let at = |d: f64| p.seek_curve.iter().find(|q| q[0] == d).map(|q| q[1]);
    assert!((at(25.0).expect("sampled") - (3.81 + 0.33 * 5.0)).abs() < 1e-9);
    assert!((at(2050.0).expect("last") - (7.75 + 0.0059 * 2050.0)).abs() < 1e-9);
    // The bus's read and write block times (NAME.parv), each at its own rate.
    assert!((p.interface_mbps - 0.512 / 0.1701).abs() < 1e-9);
    assert!((p.interface_write_mbps - 0.512 / 0.18686).abs() < 1e-9);
    // Zones turned by their first block's offset (sectors).
    let offsets: Vec<f64> = p
        .zone_table
        .iter()
        .map(|z| z.first_block_offset_sectors)
        .collect();
    assert_eq!(offsets, [0.0, 14.0, 73.0, 80.0, 52.0, 0.0, 32.0, 30.0]);
    assert!(!p.write_cache);
    let hdd = Hdd::new(p, 0).expect("builds");
    assert_eq!(hdd.capacity_sectors(), 2_054_864);
}

#[test]
fn a_disconnecting_drive_keeps_its_bus_overheads_apart_from_its_command_overheads() {
    // The HP C2247 disconnects while it positions: its reselect, data preparation and
    // disconnect overheads are paid where the bus protocol puts them, not added to the
    // command overheads that delay the head.
    let p = import(&drives().join("hp_c2247a.diskspecs"))
        .expect("imports")
        .params;
    let o = p.command_overheads_ms.as_deref().expect("overheads");
    assert_eq!(
        (o.read_miss_after_read, o.write_miss_after_write),
        (0.55821, 0.82391)
    );
    assert_eq!((o.data_prep, o.reselect), (0.02519, 0.16249));
    assert_eq!(
        (
            o.read_disconnect_after_read,
            o.read_disconnect_after_write,
            o.write_disconnect
        ),
        (0.02266, 0.04551, 0.16565)
    );
    let x = p
        .extra_write_disconnect_ms
        .expect("an extra write disconnect");
    assert_eq!(
        (x.command, x.disconnect, x.inter_disconnect),
        (0.64244, 0.04551, 0.42885)
    );
    assert_eq!(
        (x.second_disconnect, x.seek_delta, x.reselect),
        (0.13437, 0.25, 0.12883)
    );
    // A drive without one imports none.
    let q = import(&drives().join("hp_c2490a.diskspecs"))
        .expect("imports")
        .params;
    assert_eq!(q.extra_write_disconnect_ms, None);
}

#[test]
fn a_slipped_sector_moves_the_blocks_after_it() {
    let mut p = import(&drives().join("dec_rz26.diskspecs"))
        .expect("imports")
        .params;
    let plain = Hdd::new(&p, 0).expect("builds");
    p.zone_table[0].slips = vec![23_142 + 100];
    let slipped = Hdd::new(&p, 0).expect("builds");
    // Block 99 keeps its place; block 100 takes the next sector (57 data sectors a track).
    assert_eq!(plain.locate(99), slipped.locate(99));
    assert_eq!(plain.locate(101), slipped.locate(100));
}

#[test]
fn spares_at_each_range_end_move_the_next_block_to_the_next_range() {
    // Cheetah 4LP, zone 0: 195 sectors a track, 8 surfaces (1560 a cylinder), 108 spares
    // at the end of every 12 cylinders: a range holds 12 * 1560 - 108 = 18_612 blocks.
    let mut p = import(&drives().join("cheetah4LP.diskspecs"))
        .expect("imports")
        .params;
    assert_eq!(
        (p.sparing, p.spare_range_cylinders),
        (Sparing::SectorsPerRange, 12)
    );
    p.zone_table[0].slips = vec![100, 18_720 + 5];
    let disk = Hdd::new(&p, 0).expect("builds");
    let at = |lba: u64| {
        let pos = disk.locate(lba);
        (pos.cyl, pos.head, pos.sector)
    };
    // The last block of range 0 is pushed one sector on by its range's slip at 100 ...
    assert_eq!(at(18_611), (11, 7, 87));
    // ... and the next block starts range 1 on cylinder 12, past the spares, unmoved.
    assert_eq!(at(18_612), (12, 0, 0));
    // Range 1's own slip (its sector 5) moves only the blocks after it.
    assert_eq!(at(18_612 + 4), (12, 0, 4));
    assert_eq!(at(18_612 + 5), (12, 0, 6));
    // The zone's 1344 cylinders hold 112 ranges: it loses 112 * 108 blocks, so the next
    // zone (from cylinder 1345) starts at 1344 * 1560 - 12_096.
    let zone1 = 1344 * 1560 - 112 * 108;
    assert_eq!(at(zone1).0, 1345);
    assert_eq!(at(zone1 - 1).0, 1343);
}

#[test]
fn the_toml_written_is_a_disk_model_that_builds() {
    let path = drives().join("barracuda.diskspecs");
    let d = import(&path).expect("imports");
    let text = to_toml("barracuda", &d, &path).expect("toml");
    let t: toml::Table = toml::from_str(&text).expect("valid TOML");
    let model: crate::device::DiskModel = t["disk_models"]["barracuda"]
        .clone()
        .try_into()
        .expect("a disk model");
    assert_eq!(model, crate::device::DiskModel::Hdd(d.params));
}

#[test]
fn a_missing_model_file_is_named() {
    let dir = crate::test_dir::TestDir::new("drive-spec");
    let specs = dir.path().join("x.diskspecs");
    std::fs::write(
        &specs,
        "disksim_disk X {\n Model = source nothere.model,\n}\n",
    )
    .expect("write");
    let err = import(&specs).unwrap_err();
    assert!(
        err.contains("nothere.model") && err.contains("cannot read"),
        "{err}"
    );
}

#[test]
fn the_demerit_is_the_rms_distance_between_the_quantiles() {
    let a = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(demerit(&a, &a), 0.0);
    let shifted: Vec<f64> = a.iter().map(|v| v + 0.5).collect();
    assert!((demerit(&a, &shifted) - 0.5).abs() < 1e-12);
    // {0, 10} against {0, 0}: 0 up to the median, then 10 (2q - 1); the mean square over
    // (0.5, 1] is 0.5 * 100 / 3.
    let d = demerit(&[0.0, 10.0], &[0.0, 0.0]);
    assert!((d - (50.0f64 / 3.0).sqrt()).abs() < 0.01, "{d}");
    // Order does not matter, only the distributions.
    assert_eq!(demerit(&[3.0, 1.0, 2.0], &[2.0, 3.0, 1.0]), 0.0);
    assert_eq!(demerit(&[], &a), 0.0);
}

#[test]
fn a_trace_line_is_read_and_a_bad_one_named() {
    let t = parse_trace("R Hit 564347 2 14095.370 13876.270\nW Doub 10 15 17221 21894.38\n")
        .expect("parses");
    assert_eq!(t.len(), 2);
    assert!(!t[0].write && t[1].write);
    assert_eq!((t[0].lba, t[0].sectors), (564_347, 2));
    assert!((t[0].service_ms - 14.09537).abs() < 1e-9 && (t[0].next_ms - 13.87627).abs() < 1e-9);
    let err = parse_trace("R Hit 1 2 3 4\nX Hit 1 2 3 4\n").unwrap_err();
    assert!(err.contains("line 2") && err.contains("OP"), "{err}");
    let err = parse_trace("R Hit 1 0 3 4\n").unwrap_err();
    assert!(err.contains("SECTORS"), "{err}");
}

#[test]
fn a_replay_issues_each_request_after_the_previous_one_and_its_idle_time() {
    let p = import(&drives().join("cheetah4LP.diskspecs"))
        .expect("imports")
        .params;
    // Reading the same blocks again at once hits the buffer; a far block does not.
    let trace =
        parse_trace("R x 1000 8 0 1000\nR x 1008 8 0 50000\nR x 5000000 8 0 0\n").expect("parses");
    let r = replay(&p, &trace).expect("replays");
    assert_eq!(r.service_ms.len(), 3);
    assert!(r.service_ms[1] < 1.5, "{:?}", r.service_ms);
    assert!(r.service_ms[2] > 3.0, "{:?}", r.service_ms);
    assert_eq!(r.read_hits, 1);
    let past = parse_trace("R x 8887200 8 0 0\n").expect("parses");
    assert!(replay(&p, &past).unwrap_err().contains("past the drive"));
}

#[test]
fn read_ahead_to_the_track_end_misses_a_read_that_runs_past_it() {
    use crate::device::hdd::ReadaheadLimit;
    let p = import(&drives().join("dec_rz26.diskspecs"))
        .expect("imports")
        .params;
    assert_eq!(p.readahead_limit, ReadaheadLimit::Track);
    // 57 data sectors a track after 23,142 reserved ones (406 tracks): block 57 starts one.
    let first = 57;
    let trace = |second: u64| {
        parse_trace(&format!("R x {first} 40 0 30000\nR x {second} 40 0 0\n")).expect("parses")
    };
    let track = replay(&p, &trace(first + 40)).expect("replays");
    let segment = replay(
        &HddParams {
            readahead_limit: ReadaheadLimit::Segment,
            ..p.clone()
        },
        &trace(first + 40),
    )
    .expect("replays");
    // Past the track end the rest comes from the media; read-ahead over the segment has it.
    assert_eq!((track.read_hits, segment.read_hits), (0, 1));
    assert!(track.service_ms[1] > segment.service_ms[1] + 1.0);
    // Within the track both hit.
    let within = replay(
        &p,
        &trace(first + 40)
            .iter()
            .map(|r| TraceRequest { sectors: 10, ..*r })
            .collect::<Vec<_>>(),
    )
    .expect("replays");
    assert_eq!(within.read_hits, 1);
}

#[test]
fn a_read_water_mark_holds_the_interface_until_that_share_is_buffered() {
    let p = import(&drives().join("hp_c2247a.diskspecs"))
        .expect("imports")
        .params;
    assert_eq!(p.read_watermark, 0.75);
    let trace = parse_trace("R x 500000 64 0 0\n").expect("parses");
    let held = replay(&p, &trace).expect("replays").service_ms[0];
    let at_once = replay(
        &HddParams {
            read_watermark: 0.0,
            ..p.clone()
        },
        &trace,
    )
    .expect("replays")
    .service_ms[0];
    // 48 of 64 sectors (96 a track at 5,400 rpm: 0.116 ms each) come in before sending.
    assert!(held > at_once + 4.0, "{held} {at_once}");
}

#[test]
fn the_quantiles_of_a_cdf_picture_are_the_sorted_values() {
    assert_eq!(
        quantiles(&[3.0, 1.0, 2.0, 4.0], 4),
        vec![1.0, 2.0, 3.0, 4.0]
    );
    // Halfway between the points of the empirical distribution: (x_k, k/n).
    assert_eq!(quantiles(&[2.0, 1.0], 4), vec![1.0, 1.0, 1.5, 2.0]);
    assert!(quantiles(&[], 10).is_empty());
    assert!(quantiles(&[1.0], 0).is_empty());
}

#[test]
fn the_datasheet_form_keeps_the_summary_and_drops_the_measured_tables() {
    let p = import(&drives().join("atlas_III.diskspecs"))
        .expect("imports")
        .params;
    let d = datasheet_form(&p);
    assert_eq!((d.rpm, d.heads, d.zones), (p.rpm, p.heads, p.zones));
    assert_eq!(
        (
            d.seek_track_to_track_ms,
            d.seek_avg_ms,
            d.seek_full_stroke_ms
        ),
        (
            p.seek_track_to_track_ms,
            p.seek_avg_ms,
            p.seek_full_stroke_ms
        )
    );
    assert!(d.seek_curve.is_empty() && d.zone_table.is_empty());
    assert!(d.command_overheads_ms.is_none() && d.cache_segments == 0);
    // Both forms build a drive of the same size, and serve the same trace differently: the
    // summary's seek curve is not the measured one.
    let (a, b) = (
        Hdd::new(&p, 0).expect("builds"),
        Hdd::new(&d, 0).expect("builds"),
    );
    assert!(a.capacity_sectors().abs_diff(b.capacity_sectors()) < a.capacity_sectors() / 100);
    assert_ne!(a.seek_ns(12), b.seek_ns(12));
}

#[test]
fn the_head_is_where_read_ahead_left_it() {
    let p = import(&drives().join("barracuda.diskspecs"))
        .expect("imports")
        .params;
    let mut disk = Hdd::new(&p, 0).expect("builds");
    // The first block of a track: read-ahead of 281 blocks after a read just before it
    // (186 a track) reads on past it.
    let start = 1_000_000;
    let track = |lba: u64| (disk.locate(lba).cyl, disk.locate(lba).head);
    let boundary = (start..start + 400)
        .find(|&b| track(b) != track(start))
        .expect("a track boundary");
    let run = |disk: &mut Hdd, now_ns: u64, lba: u64| {
        disk.enqueue(now_ns, 0, lba, 4, false);
        let (_, access) = disk.start_next(now_ns).expect("starts");
        disk.finish(now_ns + access.total_ns());
        access
    };
    run(&mut disk, 0, boundary - 20);
    // 50 ms later read-ahead is done; a block behind the first read, on its track, is not
    // buffered and the head must come back to that track.
    let back = run(&mut disk, 50_000_000, boundary - 40);
    assert!(back.seek_ns > 0, "{back:?}");
}

#[test]
fn a_stream_is_read_ahead_and_an_isolated_read_is_not() {
    use crate::device::hdd::ReadaheadLimit;
    let p = import(&drives().join("atlas_III.diskspecs"))
        .expect("imports")
        .params;
    assert_eq!(p.readahead_limit, ReadaheadLimit::TrackOrStream);
    let first = 5_000_000;
    // Each read 1 ms after the last: read-ahead brings in some 30 blocks meanwhile, fewer
    // than the 64 of its segment (later, reading on to the end of the next track, it
    // would have overwritten them).
    let trace = parse_trace(&format!(
        "R x {first} 4 0 1000\nR x {} 4 0 1000\nR x {} 4 0 1000\n",
        first + 4,
        first + 8
    ))
    .expect("parses");
    let r = replay(&p, &trace).expect("replays");
    // The read after an isolated one finds nothing read ahead; the third read continues a
    // stream of two and finds its blocks buffered.
    assert_eq!(r.read_hits, 1, "{:?}", r.service_ms);
    assert!(
        r.service_ms[2] < 1.0 && r.service_ms[1] > 1.0,
        "{:?}",
        r.service_ms
    );
}

#[test]
fn a_read_further_along_the_track_does_not_start_a_stream() {
    let p = import(&drives().join("atlas_III.diskspecs"))
        .expect("imports")
        .params;
    let first = 5_000_000;
    // The second read skips four blocks: two isolated reads, not a stream. The third
    // continues the second (a stream of two from then on), so only the fourth is buffered.
    let trace = parse_trace(&format!(
        "R x {first} 4 0 1000\nR x {} 4 0 1000\nR x {} 4 0 1000\nR x {} 4 0 1000\n",
        first + 8,
        first + 12,
        first + 16
    ))
    .expect("parses");
    let r = replay(&p, &trace).expect("replays");
    assert_eq!(r.read_hits, 1, "{:?}", r.service_ms);
    assert!(
        r.service_ms[2] > 1.0 && r.service_ms[3] < 1.0,
        "{:?}",
        r.service_ms
    );
}

#[test]
fn a_write_on_the_heads_track_still_positions_for_the_minimum_seek_delay() {
    let p = import(&drives().join("hp_c2247a.diskspecs"))
        .expect("imports")
        .params;
    assert_eq!(p.write_seek_min_ms, 0.6);
    let mut disk = Hdd::new(&p, 0).expect("builds");
    // A read leaves the head on the track; a write issued as it ends, just past it, needs
    // no seek, yet the drive takes its minimum seek delay before writing.
    disk.enqueue(0, 0, 1_000_000, 1, false);
    let (_, read) = disk.start_next(0).expect("starts");
    disk.finish(read.total_ns());
    let now_ns = read.total_ns();
    disk.enqueue(now_ns, 1, 1_000_002, 1, true);
    let (_, write) = disk.start_next(now_ns).expect("starts");
    assert_eq!(write.seek_ns, 600_000, "{write:?}");
}
