//! Real I/O on real files in a temporary directory on the local disk (never a mock).

use std::path::{Path, PathBuf};

use storlab_core::profile::BUILTIN_PROFILES;
use storlab_core::result::Run;
use storlab_core::IoProfile;
use storlab_io::{run_io, EngineKind, IoError, IoOptions, SyncMode};

/// The tests compare device counters with host counts: one at a time.
static DEVICE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    DEVICE.lock().unwrap_or_else(|e| e.into_inner())
}

fn scratch() -> tempfile::TempDir {
    // Under target/: a disk-backed file system (O_DIRECT works there, unlike tmpfs).
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir")
}

fn options(target: &Path, profile: &str, secs: u64) -> IoOptions {
    IoOptions {
        target: target.to_path_buf(),
        profile: IoProfile::builtin(profile).expect("profile"),
        engine: EngineKind::Psync,
        size_bytes: Some(32 << 20),
        duration_ns: secs * 1_000_000_000,
        warmup_ns: 0,
        direct: true,
        sync: SyncMode::Dsync,
        keep: false,
        overwrite: false,
        force_destroy: None,
        seed: 1,
    }
}

fn series_total(run: &Run) -> f64 {
    run.series.iter().map(|p| p.iops).sum()
}

#[test]
fn every_profile_runs_and_the_series_adds_up() {
    let _serial = serial();
    let dir = scratch();
    for name in BUILTIN_PROFILES {
        let mut o = options(&dir.path().join("f.dat"), name, 1);
        o.profile.jobs = o.profile.jobs.min(4);
        let run = run_io(&o).unwrap_or_else(|e| panic!("{name}: {e}"));
        let p = IoProfile::builtin(name).unwrap();
        assert!(run.metrics.ios > 0, "{name}: no I/O");
        assert_eq!(
            series_total(&run).round() as u64,
            run.metrics.ios,
            "{name}: series vs total"
        );
        if p.read_pct == 100.0 {
            assert_eq!(run.metrics.write_iops, 0.0, "{name}");
        }
        if p.read_pct == 0.0 {
            assert_eq!(run.metrics.read_iops, 0.0, "{name}");
        }
        assert!(
            !dir.path().join("f.dat").exists(),
            "{name}: the file storlab created is removed"
        );
    }
}

#[test]
fn io_uring_runs_reads_writes_and_synced_writes() {
    let _serial = serial();
    let dir = scratch();
    for (profile, sync) in [
        ("randread-8k", SyncMode::Dsync),
        ("randwrite-8k", SyncMode::Dsync),
        ("redo", SyncMode::Fdatasync),
    ] {
        let mut o = options(&dir.path().join("u.dat"), profile, 1);
        o.engine = EngineKind::IoUring;
        o.sync = sync;
        o.profile.jobs = 1;
        o.profile.iodepth = o.profile.iodepth.max(4);
        let run = run_io(&o).unwrap_or_else(|e| panic!("{profile}: {e}"));
        assert!(run.metrics.ios > 0, "{profile}");
        let tool = run.tool.expect("tool cost");
        assert!(tool.ios_per_syscall.unwrap_or(0.0) > 0.0);
        assert_eq!(tool.engine, "io_uring");
    }
}

#[test]
fn the_requested_rate_is_achieved_and_latency_counts_from_the_intended_start() {
    let _serial = serial();
    let dir = scratch();
    let mut o = options(&dir.path().join("r.dat"), "randread-8k", 3);
    o.profile.rate_iops = Some(400.0);
    o.profile.jobs = 2;
    o.profile.iodepth = 2;
    let run = run_io(&o).unwrap();
    let iops = run.metrics.iops;
    assert!(
        (iops - 400.0).abs() / 400.0 < 0.05,
        "{iops} IO/s for 400 requested"
    );
    assert_eq!(run.tool.unwrap().requested_iops, Some(400.0));
}

#[test]
fn o_direct_reads_reach_the_device() {
    let _serial = serial();
    let dir = scratch();
    let o = options(&dir.path().join("d.dat"), "randread-8k", 2);
    let run = run_io(&o).unwrap();
    let dev = run.devices.first().expect("a device under the file");
    // Device reads per second match host reads within 10% (other processes add a little).
    let ratio = dev.read_iops / run.metrics.read_iops;
    assert!(
        (0.9..1.1).contains(&ratio),
        "device {} r/s vs host {} r/s",
        dev.read_iops,
        run.metrics.read_iops
    );
    assert!(!run.iostat.is_empty() && run.iostat[0].samples >= 1);
}

#[test]
fn storlab_never_writes_a_file_it_did_not_create() {
    let _serial = serial();
    let dir = scratch();
    let precious = dir.path().join("precious.dat");
    std::fs::write(&precious, vec![7u8; 1 << 20]).unwrap();
    let err = run_io(&options(&precious, "randwrite-8k", 1)).unwrap_err();
    assert!(matches!(err, IoError::BadInput(_)), "{err}");
    assert!(err.to_string().contains("--overwrite"), "{err}");
    assert_eq!(
        std::fs::read(&precious).unwrap(),
        vec![7u8; 1 << 20],
        "untouched"
    );
    // Reading it is fine, and it stays.
    let mut o = options(&precious, "randread-8k", 1);
    o.size_bytes = None;
    run_io(&o).unwrap();
    assert!(precious.exists());
}

#[test]
fn keep_leaves_the_file_and_a_second_run_reuses_it() {
    let _serial = serial();
    let dir = scratch();
    let f: PathBuf = dir.path().join("k.dat");
    let mut o = options(&f, "randwrite-8k", 1);
    o.keep = true;
    run_io(&o).unwrap();
    assert!(f.exists() && storlab_io::safety::is_ours(&f));
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 32 << 20);
    // A later run reuses it (no refill) and, not having created it, leaves it in place.
    o.keep = false;
    let run = run_io(&o).unwrap();
    assert!(run.metrics.ios > 0);
    assert!(f.exists() && storlab_io::safety::is_ours(&f));
    assert!(storlab_io::safety::remove_ours(&f).unwrap());
    assert!(!f.exists());
}

#[test]
fn bad_input_is_refused_before_any_io() {
    let _serial = serial();
    let dir = scratch();
    let mut o = options(&dir.path().join("x.dat"), "randread-8k", 1);
    o.size_bytes = Some(1 << 50);
    let e = run_io(&o).unwrap_err().to_string();
    assert!(e.contains("not enough free space"), "{e}");
    assert!(!dir.path().join("x.dat").exists());
    if Path::new("/dev/shm").is_dir() {
        let t = tempfile::tempdir_in("/dev/shm").unwrap();
        // tmpfs (O_DIRECT capable on current kernels) has no block device: the run says so.
        let run = run_io(&options(&t.path().join("s.dat"), "randread-8k", 1)).unwrap();
        assert!(
            run.warnings.iter().any(|w| w.contains("no device view")),
            "{:?}",
            run.warnings
        );
        assert!(run.iostat.is_empty());
    }
}
