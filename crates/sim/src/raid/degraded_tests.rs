//! Example-based tests of degraded reads, writes and rebuilds.

use super::test_util::*;
use super::*;
use std::collections::HashSet;

use RaidLevel::*;

fn failed(disks: &[u32]) -> FailedDisks {
    let mut f = FailedDisks::none();
    for &d in disks {
        f.mark(d).expect("markable");
    }
    f
}

fn read(l: &Layout, lba: u64, sectors: u64, f: &FailedDisks) -> Result<Vec<DiskIo>, DataLoss> {
    let mut out = Vec::new();
    l.plan_read_degraded(lba, sectors, f, &mut out)?;
    Ok(out.iter().map(|e| e.io).collect())
}

fn write(l: &Layout, lba: u64, sectors: u64, f: &FailedDisks) -> WritePlan {
    let mut plan = WritePlan::default();
    match l.plan_write_degraded(lba, sectors, f, &mut plan) {
        Ok(()) => plan,
        Err(e) => panic!("unexpected {e}"),
    }
}

fn rebuild(
    l: &Layout,
    disk: u32,
    lba: u64,
    n: u64,
    f: &FailedDisks,
) -> Result<WritePlan, DataLoss> {
    let mut plan = WritePlan::default();
    l.plan_rebuild(disk, lba, n, f, &mut plan)?;
    Ok(plan)
}

fn logical(lba: u64) -> LostAt {
    LostAt::Logical { lba }
}

/// Logical start of the data unit of stripe `s` stored on `disk`.
fn unit_on(l: &Layout, disk: u32, s: u64) -> u64 {
    let unit = l.stripe_unit_sectors();
    let k = u64::from(l.data_disks());
    (s * k..(s + 1) * k)
        .map(|u| u * unit)
        .find(|&lba| l.locate(lba).copies[0].disk == disk)
        .expect("disk holds data in this stripe")
}

/// splitmix64: a small deterministic generator for sampling.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn failed_disks_set_operations() {
    let mut f = FailedDisks::none();
    assert_eq!((f.count(), f.is_empty()), (0, true));
    assert_eq!(f, FailedDisks::default());
    for d in [5, 0, 63, 5] {
        assert_eq!(f.mark(d), Ok(()));
    }
    assert_eq!(f.mark(64), Err(DiskIndexTooLarge { disk: 64 }));
    assert_eq!(f.iter().collect::<Vec<_>>(), [0, 5, 63]);
    assert!(f.contains(63) && !f.contains(64) && !f.contains(1));
    f.clear(0);
    f.clear(1);
    f.clear(100);
    assert_eq!(f.count(), 2);
    assert_eq!(f.to_string(), "[5, 63]");
    assert_eq!(f.members(6).iter().collect::<Vec<_>>(), [5]);
}

#[test]
fn data_loss_message_names_level_sector_and_disks() {
    let l = layout(Raid5, 4, 8, 1000);
    let f = failed(&[1, 2]);
    let e = read(&l, 8, 4, &f).expect_err("two raid5 failures");
    assert_eq!(
        e.to_string(),
        "data loss: raid5 cannot serve logical sector 8 with disks [1, 2] failed"
    );
    let e = rebuild(&l, 0, 16, 8, &f).expect_err("third failure");
    assert_eq!(
        e.at,
        LostAt::Member {
            disk: 0,
            disk_lba: 16
        }
    );
    assert_eq!(
        e.to_string(),
        "data loss: raid5 cannot rebuild sector 16 of disk 0 with disks [0, 1, 2] failed"
    );
}

#[test]
fn raid5_small_read_of_failed_disk_reads_every_survivor() {
    for disks in [5u32, 7] {
        let l = layout(Raid5, disks, 64, 100_000);
        for s in [0, 1, 3, 10] {
            let lba = unit_on(&l, 2, s) + 16;
            let ios = read(&l, lba, 8, &failed(&[2])).expect("one failure");
            assert_eq!(ios.len(), disks as usize - 1);
            let used: HashSet<u32> = ios.iter().map(|io| io.disk).collect();
            let others: HashSet<u32> = (0..disks).filter(|&d| d != 2).collect();
            assert_eq!(used, others);
            let row = s * 64 + 16;
            assert!(ios.iter().all(|io| io.disk_lba == row && io.sectors == 8));
            // A read of a healthy data disk is the healthy single read.
            let (p, _) = l.parity_disks(s).expect("raid5");
            let healthy = (0..disks).find(|&d| d != 2 && d != p).expect("data disk");
            let lba = unit_on(&l, healthy, s) + 16;
            let ios = read(&l, lba, 8, &failed(&[2])).expect("healthy disk");
            assert_eq!(
                ios,
                read(&l, lba, 8, &FailedDisks::none()).expect("healthy")
            );
            assert_eq!(ios.len(), 1);
        }
    }
}

