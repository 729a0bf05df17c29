//! The array's front end and the host's queues: the host holding I/Os back per LUN
//! (`nr_requests`), host ports shared by the paths that reach them, and a read miss's
//! processor time ahead of its disk read.

use crate::{bare, opts, run_workload, system};
use storlab_core::result::Run;

/// Random 8 KiB reads over one 10K drive with no cache, 32 outstanding at the host;
/// `host` adds keys to `[host]`.
fn one_drive(host: &str, scheduler_depth: Option<u32>) -> Run {
    let mut keys = host.to_string();
    if let Some(q) = scheduler_depth {
        keys += &format!("\nqueue_depth_per_lun = {q}\nscheduler = \"deadline\"");
    }
    let array = bare("jbod", 1, "hdd-10k", "64k").replace("[host]", &format!("[host]\n{keys}"));
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"g\"\njobs = 1\niodepth = 32\n";
    run_workload(&system(&array), w, opts(20, 2, 1))
}

#[test]
fn nr_requests_holds_ios_back_at_the_host_and_their_wait_counts_in_its_latency() {
    let free = one_drive("", None);
    let held = one_drive("nr_requests = 4", None);
    let at_drive = |r: &Run| r.devices[0].queue_len.expect("queue length");
    // Without a cap the drive sees all 32; with it, never more than 4.
    assert!(
        at_drive(&free) > 30.0,
        "free: {} at the drive",
        at_drive(&free)
    );
    let q = at_drive(&held);
    assert!(q <= 4.0 && q > 3.8, "nr_requests = 4: {q} at the drive");
    // The host still keeps 32 outstanding: by Little's law its latency is 32 / IO/s, the
    // drive's about 4 / IO/s, the rest the wait at the host.
    let iops = held.metrics.iops;
    let host_ms = held.metrics.latency_ms.mean;
    let little_ms = 32.0 / iops * 1e3;
    assert!(
        (host_ms - little_ms).abs() < 0.02 * little_ms,
        "host latency {host_ms} ms, Little's law {little_ms} ms"
    );
    let drive_ms = held.devices[0].await_ms;
    assert!(
        host_ms > 7.0 * drive_ms,
        "host {host_ms} ms vs drive {drive_ms} ms"
    );
    // Fewer commands for the drive to reorder: fewer IO/s.
    assert!(
        iops < 0.8 * free.metrics.iops,
        "{iops} vs {}",
        free.metrics.iops
    );
}

#[test]
fn nr_requests_bounds_what_the_scheduler_can_sort() {
    // One command at the drive at a time; the deadline scheduler sorts what the host holds.
    let wide = one_drive("nr_requests = 32", Some(1)).metrics.iops;
    let narrow = one_drive("nr_requests = 2", Some(1)).metrics.iops;
    let fifo = one_drive("", None);
    let fifo_qd1 = one_drive("queue_depth_per_lun = 1", None).metrics.iops;
    assert!(
        wide > 1.2 * narrow,
        "32 held {wide} IO/s vs 2 held {narrow}"
    );
    // Two held: one at the drive, one queued, nothing to choose from: FIFO's figure.
    assert!(
        (narrow - fifo_qd1).abs() < 0.03 * fifo_qd1,
        "2 held {narrow} IO/s vs FIFO at depth 1 {fifo_qd1}"
    );
    assert!(fifo.metrics.iops > wide, "the drive's own reordering wins");
}

/// Two RAID 0 groups of four 15K disks without cache, one per controller, each reached by
/// its own wide path; `ports` declares the host ports.
fn two_paths(ports: &str) -> String {
    let path = |i: u32| {
        format!("[[host.paths]]\nname = \"p{i}\"\nmbps = 4000\nlatency = \"0\"\ncontroller = {i}\n")
    };
    format!(
        "name = \"two-paths\"\n[host]\nmultipath = \"preferred\"\n{}{}\
         [controllers]\ncount = 2\noverhead = \"0\"\nwrite_policy = \"write-through\"\n\
         mirror_writes = false\nwrite_cache = \"0\"\nsequential_trigger = 0\n\
         [[raid_groups]]\nname = \"g\"\ncount = 2\nlevel = \"raid0\"\ndisks = 4\n\
         disk_model = \"hdd-15k\"\nstripe_unit = \"256k\"\nread_cache = false\n\
         write_cache = false\n{ports}",
        path(0),
        path(1)
    )
}

