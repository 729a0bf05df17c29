//! Tests of the safety checks. Signatures here; device checks in
//! `tests/devices.rs`, file markers in `tests/files.rs`.

use super::signature::describe;
use super::*;
use std::io::Cursor;

mod contents;
mod devices;
mod files;

fn scratch_dir() -> tempfile::TempDir {
    // In the current directory (a real disk file system), where xattrs are likely supported.
    tempfile::Builder::new()
        .prefix(".safety-test-")
        .tempdir_in(".")
        .expect("temp dir in .")
}

fn io_message(r: Result<impl std::fmt::Debug, SafetyError>) -> String {
    match r {
        Err(e @ SafetyError::Io { .. }) => e.to_string(),
        other => panic!("expected SafetyError::Io, got {other:?}"),
    }
}

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;
const MD_MAGIC: u32 = 0xa92b_4efc;

fn sig(len: usize, patches: &[(usize, &[u8])]) -> Option<&'static str> {
    let mut img = vec![0u8; len];
    for (off, bytes) in patches {
        img[*off..off + bytes.len()].copy_from_slice(bytes);
    }
    detect_signature(&mut Cursor::new(img)).expect("reading an in-memory image")
}

const BOOT_SIG: (usize, &[u8]) = (510, &[0x55, 0xaa]);

#[test]
fn zero_and_short_images_have_no_signature() {
    assert_eq!(sig(MIB, &[]), None);
    assert_eq!(sig(0, &[]), None);
    assert_eq!(sig(100, &[(0, b"XFS")]), None);
}

#[test]
fn random_images_have_no_signature() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..8 {
        let mut img = vec![0u8; MIB];
        for word in img.chunks_exact_mut(8) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            word.copy_from_slice(&state.to_le_bytes());
        }
        assert_eq!(
            detect_signature(&mut Cursor::new(img)).expect("in memory"),
            None
        );
    }
}

/// A reader that, like a block device, refuses to seek past its end.
struct StrictSeek(Cursor<Vec<u8>>);

impl io::Read for StrictSeek {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl io::Seek for StrictSeek {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        let len = self.0.get_ref().len() as u64;
        match pos {
            io::SeekFrom::Start(off) if off > len => {
                Err(io::Error::from_raw_os_error(libc::EINVAL))
            }
            _ => self.0.seek(pos),
        }
    }
}

#[test]
fn never_seeks_past_the_end_of_a_small_device() {
    for len in [0, 100, 511, 4096, 70 * KIB, 200 * KIB] {
        let mut dev = StrictSeek(Cursor::new(vec![0u8; len]));
        assert_eq!(
            detect_signature(&mut dev).expect("no seek past the end"),
            None,
            "{len} bytes"
        );
    }
    let mut img = vec![0u8; 4096];
    img[1080..1082].copy_from_slice(&[0x53, 0xef]);
    assert_eq!(
        detect_signature(&mut StrictSeek(Cursor::new(img))).expect("read"),
        Some("ext2/3/4")
    );
}

#[test]
fn detects_file_systems() {
    let ext = [
        (1080, &[0x53, 0xef][..]),
        (1024 + 0x18, &2u32.to_le_bytes()),
    ];
    assert_eq!(sig(MIB, &ext), Some("ext2/3/4"));
    assert_eq!(sig(MIB, &[(0, b"XFSB")]), Some("xfs"));
    assert_eq!(sig(MIB, &[(0x10040, b"_BHRfS_M")]), Some("btrfs"));
    assert_eq!(
        sig(MIB, &[(1024, &0xf2f5_2010u32.to_le_bytes())]),
        Some("f2fs")
    );
    assert_eq!(sig(MIB, &[(3, b"NTFS    "), BOOT_SIG]), Some("ntfs"));
    assert_eq!(sig(MIB, &[(3, b"EXFAT   "), BOOT_SIG]), Some("exfat"));
    assert_eq!(sig(MIB, &[(0x52, b"FAT32   "), BOOT_SIG]), Some("vfat"));
    assert_eq!(sig(MIB, &[(0x36, b"FAT16   "), BOOT_SIG]), Some("vfat"));
    assert_eq!(sig(MIB, &[(0x8001, b"CD001")]), Some("iso9660"));
    let zfs_le = 0x00ba_b10cu64.to_le_bytes();
    let zfs_be = 0x00ba_b10cu64.to_be_bytes();
    assert_eq!(sig(MIB, &[(128 * KIB + 5 * KIB, &zfs_le)]), Some("zfs"));
    assert_eq!(sig(MIB, &[(255 * KIB, &zfs_be)]), Some("zfs"));
}

