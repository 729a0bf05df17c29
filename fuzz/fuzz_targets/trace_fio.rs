//! A trace read with `--trace-format fio`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use storlab_sim::trace::TraceFormat;

fuzz_target!(|data: &[u8]| {
    storlab_fuzz::read_trace(data, TraceFormat::Fio, "Q");
});