#[test]
fn raid5_degraded_small_reads_cost_the_expected_factor() {
    for n in [5u64, 7] {
        // A whole number of parity rotations, so each disk holds 1/n of the data.
        let l = layout(Raid5, n as u32, 64, 64 * 40 * n);
        let units = l.capacity_sectors() / 64;
        let f = failed(&[1]);
        let mut rng = 42;
        let samples = 50_000;
        let mut disk_reads = 0usize;
        for _ in 0..samples {
            let lba = next(&mut rng) % units * 64 + next(&mut rng) % (64 - 8);
            disk_reads += read(&l, lba, 8, &f).expect("survives").len();
        }
        let nf = n as f64;
        let expect = (1.0 - 1.0 / nf) + (nf - 1.0) / nf;
        let mean = disk_reads as f64 / f64::from(samples);
        assert!(
            (mean / expect - 1.0).abs() < 0.02,
            "n={n}: {mean} vs {expect}"
        );
    }
}

#[test]
fn raid10_reads_fall_back_to_the_surviving_copy() {
    let l = layout(Raid10, 6, 128, 100_000);
    let mut out = Vec::new();
    // Unit 1 lives on pair 1 (disks 2 and 3).
    l.plan_read_degraded(128 + 5, 10, &failed(&[2]), &mut out)
        .expect("mirror survives");
    let io = DiskIo {
        disk: 3,
        disk_lba: 5,
        sectors: 10,
    };
    assert_eq!(out, [ReadExtent { io, mirror: None }]);
    // Other pairs keep their mirror.
    out.clear();
    l.plan_read_degraded(5, 10, &failed(&[2]), &mut out)
        .expect("healthy pair");
    assert_eq!(out[0].mirror.map(|m| m.disk), Some(1));
    // Both copies of pair 1 gone: its blocks are lost, the others are not.
    let f = failed(&[2, 3]);
    let e = read(&l, 128 + 5, 10, &f).expect_err("pair 1 lost");
    assert_eq!((e.level, e.at, e.failed), (Raid10, logical(133), f));
    let e = read(&l, 100, 100, &f).expect_err("crosses into pair 1");
    assert_eq!(e.at, logical(128));
    assert!(!l.survives(&f));
    let ok = read(&l, 0, 128, &f).expect("pair 0");
    assert_eq!(ok.len(), 1);
    assert!(read(&l, 256, 128, &f).is_ok() && read(&l, 3 * 128, 128, &f).is_ok());
    // Failures of different pairs are survivable.
    assert!(l.survives(&failed(&[0, 3, 5])));
    assert!(read(&l, 0, l.capacity_sectors(), &failed(&[0, 3, 5])).is_ok());
}

#[test]
fn raid6_reconstructs_from_data_then_p_then_q() {
    // 6 disks, k = 4. Stripe 0: P = 5, Q = 0, data on 1, 2, 3, 4.
    let l = layout(Raid6, 6, 64, 100_000);
    assert_eq!(l.parity_disks(0), Some((5, Some(0))));
    let disks = |ios: &[DiskIo]| ios.iter().map(|io| io.disk).collect::<HashSet<u32>>();
    let ios = read(&l, 8, 8, &failed(&[1])).expect("one failure");
    assert_eq!(disks(&ios), HashSet::from([2, 3, 4, 5]));
    let ios = read(&l, 8, 8, &failed(&[1, 3])).expect("two failures");
    assert_eq!(disks(&ios), HashSet::from([2, 4, 5, 0]));
    let ios = read(&l, 8, 8, &failed(&[1, 5])).expect("data and P");
    assert_eq!(disks(&ios), HashSet::from([2, 3, 4, 0]));
    for pair in [[0, 1], [2, 5], [3, 4]] {
        let f = failed(&pair);
        assert!(l.survives(&f));
        assert!(read(&l, 0, l.capacity_sectors(), &f).is_ok(), "{pair:?}");
    }
    let f = failed(&[0, 1, 2]);
    assert!(!l.survives(&f));
    assert_eq!(read(&l, 8, 8, &f).expect_err("three").at, logical(8));
}

