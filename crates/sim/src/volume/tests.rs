//! Unit tests of the volume mappings; property tests are in `props.rs`.

use super::*;

mod props;

/// Pieces of one map() call.
pub(super) fn pieces(v: &Volume, lba: u64, sectors: u64) -> Vec<VolPiece> {
    let mut out = Vec::new();
    v.map(lba, sectors, &mut out);
    out
}

fn piece(member: u32, member_lba: u64, sectors: u64, copy: u8, extent: u32) -> VolPiece {
    VolPiece {
        member,
        member_lba,
        sectors,
        copy,
        extent,
    }
}

fn err(kind: VolumeKind, sizes: &[u64]) -> String {
    match Volume::new(kind, sizes) {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e.to_string(),
    }
}

fn asm(au: u64, copies: u8, groups: &[&[u32]]) -> VolumeKind {
    VolumeKind::Asm {
        au_sectors: au,
        copies,
        failure_groups: groups.iter().map(|g| g.to_vec()).collect(),
    }
}

#[test]
fn concat_request_across_a_member_boundary_gives_two_pieces() {
    let v = Volume::new(VolumeKind::Concat, &[100, 50, 70]).expect("valid");
    assert_eq!(v.capacity_sectors(), 220);
    assert_eq!((v.members(), v.copies()), (3, 1));
    assert_eq!(
        pieces(&v, 90, 20),
        [piece(0, 90, 10, 0, 0), piece(1, 0, 10, 0, 1)]
    );
    // Ending exactly on a boundary stays one piece.
    assert_eq!(pieces(&v, 100, 50), [piece(1, 0, 50, 0, 0)]);
    assert_eq!(
        pieces(&v, 95, 125),
        [
            piece(0, 95, 5, 0, 0),
            piece(1, 0, 50, 0, 1),
            piece(2, 0, 70, 0, 2)
        ]
    );
    assert!(pieces(&v, 7, 0).is_empty());
}

#[test]
fn concat_of_equal_members_maps_like_any_concat() {
    let v = Volume::new(VolumeKind::Concat, &[100, 100, 100]).expect("valid");
    assert_eq!(pieces(&v, 250, 8), [piece(2, 50, 8, 0, 0)]);
    assert_eq!(pieces(&v, 92, 8), [piece(0, 92, 8, 0, 0)]);
    assert_eq!(pieces(&v, 100, 1), [piece(1, 0, 1, 0, 0)]);
    assert_eq!(
        pieces(&v, 95, 10),
        [piece(0, 95, 5, 0, 0), piece(1, 0, 5, 0, 1)]
    );
    assert!(pieces(&v, 7, 0).is_empty());
}

#[test]
fn stripe_round_robin_and_capacity() {
    let kind = VolumeKind::Stripe { stripe_sectors: 8 };
    let v = Volume::new(kind.clone(), &[20, 30, 17]).expect("valid");
    // Smallest member 17 -> 16 usable sectors each.
    assert_eq!(v.capacity_sectors(), 48);
    assert_eq!(v.kind(), &kind);
    assert_eq!(
        pieces(&v, 4, 30),
        [
            piece(0, 4, 4, 0, 0),
            piece(1, 0, 8, 0, 1),
            piece(2, 0, 8, 0, 2),
            piece(0, 8, 8, 0, 3),
            piece(1, 8, 2, 0, 4),
        ]
    );
    assert_eq!(v.failure_group(0), None);
}

#[test]
fn multiplex_write_gets_one_piece_per_member() {
    let v = Volume::new(VolumeKind::Multiplex, &[500, 300, 400]).expect("valid");
    assert_eq!((v.capacity_sectors(), v.copies(), v.members()), (300, 3, 3));
    assert_eq!(
        pieces(&v, 10, 290),
        [
            piece(0, 10, 290, 0, 0),
            piece(1, 10, 290, 1, 0),
            piece(2, 10, 290, 2, 0)
        ]
    );
}

