use super::test_util::*;
use super::*;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

use RaidLevel::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn mapping_is_injective_in_range_and_avoids_parity(l in geometry()) {
        let n = l.disks();
        let usable = l.usable_disk_sectors();
        let mut primaries = HashSet::new();
        let mut all_copies = HashSet::new();
        let mut last_on_disk: HashMap<u32, u64> = HashMap::new();
        for lba in 0..l.capacity_sectors() {
            let loc = l.locate(lba);
            let p = loc.copies[0];
            prop_assert!(p.disk < n && p.disk_lba < usable, "{lba} -> {p:?}");
            prop_assert!(primaries.insert(p), "{lba} -> {p:?} twice");
            prop_assert!(!is_parity(&l, p), "{lba} -> parity {p:?}");
            // Addresses on a disk grow with the logical address (merging
            // relies on it).
            if let Some(prev) = last_on_disk.insert(p.disk, p.disk_lba) {
                prop_assert!(prev < p.disk_lba);
            }
            if matches!(l.level(), Raid1 | Raid10) {
                prop_assert_eq!(loc.n_copies, 2);
                let m = loc.copies[1];
                prop_assert_ne!(p.disk, m.disk);
                prop_assert!(m.disk < n && m.disk_lba < usable);
                prop_assert!(all_copies.insert(m));
            } else {
                prop_assert_eq!(loc.n_copies, 1);
                prop_assert_eq!(loc.copies[1], p);
            }
            prop_assert!(all_copies.insert(p));
        }
        // Every member sector is data, mirror or parity: nothing is wasted.
        let parity = match l.level() {
            Raid5 => usable,
            Raid6 => 2 * usable,
            _ => 0,
        };
        prop_assert_eq!(all_copies.len() as u64 + parity, u64::from(n) * usable);
    }

    #[test]
    fn parity_rotates_over_all_disks(l in geometry(), s0 in 0u64..10_000) {
        let n = l.disks();
        let Some(_) = l.parity_disks(0) else {
            prop_assert!(!matches!(l.level(), Raid5 | Raid6));
            return Ok(());
        };
        let mut p_count = vec![0u32; n as usize];
        let mut q_count = vec![0u32; n as usize];
        for s in s0..s0 + u64::from(n) {
            let Some((p, q)) = l.parity_disks(s) else {
                return Err(TestCaseError::fail("parity vanished"));
            };
            p_count[p as usize] += 1;
            match (l.level(), q) {
                (Raid5, None) => {}
                (Raid6, Some(q)) => {
                    prop_assert_ne!(p, q);
                    q_count[q as usize] += 1;
                }
                other => return Err(TestCaseError::fail(format!("bad parity {other:?}"))),
            }
        }
        prop_assert!(p_count.iter().all(|&c| c == 1), "P counts {p_count:?}");
        if l.level() == Raid6 {
            prop_assert!(q_count.iter().all(|&c| c == 1), "Q counts {q_count:?}");
        }
    }

    #[test]
    fn plan_read_covers_exactly_the_request((l, lba, sectors) in request()) {
        let mut out = vec![ReadExtent {
            io: DiskIo { disk: 99, disk_lba: 0, sectors: 1 },
            mirror: None,
        }];
        l.plan_read(lba, sectors, &mut out);
        prop_assert_eq!(out[0].io.disk, 99, "existing entry clobbered");
        let out = &out[1..];
        let total: u64 = out.iter().map(|e| e.io.sectors).sum();
        prop_assert_eq!(total, sectors);
        let ios: Vec<DiskIo> = out.iter().map(|e| e.io).collect();
        assert_maximal(&ios);
        let expect: HashSet<Location> =
            (lba..lba + sectors).map(|x| l.locate(x).copies[0]).collect();
        prop_assert_eq!(sectors_of(&ios), expect);
        if matches!(l.level(), Raid1 | Raid10) {
            let mut mirrors = Vec::new();
            for e in out {
                let Some(m) = e.mirror else {
                    return Err(TestCaseError::fail("mirror missing"));
                };
                prop_assert_eq!(m.sectors, e.io.sectors);
                prop_assert_ne!(m.disk, e.io.disk);
                mirrors.push(m);
            }
            let expect: HashSet<Location> =
                (lba..lba + sectors).map(|x| l.locate(x).copies[1]).collect();
            prop_assert_eq!(sectors_of(&mirrors), expect);
        } else {
            prop_assert!(out.iter().all(|e| e.mirror.is_none()));
        }
    }

    /// The one-unit fast path makes the plan the stripe walk makes, op for op.
    #[test]
    fn a_write_inside_one_unit_plans_as_the_stripe_walk_does(
        (l, lba, sectors) in request(),
        cut in 1u64..64,
    ) {
        prop_assume!(matches!(l.level(), Raid5 | Raid6) && sectors > 0);
        let unit = l.stripe_unit_sectors();
        let in_unit = (unit - lba % unit).min(sectors).min(cut);
        let mut fast = WritePlan::default();
        l.plan_write(lba, in_unit, &mut fast);
        let mut walk = WritePlan::default();
        l.plan_stripes_write(lba, lba + in_unit, &mut walk);
        prop_assert_eq!(fast, walk);
    }

    #[test]
    fn plan_write_is_complete_and_sufficient((l, lba, sectors) in request()) {
        let mut plan = WritePlan {
            full_stripe: 7,
            ..WritePlan::default()
        };
        l.plan_write(lba, sectors, &mut plan);
        check_write_plan(&l, lba, sectors, &plan);
    }
}

