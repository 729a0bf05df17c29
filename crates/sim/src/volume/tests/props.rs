//! Property tests over random geometries of every volume kind.

use super::super::*;
use super::pieces;
use proptest::prelude::*;

/// A volume and its member sizes.
type Geometry = (Volume, Vec<u64>);

fn build(kind: VolumeKind, sizes: Vec<u64>) -> Geometry {
    match Volume::new(kind.clone(), &sizes) {
        Ok(v) => (v, sizes),
        Err(e) => panic!("{kind:?} over {sizes:?}: {e}"),
    }
}

fn concat() -> impl Strategy<Value = Geometry> {
    prop::collection::vec(1u64..200, 1..6).prop_map(|sizes| build(VolumeKind::Concat, sizes))
}

/// Members of one size (every profile's target over a system's LUNs), mapped by division.
fn concat_equal() -> impl Strategy<Value = Geometry> {
    (1u64..200, 1usize..6).prop_map(|(size, n)| build(VolumeKind::Concat, vec![size; n]))
}

/// Stripe of 8..=64 sectors over 2..=6 members of one to six stripes (and
/// odd tails).
fn stripe() -> impl Strategy<Value = Geometry> {
    (2usize..7, 3u32..7)
        .prop_flat_map(|(n, e)| {
            let s = 1u64 << e;
            (Just(s), prop::collection::vec(s..s * 6, n))
        })
        .prop_map(|(s, sizes)| build(VolumeKind::Stripe { stripe_sectors: s }, sizes))
}

fn multiplex() -> impl Strategy<Value = Geometry> {
    prop::collection::vec(1u64..300, 2..6).prop_map(|sizes| build(VolumeKind::Multiplex, sizes))
}

/// `copies` 1..=3, `copies..=copies + 2` failure groups of 1..=3 disks with
/// shuffled member ids, 1..=3 rows of 2048-sector AUs plus odd tails.
fn asm() -> impl Strategy<Value = Geometry> {
    (1u8..4, 0usize..3, 1usize..4, 1u64..4)
        .prop_flat_map(|(k, extra, per, rows)| {
            let d = (usize::from(k) + extra) * per;
            let needed = 2048 * u64::from(k);
            (
                Just((k, per)),
                Just((0..d as u32).collect::<Vec<_>>()).prop_shuffle(),
                prop::collection::vec(rows * needed..(rows + 1) * needed, d),
            )
        })
        .prop_map(|((k, per), ids, sizes)| {
            let failure_groups = ids.chunks(per).map(<[u32]>::to_vec).collect();
            let kind = VolumeKind::Asm {
                au_sectors: 2048,
                copies: k,
                failure_groups,
            };
            build(kind, sizes)
        })
}

fn any_volume() -> impl Strategy<Value = Geometry> {
    prop_oneof![concat(), concat_equal(), stripe(), multiplex(), asm()]
}

/// The (member, member_lba) of each copy of one logical sector, checking the
/// shape of the single-sector map.
fn locate(v: &Volume, lba: u64) -> Vec<(u32, u64)> {
    let p = pieces(v, lba, 1);
    assert_eq!(p.len(), usize::from(v.copies()), "{lba}: {p:?}");
    for (c, x) in p.iter().enumerate() {
        assert_eq!(
            (x.copy, x.sectors, x.extent),
            (c as u8, 1, 0),
            "{lba}: {p:?}"
        );
    }
    p.iter().map(|x| (x.member, x.member_lba)).collect()
}

