//! A workload file of the simulator (`storlab sim --workload`), checked against three
//! shipped arrays whose groups and volumes the shipped workloads name.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use storlab_sim::{parse_array, parse_workload, SystemSpec};

const ARRAYS: [(&str, &str); 3] = [
    (
        "asm-prfg.toml",
        include_str!("../../examples/arrays/asm-prfg.toml"),
    ),
    (
        "enterprise-mixed.toml",
        include_str!("../../examples/arrays/enterprise-mixed.toml"),
    ),
    (
        "redo-raid5-vs-jbod.toml",
        include_str!("../../examples/arrays/redo-raid5-vs-jbod.toml"),
    ),
];

fn systems() -> &'static [SystemSpec] {
    static SYSTEMS: OnceLock<Vec<SystemSpec>> = OnceLock::new();
    SYSTEMS.get_or_init(|| {
        ARRAYS
            .iter()
            .map(|(file, text)| parse_array(text, file).unwrap_or_else(|e| panic!("{e}")))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for system in systems() {
            let _ = parse_workload(text, "fuzz.toml", system);
        }
    }
});
