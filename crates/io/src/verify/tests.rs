//! Stamp/check round trips, every fault kind, CRC32C vectors, concurrent bookkeeping, report.

use std::collections::HashSet;

use super::*;

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

fn stamped(len: usize, offset: u64, gen: u64) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    stamp(&mut buf, offset, gen);
    buf
}

fn fault(
    kind: FaultKind,
    offset: u64,
    expected_gen: u64,
    found_gen: u64,
    found_offset: u64,
) -> Fault {
    Fault {
        kind,
        offset,
        expected_gen,
        found_gen,
        found_offset,
    }
}

/// Bit-at-a-time reference, to cross-check the slicing-by-8 tables.
fn crc32c_bitwise(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn stamp_then_check_is_clean() {
    for len in [SECTOR, 4 * KIB, MIB] {
        for offset in [0u64, 512, 4096, 3 * MIB as u64, (1 << 40) + 8192] {
            for gen in [1u64, 7, u64::MAX] {
                let buf = stamped(len, offset, gen);
                assert_eq!(
                    check(&buf, offset, Some(gen)),
                    vec![],
                    "len {len} offset {offset} gen {gen}"
                );
                assert_eq!(
                    check(&buf, offset, None),
                    vec![],
                    "len {len} offset {offset}"
                );
            }
        }
    }
}

#[test]
fn header_layout() {
    let buf = stamped(8 * KIB, 65536, 42);
    for (i, s) in buf.chunks_exact(SECTOR).enumerate() {
        assert_eq!(&s[0..4], b"BLTS", "magic 0x5354_4C42 little-endian");
        assert_eq!(u16::from_le_bytes([s[4], s[5]]), 1);
        assert_eq!(u16::from_le_bytes([s[6], s[7]]), 0);
        assert_eq!(
            u64::from_le_bytes(s[8..16].try_into().unwrap()),
            65536 + (i * SECTOR) as u64
        );
        assert_eq!(u64::from_le_bytes(s[16..24].try_into().unwrap()), 42);
        assert_eq!(
            u32::from_le_bytes(s[24..28].try_into().unwrap()),
            8 * KIB as u32
        );
        let mut zeroed = s.to_vec();
        zeroed[28..32].fill(0);
        assert_eq!(
            u32::from_le_bytes(s[28..32].try_into().unwrap()),
            crc32c(&zeroed)
        );
    }
}

#[test]
fn fill_depends_on_offset_and_generation() {
    let a = stamped(SECTOR, 0, 1);
    assert_eq!(a, stamped(SECTOR, 0, 1), "deterministic");
    let payload = |b: &[u8]| b[HEADER..SECTOR].to_vec();
    assert_ne!(payload(&a), payload(&stamped(SECTOR, 0, 2)));
    assert_ne!(payload(&a), payload(&stamped(SECTOR, 512, 1)));
    let two = stamped(2 * SECTOR, 0, 1);
    assert_ne!(payload(&two[..SECTOR]), payload(&two[SECTOR..]));
    assert!(
        payload(&a).iter().filter(|&&b| b == 0).count() < 16,
        "fill is not zeros"
    );
}

#[test]
fn any_flipped_byte_is_one_corrupt_fault() {
    let offset = 1 << 20;
    let clean = stamped(3 * SECTOR, offset, 9);
    let bad_sector = offset + SECTOR as u64;
    for pos in 0..SECTOR {
        for mask in [0x01u8, 0x80, 0xFF] {
            let mut buf = clean.clone();
            buf[SECTOR + pos] ^= mask;
            for expected in [Some(9), Some(1)] {
                let faults = check(&buf, offset, expected);
                assert_eq!(
                    faults.len(),
                    1,
                    "pos {pos} mask {mask:#x} {expected:?}: {faults:?}"
                );
                assert_eq!(
                    faults[0].kind,
                    FaultKind::Corrupt,
                    "pos {pos} mask {mask:#x}"
                );
                assert_eq!(faults[0].offset, bad_sector);
            }
            if pos >= 4 {
                // Magic intact: the sector is storlab's, so it is checked even when untracked.
                let faults = check(&buf, offset, None);
                assert_eq!(faults.len(), 1, "pos {pos} mask {mask:#x} untracked");
                assert_eq!(faults[0].kind, FaultKind::Corrupt);
            }
        }
    }
}

#[test]
fn swapped_payloads_are_corrupt() {
    let mut buf = stamped(2 * SECTOR, 0, 1);
    let (a, b) = buf.split_at_mut(SECTOR);
    a[HEADER..].swap_with_slice(&mut b[HEADER..]);
    let faults = check(&buf, 0, Some(1));
    assert_eq!(
        faults
            .iter()
            .map(|f| (f.kind, f.offset))
            .collect::<Vec<_>>(),
        [(FaultKind::Corrupt, 0), (FaultKind::Corrupt, 512)]
    );
}

#[test]
fn block_checked_at_other_offset_is_misplaced() {
    let (a, b) = (40 * KIB as u64, 1 << 30);
    let buf = stamped(4 * KIB, a, 6);
    for expected in [Some(6), Some(2), Some(10), None] {
        let faults = check(&buf, b, expected);
        let want: Vec<Fault> = (0..8u64)
            .map(|i| {
                fault(
                    FaultKind::Misplaced,
                    b + 512 * i,
                    expected.unwrap_or(0),
                    6,
                    a + 512 * i,
                )
            })
            .collect();
        assert_eq!(faults, want, "{expected:?}");
    }
}

#[test]
fn older_generation_is_lost_newer_is_fine() {
    let buf = stamped(4 * KIB, 8192, 3);
    let faults = check(&buf, 8192, Some(5));
    let want: Vec<Fault> = (0..8u64)
        .map(|i| fault(FaultKind::Lost, 8192 + 512 * i, 5, 3, 8192 + 512 * i))
        .collect();
    assert_eq!(faults, want);
    assert_eq!(check(&buf, 8192, Some(3)), vec![]);
    assert_eq!(
        check(&buf, 8192, Some(2)),
        vec![],
        "newer than expected is not a fault"
    );
    assert_eq!(check(&buf, 8192, None), vec![]);
}

#[test]
fn torn_write_loses_only_the_old_sectors() {
    // The first half of a gen-5 write landed, the rest still holds gen 3.
    let mut buf = stamped(4 * KIB, 0, 3);
    buf[..2 * KIB].copy_from_slice(&stamped(4 * KIB, 0, 5)[..2 * KIB]);
    let faults = check(&buf, 0, Some(5));
    assert_eq!(faults.len(), 4);
    assert!(faults
        .iter()
        .all(|f| f.kind == FaultKind::Lost && f.found_gen == 3));
    assert_eq!(faults[0].offset, 2048);
    assert_eq!(check(&buf, 0, Some(3)), vec![]);
}

#[test]
fn unwritten_only_when_expected() {
    let zeros = vec![0u8; 4 * KIB];
    let faults = check(&zeros, 4096, Some(1));
    let want: Vec<Fault> = (0..8u64)
        .map(|i| fault(FaultKind::Unwritten, 4096 + 512 * i, 1, 0, 0))
        .collect();
    assert_eq!(faults, want);
    assert_eq!(check(&zeros, 4096, None), vec![]);

    // The preparation fill at the sector's own offset: the write never landed.
    let fill = crate::buffer::preparation_fill().as_slice();
    let at = (1 << 20) + 8 * KIB;
    let prepared = &fill[8 * KIB..12 * KIB];
    let faults = check(prepared, at as u64, Some(4));
    assert_eq!(faults.len(), 8);
    assert!(faults.iter().all(|f| f.kind == FaultKind::Unwritten));
    assert_eq!(check(prepared, at as u64, None), vec![]);

    // Other data where storlab's should be is not "unwritten": it is corrupt. So is the
    // fill of another offset.
    let foreign: Vec<u8> = (0..4 * KIB).map(|i| (i * 31 % 251) as u8 | 1).collect();
    let faults = check(&foreign, 0, Some(4));
    assert_eq!(faults.len(), 8);
    assert!(faults.iter().all(|f| f.kind == FaultKind::Corrupt));
    assert_eq!(check(&foreign, 0, None), vec![]);
    let shifted = check(prepared, at as u64 + 512, Some(4));
    assert!(shifted.iter().all(|f| f.kind == FaultKind::Corrupt));
}

#[test]
fn mixed_sectors_are_classified_one_by_one() {
    let offset = 16 * KIB as u64;
    let mut buf = stamped(4 * KIB, offset, 8);
    buf[512..1024].fill(0); // sector 1: unwritten
    buf[1024..1536].copy_from_slice(&stamped(512, 0, 8)); // sector 2: misplaced
    buf[1536..2048].copy_from_slice(&stamped(512, offset + 1536, 2)); // sector 3: lost
    buf[2048 + 100] ^= 0x10; // sector 4: corrupt
    let kinds: Vec<(FaultKind, u64)> = check(&buf, offset, Some(8))
        .iter()
        .map(|f| (f.kind, f.offset - offset))
        .collect();
    assert_eq!(
        kinds,
        [
            (FaultKind::Unwritten, 512),
            (FaultKind::Misplaced, 1024),
            (FaultKind::Lost, 1536),
            (FaultKind::Corrupt, 2048)
        ]
    );
    let untracked: Vec<FaultKind> = check(&buf, offset, None).iter().map(|f| f.kind).collect();
    assert_eq!(untracked, [FaultKind::Misplaced, FaultKind::Corrupt]);
}

#[test]
#[should_panic(expected = "multiple of 512")]
fn stamp_rejects_partial_sector() {
    stamp(&mut [0u8; 1000], 0, 1);
}

#[test]
#[should_panic(expected = "multiple of 512")]
fn check_rejects_partial_sector() {
    check(&[0u8; 100], 0, None);
}

#[test]
fn crc32c_known_vectors() {
    assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    assert_eq!(crc32c(b""), 0);
    // RFC 3720 (iSCSI) appendix B.4.
    assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
    assert_eq!(crc32c(&[0xFFu8; 32]), 0x62A8_AB43);
    let ascending: Vec<u8> = (0..32).collect();
    assert_eq!(crc32c(&ascending), 0x46DD_794E);
    let descending: Vec<u8> = (0..32).rev().collect();
    assert_eq!(crc32c(&descending), 0x113F_DB5C);
}

#[test]
fn crc32c_matches_bitwise_reference_at_every_length_and_alignment() {
    let data: Vec<u8> = (0..600u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    for start in 0..9 {
        for len in 0..(data.len() - start).min(80) {
            let part = &data[start..start + len];
            assert_eq!(
                crc32c(part),
                crc32c_bitwise(part),
                "start {start} len {len}"
            );
        }
    }
    assert_eq!(crc32c(&data), crc32c_bitwise(&data));
}

#[test]
fn generations_track_completed_writes() {
    let g = Generations::new(10 * 4096 + 100, 4096);
    assert_eq!(g.block_bytes(), 4096);
    assert_eq!(g.blocks.len(), 11, "a partial last block is tracked");
    assert_eq!(g.expected(0), None);
    assert_eq!(g.expected(50 * 4096), None, "past the target");

    g.completed(8192, 16384, 4); // blocks 2..=5
    assert_eq!(g.expected(8191), None);
    for off in [8192, 12000, 24575] {
        assert_eq!(g.expected(off), Some(4), "{off}");
    }
    assert_eq!(g.expected(24576), None);

    g.completed(12288, 4096, 2); // older completion does not go back
    assert_eq!(g.expected(12288), Some(4));
    g.completed(12288, 4096, 9);
    assert_eq!(g.expected(12288), Some(9));
    assert_eq!(g.expected(8192), Some(4));

    g.completed(40960, 1 << 20, 3); // runs past the end: clipped
    assert_eq!(g.expected(40960), Some(3));
    g.completed(1 << 30, 4096, 3); // wholly past the end: ignored
    g.completed(0, 0, 3); // empty: ignored
    assert_eq!(g.expected(0), None);
    g.completed(u64::MAX - 10, 100, 3); // no overflow
}

#[test]
fn generations_of_empty_target() {
    let g = Generations::new(0, 512);
    g.completed(0, 512, 1);
    assert_eq!(g.expected(0), None);
    assert!(format!("{g:?}").contains("blocks: 0"));
}

#[test]
fn next_gen_is_unique_across_threads() {
    let g = Generations::new(4096, 4096);
    let all: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| (0..10_000).map(|_| g.next_gen()).collect::<Vec<u64>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(all.len(), 40_000);
    let unique: HashSet<u64> = all.iter().copied().collect();
    assert_eq!(unique.len(), 40_000, "duplicates handed out");
    assert_eq!(all.iter().min(), Some(&1));
    assert_eq!(all.iter().max(), Some(&40_000));
}

#[test]
fn concurrent_completions_keep_the_max() {
    let blocks = 64u64;
    let g = Generations::new(blocks * 4096, 4096);
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let g = &g;
            s.spawn(move || {
                // Each thread completes every block many times, in its own order.
                for round in 0..200u64 {
                    for b in 0..blocks {
                        let block = (b * (2 * t + 1) + round) % blocks;
                        let gen = round * 4 + t + 1 + block; // max is round 199, t 3
                        g.completed(block * 4096, 4096, gen);
                    }
                }
            });
        }
    });
    for b in 0..blocks {
        assert_eq!(g.expected(b * 4096), Some(199 * 4 + 3 + 1 + b), "block {b}");
    }
}

