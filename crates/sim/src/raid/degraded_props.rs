//! Property tests of survival, degraded reads, degraded writes and rebuilds,
//! checked against rules stated independently of the planners.

use super::test_util::*;
use super::*;
use proptest::prelude::*;
use std::collections::HashSet;

use RaidLevel::*;

/// Up to `count` distinct-or-repeated members picked by `seed`.
fn pick_failures(l: &Layout, seed: u64, count: usize) -> FailedDisks {
    let mut f = FailedDisks::none();
    for j in 0..count {
        let d = (seed >> (16 * j)) % u64::from(l.disks());
        f.mark(d as u32).expect("small test layouts");
    }
    f
}

fn failures() -> impl Strategy<Value = (u64, usize)> {
    (
        any::<u64>(),
        prop_oneof![Just(0usize), Just(1), Just(1), Just(2), 3usize..5],
    )
}

fn tolerated(l: &Layout) -> u32 {
    match l.level() {
        Raid5 => 1,
        Raid6 => 2,
        _ => 0,
    }
}

/// The survival rule, stated per level.
fn expected_survival(l: &Layout, f: &FailedDisks) -> bool {
    let n = l.disks();
    let count = (0..n).filter(|&d| f.contains(d)).count() as u32;
    match l.level() {
        Jbod | Raid0 => count == 0,
        Raid1 | Raid10 => (0..n / 2).all(|p| !(f.contains(2 * p) && f.contains(2 * p + 1))),
        Raid5 | Raid6 => count <= tolerated(l),
    }
}

/// Whether logical sector `lba` can no longer be read.
fn lost(l: &Layout, f: &FailedDisks, lba: u64) -> bool {
    let all_copies_failed = l.locate(lba).as_slice().iter().all(|c| f.contains(c.disk));
    all_copies_failed && (tolerated(l) == 0 || !expected_survival(l, f))
}

fn at(disk: u32, disk_lba: u64) -> Location {
    Location { disk, disk_lba }
}

fn check_degraded_read(l: &Layout, lba: u64, sectors: u64, f: &FailedDisks) {
    let marker = ReadExtent {
        io: DiskIo {
            disk: 99,
            disk_lba: 0,
            sectors: 1,
        },
        mirror: None,
    };
    let mut out = vec![marker];
    let res = l.plan_read_degraded(lba, sectors, f, &mut out);
    assert_eq!(out[0], marker, "existing entry clobbered");
    let first_lost = (lba..lba + sectors).find(|&x| lost(l, f, x));
    if let Some(x) = first_lost {
        let e = res.expect_err("a lost sector was requested");
        assert_eq!((e.level, e.at), (l.level(), LostAt::Logical { lba: x }));
        assert_eq!(out.len(), 1, "partial plan left behind");
        return;
    }
    res.expect("nothing requested is lost");
    let out = &out[1..];
    if f.iter().all(|d| d >= l.disks()) {
        let mut healthy = Vec::new();
        l.plan_read(lba, sectors, &mut healthy);
        assert_eq!(out, healthy);
    }
    let ios: Vec<DiskIo> = out.iter().map(|e| e.io).collect();
    assert!(
        ios.iter().all(|io| !f.contains(io.disk)),
        "failed disk read"
    );
    assert_maximal(&ios);
    let read = sectors_of(&ios);
    let k = l.data_disks();
    let mut needed = HashSet::new();
    for x in lba..lba + sectors {
        let loc = l.locate(x);
        let alive: Vec<Location> = loc
            .as_slice()
            .iter()
            .copied()
            .filter(|c| !f.contains(c.disk))
            .collect();
        if let Some(&c) = alive.first() {
            assert!(read.contains(&c), "sector {x} not read at {c:?}");
            needed.insert(c);
            continue;
        }
        // Reconstructed: exactly k survivors are read at its row.
        let row = loc.copies[0].disk_lba;
        let members: Vec<u32> = (0..l.disks())
            .filter(|&d| read.contains(&at(d, row)))
            .collect();
        assert_eq!(
            members.len(),
            k as usize,
            "row {row} of sector {x}: {members:?}"
        );
        needed.extend(members.iter().map(|&d| at(d, row)));
    }
    assert_eq!(read, needed, "stray reads");
    for e in out {
        match (l.level(), e.mirror) {
            (Raid1 | Raid10, m) => {
                let partner = e.io.disk ^ 1;
                assert_eq!(m.is_some(), !f.contains(partner), "{e:?}");
                if let Some(m) = m {
                    let same = DiskIo {
                        disk: partner,
                        ..e.io
                    };
                    assert_eq!(m, same);
                }
            }
            (_, m) => assert_eq!(m, None),
        }
    }
}

