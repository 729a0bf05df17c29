//! Data verification for `storlab io --verify`: self-describing sectors, checked on read.
//!
//! # On-disk format
//! Every 512-byte sector storlab writes in verify mode starts with a 32-byte header
//! (little-endian), followed by 480 bytes of pseudo-random fill:
//!
//! | bytes  | field      | value                                                |
//! |--------|------------|------------------------------------------------------|
//! | 0..4   | magic      | `0x5354_4C42` ("STLB")                               |
//! | 4..6   | version    | 1                                                    |
//! | 6..8   | flags      | 0                                                    |
//! | 8..16  | offset     | this sector's byte offset in the target              |
//! | 16..24 | generation | the write's generation (same for the whole block)    |
//! | 24..28 | block_len  | the write's length in bytes (saturates)              |
//! | 28..32 | checksum   | CRC32C of the whole sector, this field taken as zero |
//!
//! The fill is a splitmix64 stream seeded from the header's (offset, generation), so it is
//! unique per sector and per write (no dedup/compression shortcut) and is checked as well
//! as the checksum.
//!
//! # Classification (per sector, in this order)
//! 1. No magic: with `expected_gen == None` the sector is accepted (not storlab's data).
//!    Otherwise it is [`FaultKind::Corrupt`] if it still looks like a damaged storlab
//!    header (the checksum verifies with the magic restored, or version/flags/offset/
//!    block_len are all plausible for this sector); [`FaultKind::Unwritten`] if it holds
//!    what was there before storlab wrote it (zeros, or the preparation fill for this
//!    offset); else [`FaultKind::Corrupt`] (other data where storlab's should be).
//! 2. Checksum, version, flags or fill wrong: [`FaultKind::Corrupt`] (torn or corrupted).
//! 3. Header offset differs from the sector's offset: [`FaultKind::Misplaced`].
//! 4. Generation older than `expected_gen`: [`FaultKind::Lost`]. Newer is fine (a write
//!    may have landed after the expectation was taken).
//!
//! # Bookkeeping
//! [`Generations`] keeps, per block of the smallest block size, the generation of the last
//! *completed* write (8 bytes per block). Rules for callers, so that no false fault appears:
//! - writes are aligned to `block_bytes` (a partly covered block would expect too new a
//!   generation for its uncovered sectors);
//! - take [`Generations::expected`] *before* issuing the read, and check a read that spans
//!   several tracked blocks one block-sized slice at a time, each with its own expectation;
//! - do not keep two overlapping writes in flight (the device may apply them in any order).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Verification granule: every sector carries its own header.
pub const SECTOR: usize = 512;
/// "STLB".
pub const MAGIC: u32 = 0x5354_4C42;
/// Format version written in the header.
pub const VERSION: u16 = 1;
/// Header bytes at the start of every sector.
pub const HEADER: usize = 32;
/// [`VerifyReport::first_faults`] keeps at most this many faults.
pub const MAX_FIRST_FAULTS: usize = 20;

const CHECKSUM_AT: usize = 28;

/// Fills `buf` (length = block length, a multiple of 512) for a write of block at byte
/// `offset` with generation `gen`.
///
/// # Panics
/// If `buf.len()` is not a multiple of [`SECTOR`].
pub fn stamp(buf: &mut [u8], offset: u64, gen: u64) {
    assert!(
        buf.len().is_multiple_of(SECTOR),
        "verify block length {} is not a multiple of {SECTOR}",
        buf.len()
    );
    let block_len = u32::try_from(buf.len()).unwrap_or(u32::MAX);
    for (i, sector) in buf.chunks_exact_mut(SECTOR).enumerate() {
        let at = offset.wrapping_add((i * SECTOR) as u64);
        sector[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        sector[4..6].copy_from_slice(&VERSION.to_le_bytes());
        sector[6..8].copy_from_slice(&0u16.to_le_bytes());
        sector[8..16].copy_from_slice(&at.to_le_bytes());
        sector[16..24].copy_from_slice(&gen.to_le_bytes());
        sector[24..28].copy_from_slice(&block_len.to_le_bytes());
        let mut fill = Fill::new(at, gen);
        for word in sector[HEADER..].chunks_exact_mut(8) {
            word.copy_from_slice(&fill.next_word().to_le_bytes());
        }
        let crc = sector_crc(sector);
        sector[CHECKSUM_AT..HEADER].copy_from_slice(&crc.to_le_bytes());
    }
}

/// What is wrong with a sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// checksum or magic wrong: torn or corrupted
    Corrupt,
    /// header valid but says another offset: the data landed elsewhere (misplaced write)
    Misplaced,
    /// header valid, right offset, older generation than the last completed write: lost write
    Lost,
    /// storlab's write never landed: the sector still holds zeros or the preparation fill
    Unwritten,
}

