use super::*;
use crate::device::models::builtin_model;
use crate::device::DiskModel;
use crate::rng::Rng;

fn params(name: &str) -> HddParams {
    match builtin_model(name) {
        Some(DiskModel::Hdd(p)) => p,
        _ => panic!("{name} is not a built-in HDD"),
    }
}

/// Drives the disk directly: keeps `depth` commands queued, each a `sectors` read at an
/// address from `next`; returns completed commands per second over `n` commands.
fn closed_loop(
    disk: &mut Hdd,
    depth: usize,
    n: u64,
    mut next: impl FnMut() -> u64,
    sectors: u32,
) -> f64 {
    let mut now = 0u64;
    let mut op = 0u32;
    for _ in 0..depth {
        disk.enqueue(now, op, next(), sectors, false);
        op += 1;
    }
    for _ in 0..n {
        let (_, access) = disk.start_next(now).expect("work queued");
        now += access.total_ns();
        disk.finish(now);
        disk.enqueue(now, op, next(), sectors, false);
        op += 1;
    }
    n as f64 / (now as f64 / 1e9)
}

fn random_in(rng: &mut Rng, lo: u64, hi: u64, align: u64) -> u64 {
    lo + rng.below((hi - lo) / align) * align
}

#[test]
fn seek_curve_meets_the_data_sheet_points() {
    let p = params("hdd-10k");
    let d = Hdd::new(&p, 0).unwrap();
    let full = d.cylinders() - 1;
    let ms = |ns: u64| ns as f64 / 1e6;
    assert!((ms(d.seek_ns(1)) - p.seek_track_to_track_ms).abs() < 0.01);
    assert!((ms(d.seek_ns(full)) - p.seek_full_stroke_ms).abs() < 0.01);
    assert_eq!(d.seek_ns(0), 0);
    // Mean over uniformly random start and end cylinders equals the average seek.
    let mut rng = Rng::from_seed(11);
    let n = 200_000;
    let total: u64 = (0..n)
        .map(|_| {
            let a = rng.below(full as u64 + 1) as u32;
            let b = rng.below(full as u64 + 1) as u32;
            d.seek_ns(a.abs_diff(b))
        })
        .sum();
    let mean = ms(total / n);
    assert!(
        (mean - p.seek_avg_ms).abs() / p.seek_avg_ms < 0.01,
        "mean seek {mean}"
    );
    // Monotonic.
    let mut last = 0;
    for dist in (0..=full).step_by(97) {
        let t = d.seek_ns(dist);
        assert!(t >= last);
        last = t;
    }
}

#[test]
fn random_reads_at_depth_one_match_the_analytic_service_time() {
    for name in ["hdd-10k", "hdd-15k", "hdd-7k2"] {
        let p = params(name);
        let mut d = Hdd::new(&p, 12345).unwrap();
        let cap = d.capacity_sectors();
        let mut rng = Rng::from_seed(5);
        let iops = closed_loop(
            &mut d,
            1,
            20_000,
            || random_in(&mut rng, 0, cap - 16, 16),
            16,
        );
        let rev_ms = 60_000.0 / p.rpm as f64;
        let mean_rate = (p.media_rate_outer_mbps + p.media_rate_inner_mbps) / 2.0;
        let transfer_ms = 8192.0 / (mean_rate * 1e3);
        let analytic =
            1000.0 / (p.seek_avg_ms + rev_ms / 2.0 + transfer_ms + p.command_overhead_ms);
        let err = (iops - analytic).abs() / analytic;
        assert!(
            err < 0.05,
            "{name}: {iops:.1} IOPS vs analytic {analytic:.1} ({:.1}%)",
            err * 100.0
        );
    }
}

#[test]
fn reordering_raises_iops_at_depth_32() {
    let base = params("hdd-10k");
    let mut results = Vec::new();
    for sched in [
        Scheduler::Fifo,
        Scheduler::Elevator,
        Scheduler::Sstf,
        Scheduler::Sptf,
    ] {
        let p = HddParams {
            scheduler: sched,
            ..base.clone()
        };
        let mut d = Hdd::new(&p, 7).unwrap();
        let cap = d.capacity_sectors();
        let mut rng = Rng::from_seed(9);
        results.push(closed_loop(
            &mut d,
            32,
            20_000,
            || random_in(&mut rng, 0, cap - 16, 16),
            16,
        ));
    }
    let (fifo, elevator, sstf, sptf) = (results[0], results[1], results[2], results[3]);
    assert!(elevator > 1.3 * fifo, "elevator {elevator} fifo {fifo}");
    assert!(sstf > 1.3 * fifo, "sstf {sstf} fifo {fifo}");
    assert!(sptf > sstf, "sptf {sptf} sstf {sstf}");
    assert!(sptf > 2.0 * fifo, "sptf {sptf} fifo {fifo}");
    let mut d1 = Hdd::new(&base, 7).unwrap();
    let cap = d1.capacity_sectors();
    let mut rng = Rng::from_seed(9);
    let qd1 = closed_loop(
        &mut d1,
        1,
        20_000,
        || random_in(&mut rng, 0, cap - 16, 16),
        16,
    );
    assert!(sptf > 2.0 * qd1, "qd32 sptf {sptf} vs qd1 {qd1}");
}

