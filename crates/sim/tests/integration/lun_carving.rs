//! LUNs carved from one RAID group: each LUN's I/O lands on its slice of the disks, so I/O
//! spread over LUNs at both edges seeks farther than I/O on one, and a LUN on the inner
//! zones streams at their lower media rate.

use super::*;
use storlab_sim::device::hdd::Hdd;
use storlab_sim::device::DiskModel;

/// One hdd-10k disk (a JBOD group) carved into a 20 GiB LUN at the outer edge and one at
/// the inner edge.
fn two_edges() -> (SystemSpec, [(u64, u64); 2]) {
    let plain = system(&bare("jbod", 1, "hdd-10k", "64k"));
    let cap_bytes = plain.groups[0].layout.capacity_sectors() * 512;
    let lun = 20u64 << 30;
    let inner_at = (cap_bytes - lun) / 512 * 512;
    let text = format!(
        "{}[[luns]]\nname = \"outer\"\ngroup = \"g\"\nsize = \"{lun}\"\n\
         [[luns]]\nname = \"inner\"\ngroup = \"g\"\nsize = \"{lun}\"\noffset = \"{inner_at}\"\n",
        bare("jbod", 1, "hdd-10k", "64k")
    );
    let s = system(&text);
    let slices = [(0, lun / 512), (inner_at / 512, lun / 512)];
    (s, slices)
}

fn hdd(s: &SystemSpec) -> Hdd {
    match &s.groups[0].model {
        DiskModel::Hdd(p) => Hdd::new(p, 0).expect("hdd-10k builds"),
        DiskModel::Ssd(_) => panic!("hdd-10k is a hard disk"),
    }
}

/// 400 addresses spread evenly over `[start, start + sectors)`.
fn grid((start, sectors): (u64, u64)) -> Vec<u64> {
    (0..400)
        .map(|i| start + (2 * i + 1) * sectors / 800)
        .collect()
}

/// Mean seek time, ms, from an address of `from` to one of `to`, both uniform.
fn mean_seek_ms(d: &Hdd, from: &[u64], to: &[u64]) -> f64 {
    let mut sum = 0.0;
    for &a in from {
        for &b in to {
            let (x, y) = (d.locate(a).cyl, d.locate(b).cyl);
            sum += d.seek_ns(x.abs_diff(y)) as f64 / 1e6;
        }
    }
    sum / (from.len() * to.len()) as f64
}

/// Mean media transfer time of 8 KiB, ms, at the addresses.
fn mean_transfer_ms(d: &Hdd, at: &[u64]) -> f64 {
    at.iter()
        .map(|&a| 8192e3 / d.media_rate_bps(a))
        .sum::<f64>()
        / at.len() as f64
}

fn service_ms(s: &SystemSpec, target: &str) -> f64 {
    let w = format!(
        "[[streams]]\nprofile = \"randread-8k\"\ntarget = {target}\njobs = 1\niodepth = 1\n"
    );
    let run = run_workload(s, &w, opts(120, 5, 1));
    run.devices[0]
        .service_ms
        .expect("a disk has a service time")
}

#[test]
fn random_reads_over_luns_at_both_edges_seek_across_the_disk() {
    let (s, [outer, inner]) = two_edges();
    let d = hdd(&s);
    let (o, i) = (grid(outer), grid(inner));
    // Reads uniform over the two LUNs together: each move stays in one LUN half the time
    // and crosses the disk the other half.
    let seek_one = mean_seek_ms(&d, &o, &o);
    let seek_both =
        (mean_seek_ms(&d, &o, &o) + mean_seek_ms(&d, &i, &i) + 2.0 * mean_seek_ms(&d, &o, &i))
            / 4.0;
    let xfer_one = mean_transfer_ms(&d, &o);
    let xfer_both = (xfer_one + mean_transfer_ms(&d, &i)) / 2.0;
    assert!(seek_both > 3.0 * seek_one, "{seek_both} vs {seek_one} ms");
    let one = service_ms(&s, "\"outer\"");
    let both = service_ms(&s, "[\"outer\", \"inner\"]");
    let want = (seek_both + xfer_both) - (seek_one + xfer_one);
    let got = both - one;
    assert!(
        (got - want).abs() < 0.05 * want,
        "service time {both} ms over both LUNs vs {one} ms over one: {got} ms more, \
         the seek curve and zones say {want} ms"
    );
}

#[test]
fn a_lun_on_the_inner_zones_streams_at_their_lower_rate() {
    let (s, [outer, inner]) = two_edges();
    let d = hdd(&s);
    let mid = |(start, sectors): (u64, u64)| start + sectors / 2;
    let want = d.media_rate_bps(mid(inner)) / d.media_rate_bps(mid(outer));
    let rate = |target: &str| {
        let w = format!("[[streams]]\nprofile = \"seqread-1m\"\ntarget = \"{target}\"\n");
        run_workload(&s, &w, opts(20, 2, 1)).metrics.mbps
    };
    let (o, i) = (rate("outer"), rate("inner"));
    assert!(want < 0.6, "zone table ratio {want}");
    assert!(
        (i / o - want).abs() < 0.03 * want,
        "inner LUN {i} MB/s, outer {o} MB/s: ratio {} vs the zones' {want}",
        i / o
    );
}