#[test]
fn weak_magic_alone_is_not_enough() {
    // ext magic with an impossible block size (log2 > 6).
    assert_eq!(sig(MIB, &[(1080, &[0x53, 0xef]), (1048, &[0xff; 4])]), None);
    // FAT label without the boot sector signature.
    assert_eq!(sig(MIB, &[(0x52, b"FAT32   ")]), None);
    // LVM label without the LVM2 type.
    assert_eq!(sig(MIB, &[(512, b"LABELONE")]), None);
    // md magic with a wrong major version.
    assert_eq!(
        sig(MIB, &[(4096, &MD_MAGIC.to_le_bytes()), (4100, &[7])]),
        None
    );
    // swap magic one byte off the page end.
    assert_eq!(sig(MIB, &[(4096 - 11, b"SWAPSPACE2")]), None);
}

#[test]
fn detects_swap_at_every_page_size() {
    for page in [4, 8, 16, 64].map(|k| k * KIB) {
        assert_eq!(
            sig(MIB, &[(page - 10, b"SWAPSPACE2")]),
            Some("swap"),
            "page {page}"
        );
    }
    assert_eq!(sig(MIB, &[(4086, b"SWAP-SPACE")]), Some("swap"));
    assert_eq!(sig(MIB, &[(4086, b"S1SUSPEND\0")]), Some("swap"));
}

#[test]
fn detects_luks_and_lvm() {
    assert_eq!(sig(MIB, &[(0, b"LUKS\xba\xbe\x00\x02")]), Some("luks"));
    for sector in 0..4 {
        let lvm = [
            (sector * 512, &b"LABELONE"[..]),
            (sector * 512 + 24, b"LVM2 001"),
        ];
        assert_eq!(sig(MIB, &lvm), Some("LVM2"), "label in sector {sector}");
    }
}

#[test]
fn detects_mdraid_superblocks_at_start_and_end() {
    let (magic, v1, v0) = (
        MD_MAGIC.to_le_bytes(),
        1u32.to_le_bytes(),
        0u32.to_le_bytes(),
    );
    assert_eq!(sig(MIB, &[(0, &magic), (4, &v1)]), Some("mdraid"), "1.1");
    assert_eq!(
        sig(MIB, &[(4096, &magic), (4100, &v1)]),
        Some("mdraid"),
        "1.2"
    );
    let size = MIB + 3000; // not 4 KiB aligned, so the rounding matters
    let v10 = (size - 8 * KIB) & !(4 * KIB - 1);
    assert_eq!(
        sig(size, &[(v10, &magic), (v10 + 4, &v1)]),
        Some("mdraid"),
        "1.0"
    );
    let size = MIB + 5000;
    let v090 = (size & !(64 * KIB - 1)) - 64 * KIB;
    assert_eq!(
        sig(size, &[(v090, &magic), (v090 + 4, &v0)]),
        Some("mdraid"),
        "0.90"
    );
    let magic_be = MD_MAGIC.to_be_bytes();
    assert_eq!(
        sig(size, &[(v090, &magic_be)]),
        Some("mdraid"),
        "0.90 big-endian"
    );
}

#[test]
fn detects_partition_tables() {
    let protective = [BOOT_SIG, (446 + 4, &[0xee][..])];
    assert_eq!(
        sig(MIB, &[protective[0], protective[1], (512, b"EFI PART")]),
        Some("gpt partition table")
    );
    assert_eq!(
        sig(MIB, &[(4096, b"EFI PART")]),
        Some("gpt partition table")
    );
    let linux_partition = [0x80, 0, 0, 0, 0x83];
    assert_eq!(
        sig(MIB, &[BOOT_SIG, (446, &linux_partition)]),
        Some("dos partition table")
    );
    // 0x55AA with garbage where the entries' boot flags are: boot code, not a table.
    assert_eq!(sig(MIB, &[BOOT_SIG, (446, &[0x12])]), None);
}

