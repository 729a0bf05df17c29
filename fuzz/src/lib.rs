//! What the fuzz targets share: feeding bytes to a trace reader the way `storlab sim --trace`
//! does, and checking what the reader documents about every record it yields.

use std::io::BufRead;

use storlab_sim::trace::{detect_format, TraceFormat, TraceReader};

/// Reads every record of `data` in `format` (the blkparse reader with `action`), going on
/// after malformed lines as a caller that counts errors would.
pub fn read_trace(data: &[u8], format: TraceFormat, action: &str) {
    let mut reader = TraceReader::new(data, format, "fuzz.trace").with_blkparse_action(action);
    while let Some(item) = reader.next() {
        if let Ok(record) = item {
            assert!(record.bytes >= 1, "a record of 0 bytes: {record:?}");
            assert!(
                (record.device as usize) < reader.devices().len(),
                "device {} of {} known: {record:?}",
                record.device,
                reader.devices().len()
            );
        }
    }
}

/// Guesses the format from the first 20 lines, as `storlab sim --trace` without
/// `--trace-format` does, then reads the whole trace in that format.
pub fn detect_and_read(data: &[u8]) {
    let head: Vec<String> = data.lines().take(20).map_while(Result::ok).collect();
    let lines: Vec<&str> = head.iter().map(String::as_str).collect();
    if let Some(format) = detect_format(&lines) {
        read_trace(data, format, "Q");
    }
}

/// A directory of this process for one input's files, under the fuzz crate's own `target/`
/// (never the system's temporary directory); removed with everything in it when dropped, so
/// a run leaves nothing behind but the build directory it already has.
pub struct Scratch(std::path::PathBuf);

impl Scratch {
    /// Creates `fuzz/target/scratch/NAME-PID` (empty).
    pub fn new(name: &str) -> Scratch {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/scratch")
            .join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Scratch(dir)
    }

    /// The directory.
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
