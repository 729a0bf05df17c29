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
    let mut used = [0u64; 16];
    let data = v.data_sectors_per_disk();
    for lba in (0..data).step_by(2048) {
        v.plan_rebuild((x, lba, 2048.min(data - lba)), &mut h, &mut used, &mut plan)
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

/// A VRAID 5 virtual disk of `size_sectors` over 16 disks (two sets of 8) starting `offset`
/// sectors into each disk, with `sparing`'s reserve at the disks' end.
fn layout_at(offset: u64, size_sectors: u64, sparing: Sparing) -> SetLayout {
    let reserve = reserve_sectors(DISK, 8, sparing);
    SetLayout::new(SetParams {
        level: RaidLevel::Raid5,
        unit_sectors: UNIT,
        segment_sectors: SEGMENT,
        sets: split_sets(16, 8),
        size_sectors,
        reserve_at: DISK - reserve - offset,
        reserve_sectors: reserve,
    })
    .expect("layout")
}

/// Rebuilds all of disk `x` of `v` (at `offset` on each disk), allocating from `used`:
/// returns each write as (disk, first absolute sector, end).
fn rebuild_all(
    v: &SetLayout,
    offset: u64,
    x: u32,
    h: &mut SetHealth,
    used: &mut [u64],
) -> Vec<(u32, u64, u64)> {
    let mut plan = WritePlan::default();
    let mut writes = Vec::new();
    let data = v.data_sectors_per_disk();
    for lba in (0..data).step_by(2048) {
        v.plan_rebuild((x, lba, 2048.min(data - lba)), h, used, &mut plan)
            .expect("rebuild plan");
        for w in &plan.writes {
            let at = offset + w.disk_lba;
            writes.push((w.disk, at, at + w.sectors));
        }
    }
    writes
}

#[test]
fn rebuilt_units_of_different_virtual_disks_get_their_own_reserve_space() {
    let size = 1 << 21;
    let a = layout_at(0, size, Sparing::Single);
    let offset = a.data_sectors_per_disk();
    let b = layout_at(offset, size, Sparing::Single);
    let (set, in_set) = a.set_of(3).expect("in a set");
    let mut used = [0u64; 16];
    let mut writes = Vec::new();
    for (v, off) in [(&a, 0), (&b, offset)] {
        let mut h = SetHealth::new(v.set_count());
        h.failed[set].mark(in_set).expect("markable");
        writes.extend(rebuild_all(v, off, 3, &mut h, &mut used));
    }
    let reserve_at = DISK - reserve_sectors(DISK, 8, Sparing::Single);
    writes.sort_unstable();
    for w in &writes {
        assert!(
            w.1 >= reserve_at && w.2 <= DISK,
            "outside the reserve: {w:?}"
        );
    }
    for pair in writes.windows(2) {
        let (x, y) = (pair[0], pair[1]);
        assert!(
            x.0 != y.0 || x.2 <= y.1,
            "two rebuilt units share {x:?} and {y:?}"
        );
    }
    // Both virtual disks' units are all placed: 2 x the failed disk's data.
    let total: u64 = writes.iter().map(|w| w.2 - w.1).sum();
    assert_eq!(total, 2 * a.data_sectors_per_disk());
}

#[test]
fn a_second_failure_is_rebuilt_onto_working_disks_only() {
    let v = layout_at(0, 1 << 21, Sparing::Double);
    let mut h = SetHealth::new(v.set_count());
    let mut used = [0u64; 16];
    let (set, x) = v.set_of(2).expect("in a set");
    h.failed[set].mark(x).expect("markable");
    rebuild_all(&v, 0, 2, &mut h, &mut used);
    h.failed[set].clear(x);
    h.rebuilt[set].mark(x).expect("markable");
    // Disk 5 fails next: disk 2 is gone, so none of its units may go there, though the
    // stripes' preferred spare disk is disk 2 for some of them.
    let (_, y) = v.set_of(5).expect("in a set");
    h.failed[set].mark(y).expect("markable");
    let writes = rebuild_all(&v, 0, 5, &mut h, &mut used);
    assert!(!writes.is_empty());
    for w in &writes {
        assert!(
            w.0 != 2 && w.0 != 5,
            "a rebuilt unit onto a failed disk: {w:?}"
        );
    }
    // Disk 5's rebuilt units never share reserve space with disk 2's.
    let mut all: Vec<_> = h.spares[set].values().copied().collect();
    all.sort_unstable();
    assert!(all.windows(2).all(|p| p[0] != p[1]));
}
