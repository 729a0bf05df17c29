//! A drive described for DiskSim, imported as `storlab drive import` does: the input is the
//! description and the files beside it, `d.diskspecs`, `d.model`, `d.seek` and `d.parv` in
//! that order, separated by lines `%%` (a missing part is a missing file). They are written
//! to a directory of this process, imported, and the drive written as TOML.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use storlab_sim::device::drive_spec::{import, to_toml};

const FILES: [&str; 4] = ["d.diskspecs", "d.model", "d.seek", "d.parv"];

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("storlab-fuzz-drive-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let dir = dir();
    let mut parts = text.split("\n%%\n");
    for name in FILES {
        let path = dir.join(name);
        match parts.next() {
            Some(part) => std::fs::write(&path, part),
            None => std::fs::remove_file(&path).or(Ok(())),
        }
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let specs = dir.join(FILES[0]);
    if let Ok(drive) = import(&specs) {
        let _ = to_toml("d", &drive, &specs);
    }
});