/// A sequential 1 MiB read stream on each group (four outstanding each).
fn two_streams(array: &str) -> Run {
    let w = "[[streams]]\nprofile = \"seqread-1m\"\ntarget = \"g-0\"\njobs = 1\niodepth = 4\n\
             [[streams]]\nprofile = \"seqread-1m\"\ntarget = \"g-1\"\njobs = 1\niodepth = 4\n";
    run_workload(&system(array), w, opts(10, 1, 1))
}

const PORT_MBPS: f64 = 150.0;

#[test]
fn two_streams_on_one_host_port_share_it_and_on_two_ports_get_twice() {
    let free = two_streams(&two_paths("")).metrics.mbps;
    let one = two_streams(&two_paths(
        "[[host_ports]]\nname = \"fa1\"\nmbps = 150\npaths = [\"p0\", \"p1\"]\n",
    ));
    let two = two_streams(&two_paths(
        "[[host_ports]]\nname = \"fa1\"\nmbps = 150\npaths = [\"p0\"]\n\
         [[host_ports]]\nname = \"fa2\"\nmbps = 150\npaths = [\"p1\"]\n",
    ));
    assert!(free > 3.0 * PORT_MBPS, "without ports {free} MB/s");
    let (shared, apart) = (one.metrics.mbps, two.metrics.mbps);
    assert!(
        (shared - PORT_MBPS).abs() < 0.05 * PORT_MBPS,
        "two streams on one 150 MB/s port: {shared} MB/s"
    );
    assert!(
        (apart - 2.0 * PORT_MBPS).abs() < 0.05 * 2.0 * PORT_MBPS,
        "two streams on two 150 MB/s ports: {apart} MB/s"
    );
    // The port reports itself as the bottleneck, first among the components.
    let port = &one.components[0];
    assert_eq!(port.name, "host port fa1");
    assert_eq!(port.kind, "host_port");
    assert!(port.util_pct > 97.0, "{port:?}");
    assert!((port.mbps - shared).abs() < 0.02 * shared, "{port:?}");
    let ports: Vec<_> = (two.components.iter())
        .filter(|c| c.kind == "host_port")
        .map(|c| (c.name.as_str(), c.util_pct > 97.0))
        .collect();
    assert_eq!(ports, [("host port fa1", true), ("host port fa2", true)]);
}

/// Random 8 KiB reads over one NVMe SSD without cache, `iodepth` outstanding, each miss
/// costing `miss` of the one processor.
fn misses(miss: &str, iodepth: u32) -> Run {
    let array = bare("jbod", 1, "ssd-nvme", "64k").replace(
        "sequential_trigger = 0",
        &format!("sequential_trigger = 0\nread_miss_cost = \"{miss}\""),
    );
    let w = format!(
        "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"g\"\njobs = 1\niodepth = {iodepth}\n"
    );
    run_workload(&system(&array), &w, opts(2, 1, 1))
}

#[test]
fn a_read_miss_waits_for_its_processor_time_before_its_disk_read() {
    // One at a time: the miss's 200 us of processing comes before the drive's time.
    let cheap = misses("1us", 1).metrics.latency_ms.mean;
    let dear = misses("201us", 1).metrics.latency_ms.mean;
    assert!(
        ((dear - cheap) - 0.2).abs() < 0.005,
        "201 us a miss {dear} ms vs 1 us {cheap} ms"
    );
    // Sixteen outstanding saturate the processor at 1 / 201 us: the drive could do far
    // more, the misses queue for the processor and their latency grows with the queue.
    let run = misses("201us", 16);
    let ceiling = 1.0 / 201e-6;
    let iops = run.metrics.iops;
    assert!(
        (iops - ceiling).abs() < 0.02 * ceiling,
        "{iops} IO/s, processor ceiling {ceiling}"
    );
    let cpu = (run.components.iter())
        .find(|c| c.name == "controller 0 processors")
        .expect("processors reported");
    assert!(cpu.util_pct > 99.0, "{cpu:?}");
    let latency = run.metrics.latency_ms.mean;
    let little_ms = 16.0 / iops * 1e3;
    assert!(
        (latency - little_ms).abs() < 0.03 * little_ms,
        "{latency} ms at 16 outstanding, Little's law {little_ms} ms"
    );
}