#[test]
fn describes_signatures_with_articles() {
    assert_eq!(describe("ext2/3/4"), "an ext2/3/4 file system");
    assert_eq!(describe("xfs"), "an xfs file system");
    assert_eq!(describe("btrfs"), "a btrfs file system");
    assert_eq!(describe("LVM2"), "an LVM2 physical volume");
    assert_eq!(describe("gpt partition table"), "a gpt partition table");
}

#[test]
fn detects_less_common_file_systems_and_volumes() {
    let minix_v1 = [(KIB, &[0x60, 0x55][..]), (KIB + 0x10, &[0x8f, 0x13, 1, 0])];
    assert_eq!(sig(MIB, &minix_v1), Some("minix"));
    let minix_v3 = [(KIB, &[0x60, 0x55][..]), (KIB + 0x18, &[0x5a, 0x4d])];
    assert_eq!(sig(MIB, &minix_v3), Some("minix"));
    let cramfs = 0x28cd_3d45u32.to_le_bytes();
    assert_eq!(sig(MIB, &[(0, &cramfs)]), Some("cramfs"));
    assert_eq!(sig(MIB, &[(528, b"Compressed ROMFS")]), Some("cramfs"));
    assert_eq!(sig(MIB, &[(0, &[0xce, 0xfa, 0xad, 0x1b])]), Some("bfs"));
    assert_eq!(sig(MIB, &[(0, b"hsqs")]), Some("squashfs"));
    assert_eq!(sig(MIB, &[(0, b"-rom1fs-")]), Some("romfs"));
    let erofs = 0xe0f5_e1e2u32.to_le_bytes();
    assert_eq!(sig(MIB, &[(KIB, &erofs)]), Some("erofs"));
    assert_eq!(sig(MIB, &[(32 * KIB + 1, b"BEA01")]), Some("udf"));
    assert_eq!(sig(MIB, &[(32 * KIB, b"JFS1")]), Some("jfs"));
    assert_eq!(sig(MIB, &[(64 * KIB + 52, b"ReIsEr2Fs")]), Some("reiserfs"));
    let gfs2 = [0x01, 0x16, 0x19, 0x70, 0, 0, 0, 1];
    assert_eq!(sig(MIB, &[(64 * KIB, &gfs2)]), Some("gfs2"));
    assert_eq!(sig(MIB, &[(8 * KIB, b"OCFSV2")]), Some("ocfs2"));
    assert_eq!(sig(MIB, &[(KIB, b"H+\0\x04")]), Some("hfs+"));
    assert_eq!(sig(MIB, &[(32, b"NXSB")]), Some("apfs"));
    assert_eq!(sig(MIB, &[(3, b"-FVE-FS-")]), Some("bitlocker"));
    assert_eq!(sig(MIB, &[(32, b"ORCLDISK")]), Some("oracleasm"));
    let bcache = [
        0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d,
        0x81,
    ];
    assert_eq!(sig(MIB, &[(4 * KIB + 24, &bcache)]), Some("bcache"));
    assert_eq!(
        sig(MIB, &[(0, b"bluestore block device\n")]),
        Some("ceph bluestore")
    );
    assert_eq!(sig(MIB, &[(0, b"dmvdo001")]), Some("vdo"));
    assert_eq!(sig(MIB, &[(0, b"integrt\0")]), Some("dm-integrity"));
    assert_eq!(sig(MIB, &[(0, b"verity\0\0")]), Some("dm-verity"));
    // Minix magic without a valid state, or with a zone-size shift: not enough.
    assert_eq!(
        sig(MIB, &[(KIB, &[0x60, 0x55]), (KIB + 0x10, &[0x8f, 0x13])]),
        None
    );
    let shifted = [
        (KIB, &[0x60, 0x55][..]),
        (KIB + 0x0a, &[1]),
        (KIB + 0x10, &[0x8f, 0x13, 1]),
    ];
    assert_eq!(sig(MIB, &shifted), None);
}

/// What storlab leaves on a device it wrote (the preparation fill) carries no signature, so
/// the next run does not need `--force-destroy`.
#[test]
fn the_preparation_fill_has_no_signature() {
    let fill = crate::buffer::preparation_fill().as_slice();
    let img: Vec<u8> = fill.iter().copied().cycle().take(4 * MIB).collect();
    assert_eq!(
        detect_signature(&mut Cursor::new(img)).expect("in memory"),
        None
    );
}
