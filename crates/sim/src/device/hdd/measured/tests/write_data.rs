//! Reads on a write's buffered data, and writes that never combine with buffered data.

use super::{drive, ms_ns, Access, Hdd, HddParams};

/// On the Barracuda (write caching; 3 segments) with `edit` applied: an 8-block write at
/// block 1,000,000 from time zero, then `second` (LBA, sectors, write) 50 ms after it
/// completed, when its data is long on the media.
fn after_write(edit: impl Fn(&mut HddParams), second: (u64, u32, bool)) -> (Access, Hdd) {
    let mut p = drive("barracuda");
    edit(&mut p);
    let mut disk = Hdd::new(&p, 0).expect("builds");
    disk.enqueue(0, 0, 1_000_000, 8, true);
    let (_, a) = disk.start_next(0).expect("starts");
    disk.finish(a.total_ns());
    let now_ns = a.total_ns() + 50_000_000;
    disk.enqueue(now_ns, 1, second.0, second.1, second.2);
    (disk.start_next(now_ns).expect("starts").1, disk)
}

#[test]
fn a_read_of_a_writes_data_hits_unless_the_drive_forbids_it() {
    // The Barracuda keeps a cached write's data in its segment: a read of the same 8
    // blocks is a hit, its read-hit-after-write overhead (0.596 ms) and 8 sectors over
    // the bus (0.134 ms each), no positioning. With `Allow read hits on write data = 0` it
    // is a miss: the read-miss-after-write overhead (0.56813 ms), then the media.
    let read = (1_000_000, 8, false);
    let (a, disk) = after_write(|_| {}, read);
    assert_eq!(a.total_ns(), ms_ns(0.596) + disk.iface_ns(8), "{a:?}");
    let (b, _) = after_write(|p| p.write_data_unreadable = true, read);
    assert_eq!(b.overhead_ns, ms_ns(0.56813), "{b:?}");
    assert!(b.rotate_ns + b.transfer_ns >= disk.transfer_measured_ns(1_000_000, 8));
    assert!(b.total_ns() > a.total_ns(), "{a:?} {b:?}");
    // Read data stays readable on such a drive: a read, a write elsewhere at once (which
    // ends read-ahead before it overwrote the read's blocks) and the read again 50 ms
    // later: a hit, with the read-hit-after-write overhead.
    let mut p = drive("barracuda");
    p.write_data_unreadable = true;
    let mut disk = Hdd::new(&p, 0).expect("builds");
    let mut t = 0;
    for (i, (lba, write, idle)) in [
        (2_000_000, false, 0),
        (3_000_000, true, 50_000_000),
        (2_000_000, false, 0),
    ]
    .into_iter()
    .enumerate()
    {
        disk.enqueue(t, i as u32, lba, 8, write);
        let (_, a) = disk.start_next(t).expect("starts");
        t += a.total_ns();
        disk.finish(t);
        t += idle;
        if i == 2 {
            assert_eq!(a.total_ns(), ms_ns(0.596) + disk.iface_ns(8), "{a:?}");
        }
    }
}

#[test]
fn a_write_on_buffered_data_pays_its_miss_overhead_when_writes_never_combine() {
    // A write continuing the last one lands right after its buffered data: a hit, the
    // Barracuda's write-hit-after-write overhead (0.9291 ms), then 8 sectors over the bus.
    // With `Combine seq writes = 0` it is a miss: 0.8156 ms.
    let next = (1_000_008, 8, true);
    let (a, disk) = after_write(|_| {}, next);
    let (b, _) = after_write(|p| p.writes_never_hit = true, next);
    assert_eq!(
        (a.overhead_ns, b.overhead_ns),
        (ms_ns(0.9291), ms_ns(0.8156)),
        "{a:?} {b:?}"
    );
    assert_eq!(a.transfer_ns, disk.iface_ns(8));
}