/// Checks that a write plan writes exactly the request's data (every copy),
/// and for RAID 5/6 that each parity sector it writes can be computed from
/// what phase 1 reads: either all other data of the row is read
/// (reconstruct) or the old parity and old data of each changed sector are
/// read (read-modify-write).
fn check_write_plan(l: &Layout, lba: u64, sectors: u64, plan: &WritePlan) {
    let unit = l.stripe_unit_sectors();
    assert_maximal(&plan.writes);
    assert_maximal(&plan.reads);
    let expect: HashSet<Location> = (lba..lba + sectors)
        .flat_map(|x| l.locate(x).as_slice().to_vec())
        .collect();
    let written = sectors_of(&plan.writes);
    let read = sectors_of(&plan.reads);
    let counted = plan.full_stripe + plan.read_modify_write + plan.reconstruct_write;
    if !matches!(l.level(), Raid5 | Raid6) {
        assert_eq!(written, expect);
        assert!(read.is_empty());
        assert_eq!(counted, 0);
        return;
    }
    let (parity_w, data_w): (HashSet<Location>, HashSet<Location>) =
        written.iter().partition(|&&loc| is_parity(l, loc));
    assert_eq!(data_w, expect);
    let stripes = if sectors == 0 {
        0
    } else {
        let fs = l.full_stripe_sectors();
        (lba + sectors - 1) / fs - lba / fs + 1
    };
    assert_eq!(u64::from(counted), stripes);
    // Rows (member address) whose parity is rewritten.
    let parity_rows: HashSet<u64> = parity_w.iter().map(|loc| loc.disk_lba).collect();
    for loc in &data_w {
        assert!(parity_rows.contains(&loc.disk_lba), "no parity for {loc:?}");
    }
    for loc in &read {
        assert!(parity_rows.contains(&loc.disk_lba), "stray read {loc:?}");
    }
    for &row in &parity_rows {
        let (p, q) = l.parity_disks(row / unit).expect("parity level");
        let at = |disk| Location {
            disk,
            disk_lba: row,
        };
        let parity: Vec<u32> = std::iter::once(p).chain(q).collect();
        assert!(parity.iter().all(|&d| parity_w.contains(&at(d))));
        let data: Vec<u32> = (0..l.disks()).filter(|d| !parity.contains(d)).collect();
        let reconstruct = data
            .iter()
            .all(|&d| data_w.contains(&at(d)) ^ read.contains(&at(d)));
        let rmw = parity.iter().all(|&d| read.contains(&at(d)))
            && data
                .iter()
                .all(|&d| data_w.contains(&at(d)) == read.contains(&at(d)));
        assert!(reconstruct || rmw, "row {row} cannot be computed");
    }
}

