//! Aligned I/O buffers (O_DIRECT needs memory aligned to the device's logical block size).

use std::alloc::{alloc_zeroed, dealloc, Layout};

/// Buffer alignment: 4 KiB satisfies every logical block size in use.
pub const ALIGN: usize = 4096;

/// Length of the pattern storlab fills new files with, repeated through the file.
pub const FILL_CHUNK: usize = 1 << 20;
const FILL_SEED: u64 = 0x5709_1ab5;

/// The pattern storlab fills the files it prepares with (byte `o` of a file holds byte
/// `o % FILL_CHUNK` of it): made once, shared by the preparation and data verification.
pub fn preparation_fill() -> &'static AlignedBuf {
    static FILL: std::sync::OnceLock<AlignedBuf> = std::sync::OnceLock::new();
    FILL.get_or_init(|| AlignedBuf::new(FILL_CHUNK, FILL_SEED))
}

/// A heap buffer aligned to [`ALIGN`], filled with non-zero data.
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// The buffer is plain memory owned by one worker at a time.
unsafe impl Send for AlignedBuf {}
// Shared only read-only (the preparation fill); every mutation needs `&mut`.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// A buffer of `len` bytes (rounded up to [`ALIGN`]) holding a non-zero pattern, so
    /// written data is never all zeros (some devices compress or skip zeros).
    pub fn new(len: usize, pattern_seed: u64) -> AlignedBuf {
        let size = len.max(1).div_ceil(ALIGN) * ALIGN;
        let layout = Layout::from_size_align(size, ALIGN).expect("valid buffer layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(
            !ptr.is_null(),
            "out of memory allocating a {size}-byte I/O buffer"
        );
        let mut buf = AlignedBuf { ptr, layout };
        let mut x = pattern_seed | 1;
        for chunk in buf.as_mut_slice().chunks_mut(8) {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let bytes = (x | 0x0101_0101_0101_0101).to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        buf
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// True when empty (never: buffers have at least one block).
    pub fn is_empty(&self) -> bool {
        self.layout.size() == 0
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for layout.size() bytes for the life of self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.layout.size()) }
    }

    /// The bytes, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr is valid for layout.size() bytes and uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }

    /// Raw pointer for the kernel.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in new() with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_never_zero() {
        let b = AlignedBuf::new(10_000, 3);
        assert_eq!(b.len(), 12_288);
        assert_eq!(b.as_slice().as_ptr() as usize % ALIGN, 0);
        assert!(b.as_slice().iter().all(|&x| x != 0));
    }
}