#[test]
fn raid5_second_failure_loses_only_blocks_on_failed_disks() {
    // 4 disks, stripe 0: data on 0, 1, 2, P on 3; stripe 1: data 3, 0, 1.
    let l = layout(Raid5, 4, 8, 1000);
    let f = failed(&[1, 3]);
    assert!(!l.survives(&f));
    // Blocks on survivors are served as in a healthy array.
    for (lba, sectors) in [(0, 8), (16, 8), (32, 8), (2, 5)] {
        let got = read(&l, lba, sectors, &f).expect("on a survivor");
        assert_eq!(
            got,
            read(&l, lba, sectors, &FailedDisks::none()).expect("ok")
        );
    }
    // Anything touching a unit of disk 1 or 3 fails at its first sector.
    assert_eq!(read(&l, 8, 1, &f).expect_err("disk 1").at, logical(8));
    assert_eq!(read(&l, 4, 20, &f).expect_err("crosses").at, logical(8));
    assert_eq!(read(&l, 24, 8, &f).expect_err("disk 3").at, logical(24));
    assert!(read(&l, 0, 0, &f).is_ok());
    // Every write fails, even to a survivor.
    let mut plan = write(&l, 0, 8, &FailedDisks::none());
    let e = l
        .plan_write_degraded(0, 8, &f, &mut plan)
        .expect_err("failed array");
    assert_eq!(e.at, logical(0));
    assert_eq!(plan, WritePlan::default());
}

#[test]
fn raid5_degraded_small_writes() {
    // 5 disks, stripe 0: data on 0..=3, P on 4.
    let l = layout(Raid5, 5, 64, 100_000);
    let counters = |p: &WritePlan| (p.full_stripe, p.read_modify_write, p.reconstruct_write);
    // The data disk failed: read the other 3 data units, write only P.
    let p = write(&l, 64 + 8, 16, &failed(&[1]));
    assert_eq!(counters(&p), (0, 0, 1));
    let reads: HashSet<u32> = p.reads.iter().map(|io| io.disk).collect();
    assert_eq!(reads, HashSet::from([0, 2, 3]));
    assert!(p
        .reads
        .iter()
        .all(|io| io.disk_lba == 8 && io.sectors == 16));
    let p_write = DiskIo {
        disk: 4,
        disk_lba: 8,
        sectors: 16,
    };
    assert_eq!(p.writes, [p_write]);
    // P failed: just the data.
    let p = write(&l, 64 + 8, 16, &failed(&[4]));
    assert_eq!(
        (p.reads.len(), p.writes.len(), counters(&p)),
        (0, 1, (0, 0, 0))
    );
    // Another data disk failed: a normal read-modify-write.
    let p = write(&l, 64 + 8, 16, &failed(&[2]));
    assert_eq!(
        (p.reads.len(), p.writes.len(), counters(&p)),
        (2, 2, (0, 1, 0))
    );
    // Full stripe with a failed member: no reads, one write fewer.
    let p = write(&l, 0, 4 * 64, &failed(&[2]));
    assert_eq!(
        (p.reads.len(), p.writes.len(), counters(&p)),
        (0, 4, (1, 0, 0))
    );
    // Units 0 (partly, failed) and 1: the old rest of unit 0 is lost, so
    // the span is read from all survivors.
    let p = write(&l, 40, 64, &failed(&[0]));
    assert_eq!(counters(&p), (0, 0, 1));
    let reads: HashSet<u32> = p.reads.iter().map(|io| io.disk).collect();
    assert_eq!(reads, HashSet::from([1, 2, 3, 4]));
    assert!(p
        .reads
        .iter()
        .all(|io| io.disk_lba == 0 && io.sectors == 64));
}