/// Positioning time of `p` were it the only command queued at `now_ns`: 0 when read-ahead
/// holds its start, else its overhead, seek and rotational wait, as `access` times it (the
/// wait checked against remainders).
#[test]
fn short_stroke_and_sequential_are_faster_than_full_random() {
    let p = params("hdd-10k");
    let cap = Hdd::new(&p, 0).unwrap().capacity_sectors();
    let mut rng = Rng::from_seed(3);
    let full = closed_loop(
        &mut Hdd::new(&p, 0).unwrap(),
        1,
        10_000,
        || random_in(&mut rng, 0, cap - 16, 16),
        16,
    );
    let short = closed_loop(
        &mut Hdd::new(&p, 0).unwrap(),
        1,
        10_000,
        || random_in(&mut rng, 0, cap / 20, 16),
        16,
    );
    let mut next = 0u64;
    let seq = closed_loop(
        &mut Hdd::new(&p, 0).unwrap(),
        1,
        10_000,
        || {
            next += 16;
            next
        },
        16,
    );
    assert!(short > 1.2 * full, "short-stroked {short} vs full {full}");
    assert!(seq > 10.0 * full, "sequential {seq} vs random {full}");
}

#[test]
fn sequential_reads_stream_near_the_zone_media_rate() {
    let p = params("hdd-10k");
    let mut d = Hdd::new(&p, 0).unwrap();
    let mut next = 0u64;
    let sectors = 128; // 64 KiB
    let iops = closed_loop(
        &mut d,
        1,
        4_000,
        || {
            next += 128;
            next
        },
        sectors,
    );
    let mbps = iops * 65536.0 / 1e6;
    let outer = d.media_rate_bps(0) / 1e6;
    assert!(
        mbps > 0.85 * outer && mbps <= outer * 1.01,
        "{mbps} MB/s vs media {outer} MB/s"
    );
    // Inner zones are slower.
    let inner_start = d.capacity_sectors() - 200_000;
    let mut d2 = Hdd::new(&p, 0).unwrap();
    let mut at = inner_start;
    let inner = closed_loop(
        &mut d2,
        1,
        1_000,
        || {
            at += 128;
            at.min(d2_cap(&p) - 128)
        },
        sectors,
    );
    assert!(
        inner * 65536.0 / 1e6 < 0.7 * mbps,
        "inner {} outer {mbps}",
        inner * 65536.0 / 1e6
    );
}

fn d2_cap(p: &HddParams) -> u64 {
    Hdd::new(p, 0).unwrap().capacity_sectors()
}

#[test]
fn queued_sequential_writes_do_not_lose_a_revolution_each() {
    let p = params("hdd-10k");
    let mut d = Hdd::new(&p, 0).unwrap();
    let mut now = 0u64;
    let mut lba = 0u64;
    for op in 0..4u32 {
        d.enqueue(now, op, lba, 128, true);
        lba += 128;
    }
    let mut total = 0u64;
    for op in 4..1000u32 {
        let (_, a) = d.start_next(now).unwrap();
        now += a.total_ns();
        total += 128;
        d.finish(now);
        d.enqueue(now, op, lba, 128, true);
        lba += 128;
    }
    let mbps = total as f64 * 512.0 / (now as f64 / 1e3);
    assert!(
        mbps > 0.8 * d.media_rate_bps(0) / 1e6,
        "queued sequential writes {mbps} MB/s"
    );
}

#[test]
fn locate_is_monotonic_in_cylinder_and_in_range() {
    let d = Hdd::new(&params("hdd-7k2"), 0).unwrap();
    let cap = d.capacity_sectors();
    let mut last = 0;
    for i in 0..10_000u64 {
        let lba = i * (cap / 10_000);
        let pos = d.locate(lba);
        assert!(pos.cyl >= last && pos.cyl < d.cylinders());
        assert!(u64::from(pos.sector) < pos.spt.get() && pos.head < 8);
        last = pos.cyl;
    }
}