/// One bad sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    /// The bad sector's byte offset in the target.
    pub offset: u64,
    /// 0 when none was expected.
    pub expected_gen: u64,
    /// As read from the header: 0 for `Unwritten`, unreliable for `Corrupt`.
    pub found_gen: u64,
    /// As read from the header: 0 for `Unwritten`, unreliable for `Corrupt`.
    pub found_offset: u64,
}

/// Checks a block read from `offset` whose last completed write had generation
/// `expected_gen` (None = storlab has not written it in this run: only checks that sectors
/// carrying the magic are self-consistent, and accepts sectors without it). Returns one
/// Fault per bad sector (empty = good). A found generation *newer* than expected is not a
/// fault (a concurrent write may have landed).
///
/// # Panics
/// If `buf.len()` is not a multiple of [`SECTOR`].
pub fn check(buf: &[u8], offset: u64, expected_gen: Option<u64>) -> Vec<Fault> {
    assert!(
        buf.len().is_multiple_of(SECTOR),
        "verify block length {} is not a multiple of {SECTOR}",
        buf.len()
    );
    buf.chunks_exact(SECTOR)
        .enumerate()
        .filter_map(|(i, sector)| {
            let at = offset.wrapping_add((i * SECTOR) as u64);
            check_sector(sector, at, expected_gen)
        })
        .collect()
}

fn check_sector(sector: &[u8], at: u64, expected: Option<u64>) -> Option<Fault> {
    let h = Header::parse(sector);
    let fault = |kind| Fault {
        kind,
        offset: at,
        expected_gen: expected.unwrap_or(0),
        found_gen: h.gen,
        found_offset: h.offset,
    };
    if h.magic != MAGIC {
        expected?;
        if h.damaged_storlab(sector, at) || !blank(sector, at) {
            return Some(fault(FaultKind::Corrupt));
        }
        return Some(Fault {
            found_gen: 0,
            found_offset: 0,
            ..fault(FaultKind::Unwritten)
        });
    }
    if h.checksum != sector_crc(sector)
        || h.version != VERSION
        || h.flags != 0
        || !fill_matches(sector, h.offset, h.gen)
    {
        return Some(fault(FaultKind::Corrupt));
    }
    if h.offset != at {
        return Some(fault(FaultKind::Misplaced));
    }
    match expected {
        Some(e) if h.gen < e => Some(fault(FaultKind::Lost)),
        _ => None,
    }
}

struct Header {
    magic: u32,
    version: u16,
    flags: u16,
    offset: u64,
    gen: u64,
    block_len: u32,
    checksum: u32,
}

