//! Reference case 1 of DOMAIN.md from first principles: 20 x 10K rpm disks as 4 x RAID 5 4+1
//! or 5 x RAID 10 2+2 behind two controllers with 4 GiB cache each.
//!
//! Assumed load (docs/validation.md): the built-in profiles over a volume concatenating
//! every LUN; random profiles keep 64 I/Os outstanding (8 jobs x 8) over the whole volume;
//! sequential profiles run 8 jobs x 2 outstanding, each on its own eighth of the volume.

use super::*;

fn pair(profile: &str) -> (f64, f64) {
    let r5 = system(MIDRANGE_RAID5);
    let r10 = system(MIDRANGE_RAID10);
    let o = opts(30, 10, 1);
    (
        run_profile(&r5, profile, o).metrics.iops,
        run_profile(&r10, profile, o).metrics.iops,
    )
}

#[test]
fn random_writes_raid10_about_twice_raid5_and_near_published_levels() {
    let (r5, r10) = pair("randwrite-8k");
    let ratio = r10 / r5;
    assert!(
        (1.8..=2.2).contains(&ratio),
        "RAID 10 / RAID 5 = {ratio} ({r10} / {r5})"
    );
    assert!(
        (r5 - 2600.0).abs() / 2600.0 <= 0.30,
        "RAID 5 {r5} vs published 2,600"
    );
    assert!(
        (r10 - 5300.0).abs() / 5300.0 <= 0.30,
        "RAID 10 {r10} vs published 5,300"
    );
}

#[test]
fn random_reads_are_about_equal() {
    let (r5, r10) = pair("randread-8k");
    assert!(
        (r5 - r10).abs() / r5.max(r10) <= 0.10,
        "RAID 5 {r5} vs RAID 10 {r10}"
    );
}

#[test]
fn large_sequential_reads_are_about_equal() {
    let (r5, r10) = pair("seqread-1m");
    assert!(
        (r5 - r10).abs() / r5.max(r10) <= 0.10,
        "RAID 5 {r5} vs RAID 10 {r10}"
    );
}

#[test]
fn large_sequential_writes_are_not_worse_on_raid5() {
    let (r5, r10) = pair("seqwrite-1m");
    assert!(r5 >= 0.95 * r10, "RAID 5 {r5} vs RAID 10 {r10}");
}
