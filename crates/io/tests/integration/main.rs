//! Real I/O on real files in a temporary directory on the local disk (never a mock).

use std::path::{Path, PathBuf};

use storlab_core::profile::BUILTIN_PROFILES;
use storlab_core::result::Run;
use storlab_core::IoProfile;
use storlab_io::{run_io, EngineKind, IoClass, IoError, IoOptions, SteadyState, SyncMode};

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
    let mut o = IoOptions::single(
        target.to_path_buf(),
        IoProfile::builtin(profile).expect("profile"),
    );
    o.size_bytes = Some(32 << 20);
    o.duration_ns = secs * 1_000_000_000;
    o.warmup_ns = 0;
    o
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
        o.classes[0].profile.jobs = o.classes[0].profile.jobs.min(4);
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
        o.classes[0].profile.jobs = 1;
        o.classes[0].profile.iodepth = o.classes[0].profile.iodepth.max(4);
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
    o.classes[0].profile.rate_iops = Some(400.0);
    o.classes[0].profile.jobs = 2;
    o.classes[0].profile.iodepth = 2;
    let run = run_io(&o).unwrap();
    let iops = run.metrics.iops;
    assert!(
        (iops - 400.0).abs() / 400.0 < 0.05,
        "{iops} IO/s for 400 requested"
    );
    assert_eq!(run.tool.unwrap().requested_iops, Some(400.0));
}

/// An open-loop class beside a closed-loop one: the achieved rate set against the requested
/// one is the open-loop class's, not the whole run's.
#[test]
fn the_achieved_rate_is_the_open_loop_classes() {
    let _serial = serial();
    let dir = scratch();
    let mut o = options(&dir.path().join("o.dat"), "randread-8k", 2);
    o.warmup_ns = 500_000_000;
    let mut closed = o.classes[0].clone();
    closed.name = "closed".into();
    closed.profile.jobs = 1;
    closed.profile.iodepth = 4;
    let open = &mut o.classes[0];
    open.name = "open".into();
    open.profile.rate_iops = Some(200.0);
    open.profile.jobs = 1;
    o.classes.push(closed);
    let run = run_io(&o).unwrap();
    let tool = run.tool.expect("tool cost");
    assert_eq!(tool.requested_iops, Some(200.0));
    let open_iops = run.classes[0].metrics.iops;
    assert_eq!(tool.achieved_iops, open_iops, "{tool:?}");
    assert!(
        (open_iops - 200.0).abs() / 200.0 < 0.1,
        "{open_iops} IO/s for 200 requested"
    );
    assert!(run.metrics.iops > open_iops, "{:?}", run.metrics);
}

