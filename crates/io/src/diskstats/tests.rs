//! Parsing, iostat arithmetic and the sampler, on fixture text and on real direct I/O.

use std::alloc::Layout;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::*;

/// Kernel before 4.18: `major minor name` and 11 counters.
const FORMAT_14: &str = "   8       0 sda 1000 20 64000 1500 500 30 8000 900 2 2100 2400\n";
/// Kernel 4.18+: 4 discard counters follow.
const FORMAT_18: &str = "   8       1 sda1 10 1 80 15 5 0 40 9 0 20 24 7 0 56 3\n";
/// Kernel 5.5+: 2 flush counters follow (a line read on a VM).
const FORMAT_20: &str =
    " 254       0 vda 293329 14492 21450938 635425 14917 25063 9352048 31600 0 26576 668713 8632 65 2857496 1669 351 18\n";

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() <= 1e-9 * expected.abs().max(1.0)
}

fn assert_sample(actual: &IostatFigures, expected: &IostatFigures) {
    let pairs = actual.zip_with(expected, |a, e| if close(a, e) { 0.0 } else { 1.0 });
    assert_eq!(
        pairs,
        IostatFigures::default(),
        "got {actual:?}, expected {expected:?}"
    );
}

#[test]
fn parses_14_18_and_20_field_lines() {
    let text = format!("{FORMAT_14}{FORMAT_18}\n{FORMAT_20}");
    let stats = parse_diskstats(&text).expect("fixture parses");
    assert_eq!(stats.keys().collect::<Vec<_>>(), ["sda", "sda1", "vda"]);
    let sda = DiskCounters {
        reads: 1000,
        reads_merged: 20,
        sectors_read: 64000,
        read_ms: 1500,
        writes: 500,
        writes_merged: 30,
        sectors_written: 8000,
        write_ms: 900,
        in_flight: 2,
        io_ms: 2100,
        weighted_io_ms: 2400,
    };
    assert_eq!(stats["sda"], sda);
    let sda1 = DiskCounters {
        reads: 10,
        reads_merged: 1,
        sectors_read: 80,
        read_ms: 15,
        writes: 5,
        writes_merged: 0,
        sectors_written: 40,
        write_ms: 9,
        in_flight: 0,
        io_ms: 20,
        weighted_io_ms: 24,
    };
    assert_eq!(stats["sda1"], sda1);
    let vda = DiskCounters {
        reads: 293329,
        reads_merged: 14492,
        sectors_read: 21450938,
        read_ms: 635425,
        writes: 14917,
        writes_merged: 25063,
        sectors_written: 9352048,
        write_ms: 31600,
        in_flight: 0,
        io_ms: 26576,
        weighted_io_ms: 668713,
    };
    assert_eq!(stats["vda"], vda);
}

#[test]
fn malformed_lines_are_named() {
    let short = "   8       0 sda 1 2 3 4 5 6 7 8 9 10\n";
    let not_a_counter = "   8       0 sda 1 2 3 4 5 6 x7 8 9 10 11\n";
    let bad_major = "   sda 0 sdb 1 2 3 4 5 6 7 8 9 10 11\n";
    let cases = [
        (short, "13 fields"),
        (not_a_counter, "field 10 \"x7\""),
        (bad_major, "major number \"sda\""),
    ];
    for (bad, reason) in cases {
        let text = format!("{FORMAT_14}{bad}");
        let err = parse_diskstats(&text).expect_err("malformed line rejected");
        let message = err.to_string();
        assert!(
            matches!(err, DiskstatsError::Parse { line_no: 2, .. }),
            "{message}"
        );
        assert!(message.contains("line 2"), "{message}");
        assert!(message.contains(bad.trim_end()), "{message}");
        assert!(message.contains(reason), "{message}");
    }
}

#[test]
fn reads_this_machine_s_diskstats() {
    let stats = read_diskstats().expect("/proc/diskstats readable");
    assert!(!stats.is_empty(), "no devices in /proc/diskstats");
}

