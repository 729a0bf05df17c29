//! A fixed-size job run to completion (create a tablespace, copy a file, a bulk load, an
//! index build, a full-table update or delete): how long it took, whether it finished within
//! the run's time limit, and the I/O it did on each volume.

use serde::{Deserialize, Serialize};

/// The outcome of a job: `metrics.elapsed_s` holds its time; this says whether that is the
/// job's whole time or the limit it ran into.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobOutcome {
    /// The job did all its work. False: the run's time limit (`--duration`) came first, and
    /// `elapsed_s` is that limit.
    pub complete: bool,
    /// Share of the job's work done, percent (100 when complete).
    pub done_pct: f64,
    /// The time limit the job ran under, s.
    pub limit_s: f64,
    /// What the job had to do, in its own terms ("2 files of 1 GiB in writes of 1 MiB").
    pub work: String,
    /// Redo (or WAL) bytes the job generated, and its commits.
    pub redo_bytes: u64,
    pub commits: u64,
    /// Host CPU the job spent, s (`cpu_per_block`, `cpu_per_row`).
    #[serde(default)]
    pub cpu_s: f64,
    /// Index leaves the job changed, and those it had to read first.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub index_blocks: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub index_reads: u64,
    /// Times the job waited for the database writer to free buffers, and the time, s.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub free_buffer_waits: u64,
    #[serde(default)]
    pub free_buffer_wait_s: f64,
    /// The job's I/O on each volume it used, by the role the volume played.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<JobVolumeIo>,
}

/// A job's I/O on one volume.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobVolumeIo {
    /// The role (`data`, `source`, `temp`, `log`) and the volume's names.
    pub role: String,
    pub target: String,
    /// Bytes read and written, and the I/Os that did it.
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub reads: u64,
    pub writes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
