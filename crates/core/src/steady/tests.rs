use super::*;

/// A deterministic noise of about +-`amp` (a fixed pseudo-random sequence).
fn noise(i: usize, amp: f64) -> f64 {
    let x = (i as u64)
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((x >> 33) as f64 / (1u64 << 31) as f64 - 0.5) * 2.0 * amp
}

fn samples(f: impl Fn(usize) -> (f64, f64, Option<f64>), n: usize) -> Vec<Sample> {
    (0..n)
        .map(|i| {
            let (throughput, latency_ms, hit_ratio_pct) = f(i);
            Sample {
                throughput,
                latency_ms,
                hit_ratio_pct,
                array_hit_ratio_pct: None,
            }
        })
        .collect()
}

#[test]
fn a_ramping_series_is_not_steady_and_says_why() {
    // Rows/s climbing 1% of its start per second, as while a buffer cache fills.
    let s = samples(|i| (1000.0 + 10.0 * i as f64, 5.0, None), 90);
    let v = check(&s, "rows/s", &CRITERIA);
    let Verdict::Unsteady(reason) = v else {
        panic!("a ramp judged steady")
    };
    assert!(reason.starts_with("rows/s still rising"), "{reason}");
    assert!(reason.contains("over the last 60 s"), "{reason}");
}

#[test]
fn a_flat_noisy_series_is_steady() {
    // +-10% noise around a flat mean, in throughput and latency.
    let s = samples(
        |i| (1000.0 + noise(i, 100.0), 4.0 + noise(i + 7, 0.4), None),
        120,
    );
    assert_eq!(check(&s, "IOPS", &CRITERIA), Verdict::Steady);
}

#[test]
fn falling_latency_and_a_filling_cache_are_not_steady() {
    let lat = samples(
        |i| (1000.0 + noise(i, 20.0), 10.0 - 0.05 * i as f64, None),
        30,
    );
    let Verdict::Unsteady(reason) = check(&lat, "rows/s", &CRITERIA) else {
        panic!("falling latency judged steady")
    };
    assert!(reason.starts_with("mean latency still falling"), "{reason}");
    // Throughput flat, the hit ratio still climbing 0.05 points a second (3 a minute).
    let hits = samples(|i| (1000.0, 5.0, Some(90.0 + 0.05 * i as f64)), 30);
    let Verdict::Unsteady(reason) = check(&hits, "rows/s", &CRITERIA) else {
        panic!("a filling cache judged steady")
    };
    assert!(
        reason.starts_with("buffer-cache hit ratio still rising 3.0"),
        "{reason}"
    );
    let settled = samples(|i| (1000.0, 5.0, Some(97.0 + noise(i, 0.2))), 30);
    assert_eq!(check(&settled, "rows/s", &CRITERIA), Verdict::Steady);
}

/// The array's read cache filling (its hit ratio climbing) is a warm-up too, judged apart from
/// the buffer cache's, whose settled ratio does not hide it.
#[test]
fn a_filling_array_cache_is_not_steady() {
    let with_array = |ratio: &dyn Fn(usize) -> f64| -> Vec<Sample> {
        samples(|i| (1000.0 + noise(i, 20.0), 5.0, Some(97.0)), 60)
            .into_iter()
            .enumerate()
            .map(|(i, s)| Sample {
                array_hit_ratio_pct: Some(ratio(i)),
                ..s
            })
            .collect()
    };
    let filling = with_array(&|i| 10.0 + 0.035 * i as f64 + noise(i, 0.3));
    let Verdict::Unsteady(reason) = check(&filling, "rows/s", &CRITERIA) else {
        panic!("a filling array cache judged steady")
    };
    assert!(
        reason.starts_with("array read-cache hit ratio still rising 2.1"),
        "{reason}"
    );
    let full = with_array(&|i| 12.0 + noise(i, 0.3));
    assert_eq!(check(&full, "rows/s", &CRITERIA), Verdict::Steady);
}

#[test]
fn only_the_last_window_counts() {
    // A ramp that ended 70 s ago.
    let s = samples(|i| (1000.0 + 20.0 * i.min(20) as f64, 5.0, None), 90);
    assert_eq!(check(&s, "IOPS", &CRITERIA), Verdict::Steady);
    assert!(!check(&s[..25], "IOPS", &CRITERIA).is_steady());
}

#[test]
fn too_few_samples_or_no_throughput_are_not_steady() {
    let s = samples(|_| (1000.0, 5.0, None), 3);
    let Verdict::Unsteady(reason) = check(&s, "IOPS", &CRITERIA) else {
        panic!("3 samples judged steady")
    };
    assert!(reason.contains("only 3 one-second samples"), "{reason}");
    let idle = samples(|_| (0.0, 0.0, None), 10);
    assert!(!check(&idle, "IOPS", &CRITERIA).is_steady());
}