#[test]
fn iostat_figures_of_an_interval() {
    // 200 reads of 8 KiB taking 400 ms in all, and 50 writes of 4 KiB taking 250 ms, over 2 s,
    // with I/O in flight for 1 s and 3 request-seconds queued.
    let a = DiskCounters::default();
    let b = DiskCounters {
        reads: 200,
        sectors_read: 200 * 16,
        read_ms: 400,
        writes: 50,
        sectors_written: 50 * 8,
        write_ms: 250,
        io_ms: 1000,
        weighted_io_ms: 3000,
        ..DiskCounters::default()
    };
    let expected = IostatFigures {
        r_s: 100.0,
        w_s: 25.0,
        rmb_s: 0.8192,
        wmb_s: 0.1024,
        r_await_ms: 2.0,
        w_await_ms: 5.0,
        aqu_sz: 1.5,
        util_pct: 50.0,
    };
    assert_sample(&figures_between(&a, &b, 2.0), &expected);
}

#[test]
fn idle_device_and_capped_utilization() {
    let a = DiskCounters {
        io_ms: 10_000,
        ..DiskCounters::default()
    };
    let b = DiskCounters { io_ms: 12_500, ..a };
    let sample = figures_between(&a, &b, 2.0);
    assert_eq!(sample.util_pct, 100.0);
    assert_eq!((sample.r_await_ms, sample.w_await_ms), (0.0, 0.0));
    assert_eq!(figures_between(&a, &a, 1.0), IostatFigures::default());
}

#[test]
fn zero_elapsed_time_gives_no_rates_but_awaits() {
    let a = DiskCounters::default();
    let b = DiskCounters {
        reads: 4,
        read_ms: 10,
        io_ms: 10,
        ..a
    };
    let expected = IostatFigures {
        r_await_ms: 2.5,
        ..IostatFigures::default()
    };
    assert_eq!(figures_between(&a, &b, 0.0), expected);
    assert_eq!(figures_between(&a, &b, f64::NAN), expected);
}

#[test]
fn wrapped_counters() {
    // 64-bit counters wrap at 2^64; the millisecond counters are 32-bit and wrap at 2^32.
    let a = DiskCounters {
        reads: u64::MAX - 49,
        sectors_read: u64::MAX - 99,
        read_ms: u64::from(u32::MAX) - 99,
        io_ms: u64::from(u32::MAX),
        ..DiskCounters::default()
    };
    let b = DiskCounters {
        reads: 150,
        sectors_read: 3100,
        read_ms: 300,
        io_ms: 999,
        ..DiskCounters::default()
    };
    let sample = figures_between(&a, &b, 2.0);
    assert!(close(sample.r_s, 100.0), "{sample:?}");
    assert!(close(sample.rmb_s, 0.8192), "{sample:?}");
    assert!(close(sample.r_await_ms, 2.0), "{sample:?}");
    assert!(close(sample.util_pct, 50.0), "{sample:?}");
}

fn device(name: &str) -> BlockDevice {
    BlockDevice {
        name: name.to_string(),
        major: 8,
        minor: 0,
    }
}

#[test]
fn summary_is_min_avg_max_and_whole_run() {
    let devices = [device("sda"), device("sdb")];
    let at = |reads: u64| DiskCounters {
        reads,
        ..DiskCounters::default()
    };
    let mut sampler = DiskSampler::starting_from(&devices, vec![at(1000), at(7)]);
    sampler.record(1.0, vec![at(1100), at(7)]);
    sampler.record(3.0, vec![at(1400), at(7)]);
    sampler.record(4.0, vec![at(1520), at(7)]);
    let summaries = sampler.summaries();
    assert_eq!(summaries.len(), 2);
    let sda = &summaries[0];
    assert_eq!((sda.device.as_str(), sda.samples), ("sda", 3));
    assert_eq!((sda.min.r_s, sda.max.r_s), (100.0, 150.0));
    assert!(close(sda.avg.r_s, (100.0 + 150.0 + 120.0) / 3.0), "{sda:?}");
    assert!(close(sda.total.r_s, 520.0 / 4.0), "{sda:?}");
    let sdb = &summaries[1];
    assert_eq!((sdb.device.as_str(), sdb.samples), ("sdb", 3));
    assert_eq!(
        (sdb.max, sdb.total),
        (IostatFigures::default(), IostatFigures::default())
    );
    assert_eq!(sampler.devices(), &devices);
}