#[test]
fn zone_index_finds_the_zone_a_search_finds() {
    let tiny = HddParams {
        capacity_gb: 0.05,
        zones: 256,
        ..params("hdd-10k")
    };
    let few = HddParams {
        zones: 1,
        ..params("hdd-15k")
    };
    for p in [params("hdd-7k2"), params("hdd-10k"), tiny, few] {
        let d = Hdd::new(&p, 0).unwrap();
        let search = |lba: u64| d.zones.list.partition_point(|z| z.first_lba <= lba) - 1;
        let mut rng = Rng::from_seed(3);
        let cap = d.capacity_sectors();
        let boundaries = d.zones.list.iter().flat_map(|z| {
            let f = z.first_lba;
            [f.saturating_sub(1), f, f + 1]
        });
        let random: Vec<u64> = (0..20_000).map(|_| rng.below(cap + 1000)).collect();
        for lba in boundaries
            .chain(random)
            .chain([0, cap - 1, cap, u64::MAX / 2])
        {
            assert_eq!(
                d.zones.index.zone_of(&d.zones.list, lba),
                search(lba),
                "lba {lba}"
            );
        }
    }
}

/// Zones far smaller than the index's buckets (several boundaries in one bucket) and
/// boundaries next to bucket edges.
#[test]
fn zone_index_finds_zones_smaller_than_a_bucket() {
    use super::geometry::{Zone, ZoneIndex};
    let end = 1u64 << 30;
    let starts = [
        0,
        1000,
        1003,
        1010,
        1 << 20,
        (1 << 20) + 1,
        (1 << 29) - 1,
        1 << 29,
    ];
    let zones: Vec<Zone> = starts
        .iter()
        .map(|&f| Zone::new(f, 0, 1, 100, 2, 8_333_333))
        .collect();
    let index = ZoneIndex::new(&zones, end);
    let search = |lba: u64| zones.partition_point(|z| z.first_lba <= lba) - 1;
    let mut rng = Rng::from_seed(4);
    let near = starts
        .iter()
        .flat_map(|&f| [f.saturating_sub(1), f, f + 1, f + 2]);
    let random: Vec<u64> = (0..20_000)
        .map(|_| rng.below(end + 1000) >> rng.below(30))
        .collect();
    for lba in near.chain(random).chain([end - 1, end, u64::MAX / 2]) {
        assert_eq!(index.zone_of(&zones, lba), search(lba), "lba {lba}");
    }
}

/// The drives of one model share its zone table and seek table (one copy in the processor
/// cache), and a drive's positions are the same as its prototype's.
#[test]
fn drives_of_a_model_share_their_tables() {
    let proto = Hdd::new(&params("hdd-15k"), 0).unwrap();
    let drive = proto.with_phase(1_234_567);
    assert!(std::sync::Arc::ptr_eq(&proto.zones, &drive.zones));
    assert!(proto.seek.shares_table(&drive.seek));
    let other = Hdd::new(&params("hdd-15k"), 0).unwrap();
    assert!(!std::sync::Arc::ptr_eq(&proto.zones, &other.zones));
    for lba in [
        0,
        1,
        77_777,
        proto.capacity_sectors() / 2,
        proto.capacity_sectors() - 1,
    ] {
        assert_eq!(drive.locate(lba), proto.locate(lba));
    }
    assert_eq!(drive.cylinders(), proto.cylinders());
}

#[test]
fn bad_parameters_name_the_key() {
    let base = params("hdd-10k");
    let cases = [
        (
            HddParams {
                seek_avg_ms: 20.0,
                ..base.clone()
            },
            "seek_avg_ms",
        ),
        (
            HddParams {
                rpm: 10,
                ..base.clone()
            },
            "rpm",
        ),
        (
            HddParams {
                media_rate_inner_mbps: 200.0,
                ..base.clone()
            },
            "media_rate_inner_mbps",
        ),
        (
            HddParams {
                seek_full_stroke_ms: 1500.0,
                ..base.clone()
            },
            "seek_full_stroke_ms must be at least 0 and below 1000 ms; got 1500",
        ),
        (
            HddParams {
                head_switch_ms: 1000.0,
                ..base.clone()
            },
            "head_switch_ms must be at least 0 and below 1000 ms; got 1000",
        ),
        (
            HddParams {
                write_settle_ms: 5e3,
                ..base.clone()
            },
            "write_settle_ms must be above -1000 and below 1000 ms; got 5000",
        ),
        (
            HddParams {
                command_overhead_ms: 1e300,
                ..base.clone()
            },
            "command_overhead_ms must be at least 0 and below 1000 ms; got 1e300",
        ),
        (
            HddParams {
                head_switch_ms: f64::NAN,
                ..base.clone()
            },
            "head_switch_ms must be at least 0 and below 1000 ms; got NaN",
        ),
        (
            HddParams {
                capacity_gb: -1.0,
                ..base
            },
            "capacity_gb",
        ),
    ];
    for (bad, key) in cases {
        let err = Hdd::new(&bad, 0).unwrap_err();
        assert!(err.contains(key), "{key}: {err}");
    }
}

