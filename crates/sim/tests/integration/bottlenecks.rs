//! docs/bottlenecks.md: each example array without component keys reaches the ceilings
//! worked out by hand there (host links, the default processors, the disks) within 5%, with
//! the loads in examples/bottlenecks/; two-arrays.toml's through its volumes as well.

use crate::{opts, run_workload, system};

/// What a row's ceiling counts.
#[derive(Clone, Copy, Debug)]
enum Figure {
    Mbps,
    Iops,
}

/// (array, load, figure, ceiling by hand) for each row of the doc.
const ROWS: &[(&str, &str, Figure, f64)] = &[
    ("asm-noprfg", "links", Figure::Mbps, 800.0),
    ("asm-noprfg", "hits", Figure::Iops, 200_000.0),
    ("asm-noprfg", "write-hits", Figure::Iops, 200_000.0),
    ("asm-noprfg", "ssd-writes", Figure::Mbps, 503.2),
    ("asm-prfg", "links", Figure::Mbps, 800.0),
    ("asm-prfg", "hits", Figure::Iops, 200_000.0),
    ("asm-prfg", "write-hits", Figure::Iops, 200_000.0),
    ("asm-prfg", "ssd-writes", Figure::Mbps, 503.2),
    ("enterprise-mixed", "links", Figure::Mbps, 400.0),
    ("enterprise-mixed", "write-hits", Figure::Iops, 200_000.0),
    ("enterprise-raid10", "links", Figure::Mbps, 400.0),
    ("enterprise-raid10", "write-hits", Figure::Iops, 200_000.0),
    ("evagroup-2dg-vraid5", "links", Figure::Mbps, 800.0),
    ("evagroup-2dg-vraid5", "hits", Figure::Iops, 200_000.0),
    ("evagroup-2dg-vraid5", "write-hits", Figure::Iops, 200_000.0),
    ("evagroup-vraid1", "links", Figure::Mbps, 800.0),
    ("evagroup-vraid1", "hits", Figure::Iops, 200_000.0),
    ("evagroup-vraid1", "write-hits", Figure::Iops, 200_000.0),
    ("redo-raid5-vs-jbod", "links", Figure::Mbps, 800.0),
    ("redo-raid5-vs-jbod", "write-hits", Figure::Iops, 200_000.0),
    ("redo-raid5-vs-jbod", "disk-reads", Figure::Mbps, 250.0),
    ("two-arrays", "links", Figure::Mbps, 1600.0),
    ("two-arrays", "hits", Figure::Iops, 400_000.0),
    ("two-arrays", "write-hits", Figure::Iops, 400_000.0),
    ("two-arrays", "volume-links", Figure::Mbps, 1600.0),
    ("two-arrays", "eastvol-links", Figure::Mbps, 800.0),
];

fn read(path: &str) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    std::fs::read_to_string(format!("{root}{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_example_arrays_reach_their_hand_made_ceilings() {
    let mut off = Vec::new();
    for &(array, load, figure, ceiling) in ROWS {
        let s = system(&read(&format!("examples/arrays/{array}.toml")));
        let w = read(&format!("examples/bottlenecks/{array}/{load}.toml"));
        // The SSD writes run with the write cache full: destaging sets the pace.
        let o = if load == "ssd-writes" {
            opts(10, 20, 1)
        } else {
            opts(5, 5, 1)
        };
        let m = run_workload(&s, &w, o).metrics;
        let got = match figure {
            Figure::Mbps => m.mbps,
            Figure::Iops => m.iops,
        };
        if (got - ceiling).abs() > 0.05 * ceiling {
            off.push(format!(
                "{array} {load}: {got} {figure:?}, by hand {ceiling}"
            ));
        }
    }
    assert!(off.is_empty(), "{off:#?}");
}
