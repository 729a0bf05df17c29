//! Redundancy sets: the split of a disk group, segment and stripe placement, sparing, and
//! what a failed disk costs.

use super::sets::{reserve_sectors, split_sets, SetHealth, SetLayout, SetParams, Sparing};
use super::{Layout, RaidLevel, WritePlan};

const UNIT: u64 = 256; // 128 KiB
const SEGMENT: u64 = 4096; // 2 MiB
const DISK: u64 = 1 << 24; // 8 GiB per disk

fn layout(level: RaidLevel, disks: u32, size_sectors: u64) -> SetLayout {
    let sets = split_sets(disks, 8);
    let smallest = sets.iter().map(|s| s.1).min().expect("a set");
    let reserve = reserve_sectors(DISK, smallest, Sparing::Single);
    SetLayout::new(SetParams {
        level,
        unit_sectors: UNIT,
        segment_sectors: SEGMENT,
        sets,
        size_sectors,
        reserve_at: DISK - reserve,
        reserve_sectors: reserve,
    })
    .expect("layout")
}

fn set_disks(v: &SetLayout, disk: u32) -> std::ops::Range<u32> {
    let (first, n) = v
        .sets()
        .find(|&(f, n)| disk >= f && disk < f + n)
        .expect("in a set");
    first..first + n
}

#[test]
fn a_group_splits_into_sets_of_six_to_eleven() {
    let sets = split_sets(84, 8);
    assert_eq!(sets.len(), 10);
    assert_eq!(sets.iter().filter(|s| s.1 == 9).count(), 4);
    assert_eq!(sets.iter().filter(|s| s.1 == 8).count(), 6);
    for disks in 6..=200 {
        let sets = split_sets(disks, 8);
        assert_eq!(sets.iter().map(|s| s.1).sum::<u32>(), disks);
        assert!(
            sets.iter().all(|s| (6..=11).contains(&s.1)),
            "{disks}: {sets:?}"
        );
        let mut first = 0;
        for &(f, n) in &sets {
            assert_eq!(f, first);
            first += n;
        }
    }
    assert_eq!(split_sets(12, 8), vec![(0, 6), (6, 6)]);
}

#[test]
fn every_stripe_has_five_distinct_disks_of_one_set() {
    let v = layout(RaidLevel::Raid5, 24, 1 << 20);
    let stripe = 4 * UNIT;
    let mut plan = WritePlan::default();
    let mut units = [0u64; 24];
    for s in 0..v.capacity_sectors() / stripe {
        v.plan_write(s * stripe, stripe, None, &mut plan)
            .expect("healthy");
        assert_eq!(plan.full_stripe, 1);
        assert!(plan.reads.is_empty());
        let mut disks: Vec<u32> = plan.writes.iter().map(|w| w.disk).collect();
        let set = set_disks(&v, disks[0]);
        assert!(
            disks.iter().all(|d| set.contains(d)),
            "stripe {s}: {disks:?}"
        );
        disks.sort_unstable();
        disks.dedup();
        assert_eq!(disks.len(), 5, "stripe {s}");
        assert!(plan.writes.iter().all(|w| w.sectors == UNIT));
        for w in &plan.writes {
            units[w.disk as usize] += 1;
        }
    }
    // Data and parity units together: every disk of a set to within one unit.
    for (first, n) in v.sets() {
        let u = &units[first as usize..(first + n) as usize];
        assert!(
            u.iter().max().unwrap() - u.iter().min().unwrap() <= 1,
            "{u:?}"
        );
    }
}

#[test]
fn segments_rotate_over_the_sets_and_data_spreads_evenly() {
    let v = layout(RaidLevel::Raid5, 84, 40 << 21);
    assert_eq!(v.set_count(), 10);
    let mut per_disk = vec![0u64; 84];
    let mut segments = vec![0u64; 84];
    let mut out = Vec::new();
    let mut last_set = u32::MAX;
    for seg in 0..v.capacity_sectors() / SEGMENT {
        out.clear();
        v.plan_read(seg * SEGMENT, SEGMENT, None, &mut out)
            .expect("healthy");
        let set = set_disks(&v, out[0].io.disk);
        // Consecutive segments go to different sets.
        assert_ne!(set.start, last_set, "segment {seg}");
        last_set = set.start;
        segments[set.start as usize] += 1;
        for e in &out {
            assert!(set.contains(&e.io.disk));
            per_disk[e.io.disk as usize] += e.io.sectors;
        }
    }
    // Inside each set, every disk holds the same data to within 0.1% (the parity's
    // rotation and the stripes' rotation fall in step only every lcm(5, n) x 5 stripes).
    // Each set takes segments in proportion to its disks.
    let per_disk_segments: Vec<u64> = v
        .sets()
        .map(|(f, n)| segments[f as usize] / u64::from(n))
        .collect();
    assert!(
        per_disk_segments.windows(2).all(|w| w[0] == w[1]),
        "{per_disk_segments:?}"
    );
    for (first, n) in v.sets() {
        let d = &per_disk[first as usize..(first + n) as usize];
        let (lo, hi) = (d.iter().min().unwrap(), d.iter().max().unwrap());
        assert!(hi - lo <= lo / 1000, "set at {first}: {d:?}");
        assert!(*lo > 0);
    }
}