fn write(l: &Layout, lba: u64, sectors: u64) -> WritePlan {
    let mut plan = WritePlan::default();
    l.plan_write(lba, sectors, &mut plan);
    check_write_plan(l, lba, sectors, &plan);
    plan
}

fn counters(p: &WritePlan) -> (u32, u32, u32) {
    (p.full_stripe, p.read_modify_write, p.reconstruct_write)
}

#[test]
fn raid10_small_write_is_two_writes() {
    let l = layout(Raid10, 4, 128, 100_000);
    let p = write(&l, 128 + 32, 16);
    assert_eq!((p.reads.len(), p.writes.len()), (0, 2));
    let disks: HashSet<u32> = p.writes.iter().map(|io| io.disk).collect();
    assert_eq!(disks, HashSet::from([2, 3]));
    assert_eq!(counters(&p), (0, 0, 0));
}

#[test]
fn raid5_small_write_is_read_modify_write() {
    for disks in [4, 5, 8] {
        let l = layout(Raid5, disks, 128, 100_000);
        let p = write(&l, 8, 16);
        assert_eq!((p.reads.len(), p.writes.len(), p.disk_ops()), (2, 2, 4));
        assert_eq!(counters(&p), (0, 1, 0));
        assert!(p
            .reads
            .iter()
            .all(|io| io.sectors == 16 && io.disk_lba == 8));
    }
    // With 2 data disks, reconstruct-write (read the other unit) is cheaper.
    let l = layout(Raid5, 3, 128, 100_000);
    let p = write(&l, 8, 16);
    assert_eq!((p.reads.len(), p.writes.len()), (1, 2));
    assert_eq!(counters(&p), (0, 0, 1));
}

#[test]
fn raid6_small_write_is_six_ops() {
    let l = layout(Raid6, 6, 64, 100_000);
    let p = write(&l, 64 * 5 + 3, 8);
    assert_eq!((p.reads.len(), p.writes.len()), (3, 3));
    assert_eq!(counters(&p), (0, 1, 0));
    // 2+2: reconstruct-write needs k + m = 4 ops.
    let l = layout(Raid6, 4, 64, 100_000);
    let p = write(&l, 3, 8);
    assert_eq!((p.reads.len(), p.writes.len()), (1, 3));
    assert_eq!(counters(&p), (0, 0, 1));
}

#[test]
fn full_stripe_writes_need_no_reads() {
    let l = layout(Raid5, 5, 128, 100_000);
    let p = write(&l, 4 * 128, 4 * 128);
    assert_eq!((p.reads.len(), p.writes.len()), (0, 5));
    assert!(p
        .writes
        .iter()
        .all(|io| io.sectors == 128 && io.disk_lba == 128));
    assert_eq!(counters(&p), (1, 0, 0));

    let l = layout(Raid6, 6, 128, 100_000);
    let p = write(&l, 0, 4 * 128);
    assert_eq!((p.reads.len(), p.writes.len()), (0, 6));
    assert_eq!(counters(&p), (1, 0, 0));

    // Two consecutive full stripes merge into one 2-unit write per disk.
    let l = layout(Raid5, 4, 64, 100_000);
    let p = write(&l, 3 * 64, 6 * 64);
    assert_eq!(p.writes.len(), 4);
    assert!(p
        .writes
        .iter()
        .all(|io| io.sectors == 128 && io.disk_lba == 64));
    assert_eq!(counters(&p), (2, 0, 0));
}

#[test]
fn wide_raid5_partial_stripe_uses_reconstruct_write() {
    let l = layout(Raid5, 9, 64, 100_000);
    let p = write(&l, 64, 7 * 64);
    assert_eq!((p.reads.len(), p.writes.len(), p.disk_ops()), (1, 8, 9));
    assert_eq!(counters(&p), (0, 0, 1));
    // The one read is the untouched data unit 0 (disk 0 in stripe 0).
    assert_eq!(
        p.reads[0],
        DiskIo {
            disk: 0,
            disk_lba: 0,
            sectors: 64
        }
    );
}

