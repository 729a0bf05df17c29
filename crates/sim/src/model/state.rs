//! Runtime state of the simulated system: groups, controllers, paths, LUNs, volumes, jobs and
//! the requests in flight.

use std::collections::VecDeque;

use storlab_core::stream::{JobStream, NextIo};
use storlab_core::IoProfile;

use crate::cache::{DirtyPages, SegmentCache};
use crate::engine::SimTime;
use crate::metrics::GroupStats;
use crate::rng::Rng;
use crate::volume::{VolPiece, Volume};

/// Sequential-reader slot of a group's prefetch detector.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SeqStream {
    pub next_lba: u64,
    pub run: u32,
    pub prefetched_to: u64,
}

pub(super) const SEQ_SLOTS: usize = 8;

/// A RAID group or virtual disk.
pub(super) struct GroupRt {
    pub capacity_sectors: u64,
    pub ctrl: u32,
    pub read_cache: bool,
    pub write_cache: bool,
    pub dirty: DirtyPages,
    pub destage_cursor: u64,
    pub destage_ops_inflight: u32,
    pub destage_ops_limit: u32,
    /// Longest destage run, pages (whole stripes; see `destage_run_pages`).
    pub destage_run_pages: u64,
    pub seq: [SeqStream; SEQ_SLOTS],
    pub seq_victim: usize,
    pub stats: GroupStats,
}

/// A write waiting for room in the write cache.
pub(super) struct NvsWaiter {
    pub piece: u32,
    pub group: u32,
    pub lba: u64,
    pub sectors: u64,
    pub since: SimTime,
}

pub(super) struct CtrlRt {
    pub cache: SegmentCache,
    /// Segment key -> the id of the fetch bringing it, plus one (0 reads as none).
    pub inflight: crate::cache::WordMap<u64, u32>,
    pub dirty_pages: u64,
    pub destaging_pages: u64,
    pub destage_active: bool,
    pub waiters: VecDeque<NvsWaiter>,
    pub cpu_free_at: SimTime,
    pub mirror_free_at: SimTime,
    /// Writes are copied to a peer's cache before they are acknowledged: mirroring is on
    /// and another controller is alive.
    pub mirror: bool,
    /// Took over a failed peer under `failover_write_policy = "write-through"`: new writes go
    /// to the disks, and everything dirty is destaged.
    pub write_through: bool,
    pub groups: Vec<u32>,
    pub next_group: usize,
    /// How many of `groups` have destage queue room (ops in flight under their limit): a
    /// busy array calls the destage pump after every destage op, and with every group full
    /// it returns at once instead of visiting each group.
    pub destage_room: u32,
    pub failed: bool,
}

pub(super) struct PathRt {
    pub free_at: SimTime,
    pub ns_per_byte: f64,
    pub latency_ns: u64,
    pub controller: Option<u32>,
    pub failed: bool,
    pub ios: u64,
    pub bytes: u64,
}

/// A LUN with its host-side queue.
pub(super) struct LunRt {
    pub group: u32,
    pub offset: u64,
    pub failed: bool,
    pub outstanding: u32,
    pub queue: VecDeque<u32>,
    /// Address of the last piece sent down (deadline scheduler's sweep position).
    pub last_lba: u64,
}

/// What a stream (or a trace device) addresses.
pub(super) struct TargetRt {
    pub volume: Volume,
    /// LUN index of each volume member.
    pub luns: Vec<u32>,
    /// Failure group to read from while it is healthy (ASM preferred read).
    pub preferred_group: Option<u32>,
}

pub(super) struct StreamRt {
    pub profile: IoProfile,
    pub target: u32,
    /// Open loop: host I/Os of the stream in flight (at most
    /// [`crate::config::limits::OPEN_LOOP_MAX_OUTSTANDING`]).
    pub open_outstanding: u32,
    /// Open loop: arrivals dropped because that many were in flight (measured window).
    pub dropped: u64,
    /// Open loop: I/Os completed in the measured window.
    pub completed: u64,
    /// The stream's own figures, kept when the run reports each stream apart.
    pub class: Option<Box<StreamClass>>,
}

/// One stream reported as a class of its own: its name and target in results, and the host
/// I/O it completed in the measured window.
pub(super) struct StreamClass {
    pub name: String,
    pub target: String,
    pub io: crate::metrics::HostStats,
}

pub(super) struct Job {
    pub stream: u32,
    pub ios: JobStream,
    /// The I/O this job issues next, drawn one ahead so its cache entry can be loaded early.
    pub next_io: NextIo,
    /// `next_io` mapped onto the target's members (done once, when it was drawn).
    pub next_pieces: Vec<crate::volume::VolPiece>,
    pub arrivals: Rng,
    pub mean_interarrival_ns: f64,
    pub think_ns: u64,
}

/// Who issued a host request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Issuer {
    Job(u32),
    Trace,
    Db(crate::db::DbIo),
}

#[derive(Clone, Copy)]
pub(super) struct HostReq {
    pub issuer: Issuer,
    pub write: bool,
    pub bytes: u64,
    pub start_at: SimTime,
    pub pending: u32,
    pub ready_at: SimTime,
    pub path: u32,
    pub error: bool,
}

/// One host request's share on one LUN.
#[derive(Clone, Copy)]
pub(super) struct Piece {
    pub host: u32,
    pub lun: u32,
    pub lba: u64,
    pub sectors: u64,
    pub write: bool,
    pub arrive_at: SimTime,
    pub queued_at: SimTime,
    /// Fetches the piece still waits for.
    pub waits: u32,
    /// A fetch it waited for failed (data lost).
    pub error: bool,
}

/// What a controller asks of the arrays.
pub(super) enum CtrlReq {
    /// A read into the cache (or straight to the pieces waiting for it).
    Fetch {
        lba: u64,
        sectors: u64,
        waiters: Waiters,
        cache: bool,
        ctrl: u32,
    },
    /// Dirty pages written out.
    Destage { first_page: u64, pages: u64 },
    /// A write piece sent through to the disks.
    WriteThrough { piece: u32 },
}

/// Pieces waiting for a fetch. Almost every fetch has one (the read that started it), so the
/// first is held inline: no allocation per fetch.
pub(super) struct Waiters {
    first: Option<u32>,
    more: Vec<u32>,
}

impl Waiters {
    pub fn new(first: Option<u32>) -> Waiters {
        Waiters {
            first,
            more: Vec::new(),
        }
    }

    pub fn push(&mut self, pid: u32) {
        if self.first.is_none() {
            self.first = Some(pid);
        } else {
            self.more.push(pid);
        }
    }

    /// The waiters in the order they came.
    pub fn into_pieces(self) -> impl Iterator<Item = u32> {
        self.first.into_iter().chain(self.more)
    }
}

/// Scratch buffers reused across requests so the hot path allocates nothing.
#[derive(Default)]
pub(super) struct Scratch {
    pub vol_pieces: Vec<VolPiece>,
}
