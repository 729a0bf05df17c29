//! RAID 5 write gathering: a sequential writer's data leaves the write cache as full-stripe
//! writes (no reads), while random small writes stay read-modify-writes.

use super::*;

/// One controller with a 16 MiB write cache over two RAID 5 4+1 groups of 64 KiB units
/// (full stripe: 256 KiB of data), with `hold` as `full_stripe_hold`.
fn two_groups(hold: &str) -> SystemSpec {
    let group = |name: &str| {
        format!(
            "[[raid_groups]]\nname = \"{name}\"\nlevel = \"raid5\"\ndisks = 5\n\
             disk_model = \"hdd-10k\"\nstripe_unit = \"64k\"\n"
        )
    };
    system(&format!(
        "name = \"gather\"\n[controllers]\ncount = 1\ncache = \"256m\"\nwrite_cache = \"16m\"\n\
         full_stripe_hold = \"{hold}\"\n{}{}",
        group("data"),
        group("log")
    ))
}

/// Random 8 KiB writes at 250/s on `data` keep destage going; a sequential 8 KiB writer at
/// 500/s on `log`, asynchronous, one at a time.
const MIX: &str = "[[streams]]\nprofile = \"randwrite-8k\"\ntarget = \"data\"\nrate_iops = 250\n\
                   [[streams]]\nprofile = \"redo\"\ntarget = \"log\"\nsync_writes = false\n\
                   rate_iops = 500\n";

/// (disk reads/s, disk writes/s, disk MB/s) of a group's member disks.
fn disks(run: &Run, group: &str) -> (f64, f64, f64) {
    let members = || (run.devices.iter()).filter(|d| d.name.starts_with(group));
    (
        members().map(|d| d.read_iops).sum(),
        members().map(|d| d.write_iops).sum(),
        members().map(|d| d.mbps).sum(),
    )
}

fn stripe_writes(run: &Run, group: &str) -> storlab_core::result::StripeWrites {
    let a = (run.arrays.iter()).find(|a| a.name == group);
    a.and_then(|a| a.stripe_writes.clone())
        .unwrap_or_else(|| panic!("no stripe writes for {group}"))
}

#[test]
fn a_sequential_writer_is_destaged_in_full_stripes_and_random_writes_are_not() {
    let run = run_workload(&two_groups("1s"), MIX, opts(20, 5, 1));
    let log_host_writes = 500.0;
    let (reads, _, log_mb) = disks(&run, "log");
    let log = stripe_writes(&run, "log");
    assert_eq!(reads, 0.0, "full-stripe writes read nothing");
    assert_eq!((log.read_modify_write, log.reconstruct_write), (0.0, 0.0));
    // 32 writes of 8 KiB fill one 256 KiB stripe.
    let stripes = log_host_writes / 32.0;
    assert!(
        (log.full_stripe / stripes - 1.0).abs() < 0.03,
        "{} full stripes/s; want about {stripes}",
        log.full_stripe
    );
    // Disk bytes: 5 units written per 4 units of data (read-modify-writes of 8 KiB would
    // move 4 per 1), within what runs straddling the window's edges add.
    let host_log_mb = run.metrics.write_mbps * log_host_writes / run.metrics.write_iops;
    let ratio = log_mb / host_log_mb;
    assert!((ratio - 1.25).abs() < 0.1, "disk/host bytes on log {ratio}");
    // Random 8 KiB writes: two reads and two writes each, hold or not.
    let data = stripe_writes(&run, "data");
    let (reads, writes, _) = disks(&run, "data");
    let host = run.metrics.write_iops - log_host_writes;
    assert!(data.full_stripe == 0.0 && data.read_modify_write > 0.0);
    for (what, n) in [("reads", reads), ("writes", writes)] {
        assert!(
            (n / host - 2.0).abs() < 0.1,
            "{what} per random write {}",
            n / host
        );
    }
}

#[test]
fn without_a_hold_the_sequential_writer_costs_read_modify_writes() {
    // Destage catches up with the writer and takes the start of the stripe it is filling:
    // each 8 KiB write is then read-modify-written on its own.
    let run = run_workload(&two_groups("0"), MIX, opts(20, 5, 1));
    let (reads, writes, _) = disks(&run, "log");
    let log = stripe_writes(&run, "log");
    assert!(log.read_modify_write > 10.0 * log.full_stripe, "{log:?}");
    assert!(
        reads > 300.0 && writes > 300.0,
        "{reads} reads/s, {writes} writes/s"
    );
}
