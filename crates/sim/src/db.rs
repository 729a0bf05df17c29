//! The simulated database, in one tree.
//!
//! Its parts are pure state machines, each tested on its own: the buffer cache (clock sweep,
//! dirty tracking), the database writer (bounded outstanding, coalesced writes), the log
//! writer (group commit, file ring, switches, archiving, multiplexed members), the schema
//! arithmetic that turns a suite's tables into block counts and B-tree depths, the page-space
//! layout, and block profiles measured on a real database. [`engine`] drives them through
//! the simulated stack: sessions, the writer's rounds, checkpoints, the log and archive
//! paths, the host's file cache, and what the database reports.

pub mod archiver;
pub mod buffer_cache;
pub mod checkpoint_queue;
pub mod cleanout;
pub mod db_writer;
pub(crate) mod engine;
pub mod hint_bits;
pub mod layout;
pub mod log_writer;
pub mod measured;
pub mod query;
pub mod scan_path;
pub mod schema;
pub mod undo;
pub mod workload_mix;
pub mod write_ahead;

pub use archiver::{ArchiveIo, Archiver};
pub use buffer_cache::{Access, BufferCache};
pub use db_writer::{BlockWrite, DbWriter};
pub(crate) use engine::jobs;
pub(crate) use engine::{DbEngine, DbIo};
pub use log_writer::{LogConfig, LogStep, LogWrite, LogWriter};
pub use measured::MeasuredProfile;
pub use schema::{btree_levels, heap_blocks, Table};

/// Timers of the simulated database (events of the simulator's queue).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbTimer {
    /// A session starts the block accesses of its next operation (think and CPU time over).
    Session(u32),
    /// The database writer's round.
    Writer,
    /// A checkpoint.
    Checkpoint,
    /// A session's write of a dirty victim into the host's file cache is done (the device
    /// write goes on in the background).
    VictimBuffered(u32),
    /// A database-writer write into the host's file cache is done (the device write goes on
    /// in the background).
    WriterBuffered,
    /// The log writer's timeout (Oracle's LGWR wakes every 3 s).
    LogTimeout,
    /// The log writer's CPU burst before a write is over: it issues the write.
    LogWriterCpu,
    /// A job's CPU burst is over: the work it processed counts as done.
    JobCpu,
    /// The test running before the section's own one (`after`) ends: the next one starts.
    NextTest,
}