impl Header {
    fn parse(s: &[u8]) -> Header {
        let u16_at = |i: usize| u16::from_le_bytes([s[i], s[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes([s[i], s[i + 1], s[i + 2], s[i + 3]]);
        let u64_at = |i: usize| u64::from(u32_at(i)) | (u64::from(u32_at(i + 4)) << 32);
        Header {
            magic: u32_at(0),
            version: u16_at(4),
            flags: u16_at(6),
            offset: u64_at(8),
            gen: u64_at(16),
            block_len: u32_at(24),
            checksum: u32_at(CHECKSUM_AT),
        }
    }

    /// Magic missing, but is this a storlab sector whose magic got damaged?
    fn damaged_storlab(&self, sector: &[u8], at: u64) -> bool {
        let plausible = self.version == VERSION
            && self.flags == 0
            && self.offset == at
            && self.block_len != 0
            && (self.block_len as usize).is_multiple_of(SECTOR);
        plausible
            || self.checksum == crc_parts(&[&MAGIC.to_le_bytes(), &sector[4..CHECKSUM_AT]], sector)
    }
}

/// True when the sector at byte `at` holds zeros or the preparation fill for that offset:
/// what a sector holds before storlab's first write reaches it.
fn blank(sector: &[u8], at: u64) -> bool {
    let from = (at % crate::buffer::FILL_CHUNK as u64) as usize;
    let fill = crate::buffer::preparation_fill().as_slice();
    sector.iter().all(|&b| b == 0) || fill.get(from..from + sector.len()) == Some(sector)
}

/// The sector checksum: CRC32C over the sector with the checksum field as zero.
fn sector_crc(sector: &[u8]) -> u32 {
    crc_parts(&[&sector[..CHECKSUM_AT]], sector)
}

/// CRC32C of `head` parts (the first 28 bytes), four zero bytes, then the sector's payload.
fn crc_parts(head: &[&[u8]], sector: &[u8]) -> u32 {
    let mut state = !0u32;
    for part in head {
        state = crc32c_update(state, part);
    }
    state = crc32c_update(state, &[0; HEADER - CHECKSUM_AT]);
    !crc32c_update(state, &sector[HEADER..SECTOR])
}

fn fill_matches(sector: &[u8], offset: u64, gen: u64) -> bool {
    let mut fill = Fill::new(offset, gen);
    sector[HEADER..SECTOR]
        .chunks_exact(8)
        .all(|word| word == fill.next_word().to_le_bytes())
}

/// Counter-based splitmix64 stream seeded from (sector offset, generation).
struct Fill(u64);

impl Fill {
    fn new(offset: u64, gen: u64) -> Fill {
        Fill(mix64(offset ^ mix64(gen ^ 0x5354_4C42_5354_4C42)))
    }

    fn next_word(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }
}

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), as used by iSCSI and ext4.
pub fn crc32c(data: &[u8]) -> u32 {
    !crc32c_update(!0, data)
}

const CRC32C_POLY: u32 = 0x82F6_3B78;

/// Slicing-by-8 tables: `T[0]` is the classic byte table, `T[k]` advances `k` more zero bytes.
static CRC_TABLES: [[u32; 256]; 8] = crc_tables();

const fn crc_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut bit = 0;
        while bit < 8 {
            c = (c >> 1) ^ (CRC32C_POLY & (c & 1).wrapping_neg());
            bit += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut k = 1;
        while k < 8 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            k += 1;
        }
        i += 1;
    }
    t
}