#[test]
fn generations_drive_check_end_to_end() {
    let g = Generations::new(64 * KIB as u64, 4096);
    let mut disk = vec![0u8; 64 * KIB];
    for (offset, len) in [(0usize, 8192usize), (4096, 4096), (16384, 16384), (0, 4096)] {
        let gen = g.next_gen();
        stamp(&mut disk[offset..offset + len], offset as u64, gen);
        g.completed(offset as u64, len as u64, gen);
    }
    let mut report = VerifyReport::default();
    for b in (0..64 * KIB).step_by(4096) {
        report.add(&check(&disk[b..b + 4096], b as u64, g.expected(b as u64)));
    }
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.blocks_checked, 16);

    // Lose the latest write to block 1 by restoring its older contents.
    let stale = stamped(4096, 4096, 1);
    disk[4096..8192].copy_from_slice(&stale);
    let faults = check(&disk[4096..8192], 4096, g.expected(4096));
    assert_eq!(faults.len(), 8);
    assert!(faults
        .iter()
        .all(|f| f.kind == FaultKind::Lost && f.expected_gen == 2 && f.found_gen == 1));
}

#[test]
fn report_counts_and_caps() {
    let mut r = VerifyReport::default();
    assert!(r.is_clean());
    r.add(&[]);
    assert!(r.is_clean());
    assert_eq!(r.blocks_checked, 1);

    let kinds = [
        FaultKind::Corrupt,
        FaultKind::Misplaced,
        FaultKind::Lost,
        FaultKind::Unwritten,
    ];
    let faults: Vec<Fault> = (0..15u64)
        .map(|i| fault(kinds[i as usize % 4], i * 512, 1, 0, 0))
        .collect();
    r.add(&faults);
    assert_eq!((r.corrupt, r.misplaced, r.lost, r.unwritten), (4, 4, 4, 3));
    assert_eq!(r.faults(), 15);
    assert!(!r.is_clean());
    r.add(&faults);
    assert_eq!(r.blocks_checked, 3);
    assert_eq!((r.corrupt, r.misplaced, r.lost, r.unwritten), (8, 8, 8, 6));
    assert_eq!(r.first_faults.len(), MAX_FIRST_FAULTS);
    assert_eq!(r.first_faults[..15], faults[..]);
    assert_eq!(
        r.first_faults[15..],
        faults[..5],
        "the earliest faults are kept"
    );

    let mut total = VerifyReport::default();
    let mut small = VerifyReport::default();
    small.add(&faults[..2]);
    total.merge(&small);
    total.merge(&r);
    assert_eq!(total.blocks_checked, 4);
    assert_eq!(total.faults(), 32);
    assert_eq!(total.first_faults.len(), MAX_FIRST_FAULTS);
    assert_eq!(total.first_faults[..2], faults[..2]);
    assert_eq!(total.first_faults[2..], r.first_faults[..18]);

    let mut clean = VerifyReport::default();
    clean.merge(&VerifyReport::default());
    assert_eq!(clean, VerifyReport::default());
}
