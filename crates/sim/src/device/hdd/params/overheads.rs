//! Command overheads of a measured drive: by kind of command, and the early write
//! disconnect.

use serde::{Deserialize, Serialize};

use super::{is_false, is_zero_f64};

/// Command overheads by kind, ms: the drive's processing time before it acts on a command,
/// which depends on the command, whether its data is in the buffer (hit) and what the
/// previous command was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overheads {
    pub read_hit_after_read: f64,
    pub read_hit_after_write: f64,
    pub read_miss_after_read: f64,
    pub read_miss_after_write: f64,
    pub write_hit_after_read: f64,
    pub write_hit_after_write: f64,
    pub write_miss_after_read: f64,
    pub write_miss_after_write: f64,
    /// After a read's data is sent, before it completes.
    #[serde(default)]
    pub read_completion: f64,
    /// After a write's data is taken, before it completes.
    #[serde(default)]
    pub write_completion: f64,
    /// After the command overhead, before data starts to cross the interface.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub data_prep: f64,
    /// To reconnect to the host (reselect) once the drive disconnected while it positioned:
    /// before a read miss sends its data and before a write reports its completion.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub reselect: f64,
    /// To disconnect after a read miss's command overhead: after a read, after a write (the
    /// drive reconnects no sooner).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub read_disconnect_after_read: f64,
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub read_disconnect_after_write: f64,
    /// To disconnect once a write's data is in the buffer (the drive reconnects no sooner).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub write_disconnect: f64,
    /// The drive frees the bus whenever a read has sent all it has buffered, and reconnects
    /// (after its read disconnect, paying the reselect and data preparation) once the read
    /// water mark is buffered again or the read is all in (DiskSim's `Hold bus entire read
    /// xfer = 0`); otherwise it holds the bus from its first reconnection to the read's end.
    #[serde(default, skip_serializing_if = "is_false")]
    pub read_frees_bus: bool,
    /// A read miss whose head lands on the track of its first block after that block's
    /// sector reads the track's blocks before it as they pass, into the read's segment
    /// (DiskSim's `Read any free blocks = 1`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub read_any_free_blocks: bool,
    /// Writes are zero-latency: on each track the head writes the write's sectors as they
    /// pass under it with their data buffered, from wherever it lands, rather than waiting
    /// for the first (DiskSim's `Immediate buffer write = 1` or `2`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub immediate_write: bool,
}

/// The early disconnect of a write that follows a write elsewhere (DiskSim's `Extra write
/// disconnect`), ms: the drive takes the command, disconnects before it takes the data,
/// starts positioning `command + seek_delta` after the command arrived, and reconnects to
/// take the data `inter_disconnect` after the disconnect (paying the reselect and data
/// preparation of [`Overheads`]); after the data it disconnects again
/// (`second_disconnect`) and reports completion with its own reselect (`reselect`). Such a
/// drive also writes nothing until a share of the write is buffered: the whole write up
/// to 10 sectors, 10 sectors of a write of up to 44, 15 of a longer one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraWriteDisconnect {
    pub command: f64,
    pub disconnect: f64,
    pub inter_disconnect: f64,
    pub second_disconnect: f64,
    pub seek_delta: f64,
    pub reselect: f64,
}

impl ExtraWriteDisconnect {
    pub(super) fn all(&self) -> [(&'static str, f64); 6] {
        [
            ("command", self.command),
            ("disconnect", self.disconnect),
            ("inter_disconnect", self.inter_disconnect),
            ("second_disconnect", self.second_disconnect),
            ("seek_delta", self.seek_delta),
            ("reselect", self.reselect),
        ]
    }
}

impl Overheads {
    /// Every kind the same.
    pub fn uniform(ms: f64) -> Overheads {
        Overheads {
            read_hit_after_read: ms,
            read_hit_after_write: ms,
            read_miss_after_read: ms,
            read_miss_after_write: ms,
            write_hit_after_read: ms,
            write_hit_after_write: ms,
            write_miss_after_read: ms,
            write_miss_after_write: ms,
            ..Overheads::default()
        }
    }

    /// The overhead of a command, ms.
    pub fn of(&self, write: bool, hit: bool, after_write: bool) -> f64 {
        match (write, hit, after_write) {
            (false, true, false) => self.read_hit_after_read,
            (false, true, true) => self.read_hit_after_write,
            (false, false, false) => self.read_miss_after_read,
            (false, false, true) => self.read_miss_after_write,
            (true, true, false) => self.write_hit_after_read,
            (true, true, true) => self.write_hit_after_write,
            (true, false, false) => self.write_miss_after_read,
            (true, false, true) => self.write_miss_after_write,
        }
    }

    pub(super) fn all(&self) -> [(&'static str, f64); 15] {
        [
            ("read_hit_after_read", self.read_hit_after_read),
            ("read_hit_after_write", self.read_hit_after_write),
            ("read_miss_after_read", self.read_miss_after_read),
            ("read_miss_after_write", self.read_miss_after_write),
            ("write_hit_after_read", self.write_hit_after_read),
            ("write_hit_after_write", self.write_hit_after_write),
            ("write_miss_after_read", self.write_miss_after_read),
            ("write_miss_after_write", self.write_miss_after_write),
            ("read_completion", self.read_completion),
            ("write_completion", self.write_completion),
            ("data_prep", self.data_prep),
            ("reselect", self.reselect),
            (
                "read_disconnect_after_read",
                self.read_disconnect_after_read,
            ),
            (
                "read_disconnect_after_write",
                self.read_disconnect_after_write,
            ),
            ("write_disconnect", self.write_disconnect),
        ]
    }
}