#[test]
fn asm_normal_redundancy_layout_by_hand() {
    let au = 2048;
    // Member ids deliberately not in group order.
    let v = Volume::new(asm(au, 2, &[&[3, 0], &[1, 2]]), &[4 * au; 4]).expect("valid");
    // 2 rows of 4 AUs.
    assert_eq!(v.capacity_sectors(), 8 * au);
    assert_eq!(v.copies(), 2);
    assert_eq!(
        (0..4).map(|m| v.failure_group(m)).collect::<Vec<_>>(),
        [Some(0), Some(1), Some(1), Some(0)]
    );
    assert_eq!(v.failure_group(4), None);
    // Disks in order: 3, 0 (group 0), 1, 2 (group 1).
    // AU 0: row 0, disk 0 (member 3); mirror group 1 index 0 (member 1).
    assert_eq!(
        pieces(&v, 5, 10),
        [piece(3, 5, 10, 0, 0), piece(1, au + 5, 10, 1, 0)]
    );
    // AU 2: row 0, disk 2 (member 1, group 1 index 0); mirror group 0 index 0.
    assert_eq!(
        pieces(&v, 2 * au, 1),
        [piece(1, 0, 1, 0, 0), piece(3, au, 1, 1, 0)]
    );
    // AU 5: row 1, disk 1 (member 0); mirror group 1 index (1 + 1) % 2 = 0.
    // Row 1 uses slots 2 (primary) and 3 (mirror).
    assert_eq!(
        pieces(&v, 5 * au + 7, 1),
        [piece(0, 2 * au + 7, 1, 0, 0), piece(1, 3 * au + 7, 1, 1, 0)]
    );
    // A request across an AU boundary: two extents, two copies each.
    let p = pieces(&v, au - 1, 2);
    assert_eq!(
        p,
        [
            piece(3, au - 1, 1, 0, 0),
            piece(1, 2 * au - 1, 1, 1, 0),
            piece(0, 0, 1, 0, 1),
            piece(2, au, 1, 1, 1)
        ]
    );
}

#[test]
fn asm_high_redundancy_three_groups() {
    let au = 2048;
    let groups: &[&[u32]] = &[&[0, 1], &[2, 3], &[4, 5]];
    // Member 5 is larger; the smallest (3 * au * 2 rows + change) sets rows.
    let mut sizes = [6 * au + 100; 6];
    sizes[5] = 50 * au;
    let v = Volume::new(asm(au, 3, groups), &sizes).expect("valid");
    assert_eq!(v.copies(), 3);
    assert_eq!(v.capacity_sectors(), 2 * 6 * au);
    let mut count = [[0u32; 6]; 3];
    for a in 0..12 {
        let p = pieces(&v, a * au, au);
        assert_eq!(p.len(), 3);
        let mut groups_seen = p
            .iter()
            .map(|x| v.failure_group(x.member))
            .collect::<Vec<_>>();
        groups_seen.sort();
        assert_eq!(groups_seen, [Some(0), Some(1), Some(2)], "AU {a}: {p:?}");
        for (c, x) in p.iter().enumerate() {
            assert_eq!((x.copy, x.sectors, x.extent), (c as u8, au, 0));
            assert_eq!(x.member_lba % (3 * au), c as u64 * au);
            count[c][x.member as usize] += 1;
        }
    }
    // Two rows: every disk holds 2 primaries, 2 first and 2 second mirrors.
    assert_eq!(count, [[2; 6]; 3]);
}

#[test]
fn asm_external_redundancy_is_one_copy() {
    let v = Volume::new(asm(2048, 1, &[&[0], &[1]]), &[4096, 5000]).expect("valid");
    assert_eq!((v.copies(), v.capacity_sectors()), (1, 4 * 2048));
    assert_eq!(pieces(&v, 2048, 3), [piece(1, 0, 3, 0, 0)]);
}

