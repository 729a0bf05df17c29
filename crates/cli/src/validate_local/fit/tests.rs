//! The fitting rules on synthetic measurements.

use super::*;

fn measured() -> Measurements {
    Measurements {
        // 10,000 IO/s at depth 1 (100 us), four times that at 16: four dies.
        read_iops: vec![(1, 10_000.0), (4, 30_000.0), (16, 40_000.0)],
        read_latency_qd1_ms: 0.1,
        sync_write_latency_ms: 0.5,
        // 0.5 ms + 1 ms per MB (1,000 MB/s): 8 KiB, 32 KiB, 128 KiB.
        wal_writes: vec![
            (8192, 0.5 + 8192.0 / 1e6),
            (32768, 0.5 + 32768.0 / 1e6),
            (131072, 0.5 + 131072.0 / 1e6),
        ],
    }
}

#[test]
fn bandwidth_is_the_slope_of_latency_against_size() {
    let mbps = write_bandwidth_mbps(&measured().wal_writes).unwrap();
    assert!((mbps - 1000.0).abs() < 1e-6, "{mbps}");
    // No positive slope: the largest write's own rate (128 KiB in 1 ms).
    let flat = [(8192, 1.0), (131072, 1.0)];
    let mbps = write_bandwidth_mbps(&flat).unwrap();
    assert!((mbps - 131.072).abs() < 1e-9, "{mbps}");
    assert_eq!(write_bandwidth_mbps(&[]), None);
}

#[test]
fn parameters_follow_from_latency_scaling_and_bandwidth() {
    let f = fit(&measured(), 100.0).unwrap();
    assert_eq!(f.scaling, 4.0);
    assert_eq!(f.ssd.channels * f.ssd.dies_per_channel, 4);
    assert_eq!(f.ssd.page_kib, 8);
    // Reads reached 40,000 x 8 KiB = 327.7 MB/s; the writes' 1,000 MB/s is the larger.
    assert_eq!(f.ssd.interface_mbps, 1000.0);
    assert!((f.read_mbps - 327.68).abs() < 1e-9);
    // 100 us less two 8 KiB transfers at 1,000 MB/s (8.192 us each): 83.6 us.
    assert_eq!(f.ssd.read_us, 83.6);
    // 500 us less the transfers would be 483.6 us, but the 128 KiB synced write ran at
    // 131,072 B / 0.631 ms = 207.7 MB/s, and four dies write that fast at 157.8 us a page.
    assert_eq!(f.ssd.program_us, 157.8);
    assert_eq!(f.ssd.write_amplification, 1.0);
    assert_eq!(f.ssd.controller_us, 0.0);
}

#[test]
fn a_device_that_does_not_scale_gets_one_die_and_reads_set_a_bandwidth_floor() {
    let mut m = measured();
    m.read_iops = vec![(1, 10_000.0), (4, 9_000.0), (16, 9_500.0)];
    m.wal_writes = vec![(131072, 10.0)];
    let f = fit(&m, 100.0).unwrap();
    assert_eq!(f.ssd.channels, 1);
    // Writes: 13.1 MB/s; the reads carried 81.9 MB/s over the interface.
    assert!((f.write_mbps - 13.1072).abs() < 1e-9);
    assert_eq!(f.ssd.interface_mbps, 82.0);
}

#[test]
fn times_are_floored_and_a_sweep_without_depth_one_is_refused() {
    let mut m = measured();
    m.read_latency_qd1_ms = 0.001;
    assert_eq!(fit(&m, 100.0).unwrap().ssd.read_us, 1.0);
    m.read_iops.remove(0);
    assert_eq!(
        fit(&m, 100.0),
        Err("the calibration measured no reads at depth 1".to_string())
    );
}

#[test]
fn the_array_file_parses_and_holds_the_fitted_disk() {
    let f = fit(&measured(), 100.0).unwrap();
    let text = array_toml(&f, "/x");
    let system = storlab_sim::parse_array(&text, "fitted.toml").unwrap();
    assert_eq!(system.name, "local");
    assert!(text.contains("read_us = 83.6"), "{text}");
    assert!(text.contains("channels = 4"), "{text}");
}