#[test]
fn cpu_per_io_covers_the_measured_window_only() {
    let _serial = serial();
    let dir = scratch();
    // Buffered reads of a small file come from the page cache: the one worker is busy all
    // the time, warm-up included. Over the whole run it would use up to 3 CPU seconds.
    let mut o = options(&dir.path().join("c.dat"), "randread-8k", 1);
    o.direct = false;
    o.warmup_ns = 2_000_000_000;
    o.classes[0].profile.jobs = 1;
    o.classes[0].profile.iodepth = 1;
    let run = run_io(&o).unwrap();
    let tool = run.tool.expect("tool cost");
    assert!(
        tool.cpu_s > 0.0 && tool.cpu_s < 1.5,
        "one worker over a 1 s window used {} CPU seconds: set-up or warm-up counted",
        tool.cpu_s
    );
    // Per I/O: the window's CPU over the window's I/Os (those the IO/s figure counts).
    let per_io_s = tool.cpu_ns_per_io * run.metrics.ios as f64 / 1e9;
    assert!(
        (per_io_s - tool.cpu_s).abs() <= 0.002 + 0.01 * tool.cpu_s,
        "{} ns x {} I/Os against {} s",
        tool.cpu_ns_per_io,
        run.metrics.ios,
        tool.cpu_s
    );
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

#[test]
fn several_classes_run_together_each_with_its_own_latency() {
    let _serial = serial();
    let dir = scratch();
    let mut o = options(&dir.path().join("data.dat"), "randread-8k", 2);
    o.classes[0].profile.jobs = 4;
    o.classes[0].profile.iodepth = 1;
    let mut redo = IoProfile::builtin("redo").unwrap();
    redo.rate_iops = Some(200.0);
    o.classes.push(IoClass {
        name: "log".into(),
        target: dir.path().join("log.dat"),
        profile: redo,
        group_commit: None,
    });
    let run = run_io(&o).unwrap();
    assert_eq!(run.classes.len(), 2);
    let (data, log) = (&run.classes[0], &run.classes[1]);
    assert!(data.metrics.read_iops > 0.0 && data.metrics.write_iops == 0.0);
    assert!(log.metrics.write_iops > 0.0 && log.metrics.read_iops == 0.0);
    assert!(
        (log.metrics.iops - 200.0).abs() / 200.0 < 0.05,
        "log class at its own rate: {}",
        log.metrics.iops
    );
    let total = data.metrics.ios + log.metrics.ios;
    assert_eq!(total, run.metrics.ios);
}

#[test]
fn group_commit_batches_committers_and_reports_commit_latency_apart() {
    let _serial = serial();
    let dir = scratch();
    let mut o = options(&dir.path().join("wal.dat"), "redo", 2);
    o.classes[0].group_commit = Some(16);
    let run = run_io(&o).unwrap();
    let c = run.classes[0].commit.as_ref().expect("commit figures");
    assert_eq!(c.committers, 16);
    assert!(
        c.mean_batch > 1.5,
        "16 committers share log writes: {} per write",
        c.mean_batch
    );
    let log_writes = run.classes[0].metrics.iops;
    assert!((c.commits_per_s / log_writes - c.mean_batch).abs() / c.mean_batch < 0.05);
    // A commit waits for a whole log write (and its queue), so it takes longer than one.
    assert!(c.latency_ms.mean > run.classes[0].metrics.latency_ms.mean);
    // One committer: one commit per log write.
    let mut one = options(&dir.path().join("wal1.dat"), "redo", 1);
    one.classes[0].group_commit = Some(1);
    let run = run_io(&one).unwrap();
    let c = run.classes[0].commit.as_ref().unwrap();
    assert!((c.mean_batch - 1.0).abs() < 0.01, "{}", c.mean_batch);
}

/// Writes stamped data over the whole file and keeps it.
fn stamped_file(dir: &Path) -> PathBuf {
    let f = dir.join("v.dat");
    let mut o = options(&f, "seqwrite-8k", 2);
    o.classes[0].profile.jobs = 1;
    o.classes[0].profile.iodepth = 1;
    o.size_bytes = Some(4 << 20);
    o.verify = true;
    o.keep = true;
    let run = run_io(&o).unwrap();
    assert!(
        run.verify.unwrap().blocks_checked == 0,
        "a write pass reads nothing"
    );
    f
}

fn read_pass(f: &Path) -> storlab_core::result::VerifyResult {
    let mut o = options(f, "seqread-8k", 1);
    o.classes[0].profile.jobs = 1;
    o.classes[0].profile.iodepth = 1;
    o.size_bytes = Some(4 << 20);
    o.verify = true;
    o.keep = true;
    run_io(&o).unwrap().verify.unwrap()
}

#[test]
fn verification_catches_corruption_and_misplaced_data() {
    let _serial = serial();
    let dir = scratch();
    let f = stamped_file(dir.path());
    let clean = read_pass(&f);
    assert!(clean.blocks_checked > 0);
    assert_eq!(
        clean.corrupt + clean.misplaced + clean.lost + clean.unwritten,
        0
    );
    // Flip bytes in one sector between the write and the read pass.
    let mut data = std::fs::read(&f).unwrap();
    let at = 1_000_000usize;
    data[at] ^= 0xff;
    data[at + 1] ^= 0x55;
    // Copy one sector onto another place: a misplaced write.
    let (src, dst) = (8192usize, 2 * 1024 * 1024usize);
    let sector: Vec<u8> = data[src..src + 512].to_vec();
    data[dst..dst + 512].copy_from_slice(&sector);
    std::fs::write(&f, &data).unwrap();
    // The read pass wraps around the small file, so it meets each bad sector several times:
    // every fault found is one of the two, and both are found about equally often (the last
    // lap may end between them).
    let bad = read_pass(&f);
    assert!(bad.corrupt >= 1 && bad.misplaced >= 1, "{bad:?}");
    assert!(bad.corrupt.abs_diff(bad.misplaced) <= 1, "{bad:?}");
    assert_eq!(bad.lost + bad.unwritten, 0);
    for x in &bad.faults {
        match x.kind.as_str() {
            "corrupt" => assert_eq!(x.offset, (at / 512 * 512) as u64),
            "misplaced" => assert_eq!((x.offset, x.found_offset), (dst as u64, src as u64)),
            other => panic!("unexpected fault {other}"),
        }
    }
    storlab_io::safety::remove_ours(&f).unwrap();
}

#[test]
fn a_steady_run_stops_early() {
    let _serial = serial();
    let dir = scratch();
    let mut o = options(&dir.path().join("st.dat"), "randread-8k", 30);
    o.classes[0].profile.rate_iops = Some(500.0);
    o.steady = Some(SteadyState {
        samples: 3,
        within_pct: 20.0,
    });
    let run = run_io(&o).unwrap();
    assert!(
        run.workload.duration_s < 10.0,
        "stopped after {} s",
        run.workload.duration_s
    );
    assert!(run.warnings.iter().any(|w| w.contains("steady")));
}

#[test]
fn a_sweep_raises_the_load_and_finds_the_knee() {
    let _serial = serial();
    let dir = scratch();
    let mut o = options(&dir.path().join("sw.dat"), "randread-8k", 1);
    o.engine = EngineKind::IoUring;
    let points = storlab_io::sweep::doubling(8);
    assert_eq!(points.len(), 4);
    let sweep = storlab_io::sweep::run_sweep(&o, &points, Some(1000.0)).unwrap();
    assert_eq!(sweep.runs.len(), 4);
    assert!(
        sweep.runs[3].metrics.iops > sweep.runs[0].metrics.iops,
        "more outstanding, more IOPS"
    );
    let knee = sweep.knee.expect("a generous ceiling keeps every point");
    let best = sweep
        .runs
        .iter()
        .map(|r| r.metrics.iops)
        .fold(0.0, f64::max);
    assert_eq!(sweep.runs[knee].metrics.iops, best);
    // Each point carries the ceiling, so a report finds the same knee.
    assert!(sweep
        .runs
        .iter()
        .all(|r| r.workload.parameters["max_p99_ms"] == 1000.0));
    let none = storlab_io::sweep::run_sweep(&o, &points[..1], Some(1e-6)).unwrap();
    assert!(none.knee.is_none());
    assert!(
        !dir.path().join("sw.dat").exists(),
        "the sweep cleans up what it created"
    );
}

#[test]
fn preconditioning_writes_the_target_first() {
    let _serial = serial();
    let dir = scratch();
    let mut o = options(&dir.path().join("pc.dat"), "randread-8k", 1);
    o.precondition = true;
    let run = run_io(&o).unwrap();
    assert!(run.metrics.ios > 0);
    assert_eq!(run.workload.parameters["precondition"], true);
}