/// A seek is the curve's own value at every distance of the stroke, whether the table of
/// short seeks holds it or the formula computes it, so the table changes no timing.
#[test]
fn seek_table_holds_the_curve_at_every_distance() {
    for name in ["hdd-15k", "hdd-7k2"] {
        let d = Hdd::new(&params(name), 0).unwrap();
        let stroke = d.cylinders();
        assert!(stroke > 2048, "{name}: {stroke} cylinders");
        for dist in 0..stroke {
            assert_eq!(
                d.seek.time_ns(dist),
                d.seek.formula_ns(dist),
                "{name} {dist}"
            );
        }
        assert_eq!(d.seek.time_ns(0), 0);
    }
    let long = geometry::SeekCurve::fit(0.2, 4.0, 9.0, 3e6).unwrap();
    for dist in [1, 2047, 2048, 2049, 1 << 20, 2_999_999] {
        assert_eq!(long.time_ns(dist), long.formula_ns(dist), "{dist}");
    }
    let full = long.time_ns(3_000_000) as f64 / 1e6;
    assert!((full - 9.0).abs() < 0.01, "full stroke {full} ms");
}

/// Positions and angles through the zones' divisors equal the divisions of their
/// definitions, at random addresses of every zone and at zone edges.
#[test]
fn positions_equal_their_definition() {
    let mut rng = Rng::from_seed(5);
    for name in ["hdd-15k", "hdd-7k2", "hdd-10k"] {
        let d = Hdd::new(&params(name), 77).unwrap();
        let cap = d.capacity_sectors();
        let edges = d
            .zones
            .list
            .iter()
            .flat_map(|z| [z.first_lba.saturating_sub(1), z.first_lba]);
        let lbas: Vec<u64> = (0..20_000).map(|_| rng.below(cap)).chain(edges).collect();
        for lba in lbas {
            let z = d.zones.of(lba);
            let spc = z.spt.get() * d.heads;
            let rel = lba - z.first_lba;
            let pos = d.locate(lba);
            assert_eq!(
                pos.cyl,
                (z.first_cyl + (rel / spc) as u32).min(d.max_cyl),
                "{lba}"
            );
            assert_eq!(u64::from(pos.head), rel % spc / z.spt.get(), "{lba}");
            assert_eq!(u64::from(pos.sector), rel % spc % z.spt.get(), "{lba}");
            let track = u64::from(pos.cyl) * d.heads + u64::from(pos.head);
            let angle =
                (u64::from(pos.sector) * d.rev_ns / pos.spt.get() + track * d.skew_ns) % d.rev_ns;
            assert_eq!(d.angle_ns(&pos, z.sector_start), angle, "{lba}");
            // A queued command carries its zone, its position and its angle.
            let mut q = d.clone();
            q.enqueue(0, 1, lba, 1, false);
            let p = q.pending[0];
            let zone = &d.zones.list[usize::from(p.zone)];
            assert!(std::ptr::eq(zone, z), "{lba}: zone {}", p.zone);
            assert_eq!(
                (p.cyl, u32::from(p.head), p.sector),
                (pos.cyl, pos.head, pos.sector)
            );
            assert_eq!(u64::from(p.angle_ns), angle, "{lba}");
            assert_eq!(zone.ns_per_sector, d.rev_ns as f64 / zone.spt.get() as f64);
        }
    }
}

mod layout;
mod schedule;

#[test]
fn a_transfer_leaves_the_short_last_track_of_a_sparing_range_at_its_end() {
    // The Cheetah 4LP keeps its spares at the end of every range of 12 cylinders: the last
    // track of a range holds fewer blocks than the others, and a transfer that runs past its
    // last block pays the switch to the next cylinder there, not further on.
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../references/drives");
    let p = crate::device::drive_spec::import(&dir.join("cheetah4LP.diskspecs"))
        .expect("imports")
        .params;
    assert_eq!(p.sparing, Sparing::SectorsPerRange);
    let disk = Hdd::new(&p, 0).expect("builds");
    let switch_ns = disk.head_switch_ns.min(disk.seek_ns(1));
    let mut short_track_ends = 0;
    let mut at = disk.locate(0);
    for lba in 0..disk.zones.list[1].first_lba - 1 {
        let next = disk.locate(lba + 1);
        if (next.cyl, next.head) != (at.cyl, at.head) {
            if u64::from(at.sector) + 1 < at.spt.get() {
                short_track_ends += 1;
            }
            assert!(
                disk.transfer_measured_ns(lba, 2) >= switch_ns,
                "LBA {lba} ends track {at:?}: a 2-block transfer must switch to {next:?}"
            );
        }
        at = next;
    }
    assert!(short_track_ends > 0, "no range of the first zone ended");
}