#[test]
fn mirrored_degraded_writes_skip_failed_copies() {
    let l = layout(Raid10, 4, 128, 100_000);
    let p = write(&l, 128 + 32, 16, &failed(&[3]));
    let want = DiskIo {
        disk: 2,
        disk_lba: 32,
        sectors: 16,
    };
    assert_eq!((p.reads.len(), p.writes.as_slice()), (0, [want].as_slice()));
    let mut plan = WritePlan::default();
    let e = l
        .plan_write_degraded(0, 300, &failed(&[2, 3]), &mut plan)
        .expect_err("pair 1 lost");
    assert_eq!(e.at, logical(128));
    let l = layout(Raid0, 4, 8, 1000);
    assert_eq!(write(&l, 0, 8, &failed(&[1])).writes.len(), 1);
    let e = l.plan_write_degraded(0, 9, &failed(&[1]), &mut plan);
    assert_eq!(e.map_err(|e| e.at), Err(logical(8)));
}

#[test]
fn rebuild_reads_what_each_level_needs() {
    let range = |disk| DiskIo {
        disk,
        disk_lba: 128,
        sectors: 64,
    };
    // RAID 5, 5 disks: every other member, same range; one write.
    let l = layout(Raid5, 5, 64, 100_000);
    let p = rebuild(&l, 2, 128, 64, &failed(&[2])).expect("raid5");
    assert_eq!(p.reads, [range(0), range(1), range(3), range(4)]);
    assert_eq!(p.writes, [range(2)]);
    assert_eq!(p.disk_ops(), 5);
    // The rebuilt member counts as failed even if not marked.
    assert_eq!(rebuild(&l, 2, 128, 64, &FailedDisks::none()), Ok(p));
    assert!(rebuild(&l, 2, 128, 64, &failed(&[0])).is_err());
    // RAID 10: the partner only.
    let l = layout(Raid10, 6, 64, 100_000);
    let p = rebuild(&l, 3, 128, 64, &failed(&[3, 4])).expect("raid10");
    assert_eq!(
        (p.reads.as_slice(), p.writes.as_slice()),
        ([range(2)].as_slice(), [range(3)].as_slice())
    );
    let e = rebuild(&l, 3, 128, 64, &failed(&[2])).expect_err("partner failed");
    assert_eq!(
        e.at,
        LostAt::Member {
            disk: 3,
            disk_lba: 128
        }
    );
    // RAID 6, 6 disks (k = 4): k survivors, with one or two failures.
    let l = layout(Raid6, 6, 64, 100_000);
    let p = rebuild(&l, 1, 128, 64, &failed(&[1])).expect("raid6");
    assert_eq!(p.reads, [range(0), range(2), range(3), range(4)]);
    let p = rebuild(&l, 1, 128, 64, &failed(&[0, 1])).expect("raid6, 2 failed");
    assert_eq!(p.reads, [range(2), range(3), range(4), range(5)]);
    assert!(rebuild(&l, 1, 128, 64, &failed(&[0, 5])).is_err());
    // No redundancy: always lost; empty ranges plan nothing.
    for level in [Raid0, Jbod] {
        let l = layout(level, 4, 64, 100_000);
        let e = rebuild(&l, 1, 0, 64, &failed(&[1])).expect_err("no redundancy");
        assert_eq!(
            (e.level, e.at),
            (
                level,
                LostAt::Member {
                    disk: 1,
                    disk_lba: 0
                }
            )
        );
        assert_eq!(
            rebuild(&l, 1, 0, 0, &failed(&[1])),
            Ok(WritePlan::default())
        );
    }
}

#[test]
fn no_failure_degraded_plans_equal_healthy_plans() {
    for level in RaidLevel::ALL {
        let disks = if level == Raid1 { 2 } else { 6 };
        let l = layout(level, disks, 16, 1000);
        // Failures of non-members are ignored.
        let mut f = FailedDisks::none();
        f.mark(40).expect("markable");
        assert!(l.survives(&f));
        for (lba, sectors) in [(0, 1), (5, 100), (30, 700)] {
            let mut healthy = Vec::new();
            l.plan_read(lba, sectors, &mut healthy);
            let mut degraded = Vec::new();
            l.plan_read_degraded(lba, sectors, &f, &mut degraded)
                .expect("ok");
            assert_eq!(degraded, healthy);
            assert_eq!(write(&l, lba, sectors, &f), {
                let mut p = WritePlan::default();
                l.plan_write(lba, sectors, &mut p);
                p
            });
        }
    }
}