/// Checks a degraded write plan against the healthy one and, for RAID 5/6,
/// that each parity sector written can be computed from what is read.
fn check_degraded_write(l: &Layout, lba: u64, sectors: u64, f: &FailedDisks) {
    let mut healthy = WritePlan::default();
    l.plan_write(lba, sectors, &mut healthy);
    let mut plan = healthy.clone();
    let res = l.plan_write_degraded(lba, sectors, f, &mut plan);
    let parity_level = tolerated(l) > 0;
    let first_lost = match parity_level {
        true => (sectors > 0 && !expected_survival(l, f)).then_some(lba),
        false => (lba..lba + sectors).find(|&x| lost(l, f, x)),
    };
    if let Some(x) = first_lost {
        let e = res.expect_err("lost data written");
        assert_eq!(e.at, LostAt::Logical { lba: x });
        assert_eq!(plan, WritePlan::default());
        return;
    }
    res.expect("writable");
    if f.iter().all(|d| d >= l.disks()) {
        assert_eq!(plan, healthy);
    }
    for io in plan.reads.iter().chain(&plan.writes) {
        assert!(!f.contains(io.disk), "failed disk touched: {io:?}");
    }
    assert_maximal(&plan.reads);
    assert_maximal(&plan.writes);
    let written = sectors_of(&plan.writes);
    let expect: HashSet<Location> = sectors_of(&healthy.writes)
        .into_iter()
        .filter(|loc| !f.contains(loc.disk))
        .collect();
    assert_eq!(written, expect);
    if !parity_level {
        assert!(plan.reads.is_empty());
        return;
    }
    let unit = l.stripe_unit_sectors();
    let read = sectors_of(&plan.reads);
    let new_data: HashSet<Location> = (lba..lba + sectors)
        .map(|x| l.locate(x).copies[0])
        .collect();
    let parity_of = |s: u64| {
        let (p, q) = l.parity_disks(s).expect("parity level");
        std::iter::once(p).chain(q).collect::<Vec<u32>>()
    };
    // Stripes counted: those touched that keep a surviving parity unit.
    let fs = l.full_stripe_sectors();
    let stripes = match sectors {
        0 => 0..0,
        _ => lba / fs..(lba + sectors - 1) / fs + 1,
    };
    let counted = stripes
        .filter(|&s| parity_of(s).iter().any(|&d| !f.contains(d)))
        .count();
    let methods = plan.full_stripe + plan.read_modify_write + plan.reconstruct_write;
    assert_eq!(methods as usize, counted);
    let rows: HashSet<u64> = new_data
        .iter()
        .chain(&read)
        .map(|loc| loc.disk_lba)
        .collect();
    for row in rows {
        let parity = parity_of(row / unit);
        let data: Vec<u32> = (0..l.disks()).filter(|d| !parity.contains(d)).collect();
        let is_new = |d: u32| new_data.contains(&at(d, row));
        let is_read = |d: u32| read.contains(&at(d, row));
        let parity_written: Vec<u32> = parity
            .iter()
            .copied()
            .filter(|&d| written.contains(&at(d, row)))
            .collect();
        let alive_parity = parity.iter().filter(|&&d| !f.contains(d)).count();
        assert_eq!(
            parity_written.len(),
            alive_parity,
            "row {row}: parity not kept"
        );
        if alive_parity == 0 {
            assert!(!(0..l.disks()).any(is_read), "row {row}: needless read");
            continue;
        }
        let old_known = (0..l.disks()).filter(|&d| is_read(d)).count() >= data.len();
        let rcw = data.iter().all(|&d| is_new(d) || is_read(d));
        for p in parity_written {
            let rmw = is_read(p) && data.iter().all(|&d| !is_new(d) || is_read(d));
            assert!(
                old_known || rcw || rmw,
                "row {row}: parity {p} not computable"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn survives_follows_the_level_rules(l in geometry(), (seed, count) in failures(), mask in any::<u64>()) {
        for f in [pick_failures(&l, seed, count), pick_failures(&l, seed, 1), {
            let mut f = FailedDisks::none();
            (0..l.disks()).filter(|d| (mask >> d) & 1 == 1).for_each(|d| f.mark(d).expect("small"));
            f
        }] {
            let survives = l.survives(&f);
            prop_assert_eq!(survives, expected_survival(&l, &f), "{}", f);
            // Surviving means every block of the array can be read.
            let mut out = Vec::new();
            let all = l.plan_read_degraded(0, l.capacity_sectors(), &f, &mut out);
            prop_assert_eq!(all.is_ok(), survives);
        }
    }

    #[test]
    fn degraded_reads_serve_exactly_what_survives((l, lba, sectors) in request(), (seed, count) in failures()) {
        check_degraded_read(&l, lba, sectors, &pick_failures(&l, seed, count));
    }

    #[test]
    fn degraded_writes_avoid_failed_disks((l, lba, sectors) in request(), (seed, count) in failures()) {
        check_degraded_write(&l, lba, sectors, &pick_failures(&l, seed, count));
    }

    #[test]
    fn rebuild_reads_each_needed_survivor_sector_once(l in geometry(), seed in any::<u64>(), two in any::<bool>()) {
        let n = l.disks();
        let disk = (seed % u64::from(n)) as u32;
        let f = pick_failures(&l, seed, 1 + usize::from(two));
        let unit = l.stripe_unit_sectors();
        let usable = l.usable_disk_sectors();
        let mut whole = WritePlan::default();
        let res = l.plan_rebuild(disk, 0, usable, &f, &mut whole);
        let mut with_disk = f;
        with_disk.mark(disk).expect("small");
        let ok = match l.level() {
            Jbod | Raid0 => false,
            _ => l.survives(&with_disk),
        };
        prop_assert_eq!(res.is_ok(), ok, "{} {}", disk, f);
        if !ok {
            prop_assert_eq!(whole, WritePlan::default());
            return Ok(());
        }
        let mut reads = Vec::new();
        let mut plan = WritePlan::default();
        for s in 0..usable / unit {
            l.plan_rebuild(disk, s * unit, unit, &f, &mut plan).expect("same failures");
            prop_assert_eq!(&plan.writes, &vec![DiskIo { disk, disk_lba: s * unit, sectors: unit }]);
            let disks: HashSet<u32> = plan.reads.iter().map(|io| io.disk).collect();
            prop_assert_eq!(disks.len(), plan.reads.len());
            prop_assert!(disks.iter().all(|&d| !with_disk.contains(d)));
            let want = match l.level() {
                Raid1 | Raid10 => HashSet::from([disk ^ 1]),
                Raid5 => (0..n).filter(|&d| d != disk).collect(),
                _ => disks.clone(),
            };
            prop_assert_eq!(&disks, &want);
            prop_assert_eq!(disks.len(), match l.level() { Raid1 | Raid10 => 1, _ => l.data_disks() as usize });
            for io in &plan.reads {
                prop_assert_eq!((io.disk_lba, io.sectors), (s * unit, unit));
            }
            reads.extend_from_slice(&plan.reads);
        }
        // Stripe by stripe, each source sector is read once; one call for
        // the whole member reads the same sectors, merged.
        let per_stripe = sectors_of(&reads);
        prop_assert_eq!(sectors_of(&whole.reads), per_stripe);
        prop_assert!(whole.reads.iter().all(|io| io.sectors == usable));
    }
}
