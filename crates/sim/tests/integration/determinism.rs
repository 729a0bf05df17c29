//! Same seed, same bytes; another seed, different but statistically close results.

use super::*;

fn json(run: &Run) -> String {
    let mut r = run.clone();
    if let Some(s) = r.sim.as_mut() {
        s.wall_s = 0.0;
    }
    serde_json::to_string(&r).expect("serialize")
}

#[test]
fn same_seed_gives_identical_json() {
    let s = system(MIDRANGE_RAID5);
    for profile in ["oltp-60-40", "seqread-8k"] {
        let a = run_profile(&s, profile, opts(5, 1, 42));
        let b = run_profile(&s, profile, opts(5, 1, 42));
        assert_eq!(json(&a), json(&b), "{profile}");
        assert!(a.metrics.ios > 1000);
    }
}

#[test]
fn different_seed_gives_different_but_close_results() {
    let s = system(MIDRANGE_RAID10);
    let a = run_profile(&s, "oltp-60-40", opts(20, 5, 1));
    let b = run_profile(&s, "oltp-60-40", opts(20, 5, 2));
    assert_ne!(json(&a), json(&b));
    let (x, y) = (a.metrics.iops, b.metrics.iops);
    assert!((x - y).abs() / x < 0.05, "seed 1 {x} vs seed 2 {y}");
    assert_eq!(a.sim.as_ref().map(|s| s.seed), Some(1));
}
