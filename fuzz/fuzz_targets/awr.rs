//! An Oracle AWR report (text or HTML) or a Statspack report (`storlab sim --workload-from`,
//! `storlab awr`): read into a characterization, then what is derived from it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((c, report)) = storlab_awr::parse_report(data, "fuzz.txt") {
        let _ = report.to_string();
        let _ = storlab_awr::size_estimates(&c);
        let _ = storlab_awr::checkpoint_lag_s(&c);
        let _ = c.validate("fuzz.txt");
    }
});
