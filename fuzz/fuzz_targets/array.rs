//! An array file (`storlab sim --array`): parsing and validation.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = storlab_sim::parse_array(text, "fuzz.toml");
    }
});