#[test]
fn error_messages_state_rule_and_value() {
    let stripe = |s| VolumeKind::Stripe { stripe_sectors: s };
    let stripe_rule = "stripe size must be a power of two number of sectors \
                       from 8 (4 KiB) to 131072 (64 MiB); got ";
    let au_rule = "allocation unit must be a power of two from 1 MiB to 64 MiB \
                   (2048 to 131072 sectors); got ";
    let check = |kind: VolumeKind, sizes: &[u64], want: &str| {
        assert_eq!(err(kind.clone(), sizes), want, "{kind:?} {sizes:?}");
    };
    check(
        VolumeKind::Concat,
        &[],
        "a concatenated volume needs at least 1 member; got 0",
    );
    check(
        stripe(8),
        &[64],
        "a striped volume needs at least 2 members; got 1",
    );
    check(
        VolumeKind::Multiplex,
        &[9],
        "a multiplexed volume needs at least 2 members; got 1",
    );
    check(
        VolumeKind::Multiplex,
        &[9; 256],
        "a multiplexed volume can have at most 255 members; got 256",
    );
    check(
        VolumeKind::Concat,
        &[5, 0],
        "members must have at least 1 sector; member 1 has 0",
    );
    check(stripe(100), &[800; 2], &format!("{stripe_rule}100"));
    check(stripe(4), &[800; 2], &format!("{stripe_rule}4"));
    check(
        stripe(262_144),
        &[1 << 20; 2],
        &format!("{stripe_rule}262144"),
    );
    check(
        stripe(8),
        &[8, 9, 4],
        "members of a striped volume must be at least one stripe; member 2 has 4 sectors",
    );
    check(
        stripe(1 << 17),
        &[u64::MAX; 2],
        "volume capacity overflows 64-bit sector addresses",
    );
    check(
        VolumeKind::Concat,
        &[u64::MAX, 1],
        "volume capacity overflows 64-bit sector addresses",
    );
    check(
        asm(2048, 2, &[&[0, 1]]),
        &[1 << 20; 2],
        "ASM normal redundancy needs at least 2 failure groups; got 1",
    );
    check(
        asm(2048, 3, &[&[0], &[1]]),
        &[1 << 20; 2],
        "ASM high redundancy needs at least 3 failure groups; got 2",
    );
    check(
        asm(2048, 4, &[&[0], &[1]]),
        &[1 << 20; 2],
        "ASM copies must be 1 (external), 2 (normal) or 3 (high redundancy); got 4",
    );
    check(
        asm(2048, 2, &[&[0, 1, 2], &[3, 4]]),
        &[1 << 20; 5],
        "failure groups must have the same number of disks; got 3 and 2",
    );
    check(
        asm(2048, 2, &[&[0, 1], &[2, 3]]),
        &[1 << 20; 5],
        "member 4 is in no failure group",
    );
    check(
        asm(2048, 2, &[&[0, 4], &[2, 4]]),
        &[1 << 20; 5],
        "member 4 is in two failure groups (0 and 1)",
    );
    check(
        asm(2048, 2, &[&[0, 0], &[1, 2]]),
        &[1 << 20; 3],
        "member 0 is listed twice in failure group 0",
    );
    check(
        asm(2048, 2, &[&[0], &[7]]),
        &[1 << 20; 2],
        "failure group 1 names member 7, but there are only 2 members",
    );
    check(
        asm(2048, 2, &[&[], &[]]),
        &[1 << 20; 2],
        "failure group 0 has no disks",
    );
    check(
        asm(3000, 2, &[&[0], &[1]]),
        &[1 << 20; 2],
        &format!("{au_rule}3000 sectors"),
    );
    check(
        asm(1024, 2, &[&[0], &[1]]),
        &[1 << 20; 2],
        &format!("{au_rule}1024 sectors"),
    );
    check(
        asm(2048, 2, &[&[0], &[1], &[2]]),
        &[u64::MAX; 3],
        "volume capacity overflows 64-bit sector addresses",
    );
    check(
        asm(2048, 0, &[&[0], &[1]]),
        &[1 << 20; 2],
        "ASM copies must be 1 (external), 2 (normal) or 3 (high redundancy); got 0",
    );
    check(
        asm(2048, 2, &[]),
        &[],
        "an ASM disk group needs at least 1 member; got 0",
    );
    check(
        asm(2048, 2, &[&[0], &[1]]),
        &[1 << 20, 4095],
        "members too small for one allocation unit per copy: \
         member 1 has 4095 sectors, needs at least 4096 (2 x 2048)",
    );
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "beyond capacity")]
fn request_beyond_capacity_is_a_caller_bug() {
    let v = Volume::new(VolumeKind::Concat, &[10]).expect("valid");
    pieces(&v, 5, 6);
}