/// Checks one map() call against the sector-by-sector mapping: extents in
/// logical order, each with every copy once (primary first), every copy
/// contiguous on its member, and together covering the request exactly.
fn check_cover(v: &Volume, lba: u64, sectors: u64) -> Result<(), TestCaseError> {
    let p = pieces(v, lba, sectors);
    let k = usize::from(v.copies());
    prop_assert_eq!(p.len() % k, 0);
    let mut pos = lba;
    for (e, group) in p.chunks(k).enumerate() {
        let len = group[0].sectors;
        prop_assert!(len > 0);
        for (c, x) in group.iter().enumerate() {
            prop_assert_eq!((x.copy, x.extent, x.sectors), (c as u8, e as u32, len));
            for o in 0..len {
                prop_assert_eq!(locate(v, pos + o)[c], (x.member, x.member_lba + o));
            }
        }
        pos += len;
    }
    prop_assert_eq!(pos, lba + sectors, "{:?}", p);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_sector_maps_once_per_copy_injectively((v, sizes) in any_volume()) {
        prop_assert_eq!(v.members(), sizes.len());
        let mut used: Vec<Vec<bool>> = sizes.iter().map(|&s| vec![false; s as usize]).collect();
        for lba in 0..v.capacity_sectors() {
            let locs = locate(&v, lba);
            for (c, &(m, at)) in locs.iter().enumerate() {
                let slot = used
                    .get_mut(m as usize)
                    .and_then(|u| u.get_mut(at as usize));
                prop_assert!(slot.is_some(), "{} copy {} -> {:?} out of range", lba, c, (m, at));
                if let Some(slot) = slot {
                    prop_assert!(!*slot, "{} copy {} -> {:?} already used", lba, c, (m, at));
                    *slot = true;
                }
            }
        }
    }

    #[test]
    fn map_covers_the_request_once_per_copy(
        (v, _) in any_volume(),
        start in any::<u64>(),
        len in 0u64..6000,
    ) {
        let lba = start % v.capacity_sectors();
        check_cover(&v, lba, len.min(v.capacity_sectors() - lba))?;
    }

    #[test]
    fn consecutive_stripes_go_to_consecutive_members((v, _) in stripe()) {
        let VolumeKind::Stripe { stripe_sectors: s } = *v.kind() else { unreachable!() };
        let n = v.members() as u64;
        for u in 0..v.capacity_sectors() / s {
            let p = pieces(&v, u * s, s);
            prop_assert_eq!(p.len(), 1);
            prop_assert_eq!((u64::from(p[0].member), p[0].member_lba), (u % n, u / n * s));
        }
    }

    #[test]
    fn random_8k_requests_spread_evenly_over_stripe_members(
        n in 2u64..9,
        e in 3u32..9,
        stripes in 64u64..4096,
        seed in any::<u64>(),
    ) {
        let s = 1u64 << e;
        let sizes = vec![s * stripes + 3; n as usize];
        let v = Volume::new(VolumeKind::Stripe { stripe_sectors: s }, &sizes)
            .expect("valid stripe");
        let mut rng = seed;
        let mut per_member = vec![0u64; n as usize];
        for _ in 0..20_000 {
            let lba = splitmix(&mut rng) % (v.capacity_sectors() - 16);
            for x in pieces(&v, lba, 16) {
                per_member[x.member as usize] += x.sectors;
            }
        }
        let mean = (20_000 * 16 / n) as f64;
        for (m, &got) in per_member.iter().enumerate() {
            prop_assert!(
                (got as f64 - mean).abs() <= mean / 10.0,
                "member {}: {:?}",
                m,
                per_member
            );
        }
    }

    #[test]
    fn asm_copies_in_distinct_groups_and_spread_evenly((v, _) in asm()) {
        let Layout::Asm { au, copies, disks, .. } = &v.layout else { unreachable!() };
        let (au, k, d) = (*au, usize::from(*copies), disks.len());
        let aus = v.capacity_sectors() / au;
        let mut count = vec![vec![0u64; d]; k];
        for a in 0..aus {
            let p = pieces(&v, a * au, au);
            prop_assert_eq!(p.len(), k);
            let mut groups: Vec<_> = p.iter().map(|x| v.failure_group(x.member)).collect();
            groups.sort();
            groups.dedup();
            prop_assert_eq!(groups.len(), k, "AU {} in too few failure groups: {:?}", a, p);
            for x in &p {
                prop_assert_eq!(x.sectors, au);
                count[usize::from(x.copy)][x.member as usize] += 1;
            }
        }
        // Whole rows: every disk holds exactly one of each copy per row.
        let rows = aus / d as u64;
        for (c, per_disk) in count.iter().enumerate() {
            prop_assert!(per_disk.iter().all(|&x| x == rows), "copy {}: {:?}", c, per_disk);
        }
    }
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
