//! A workload file of real I/O (`storlab io --workload`): stream classes over profiles.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let target = std::path::Path::new("fuzz.dat");
        let _ = storlab_io::options::parse_classes(text, "fuzz.toml", target);
    }
});