#[test]
fn summary_without_samples_is_zero() {
    let devices = [device("sda")];
    let sampler = DiskSampler::starting_from(&devices, vec![DiskCounters::default()]);
    let summary = &sampler.summaries()[0];
    assert_eq!(summary.samples, 0);
    assert_eq!(summary.avg, IostatFigures::default());
}

#[test]
fn sampler_rejects_unknown_devices_and_time_going_back() {
    let err = DiskSampler::new(&[device("no-such-disk")]).expect_err("unknown device");
    assert!(err.to_string().contains("no-such-disk"), "{err}");
    let mut sampler = DiskSampler::new(&[]).expect("sampler of no devices");
    sampler.sample(1.0).expect("first interval");
    for t_s in [1.0, 0.5, f64::NAN, f64::INFINITY] {
        let err = sampler.sample(t_s).expect_err("time must increase");
        assert!(
            matches!(err, DiskstatsError::TimeNotIncreasing { .. }),
            "{err}"
        );
    }
}

/// A file in the current directory (on the disk under test), removed when dropped.
struct ScratchFile(PathBuf);

impl ScratchFile {
    fn new(tag: &str) -> ScratchFile {
        let name = format!(".diskstats-test-{}-{tag}", std::process::id());
        ScratchFile(std::env::current_dir().expect("current dir").join(name))
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A zero-filled buffer aligned for O_DIRECT.
struct AlignedBuffer {
    ptr: *mut u8,
    layout: Layout,
}

impl AlignedBuffer {
    fn new(len: usize, align: usize) -> AlignedBuffer {
        let layout = Layout::from_size_align(len, align).expect("valid layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuffer { ptr, layout }
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: ptr holds layout.size() initialized bytes, borrowed through &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for AlignedBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

fn write_direct(path: &Path, total_bytes: usize) {
    const CHUNK_BYTES: usize = 1 << 20;
    let mut buffer = AlignedBuffer::new(CHUNK_BYTES, 4096);
    for (i, byte) in buffer.bytes().iter_mut().enumerate() {
        *byte = (i % 251) as u8;
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .unwrap_or_else(|e| panic!("open {} with O_DIRECT: {e}", path.display()));
    for _ in 0..total_bytes / CHUNK_BYTES {
        file.write_all(buffer.bytes()).expect("direct write");
    }
    file.sync_all().expect("fsync");
}

#[test]
// The sampler takes elapsed time from its caller; this test is that caller.
#[allow(clippy::disallowed_methods)]
fn direct_writes_are_seen_on_the_device() {
    const WRITTEN_BYTES: usize = 64 << 20;
    let scratch = ScratchFile::new("direct");
    let cwd = std::env::current_dir().expect("current dir");
    let devices = devices_for_path(&cwd).unwrap_or_else(|e| {
        panic!("this test writes to the current directory, which needs a block device: {e}")
    });
    let start = std::time::Instant::now();
    let mut sampler = DiskSampler::new(&devices).expect("first reading");
    write_direct(&scratch.0, WRITTEN_BYTES);
    let elapsed_s = start.elapsed().as_secs_f64().max(1e-6);
    sampler.sample(elapsed_s).expect("second reading");

    let written_sectors = counter_delta(
        sampler.first[0].sectors_written,
        sampler.last[0].sectors_written,
    );
    assert!(
        written_sectors * 512 >= WRITTEN_BYTES as u64,
        "{} sectors written on {}, expected at least {}",
        written_sectors,
        devices[0].name,
        WRITTEN_BYTES / 512
    );
    let summary = &sampler.summaries()[0];
    assert_eq!(
        (summary.device.as_str(), summary.samples),
        (devices[0].name.as_str(), 1)
    );
    assert!(summary.max.w_s > 0.0, "{summary:?}");
    assert!(
        summary.total.wmb_s * elapsed_s >= WRITTEN_BYTES as f64 / 1e6 * 0.999,
        "{summary:?}"
    );
    assert!(summary.total.util_pct > 0.0, "{summary:?}");
}
