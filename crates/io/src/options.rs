//! The validated options of one real I/O run.

use std::path::PathBuf;

use storlab_core::IoProfile;

/// How I/O is submitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// One thread per outstanding I/O, each doing pread/pwrite.
    Psync,
    /// One io_uring per job, `iodepth` I/Os in flight, batched submission and completion.
    IoUring,
}

impl EngineKind {
    /// Name as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Psync => "psync",
            EngineKind::IoUring => "io_uring",
        }
    }
}

/// How synchronous writes reach stable storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// The file is opened with O_DSYNC: every write is synchronous.
    Dsync,
    /// fdatasync(2) after every write (psync engine).
    Fdatasync,
}

/// Everything a run needs, checked.
#[derive(Clone, Debug)]
pub struct IoOptions {
    /// File, directory or block device.
    pub target: PathBuf,
    /// The profile, with command-line overrides applied.
    pub profile: IoProfile,
    /// Engine.
    pub engine: EngineKind,
    /// Size of the file (or of each file of a directory target); for a device, how much of it
    /// to use (None: all).
    pub size_bytes: Option<u64>,
    /// Measured time after the warm-up.
    pub duration_ns: u64,
    /// Warm-up excluded from the measurement.
    pub warmup_ns: u64,
    /// O_DIRECT (the default) or buffered.
    pub direct: bool,
    /// Synchronous write method when the profile asks for synchronous writes.
    pub sync: SyncMode,
    /// Keep files storlab created.
    pub keep: bool,
    /// Allow writing an existing file storlab did not create.
    pub overwrite: bool,
    /// Allow writing this block device even though it holds data.
    pub force_destroy: Option<PathBuf>,
    /// Seed of the address streams.
    pub seed: u64,
}