#[test]
fn unaligned_write_over_two_stripes_mixes_methods() {
    let l = layout(Raid5, 5, 64, 100_000);
    let fs = l.full_stripe_sectors();
    // Partly inside unit 2 of stripe 0, then all of stripe 1.
    let lba = 2 * 64 + 10;
    let p = write(&l, lba, 2 * fs - lba);
    assert_eq!(counters(&p), (1, 1, 0));
    // Whole units 1..3 of stripe 0, then all of stripe 1.
    let p = write(&l, 64, 2 * fs - 64);
    assert_eq!(counters(&p), (1, 0, 1));
    // Stripe 1 whole, then a small piece of stripe 2.
    let p = write(&l, fs, fs + 8);
    assert_eq!(counters(&p), (1, 1, 0));
}

#[test]
fn rmw_parity_span_is_the_touched_hull() {
    let l = layout(Raid5, 6, 64, 100_000);
    // Units 0 (from offset 40) and 1 (up to offset 10): span is [0, 64).
    let p = write(&l, 40, 34);
    assert_eq!(counters(&p), (0, 1, 0));
    assert_eq!(p.disk_ops(), 6);
    let parity = p.writes.iter().find(|io| io.disk == 5).expect("P write");
    assert_eq!((parity.disk_lba, parity.sectors), (0, 64));
}

#[test]
fn raid0_large_aligned_write_merges_per_disk() {
    let l = layout(Raid0, 4, 128, 1 << 20);
    let p = write(&l, 0, 2048);
    assert_eq!(p.writes.len(), 4);
    for (d, io) in p.writes.iter().enumerate() {
        let want = DiskIo {
            disk: d as u32,
            disk_lba: 0,
            sectors: 512,
        };
        assert_eq!(*io, want);
    }
    let mut out = Vec::new();
    l.plan_read(0, 2 * 512, &mut out);
    assert_eq!(out.len(), 4);
    assert!(out
        .iter()
        .all(|e| e.io.sectors == 256 && e.mirror.is_none()));
}

#[test]
fn jbod_read_splits_at_member_boundary() {
    let l = layout(Jbod, 3, 8, 1003);
    assert_eq!(l.usable_disk_sectors(), 1000);
    assert_eq!(l.capacity_sectors(), 3000);
    let mut out = Vec::new();
    l.plan_read(990, 20, &mut out);
    let ios: Vec<DiskIo> = out.iter().map(|e| e.io).collect();
    let want = [
        DiskIo {
            disk: 0,
            disk_lba: 990,
            sectors: 10,
        },
        DiskIo {
            disk: 1,
            disk_lba: 0,
            sectors: 10,
        },
    ];
    assert_eq!(ios, want);
}

#[test]
fn empty_requests_plan_nothing() {
    for level in RaidLevel::ALL {
        let disks = if level == Raid1 { 2 } else { 4 };
        let l = layout(level, disks, 8, 1000);
        let mut out = Vec::new();
        l.plan_read(5, 0, &mut out);
        assert!(out.is_empty());
        let p = write(&l, l.capacity_sectors(), 0);
        assert_eq!(p, WritePlan::default());
    }
}

#[test]
fn explicit_parity_layouts() {
    // Left-symmetric RAID 5 on 4 disks: stripe 1 has P on disk 2, data 3, 0, 1.
    let l = layout(Raid5, 4, 8, 1000);
    assert_eq!(l.parity_disks(0), Some((3, None)));
    assert_eq!(l.parity_disks(1), Some((2, None)));
    let disks: Vec<u32> = (0..6).map(|u| l.locate(u * 8).copies[0].disk).collect();
    assert_eq!(disks, [0, 1, 2, 3, 0, 1]);
    assert_eq!(l.locate(3 * 8 + 5).copies[0].disk_lba, 8 + 5);
    // RAID 6 on 5 disks: stripe 1 has P = 3, Q = 4, data on 0, 1, 2.
    let l = layout(Raid6, 5, 8, 1000);
    assert_eq!(l.parity_disks(1), Some((3, Some(4))));
    let disks: Vec<u32> = (3..6).map(|u| l.locate(u * 8).copies[0].disk).collect();
    assert_eq!(disks, [0, 1, 2]);
    assert_eq!(layout(Raid0, 4, 8, 1000).parity_disks(0), None);
}