/// A noise of about +-`amp` without structure (splitmix64 of the index; [`noise`] repeats
/// itself with short periods, which is a cycle).
fn white(i: usize, amp: f64) -> f64 {
    let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    ((z >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2.0 * amp
}

/// A destage sawtooth: `period_s` long, swinging +-`swing` around 2600 IOPS (rising for
/// four fifths of the cycle, falling back in the last fifth), with +-2% noise.
fn sawtooth(i: usize, period_s: usize, swing: f64) -> f64 {
    let phase = (i % period_s) as f64 / period_s as f64;
    let shape = if phase < 0.8 {
        phase / 0.8
    } else {
        (1.0 - phase) / 0.2
    };
    2600.0 * (1.0 + swing * (2.0 * shape - 1.0)) + white(i, 52.0)
}

#[test]
fn a_sawtooth_is_steady_over_whole_cycles_whatever_its_phase() {
    // An 85 s cycle of +-3.5%: a minute of it is never flat, whatever its phase.
    let tput = |i| sawtooth(i, 85, 0.035);
    let s = samples(|i| (tput(i), 5.0, None), 400);
    assert!(
        !check(&s[..60], "IOPS", &CRITERIA).is_steady(),
        "a minute of the rising edge judged steady"
    );
    // With two cycles to see it, the warm-up's test knows the cycle, at every phase.
    for end in 170..400 {
        assert_eq!(
            check(&s[..end], "IOPS", &CRITERIA),
            Verdict::Steady,
            "at {end} s"
        );
    }
    // A measured window of one whole cycle or more is steady, at every phase...
    for start in (170..300).step_by(7) {
        let (before, window) = s[..start + 90].split_at(start);
        let v = check_measured(before, window, "IOPS", &CRITERIA);
        assert_eq!(v, Verdict::Steady, "90 s measured from {start} s");
    }
    // ...and a shorter one is not, at every phase either, and says what to do.
    for start in (170..300).step_by(7) {
        let (before, window) = s[..start + 40].split_at(start);
        let Verdict::Unsteady(reason) = check_measured(before, window, "IOPS", &CRITERIA) else {
            panic!("40 s of an 85 s cycle judged steady (from {start} s)")
        };
        assert!(reason.starts_with("IOPS swings +-3."), "{reason}");
        assert!(reason.contains("cycles of about 8"), "{reason}");
        assert!(reason.contains("longer than the 40 s measured"), "{reason}");
    }
}

#[test]
fn a_sawtooth_on_a_ramp_is_not_steady() {
    // The same cycle on a cache still filling: rows/s +6%/min from cycle to cycle.
    let s = samples(
        |i| (sawtooth(i, 85, 0.035) * (1.0 + 0.001 * i as f64), 5.0, None),
        400,
    );
    let Verdict::Unsteady(reason) = check(&s, "rows/s", &CRITERIA) else {
        panic!("a rising sawtooth judged steady")
    };
    assert!(reason.starts_with("rows/s still rising"), "{reason}");
    let (before, window) = s.split_at(200);
    assert!(!check_measured(before, window, "rows/s", &CRITERIA).is_steady());
}

#[test]
fn a_measured_window_is_judged_whole() {
    // Rising 2%/min for 200 s: every minute of it is within the bound's noise allowance
    // at most, the whole window is not.
    let s = samples(
        |i| (1000.0 + 0.6 * i as f64 + white(i, 5.0), 5.0, None),
        200,
    );
    let Verdict::Unsteady(reason) = check_measured(&[], &s, "IOPS", &CRITERIA) else {
        panic!("a ramp judged steady")
    };
    assert!(reason.contains("over the measured 200 s"), "{reason}");
    assert!(!reason.contains("shorter than"), "{reason}");
    // Five seconds of a busy machine: the reason says what the window saw, and that it
    // is too short to tell.
    let five: Vec<Sample> = [1000.0, 1100.0, 1250.0, 1300.0, 1450.0]
        .iter()
        .map(|&throughput| Sample {
            throughput,
            latency_ms: 5.0,
            hit_ratio_pct: None,
            array_hit_ratio_pct: None,
        })
        .collect();
    let Verdict::Unsteady(reason) = check_measured(&[], &five, "IOPS", &CRITERIA) else {
        panic!("a steep 5 s judged steady")
    };
    assert!(reason.starts_with("IOPS still rising"), "{reason}");
    assert!(
        reason.contains("from its start to its end; a window shorter than 60 s"),
        "{reason}"
    );
    let flat = samples(|i| (1000.0 + white(i, 100.0), 5.0, None), 200);
    assert_eq!(
        check_measured(&[], &flat, "IOPS", &CRITERIA),
        Verdict::Steady
    );
}

#[test]
fn noise_and_ramps_have_no_cycle() {
    for n in [60, 120, 300, 600] {
        let flat: Vec<f64> = (0..n).map(|i| 1000.0 + white(i, 150.0)).collect();
        assert_eq!(cycle::find(&flat, 10), None, "{n} s of noise");
        let ramp: Vec<f64> = (0..n).map(|i| 1000.0 + i as f64 + white(i, 20.0)).collect();
        assert_eq!(
            cycle::find(cycle::settled(&ramp), 10),
            None,
            "{n} s of ramp"
        );
    }
    let saw: Vec<f64> = (0..300).map(|i| sawtooth(i, 85, 0.035)).collect();
    let cy = cycle::find(&saw, 10).expect("the sawtooth's cycle");
    assert!((80..=90).contains(&cy.period_s), "{cy:?}");
    assert!((2.5..4.0).contains(&cy.swing_pct), "{cy:?}");
}

#[test]
fn a_short_windows_change_is_from_the_mean_of_its_start_to_the_mean_of_its_end() {
    // 20 s measured: 15 s at 1000 IO/s, then the device stalls. The slope times the window
    // made this -150%, below anything a throughput can fall.
    let s = samples(|i| (if i < 15 { 1000.0 } else { 0.0 }, 5.0, None), 20);
    let Verdict::Unsteady(reason) = check_measured(&[], &s, "IOPS", &CRITERIA) else {
        panic!("a stall judged steady")
    };
    assert!(reason.starts_with("IOPS still falling"), "{reason}");
    // First third (6 s) at 1000, last third (6 s) one second at 1000 and five at 0: -83%.
    assert!(
        reason.contains(": -83% from its start to its end; a window shorter than 60 s"),
        "{reason}"
    );
    // A steady climb: the means of the thirds, not the end points.
    let ramp = samples(|i| (1000.0 + 50.0 * i as f64, 5.0, None), 9);
    let Verdict::Unsteady(reason) = check_measured(&[], &ramp, "IOPS", &CRITERIA) else {
        panic!("a ramp judged steady")
    };
    // 1050 to 1350.
    assert!(
        reason.contains(": +29% from its start to its end"),
        "{reason}"
    );
}

/// Flat 5-second windows of noise (uniform, +-20% of IOPS and latency, each window its own
/// seeded draw): twice the slope's standard error calls a trend in more than one in four; with
/// Student's t for 5 samples, real runs' bound, in one in ten (5% per figure).
#[test]
fn short_flat_windows_of_noise_are_steady_under_the_real_runs_bound() {
    let mut rng = crate::rng::Rng::from_seed(27);
    let mut draw = || 1.0 + 0.4 * (rng.unit_f64() - 0.5);
    let windows: Vec<Vec<Sample>> = (0..2000)
        .map(|_| {
            let w: Vec<(f64, f64)> = (0..5).map(|_| (1000.0 * draw(), 2.0 * draw())).collect();
            samples(|i| (w[i].0, w[i].1, None), 5)
        })
        .collect();
    let unsteady = |c: &Criteria| {
        let n = windows.iter();
        n.filter(|w| !check_measured(&[], w, "IOPS", c).is_steady())
            .count() as f64
            / windows.len() as f64
    };
    let (simulated, real) = (unsteady(&CRITERIA), unsteady(&REAL_CRITERIA));
    assert!(simulated > 0.15, "twice the standard error: {simulated}");
    assert!(real < 0.11, "Student's t: {real}");
    eprintln!("unsteady flat windows: {simulated} with twice the standard error, {real} with t");
}

/// What real short runs on a shared machine did: a random-read run still ramping up after
/// a 1 s warm-up (IOPS 31k to 67k), and one stopped for its last seconds, are not steady
/// under the real runs' bounds; the same device's flat window, with one second dipped by
/// another tenant, is.
#[test]
fn real_short_ramps_and_stalls_are_unsteady_and_a_flat_window_is_steady() {
    let judge = |iops: &[f64], lat: &[f64]| {
        let s = samples(|i| (iops[i], lat[i], None), iops.len());
        check_measured(&[], &s, "IOPS", &REAL_CRITERIA)
    };
    let ramp = judge(
        &[31_496.0, 28_981.0, 35_548.0, 59_953.0, 67_269.0],
        &[2.032, 2.215, 1.8, 1.067, 0.951],
    );
    assert!(!ramp.is_steady(), "{ramp:?}");
    // A run at 1000 IO/s stopped for its last 3 s, after a catch-up burst: no trend clear
    // of the noise (twice the standard error called it steady), but a stall.
    let (iops, lat) = (
        [814.0, 650.0, 791.0, 1879.0, 875.0, 0.0, 0.0, 0.0],
        [0.11, 0.14, 0.12, 0.09, 0.1, 0.0, 0.0, 0.0],
    );
    let s = samples(|i| (iops[i], lat[i], None), iops.len());
    assert!(check_measured(&[], &s, "IOPS", &CRITERIA).is_steady());
    let Verdict::Unsteady(reason) = judge(&iops, &lat) else {
        panic!("a stall judged steady")
    };
    assert_eq!(
        reason,
        "IOPS stalled: nothing completed in 3 s over the measured 8 s"
    );
    let flat = judge(
        &[62.8, 27.7, 62.1, 63.9, 61.1, 64.4, 56.1, 57.6, 64.7, 67.4],
        &[1.02, 2.3, 1.03, 1.0, 1.05, 0.99, 1.14, 1.11, 0.99, 0.95],
    );
    assert_eq!(flat, Verdict::Steady);
}