/// Advances a raw (pre-inverted) CRC32C state over `data`.
fn crc32c_update(mut crc: u32, data: &[u8]) -> u32 {
    let t = &CRC_TABLES;
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let v = crc as u64 ^ u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        crc = (0..8).fold(0, |acc, k| acc ^ t[7 - k][((v >> (8 * k)) & 0xFF) as usize]);
    }
    for &b in words.remainder() {
        crc = t[0][((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
    }
    crc
}

/// Per-block bookkeeping shared by worker threads: the generation of the last *completed*
/// write of each block (blocks of `block_bytes`, target of `target_bytes`), and a
/// generation counter.
pub struct Generations {
    block_bytes: u64,
    /// Last completed generation per block; 0 = never written in this run.
    blocks: Vec<AtomicU64>,
    next: AtomicU64,
}

impl Generations {
    /// Memory: 8 bytes per block; blocks are the smallest block size used.
    ///
    /// # Panics
    /// If `block_bytes` is 0 or the block count does not fit in memory.
    pub fn new(target_bytes: u64, block_bytes: u64) -> Generations {
        assert!(block_bytes > 0, "verify block size must be positive");
        let count = usize::try_from(target_bytes.div_ceil(block_bytes))
            .expect("verify block count exceeds the address space");
        Generations {
            block_bytes,
            blocks: (0..count).map(|_| AtomicU64::new(0)).collect(),
            next: AtomicU64::new(1),
        }
    }

    /// The tracking granule in bytes.
    pub fn block_bytes(&self) -> u64 {
        self.block_bytes
    }

    /// A fresh generation: atomically increasing, starts at 1, unique across threads.
    pub fn next_gen(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Records `gen` (atomic max) for every block the completed write `[offset, offset+len)`
    /// covered. Blocks past the target are ignored.
    pub fn completed(&self, offset: u64, len: u64, gen: u64) {
        if len == 0 {
            return;
        }
        let first = offset / self.block_bytes;
        let last = offset.saturating_add(len - 1) / self.block_bytes;
        let Ok(first) = usize::try_from(first) else {
            return;
        };
        let last = usize::try_from(last).unwrap_or(usize::MAX);
        if let Some(blocks) = self
            .blocks
            .get(first..=last.min(self.blocks.len().saturating_sub(1)))
        {
            for block in blocks {
                block.fetch_max(gen, Ordering::Release);
            }
        }
    }

    /// The last completed generation of the block holding `offset`, None if never written
    /// in this run (or past the target).
    pub fn expected(&self, offset: u64) -> Option<u64> {
        let index = usize::try_from(offset / self.block_bytes).ok()?;
        match self.blocks.get(index)?.load(Ordering::Acquire) {
            0 => None,
            gen => Some(gen),
        }
    }
}

impl fmt::Debug for Generations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Generations")
            .field("block_bytes", &self.block_bytes)
            .field("blocks", &self.blocks.len())
            .field("next", &self.next.load(Ordering::Relaxed))
            .finish()
    }
}

/// A summary for the result: counts by kind and the first few offsets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerifyReport {
    pub blocks_checked: u64,
    pub corrupt: u64,
    pub misplaced: u64,
    pub lost: u64,
    pub unwritten: u64,
    /// At most [`MAX_FIRST_FAULTS`], in the order they were added.
    pub first_faults: Vec<Fault>,
}

impl VerifyReport {
    /// Accounts one checked block and its faults (the result of one [`check`] call).
    pub fn add(&mut self, faults: &[Fault]) {
        self.blocks_checked += 1;
        for fault in faults {
            *match fault.kind {
                FaultKind::Corrupt => &mut self.corrupt,
                FaultKind::Misplaced => &mut self.misplaced,
                FaultKind::Lost => &mut self.lost,
                FaultKind::Unwritten => &mut self.unwritten,
            } += 1;
        }
        self.keep(faults);
    }

    /// Adds another report's counts (e.g. from another worker thread).
    pub fn merge(&mut self, other: &VerifyReport) {
        self.blocks_checked += other.blocks_checked;
        self.corrupt += other.corrupt;
        self.misplaced += other.misplaced;
        self.lost += other.lost;
        self.unwritten += other.unwritten;
        self.keep(&other.first_faults);
    }

    /// Total faulty sectors.
    pub fn faults(&self) -> u64 {
        self.corrupt + self.misplaced + self.lost + self.unwritten
    }

    /// No fault of any kind.
    pub fn is_clean(&self) -> bool {
        self.faults() == 0
    }

    fn keep(&mut self, faults: &[Fault]) {
        let room = MAX_FIRST_FAULTS.saturating_sub(self.first_faults.len());
        self.first_faults.extend(faults.iter().take(room).copied());
    }
}

#[cfg(test)]
mod tests;
