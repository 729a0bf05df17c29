//! Several arrays in one configuration: each with its own controllers and caches, host
//! volumes striped over LUNs of both, failover inside an array, and the `array` keys checked.

use super::*;

const TWO_ARRAYS: &str = include_str!("../../../../examples/arrays/two-arrays.toml");

/// The example with one processor per controller and a read hit costing 200 us of it: a
/// controller serves at most 5,000 cache hits a second, an array of two 10,000.
fn hit_bound() -> SystemSpec {
    system(&TWO_ARRAYS.replace(
        "prefetch = \"4m\"",
        "prefetch = \"4m\"\nprocessors = 1\nread_hit_cost = \"200us\"",
    ))
}

/// Random 8 KiB reads over the first 64 MiB of `target`: all in the caches after the warm-up.
fn hot_reads(s: &SystemSpec, target: &str) -> Run {
    let w = format!(
        "[[streams]]\ntarget = \"{target}\"\nprofile = \"randread-8k\"\nregion_size = \"64m\"\n"
    );
    run_workload(s, &w, opts(4, 4, 1))
}

#[test]
fn a_volume_over_two_arrays_gets_twice_one_array_s_cache_bound_throughput() {
    let s = hit_bound();
    let one = hot_reads(&s, "eastvol");
    let both = hot_reads(&s, "datavol");
    // Each array's two processors at 5,000 hits a second each: 10,000 for one array.
    let ceiling = 10_000.0;
    assert!(
        (one.metrics.iops - ceiling).abs() < 0.05 * ceiling,
        "one array: {} I/O/s",
        one.metrics.iops
    );
    let ratio = both.metrics.iops / one.metrics.iops;
    assert!((ratio - 2.0).abs() < 0.1, "both arrays / one: {ratio}");
    // Each array's controllers are components of their own, named by their array.
    for name in [
        "array east controller 0 processors",
        "array east controller 1 processors",
        "array west controller 0 processors",
        "array west controller 1 processors",
    ] {
        let c = (both.components.iter())
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no component {name}: {:?}", both.components));
        assert!(c.util_pct > 95.0, "{name}: {}% busy", c.util_pct);
    }
    // Only the east array works for the east volume.
    let west = (one.components.iter())
        .find(|c| c.name == "array west controller 0 processors")
        .expect("west controller 0");
    assert_eq!(west.ops_per_s, 0.0, "{west:?}");
}

#[test]
fn a_controller_failure_fails_over_inside_its_own_array() {
    let s = system(TWO_ARRAYS);
    let run = run_failing(&s, "oltp-60-40", &["controller:east.0@2s"], opts(4, 1, 1));
    let failover = (run.events.iter())
        .find(|e| e.kind == "failover")
        .expect("a failover");
    assert_eq!(failover.target, "controller:east.0");
    assert_eq!(failover.detail, "LUNs move to array east controller 1");
    assert_eq!(run.metrics.io_errors, 0);
    // With both of the east array's controllers gone its LUNs are unavailable: the west
    // array's controllers cannot reach its disks, and take nothing over.
    let fails = ["controller:east.0@2s", "controller:east.1@3s"];
    let run = run_failing(&s, "oltp-60-40", &fails, opts(4, 1, 1));
    let unavailable: Vec<_> = (run.events.iter())
        .filter(|e| e.kind == "data_unavailable")
        .collect();
    assert_eq!(unavailable.len(), 1, "{:?}", run.events);
    assert_eq!(unavailable[0].target, "controller:east.1");
    assert!(run.metrics.io_errors > 0);
    // The west array goes on serving its LUNs.
    let w = "[[streams]]\ntarget = \"w-0\"\nprofile = \"randread-8k\"\n";
    let wl = parse_workload(w, "w.toml", &s).unwrap_or_else(|e| panic!("{e}"));
    let f: Vec<_> = fails
        .iter()
        .map(|f| storlab_sim::parse_failure_arg(f, &s).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let west = storlab_sim::simulate_with(&s, &wl, &f, None, opts(4, 1, 1))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(west.metrics.io_errors, 0);
    assert!(west.metrics.iops > 100.0, "{}", west.metrics.iops);
}

/// The error for `text`, which must not parse.
fn error(text: &str) -> String {
    match parse_array(text, "two.toml") {
        Ok(_) => panic!("parsed:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn array_keys_that_name_no_array_are_clear_errors() {
    let unknown = error(&TWO_ARRAYS.replacen(
        "array = \"west\"\ncount = 2",
        "array = \"north\"\ncount = 2",
        1,
    ));
    assert!(
        unknown.contains("raid_groups[1].array") && unknown.contains("unknown array \"north\""),
        "{unknown}"
    );
    assert!(unknown.contains("arrays: east, west"), "{unknown}");
    let missing = error(&TWO_ARRAYS.replacen("array = \"east\"\ncount = 2", "count = 2", 1));
    assert!(
        missing.contains("raid_groups[0].array") && missing.contains("name one with `array`"),
        "{missing}"
    );
    let path = error(&TWO_ARRAYS.replacen(
        "array = \"east\"\ncontroller = 0",
        "array = \"south\"\ncontroller = 0",
        1,
    ));
    assert!(path.contains("host.paths[0].array"), "{path}");
    let controller = error(&TWO_ARRAYS.replacen(
        "array = \"west\"\ncontroller = 1",
        "array = \"west\"\ncontroller = 2",
        1,
    ));
    assert!(
        controller.contains("host.paths[3].controller"),
        "{controller}"
    );
    let owner = error(&TWO_ARRAYS.replacen(
        "count = 2                 # w-0",
        "controller = 3\ncount = 2  # w-0",
        1,
    ));
    assert!(
        owner.contains("raid_groups[1].controller") && owner.contains("array \"west\" has 2"),
        "{owner}"
    );
    let both = error(&format!("{TWO_ARRAYS}\n[controllers]\ncount = 2\n"));
    assert!(both.contains("two.toml: controllers:"), "{both}");
    let stray = error(&MIDRANGE_RAID5.replacen("count = 4", "count = 4\narray = \"east\"", 1));
    assert!(stray.contains("declares no [[arrays]]"), "{stray}");
    let port = error(&format!(
        "{TWO_ARRAYS}\n[[host_ports]]\nname = \"shared\"\nmbps = 400\npaths = [\"east-a\", \"west-a\"]\n"
    ));
    assert!(
        port.contains("host_ports[0].paths") && port.contains("different arrays"),
        "{port}"
    );
    let loop_ = error(&format!(
        "{TWO_ARRAYS}\n[[back_ends]]\nname = \"loop\"\nmbps = 200\ndisks = [\"e-0\", \"w-0\"]\n"
    ));
    assert!(
        loop_.contains("back_ends[0].disks") && loop_.contains("different arrays"),
        "{loop_}"
    );
    let s = system(TWO_ARRAYS);
    let fail =
        storlab_sim::parse_failure_arg("controller:north.0@1s", &s).expect_err("no array north");
    assert!(
        fail.to_string().contains("unknown array \"north\""),
        "{fail}"
    );
}