#[test]
fn geometry_accessors() {
    let cases = [
        (Jbod, 3, 3, 8),
        (Raid0, 4, 4, 32),
        (Raid1, 2, 1, 8),
        (Raid10, 6, 3, 24),
        (Raid5, 5, 4, 32),
        (Raid6, 6, 4, 32),
    ];
    for (level, disks, data, stripe) in cases {
        let l = layout(level, disks, 8, 1001);
        assert_eq!((l.level(), l.disks()), (level, disks));
        assert_eq!(l.stripe_unit_sectors(), 8);
        assert_eq!(l.data_disks(), data);
        assert_eq!(l.usable_disk_sectors(), 1000);
        assert_eq!(l.capacity_sectors(), 1000 * u64::from(data));
        assert_eq!(l.full_stripe_sectors(), stripe);
    }
}

#[test]
fn level_names_round_trip() {
    for level in RaidLevel::ALL {
        assert_eq!(RaidLevel::parse(level.name()), Some(level));
        assert_eq!(level.to_string(), level.name());
    }
    assert_eq!(RaidLevel::parse("RAID-5"), Some(Raid5));
    assert_eq!(RaidLevel::parse("Raid10"), Some(Raid10));
    assert_eq!(RaidLevel::parse("raid-10"), Some(Raid10));
    assert_eq!(RaidLevel::parse("JBOD"), Some(Jbod));
    for bad in ["", "raid", "raid7", "raid--5", "jbod-", "raid 5", "-raid5"] {
        assert_eq!(RaidLevel::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn validation_errors_say_rule_and_value() {
    let cases: [(RaidLevel, u32, u64, u64, &str); 11] = [
        (Raid0, 0, 128, 1000, "at least 1 disk needed"),
        (Raid1, 1, 128, 1000, "raid1 needs exactly 2 disks; got 1"),
        (Raid1, 3, 128, 1000, "use raid10 for more"),
        (
            Raid10,
            5,
            128,
            1000,
            "even number of disks, at least 4; got 5",
        ),
        (
            Raid10,
            2,
            128,
            1000,
            "raid10 needs an even number of disks, at least 4; got 2",
        ),
        (Raid5, 2, 128, 1000, "raid5 needs at least 3 disks; got 2"),
        (Raid6, 3, 128, 1000, "raid6 needs at least 4 disks; got 3"),
        (
            Raid0,
            4,
            96,
            1000,
            "power of two number of sectors between 8 (4 KiB) and 2048 (1 MiB); got 96",
        ),
        (Raid0, 4, 4096, 100_000, "got 4096"),
        (Raid0, 4, 4, 1000, "got 4"),
        (
            Jbod,
            2,
            128,
            100,
            "disk capacity (100 sectors) is smaller than one stripe unit",
        ),
    ];
    for (level, disks, unit, size, msg) in cases {
        match Layout::new(level, disks, unit, size) {
            Ok(l) => panic!("accepted {l:?}"),
            Err(e) => assert!(e.to_string().contains(msg), "{e} lacks {msg:?}"),
        }
    }
    let e = Layout::new(Raid0, 4, 8, u64::MAX).expect_err("overflow");
    assert!(matches!(
        e,
        LayoutError::CapacityOverflow { data_disks: 4, .. }
    ));
    assert!(e.to_string().contains("overflows"));
    // The edges of the accepted ranges.
    assert!(Layout::new(Raid0, 1, 8, 8).is_ok());
    assert!(Layout::new(Raid5, 3, 2048, 2048).is_ok());
    assert!(Layout::new(Raid10, 4, 8, 8).is_ok());
}

#[test]
fn data_units_follow_the_parity_round_the_members() {
    for (level, parity) in [(Raid5, 1u64), (Raid6, 2)] {
        for disks in 4..=16u32 {
            let l = Layout::new(level, disks, 16, 16 * 64).expect("layout");
            let n = u64::from(disks);
            for s in 0..2 * n {
                for i in 0..n - parity {
                    assert_eq!(
                        l.data_disk(s, i),
                        (l.parity_disk(s) + parity + i) % n,
                        "{level:?} over {disks} disks, stripe {s}, unit {i}"
                    );
                }
            }
        }
    }
}
