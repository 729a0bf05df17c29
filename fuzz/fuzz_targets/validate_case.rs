//! A reference case of `storlab validate --references DIR` (`DIR/*.toml`): parsed and
//! checked (published figures, notes naming analyses).
#![no_main]

use libfuzzer_sys::fuzz_target;
use storlab_cli::validate::case::Case;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Case::parse(text, "references/fuzz.toml");
    }
});
