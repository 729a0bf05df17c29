//! Test helpers shared by the RAID test modules.

use super::*;
use proptest::prelude::*;
use std::collections::HashSet;

use RaidLevel::*;

pub(super) fn layout(level: RaidLevel, disks: u32, unit: u64, disk_sectors: u64) -> Layout {
    match Layout::new(level, disks, unit, disk_sectors) {
        Ok(l) => l,
        Err(e) => panic!("test layout rejected: {e}"),
    }
}

/// Random valid small geometry of any level.
pub(super) fn geometry() -> impl Strategy<Value = Layout> {
    (0usize..6, 2u32..=12, 3u32..=7, 1000u64..5000).prop_filter_map(
        "valid geometry",
        |(li, d, e, disk_sectors)| {
            let level = RaidLevel::ALL[li];
            let disks = match level {
                Raid1 => 2,
                Raid10 => (d / 2 * 2).max(4),
                Raid5 => d.max(3),
                Raid6 => d.max(4),
                Jbod | Raid0 => d,
            };
            Layout::new(level, disks, 1 << e, disk_sectors).ok()
        },
    )
}

/// Geometry plus a request `(lba, sectors)` inside its capacity.
pub(super) fn request() -> impl Strategy<Value = (Layout, u64, u64)> {
    (geometry(), any::<u64>(), 0u64..2000).prop_map(|(l, start, len)| {
        let lba = start % l.capacity_sectors();
        let sectors = len.min(l.capacity_sectors() - lba);
        (l, lba, sectors)
    })
}

/// Every sector touched by `ios`, asserting none is touched twice.
pub(super) fn sectors_of(ios: &[DiskIo]) -> HashSet<Location> {
    let mut set = HashSet::new();
    for io in ios {
        assert!(io.sectors > 0, "empty op {io:?}");
        for x in io.disk_lba..io.disk_lba + io.sectors {
            let fresh = set.insert(Location {
                disk: io.disk,
                disk_lba: x,
            });
            assert!(fresh, "sector {x} of disk {} touched twice", io.disk);
        }
    }
    set
}

/// No two ops on one disk that should have been merged.
pub(super) fn assert_maximal(ios: &[DiskIo]) {
    for a in ios {
        for b in ios {
            assert!(
                a.disk != b.disk || a.disk_lba + a.sectors != b.disk_lba,
                "unmerged neighbours {a:?} {b:?}"
            );
        }
    }
}

pub(super) fn is_parity(l: &Layout, loc: Location) -> bool {
    let stripe = loc.disk_lba / l.stripe_unit_sectors();
    match l.parity_disks(stripe) {
        Some((p, q)) => loc.disk == p || Some(loc.disk) == q,
        None => false,
    }
}