/// A sweep measured on a loaded machine (load average ~15): the synced 8 KiB writes took
/// 5.7 ms (the cache flush, stretched) while a synced 32 KiB write took 0.66 ms.
fn loaded_machine() -> Measurements {
    Measurements {
        read_iops: vec![(1, 7_059.0), (4, 10_675.0), (16, 54_608.0)],
        read_latency_qd1_ms: 0.141,
        sync_write_latency_ms: 5.713,
        wal_writes: vec![(8192, 4.884), (32768, 0.662), (131072, 5.965)],
    }
}

#[test]
fn the_fitted_dies_write_at_least_as_fast_as_the_sweep_saw_the_device_write() {
    let m = loaded_machine();
    let best = best_write_mbps(&m).unwrap();
    // 32,768 B in 0.662 ms.
    assert!((best - 49.498).abs() < 1e-3, "{best}");
    let f = fit(&m, 100.0).unwrap();
    let dies = f.ssd.channels * f.ssd.dies_per_channel;
    assert_eq!(dies, 8);
    // Uncapped, 5,713 us less the transfers gave 5,676 us a page: 8 dies wrote 11.5 MB/s, a
    // quarter of what one synced stream did, and the simulated select-row's write-back queue
    // held its sessions for the whole run (0 rows/s).
    let capacity_mbps = f64::from(dies) * 8192.0 / f.ssd.program_us;
    assert!(capacity_mbps >= best - 0.05, "{capacity_mbps} < {best}");
    assert_eq!(f.ssd.program_us, 1324.0);
    // The read time is still the depth-1 read less its transfers.
    assert!(
        f.ssd.read_us > 100.0 && f.ssd.read_us < 141.0,
        "{}",
        f.ssd.read_us
    );
}

#[test]
fn every_sweep_gives_a_finite_positive_program_time() {
    for write_ms in [0.0, 1e-6, 0.2, 5.7, 500.0, f64::INFINITY, f64::NAN] {
        let mut m = loaded_machine();
        m.sync_write_latency_ms = write_ms;
        m.wal_writes = vec![(8192, write_ms), (131072, write_ms * 3.0)];
        if write_ms == 500.0 {
            // 128 KiB in 1.5 s: 0.09 MB/s, refused (rule 5's bound).
            let e = fit(&m, 100.0).expect_err("too slow to fit");
            assert!(e.contains("too noisy"), "{e}");
            continue;
        }
        let f = fit(&m, 100.0).unwrap();
        let p = f.ssd.program_us;
        assert!(p.is_finite() && p >= 1.0, "{write_ms} ms: program {p} us");
        let text = array_toml(&f, "/x");
        storlab_sim::parse_array(&text, "fitted.toml").unwrap();
    }
    for read_ms in [1e-6, 500.0, 1e9, f64::INFINITY] {
        let mut m = loaded_machine();
        m.read_latency_qd1_ms = read_ms;
        let f = fit(&m, 100.0).unwrap();
        storlab_sim::parse_array(&array_toml(&f, "/x"), "fitted.toml")
            .unwrap_or_else(|e| panic!("{read_ms} ms reads: {e:?}"));
    }
}

#[test]
fn a_sweep_whose_fastest_synced_write_is_too_slow_is_refused_with_its_rate_and_the_bound() {
    let mut m = loaded_machine();
    m.sync_write_latency_ms = 8.0;
    // 128 KiB in 27 ms, 4.85 MB/s: the fastest synced write of the sweep.
    m.wal_writes = vec![(8192, 6.0), (32768, 9.0), (131072, 27.0)];
    let e = fit(&m, 100.0).expect_err("4.85 MB/s is refused");
    assert!(
        e.contains("too noisy") && e.contains("4.85 MB/s") && e.contains("5 MB/s or less"),
        "{e}"
    );
    // 128 KiB in 26 ms, 5.04 MB/s: fitted, the dies writing at least that fast.
    m.wal_writes = vec![(8192, 6.0), (32768, 9.0), (131072, 26.0)];
    let f = fit(&m, 100.0).expect("5.04 MB/s is fitted");
    let dies = f64::from(f.ssd.channels * f.ssd.dies_per_channel);
    assert!(dies * 8192.0 / f.ssd.program_us >= 5.04 - 0.05);
}
