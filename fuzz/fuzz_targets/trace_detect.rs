//! A trace given without `--trace-format`: the format guessed from its first lines, then the
//! whole trace read in it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    storlab_fuzz::detect_and_read(data);
});
