//! A plan file of `storlab compare`: parsing and checking, then the command line of every
//! unit it makes (what compare does before it runs anything).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use storlab_cli::plan::parse_plan;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut plan) = parse_plan(text, Path::new("plans/fuzz.toml")) else {
        return;
    };
    let mut skipped = Vec::new();
    for unit in plan.units(&mut skipped) {
        let _ = unit.command();
    }
    plan.simulated_only();
    let _ = plan.units(&mut skipped);
});
