//! A drive described for DiskSim, imported as `storlab drive import` does: the input is the
//! description and the files beside it, `d.diskspecs`, `d.model`, `d.seek` and `d.parv` in
//! that order, separated by lines `%%` (a missing part is a missing file). They are written
//! to a scratch directory of this input, imported, and the drive written as TOML.
#![no_main]

use libfuzzer_sys::fuzz_target;
use storlab_sim::device::drive_spec::{import, to_toml};

const FILES: [&str; 4] = ["d.diskspecs", "d.model", "d.seek", "d.parv"];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let scratch = storlab_fuzz::Scratch::new("drive");
    let dir = scratch.path();
    for (name, part) in FILES.iter().zip(text.split("\n%%\n")) {
        let path = dir.join(name);
        std::fs::write(&path, part).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let specs = dir.join(FILES[0]);
    if let Ok(drive) = import(&specs) {
        let _ = to_toml("d", &drive, &specs);
    }
});
