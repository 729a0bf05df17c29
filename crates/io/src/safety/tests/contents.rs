//! What the gate reads of a device without a known format (`safety::contents`).

use super::super::contents::{look, SAMPLES};
use std::io::Cursor;

const MIB: usize = 1 << 20;

#[test]
fn zeros_are_blank_and_a_byte_where_storlab_looks_is_found() {
    let size = 64 * MIB;
    let blank = look(&mut Cursor::new(vec![0u8; size]), size as u64).expect("look");
    assert_eq!(blank.first_nonzero, None);
    // In the first MiB, in the last MiB, and at a sampled place between (the middle of the
    // 64 evenly spread 4 KiB reads: place 32 of 65 steps over the span between the ends).
    let lo = MIB;
    let hi = size - MIB - 4096;
    let middle = (lo + (hi - lo) * 32 / (SAMPLES as usize + 1)) & !4095;
    for at in [5, size - 1, middle + 100] {
        let mut data = vec![0u8; size];
        data[at] = 1;
        let l = look(&mut Cursor::new(data), size as u64).expect("look");
        assert_eq!(l.first_nonzero, Some(at as u64), "byte at {at}");
        assert_ne!(l.fingerprint, blank.fingerprint, "byte at {at}");
    }
    // Between two sampled places nothing is read: a limit the documentation states.
    let mut data = vec![0u8; size];
    data[middle + 8192] = 1;
    let l = look(&mut Cursor::new(data), size as u64).expect("look");
    assert_eq!(l.first_nonzero, None);
}

#[test]
fn the_fingerprint_follows_the_content_and_the_size() {
    let size = 8 * MIB;
    let data: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    let a = look(&mut Cursor::new(data.clone()), size as u64).expect("look");
    let b = look(&mut Cursor::new(data.clone()), size as u64).expect("look");
    assert_eq!(a, b, "the same bytes give the same fingerprint");
    let mut changed = data.clone();
    changed[size - 10] ^= 0xff;
    let c = look(&mut Cursor::new(changed), size as u64).expect("look");
    assert_ne!(a.fingerprint, c.fingerprint);
    // A device smaller than both ends and the samples is read whole.
    let small = vec![0u8; MIB];
    let mut tail = small.clone();
    tail[MIB - 1] = 9;
    let s = look(&mut Cursor::new(tail), MIB as u64).expect("look");
    assert_eq!(s.first_nonzero, Some(MIB as u64 - 1));
    let z = look(&mut Cursor::new(small), MIB as u64).expect("look");
    assert_ne!(s.fingerprint, z.fingerprint);
}
