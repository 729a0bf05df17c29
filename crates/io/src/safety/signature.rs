//! On-disk signature detection: what a block device holds, judged only by
//! magic values at fixed, well-known offsets (the same places util-linux's
//! blkid looks). Anything found makes the device "not empty" for storlab.

use std::io::{self, ErrorKind, Read, Seek, SeekFrom};

const KIB: u64 = 1024;
/// mdraid superblock magic (both 0.90 and 1.x), stored little-endian on x86.
const MD_MAGIC: u32 = 0xa92b_4efc;
/// ZFS uberblock magic, stored in the byte order of the host that wrote it.
const ZFS_UB_MAGIC: u64 = 0x00ba_b10c;

/// A device being probed, with its size known so that no read seeks past the
/// end (block devices refuse that with EINVAL).
struct Probe<'a, D> {
    dev: &'a mut D,
    size: u64,
}

impl<D: Read + Seek> Probe<'_, D> {
    /// Reads `len` bytes at `off`; `None` if the device ends before that.
    fn read_at(&mut self, off: u64, len: usize) -> io::Result<Option<Vec<u8>>> {
        if off.saturating_add(len as u64) > self.size {
            return Ok(None);
        }
        self.dev.seek(SeekFrom::Start(off))?;
        let mut buf = vec![0u8; len];
        match self.dev.read_exact(&mut buf) {
            Ok(()) => Ok(Some(buf)),
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// True if the bytes at `off` equal `magic`.
    fn has(&mut self, off: u64, magic: &[u8]) -> io::Result<bool> {
        Ok(self.read_at(off, magic.len())?.is_some_and(|b| b == magic))
    }

    /// mdraid 1.x superblock at `off`: magic, then major_version == 1.
    fn md_v1_at(&mut self, off: u64) -> io::Result<bool> {
        let sb = self.read_at(off, 8)?;
        Ok(sb.is_some_and(|b| u32_le(&b, 0) == MD_MAGIC && u32_le(&b, 4) == 1))
    }

    /// mdraid 0.90 superblock at `off`: magic in either byte order (0.90 is
    /// host-endian), then major_version == 0.
    /// File systems and volume formats less common than those above, each by a magic of at
    /// least four bytes or a shorter one with a sanity check: "minix", "cramfs", "bfs",
    /// "squashfs", "romfs", "erofs", "udf", "jfs", "reiserfs", "gfs2", "ocfs2", "hfs+",
    /// "apfs", "bitlocker", "bcache", "oracleasm", "ceph bluestore", "vdo", "dm-integrity",
    /// "dm-verity".
    fn less_common(&mut self) -> io::Result<Option<&'static str>> {
        let at_start: [(&[u8], &'static str); 8] = [
            (&0x28cd_3d45u32.to_le_bytes(), "cramfs"),
            (&0x28cd_3d45u32.to_be_bytes(), "cramfs"),
            (&0x1bad_faceu32.to_le_bytes(), "bfs"),
            (b"hsqs", "squashfs"),
            (b"sqsh", "squashfs"),
            (b"-rom1fs-", "romfs"),
            (b"bluestore block device", "ceph bluestore"),
            (b"dmvdo001", "vdo"),
        ];
        for (magic, kind) in at_start {
            if self.has(0, magic)? {
                return Ok(Some(kind));
            }
        }
        let fixed: [(u64, &[u8], &'static str); 13] = [
            (512 + 16, b"Compressed ROMFS", "cramfs"),
            (0, b"integrt\0", "dm-integrity"),
            (0, b"verity\0\0", "dm-verity"),
            (KIB, &0xe0f5_e1e2u32.to_le_bytes(), "erofs"),
            (32 * KIB + 1, b"BEA01", "udf"),
            (32 * KIB, b"JFS1", "jfs"),
            (64 * KIB + 52, b"ReIsEr", "reiserfs"),
            (8 * KIB + 52, b"ReIsErFs", "reiserfs"),
            (64 * KIB, b"ReIsEr4", "reiserfs"),
            (32, b"NXSB", "apfs"),
            (3, b"-FVE-FS-", "bitlocker"),
            (32, b"ORCLDISK", "oracleasm"),
            (
                4 * KIB + 24,
                &[
                    0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48,
                    0xba, 0x6d, 0x81,
                ],
                "bcache",
            ),
        ];
        for (off, magic, kind) in fixed {
            if self.has(off, magic)? {
                return Ok(Some(kind));
            }
        }
        // GFS2: magic and the superblock's metadata type (1), big-endian.
        if self.has(64 * KIB, &[0x01, 0x16, 0x19, 0x70, 0, 0, 0, 1])? {
            return Ok(Some("gfs2"));
        }
        for block in [512, KIB, 2 * KIB, 4 * KIB] {
            if self.has(2 * block, b"OCFSV2")? {
                return Ok(Some("ocfs2"));
            }
        }
        // HFS+ ("H+", version 4) and HFSX ("HX", version 5), big-endian.
        if self.has(KIB, b"H+\0\x04")? || self.has(KIB, b"HX\0\x05")? {
            return Ok(Some("hfs+"));
        }
        if self.minix()? {
            return Ok(Some("minix"));
        }
        Ok(None)
    }

    /// A Minix superblock at 1 KiB: the v1/v2 magic (14 or 30 character names) with a valid
    /// state, or the v3 magic; either with inodes and no zone-size shift.
    fn minix(&mut self) -> io::Result<bool> {
        let Some(sb) = self.read_at(KIB, 32)? else {
            return Ok(false);
        };
        let u16_at = |at: usize| u16::from_le_bytes([sb[at], sb[at + 1]]);
        let v12 = [0x137f, 0x138f, 0x2468, 0x2478].contains(&u16_at(0x10))
            && (1..=3).contains(&u16_at(0x12))
            && u16_at(0) != 0
            && u16_at(0x0a) == 0;
        let v3 = u16_at(0x18) == 0x4d5a && u32_le(&sb, 0) != 0 && u16_at(0x0c) == 0;
        Ok(v12 || v3)
    }

    fn md_v090_at(&mut self, off: u64) -> io::Result<bool> {
        Ok(self.read_at(off, 8)?.is_some_and(|b| {
            let (m, v) = (u32_le(&b, 0), u32_le(&b, 4));
            (m == MD_MAGIC || m.swap_bytes() == MD_MAGIC) && v == 0
        }))
    }
}

fn u32_le(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

/// What is on a block device, by signature (None = nothing recognised).
///
/// Names returned: "luks", "LVM2", "mdraid", "ext2/3/4", "xfs", "btrfs",
/// "f2fs", "ntfs", "exfat", "vfat", "iso9660", the less common ones of
/// [`Probe::less_common`], "zfs", "swap", "gpt partition table",
/// "dos partition table". Only signatures at fixed
/// offsets with enough magic (or extra sanity checks) to be unambiguous are
/// tested; a short image simply fails the checks that lie beyond its end.
pub fn detect_signature(dev: &mut (impl Read + Seek)) -> io::Result<Option<&'static str>> {
    let size = dev.seek(SeekFrom::End(0))?;
    let mut p = Probe { dev, size };

    // Containers and volume managers first: they are what a user most likely
    // cares about, and their members may also carry a stale file system.
    if p.has(0, b"LUKS\xba\xbe")? {
        return Ok(Some("luks"));
    }
    // LVM2 label: "LABELONE" at the start of one of the first four sectors,
    // label type "LVM2 001" 24 bytes further.
    for sector in 0..4u64 {
        if p.has(sector * 512, b"LABELONE")? && p.has(sector * 512 + 24, b"LVM2 001")? {
            return Ok(Some("LVM2"));
        }
    }
    // mdraid 1.1 (offset 0), 1.2 (4 KiB), 1.0 (end - 8 KiB, 4 KiB aligned),
    // 0.90 (last 64 KiB-aligned 64 KiB block).
    if p.md_v1_at(0)? || p.md_v1_at(4 * KIB)? {
        return Ok(Some("mdraid"));
    }
    if size >= 8 * KIB && p.md_v1_at((size - 8 * KIB) & !(4 * KIB - 1))? {
        return Ok(Some("mdraid"));
    }
    if size >= 128 * KIB && p.md_v090_at((size & !(64 * KIB - 1)) - 64 * KIB)? {
        return Ok(Some("mdraid"));
    }

    // File systems.
    if p.has(0, b"XFSB")? {
        return Ok(Some("xfs"));
    }
    // ext2/3/4: superblock at 1 KiB, magic 0xEF53 at +0x38; the two-byte
    // magic is backed by s_log_block_size (+0x18) being at most 6 (64 KiB).
    if let Some(sb) = p.read_at(KIB, 0x3a)? {
        if sb[0x38..0x3a] == [0x53, 0xef] && u32_le(&sb, 0x18) <= 6 {
            return Ok(Some("ext2/3/4"));
        }
    }
    if p.has(64 * KIB + 0x40, b"_BHRfS_M")? {
        return Ok(Some("btrfs"));
    }
    if p.has(KIB, &0xf2f5_2010u32.to_le_bytes())? {
        return Ok(Some("f2fs"));
    }
    if p.has(3, b"NTFS    ")? {
        return Ok(Some("ntfs"));
    }
    if p.has(3, b"EXFAT   ")? {
        return Ok(Some("exfat"));
    }
    let boot_sig = p.has(510, &[0x55, 0xaa])?;
    if boot_sig
        && (p.has(0x36, b"FAT12   ")? || p.has(0x36, b"FAT16   ")? || p.has(0x52, b"FAT32   ")?)
    {
        return Ok(Some("vfat"));
    }
    if p.has(32 * KIB + 1, b"CD001")? {
        return Ok(Some("iso9660"));
    }
    if let Some(kind) = p.less_common()? {
        return Ok(Some(kind));
    }
    // ZFS: uberblock ring at 128 KiB into vdev label L0, 1 KiB slots.
    if let Some(ring) = p.read_at(128 * KIB, 128 * KIB as usize)? {
        let found = ring.chunks_exact(KIB as usize).any(|slot| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&slot[..8]);
            u64::from_le_bytes(w) == ZFS_UB_MAGIC || u64::from_be_bytes(w) == ZFS_UB_MAGIC
        });
        if found {
            return Ok(Some("zfs"));
        }
    }
    // Swap (and hibernation images in swap): magic in the last 10 bytes of
    // the first page, for every page size Linux supports.
    for page in [4, 8, 16, 32, 64].map(|k| k * KIB) {
        for magic in [
            &b"SWAPSPACE2"[..],
            b"SWAP-SPACE",
            b"S1SUSPEND\0",
            b"S2SUSPEND\0",
        ] {
            if p.has(page - 10, magic)? {
                return Ok(Some("swap"));
            }
        }
    }

    // Partition tables: GPT header at LBA 1 (512- or 4096-byte sectors),
    // then a DOS MBR whose four entries all have a valid boot flag.
    if p.has(512, b"EFI PART")? || p.has(4096, b"EFI PART")? {
        return Ok(Some("gpt partition table"));
    }
    if boot_sig {
        if let Some(table) = p.read_at(446, 64)? {
            if table.chunks_exact(16).all(|e| e[0] == 0 || e[0] == 0x80) {
                return Ok(Some("dos partition table"));
            }
        }
    }
    Ok(None)
}

/// Human wording for a signature name, with its article: "an xfs file system".
pub(crate) fn describe(name: &str) -> String {
    match name {
        "luks" => "a LUKS encrypted volume".into(),
        "LVM2" => "an LVM2 physical volume".into(),
        "mdraid" => "an mdraid (software RAID) member".into(),
        "swap" => "a swap area".into(),
        "zfs" => "a ZFS pool member".into(),
        "gpt partition table" | "dos partition table" => format!("a {name}"),
        "btrfs" | "vfat" | "minix" | "cramfs" | "bfs" | "squashfs" | "romfs" | "udf" | "jfs"
        | "reiserfs" | "gfs2" | "hfs+" => format!("a {name} file system"),
        "bitlocker" => "a BitLocker encrypted volume".into(),
        "bcache" => "a bcache device".into(),
        "oracleasm" => "an Oracle ASM disk".into(),
        "ceph bluestore" => "a Ceph BlueStore device".into(),
        "vdo" => "a VDO volume".into(),
        "dm-integrity" | "dm-verity" => format!("a {name} device"),
        // ext, xfs, f2fs, ntfs, exfat, iso9660: all read with a vowel sound.
        fs => format!("an {fs} file system"),
    }
}
