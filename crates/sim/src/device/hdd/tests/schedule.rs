//! The drive's command scheduling: SPTF's pick, the age limit, a queue of the largest depth.

use super::super::params::MAX_QUEUE_DEPTH;
use super::*;

fn lone_positioning_ns(d: &Hdd, p: Pending, now_ns: u64, long_leads: &mut usize) -> u64 {
    if d.ra_hit(&p, now_ns).is_some() {
        return 0;
    }
    let mut lone = d.clone();
    lone.pending = vec![p];
    let (_, a) = lone.start_next(now_ns).expect("one command queued");
    // The rotational wait by plain remainders: the head is ready `lead` after now.
    let rev = d.revolution_ns();
    let lead = a.overhead_ns + a.seek_ns;
    let now_angle = (now_ns + d.phase_ns) % rev;
    *long_leads += usize::from(now_angle + lead >= 2 * rev);
    let ready_angle = (now_angle + lead) % rev;
    assert_eq!(
        a.rotate_ns,
        (u64::from(p.angle_ns) + rev - ready_angle) % rev,
        "lead {lead} ns"
    );
    lead + a.rotate_ns
}

/// The SPTF pick against its definition: of a mixed queue (reads and writes, some inside
/// the read-ahead window, some queued while the previous command ran), the command whose
/// positioning time alone is least, ties to the earliest arrival, then to queue order, and
/// timed as it would be alone. On a 15K drive and on a 7,200 rpm one, whose longest seeks
/// take two revolutions.
#[test]
fn sptf_picks_the_least_positioning_time_of_the_queue() {
    for name in ["hdd-15k", "hdd-7k2"] {
        let mut d = Hdd::new(&params(name), 11).unwrap();
        let cap = d.capacity_sectors();
        let mut rng = Rng::from_seed(21);
        let (mut now, mut op, mut last_read_end) = (1_000u64, 0u32, 0u64);
        let (mut buffered_picks, mut long_leads) = (0, 0);
        for _ in 0..3_000 {
            // Refill to 2..12 commands: near the last read's end (the read-ahead window),
            // short seeks, anywhere, or at the far edge from the head (full-stroke seeks);
            // half of them writes.
            let want = 2 + rng.below(11) as usize;
            let far_edge = if d.cur_cyl < d.cylinders() / 2 {
                cap - cap / 200
            } else {
                0
            };
            while d.pending.len() < want {
                let lba = match rng.below(4) {
                    0 => (last_read_end + rng.below(600)).min(cap - 16),
                    1 => random_in(&mut rng, 0, 2_000_000, 16),
                    2 => random_in(&mut rng, 0, cap - 16, 16),
                    _ => random_in(&mut rng, far_edge, far_edge + cap / 200 - 16, 16),
                };
                let arrived = now.saturating_sub(rng.below(3) * 1_000);
                d.enqueue(arrived, op, lba, 16, rng.below(2) == 0);
                op += 1;
            }
            let times: Vec<u64> = d
                .pending
                .iter()
                .map(|&p| lone_positioning_ns(&d, p, now, &mut long_leads))
                .collect();
            let want_i = (0..times.len())
                .min_by_key(|&i| (times[i], d.pending[i].arrived_ns, i))
                .unwrap();
            let want = d.pending[want_i];
            buffered_picks += usize::from(times[want_i] == 0);
            // The pick's command alone in the queue: timed from scratch.
            let mut lone = d.clone();
            lone.pending = vec![want];
            let (_, lone_access) = lone.start_next(now).expect("one command queued");
            let (id, a) = d.start_next(now).expect("work queued");
            assert_eq!(
                id, want.op,
                "{name}: want {want:?}, positioning times {times:?}"
            );
            // The pick's own timing of it, reused, splits the time the same way.
            assert_eq!(a, lone_access, "{name}: {want:?}");
            if !want.write {
                last_read_end = want.lba + u64::from(want.sectors);
            }
            now += a.total_ns();
            d.finish(now);
            // Sometimes the next pick comes later than the completion (no overlap).
            now += rng.below(2) * 500_000;
        }
        assert!(
            buffered_picks > 10,
            "{name}: read-ahead hits picked {buffered_picks}"
        );
        if name == "hdd-7k2" {
            // Heads ready more than a revolution after the next time the spindle passes
            // where it is now (a long seek on a slow spindle): the rotation wraps twice.
            assert!(long_leads > 10, "{name}: {long_leads} long leads");
        }
    }
}

/// One command at the far end of the disk among a stream of commands near the start: SPTF
/// passes it over until it is older than the age limit, then serves it next; so does SSTF (an
/// elevator's sweep reaches it anyway).
#[test]
fn a_command_older_than_the_age_limit_is_served_next() {
    for sched in [Scheduler::Sptf, Scheduler::Sstf] {
        for (max_age_ms, limited) in [(40.0, true), (1e6, false)] {
            let p = HddParams {
                scheduler: sched,
                max_queue_age_ms: max_age_ms,
                ..params("hdd-15k")
            };
            let mut d = Hdd::new(&p, 3).unwrap();
            let far = d.capacity_sectors() - 64;
            let mut rng = Rng::from_seed(5);
            let mut near = || random_in(&mut rng, 0, 200_000, 16);
            d.enqueue(0, 0, far, 16, false);
            for op in 1..8 {
                d.enqueue(0, op, near(), 16, false);
            }
            let (mut now, mut served_ns) = (0u64, None);
            for op in 8..3_000 {
                let (id, access) = d.start_next(now).expect("work queued");
                now += access.total_ns();
                d.finish(now);
                if id == 0 {
                    served_ns = Some(now);
                    break;
                }
                d.enqueue(now, op, near(), 16, false);
            }
            let label = format!("{sched:?}, limit {max_age_ms} ms");
            if limited {
                // Served by the first pick after it turned 40 ms old: within one more
                // command (near ones take under 10 ms) and its own long seek.
                let t = served_ns.unwrap_or_else(|| panic!("{label}: never served")) as f64 / 1e6;
                assert!((40.0..60.0).contains(&t), "{label}: served at {t} ms");
            } else {
                assert_eq!(served_ns, None, "{label}: the far command should starve");
            }
        }
    }
}

#[test]
fn a_full_queue_of_the_largest_depth_serves_every_command_once() {
    for scheduler in [Scheduler::Sptf, Scheduler::Fifo] {
        let mut p = params("hdd-15k");
        p.queue_depth = MAX_QUEUE_DEPTH as u32;
        p.scheduler = scheduler;
        let mut d = Hdd::new(&p, 0).expect("valid");
        let mut rng = Rng::from_seed(9);
        let n = MAX_QUEUE_DEPTH as u32;
        for op in 0..n {
            let lba = random_in(&mut rng, 0, d.capacity_sectors() - 16, 16);
            d.enqueue(0, op, lba, 16, op % 3 == 0);
        }
        assert_eq!(d.outstanding(), n);
        let mut served = vec![false; n as usize];
        let mut now = 0;
        while let Some((op, access)) = d.start_next(now) {
            assert!(!served[op as usize], "command {op} served twice");
            served[op as usize] = true;
            now += access.total_ns();
            assert_eq!(d.finish(now), op);
        }
        assert!(
            served.iter().all(|&s| s),
            "{scheduler:?}: a command was lost"
        );
        assert_eq!(d.outstanding(), 0);
    }
}