#[test]
fn vraid1_stripes_are_mirrored_pairs_on_distinct_disks() {
    let v = layout(RaidLevel::Raid1, 16, 1 << 20);
    let mut out = Vec::new();
    for u in 0..v.capacity_sectors() / UNIT {
        out.clear();
        v.plan_read(u * UNIT, UNIT, None, &mut out)
            .expect("healthy");
        assert_eq!(out.len(), 1);
        let m = out[0].mirror.expect("a mirror");
        assert_ne!(m.disk, out[0].io.disk);
        assert_eq!(set_disks(&v, m.disk), set_disks(&v, out[0].io.disk));
    }
}

#[test]
fn sparing_reserves_one_or_two_disks_of_the_smallest_set() {
    assert_eq!(reserve_sectors(DISK, 8, Sparing::None), 0);
    assert_eq!(reserve_sectors(DISK, 8, Sparing::Single), DISK / 8);
    assert_eq!(reserve_sectors(DISK, 8, Sparing::Double), DISK / 4);
    // Rounded up to 1 MiB.
    assert_eq!(reserve_sectors(3 * 2048 * 7, 7, Sparing::Single), 3 * 2048);
    assert_eq!(reserve_sectors(2048 * 7 + 1, 7, Sparing::Single), 2 * 2048);
}

#[test]
fn a_failed_disk_is_read_from_the_other_four_members_of_its_stripe() {
    let v = layout(RaidLevel::Raid5, 16, 1 << 20);
    let mut out = Vec::new();
    v.plan_read(0, UNIT, None, &mut out).expect("healthy");
    let x = out[0].io.disk;
    let (set, in_set) = v.set_of(x).expect("in a set");
    let mut h = SetHealth::new(v.set_count());
    h.failed[set].mark(in_set).expect("markable");
    // The stripe's members, from a full-stripe write.
    let mut plan = WritePlan::default();
    v.plan_write(0, 4 * UNIT, None, &mut plan).expect("healthy");
    let members: Vec<u32> = plan.writes.iter().map(|w| w.disk).collect();
    out.clear();
    v.plan_read(0, UNIT, Some(&h), &mut out).expect("degraded");
    let mut read: Vec<u32> = out.iter().map(|e| e.io.disk).collect();
    read.sort_unstable();
    let mut others: Vec<u32> = members.into_iter().filter(|&d| d != x).collect();
    others.sort_unstable();
    assert_eq!(read, others);
    assert!(out.iter().all(|e| e.io.sectors == UNIT));
    // A second failure in the same set loses data; one in another set does not.
    assert!(v.survives(&h));
    let mut h2 = h.clone();
    h2.failed[1 - set].mark(0).expect("markable");
    assert!(v.survives(&h2));
    h2.failed[set].mark((in_set + 1) % 8).expect("markable");
    assert!(!v.survives(&h2));
}

#[test]
fn the_rebuild_writes_to_the_reserve_of_the_set_s_survivors_only() {
    let v = layout(RaidLevel::Raid5, 16, 1 << 21);
    let x = 3;
    let (set, in_set) = v.set_of(x).expect("in a set");
    let mut h = SetHealth::new(v.set_count());
    h.failed[set].mark(in_set).expect("markable");
    let mut plan = WritePlan::default();
    let range = set_disks(&v, x);
    let reserve_at = DISK - reserve_sectors(DISK, 8, Sparing::Single);
    let mut written = [0u64; 16];
    let data = v.data_sectors_per_disk();
    for lba in (0..data).step_by(2048) {
        v.plan_rebuild(x, lba, 2048.min(data - lba), &h, &mut plan)
            .expect("rebuild plan");
        for r in &plan.reads {
            assert!(range.contains(&r.disk) && r.disk != x, "read {r:?}");
        }
        for w in &plan.writes {
            assert!(range.contains(&w.disk) && w.disk != x, "write {w:?}");
            assert!(w.disk_lba >= reserve_at && w.disk_lba + w.sectors <= DISK);
            written[w.disk as usize] += w.sectors;
        }
        assert_eq!(
            plan.reads.iter().map(|r| r.sectors).sum::<u64>(),
            4 * (plan.writes.iter().map(|w| w.sectors).sum::<u64>())
        );
    }
    // Spread over every survivor of the set.
    let survivors: Vec<u64> = range
        .filter(|&d| d != x)
        .map(|d| written[d as usize])
        .collect();
    assert!(survivors.iter().all(|&w| w > 0), "{survivors:?}");
    // Once rebuilt, the disk's data is read from the reserve of the others.
    h.failed[set].clear(in_set);
    h.rebuilt[set].mark(in_set).expect("markable");
    let mut out = Vec::new();
    for lba in (0..v.capacity_sectors()).step_by(UNIT as usize * 7) {
        out.clear();
        v.plan_read(lba, UNIT, Some(&h), &mut out).expect("rebuilt");
        assert!(out.iter().all(|e| e.io.disk != x));
    }
}

#[test]
fn a_layout_over_sets_keeps_its_capacity_and_plans_through_the_sets() {
    let v = layout(RaidLevel::Raid5, 16, 1 << 20);
    let cap = v.capacity_sectors();
    let l = Layout::over_sets(v);
    assert_eq!(l.capacity_sectors(), cap);
    assert_eq!(l.disks(), 16);
    assert_eq!(l.full_stripe_sectors(), 4 * UNIT);
    let mut plan = WritePlan::default();
    l.plan_write(0, UNIT, &mut plan);
    assert_eq!((plan.reads.len(), plan.writes.len()), (2, 2));
}
