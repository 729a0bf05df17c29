//! Controllers and caches: per-LUN host queues, the controllers' processing time, the read
//! cache with sequential detection and prefetch, the write-back cache (NVS) with watermark
//! destage in address order, write-through, the NVS-full wait, and failover.
//!
//! Its interface: the host part hands it pieces ([`ControllerPart::add_piece`]) and hears
//! of each through [`super::host::HostPart::piece_done`]; it asks the arrays to read and write
//! ([`super::array::ArrayPart::read`], [`super::array::ArrayPart::write`]) and takes their completions in
//! [`ControllerPart::on_disk_done`]. The host also asks which controller owns a LUN, whether
//! a LUN has failed, and has the cache entries of an I/O loaded early
//! ([`ControllerPart::prefetch_piece`]).

mod build;
mod cpu;
mod failover;
mod gather;
mod read;
mod write;

use std::collections::VecDeque;

use super::array::OpClass;
use super::core::Core;
use super::resource::Resource;
use super::Stack;
use crate::cache::{DirtyPages, ReadCache, WriteOrder};
use crate::config::resolve::PAGE_SECTORS;
use crate::config::HostScheduler;
use crate::engine::SimTime;
use crate::metrics::GroupStats;
use crate::slab::Slab;

/// Deadline scheduler: a queued piece older than this is served first.
const DEADLINE_NS: u64 = 500_000_000;

/// The controllers with their caches, each group's cache state, the LUNs' host queues and
/// the pieces in flight.
pub(super) struct ControllerPart {
    ctrls: Vec<CtrlRt>,
    groups: Vec<CacheGroup>,
    luns: Vec<LunRt>,
    pieces: Slab<PieceRt>,
    /// A read miss's disk read waits for its processor work (the array declares its
    /// internals); otherwise the two run side by side.
    miss_after_processor: bool,
    /// Outstanding pieces at which a LUN may hold pieces back: the lower of
    /// `queue_depth_per_lun` and `nr_requests` (u32::MAX when neither caps).
    hold_from: u32,
    /// Read misses' fetches waiting for their processor work.
    delayed_fetches: Slab<DelayedFetch>,
}

/// A read miss's fetch that starts when its processor work ends.
#[derive(Clone, Copy)]
struct DelayedFetch {
    g: u32,
    lba: u64,
    sectors: u64,
    /// The piece waiting for it.
    pid: u32,
    /// Its segments go into the read cache.
    cache: bool,
}

/// Sequential-reader slot of a group's prefetch detector.
#[derive(Clone, Copy, Debug, Default)]
struct SeqStream {
    next_lba: u64,
    run: u32,
    prefetched_to: u64,
}

const SEQ_SLOTS: usize = 8;

/// A RAID group or virtual disk, as its controller sees it: cache settings, dirty pages,
/// destage progress and the sequential-read detector.
struct CacheGroup {
    capacity_sectors: u64,
    /// The controller serving the group (a survivor after a failover).
    ctrl: u32,
    read_cache: bool,
    write_cache: bool,
    dirty: DirtyPages,
    destage_cursor: u64,
    /// The dirty pages in the order they became dirty, when destage goes by age.
    write_order: Option<WriteOrder>,
    destage_ops_inflight: u32,
    destage_ops_limit: u32,
    /// Longest destage run, pages (whole stripes; see `destage_run_pages`).
    destage_run_pages: u64,
    seq: [SeqStream; SEQ_SLOTS],
    seq_victim: usize,
    /// Write gathering into full stripes (RAID 5/6).
    gather: gather::Gather,
    /// The cache-side figures: host pieces, read hits, NVS waits, lost pages.
    stats: GroupStats,
    /// The read settings of the group's array's controllers (a failover stays inside the
    /// array, so they hold for every controller that serves the group).
    reads: ReadSettings,
}

/// A group's controller settings every read uses, copied from its array's
/// [`crate::config::resolve::ControllerSpec`].
#[derive(Clone, Copy)]
struct ReadSettings {
    segment_sectors: u64,
    read_hit_ns: u64,
    read_miss_ns: u64,
    prefetch_sectors: u64,
    sequential_trigger: u32,
}

/// A write waiting for room in the write cache.
struct NvsWaiter {
    piece: u32,
    group: u32,
    lba: u64,
    sectors: u64,
    since: SimTime,
}

struct CtrlRt {
    cache: ReadCache,
    /// Segment key -> the id of the fetch bringing it, plus one (0 reads as none).
    inflight: crate::cache::WordMap<u64, u32>,
    dirty_pages: u64,
    destaging_pages: u64,
    destage_active: bool,
    waiters: VecDeque<NvsWaiter>,
    /// The controller's processors.
    cpu: Resource,
    /// Its end of the internal link to the peer (write mirroring, ALUA forwarding).
    mirror: Resource,
    /// Writes are copied to a peer's cache before they are acknowledged: mirroring is on
    /// and another controller is alive.
    mirroring: bool,
    /// Took over a failed peer under `failover_write_policy = "write-through"`: new writes go
    /// to the disks, and everything dirty is destaged.
    write_through: bool,
    groups: Vec<u32>,
    next_group: usize,
    /// How many of `groups` have destage queue room (ops in flight under their limit): a
    /// busy array calls the destage pump after every destage op, and with every group full
    /// it returns at once instead of visiting each group.
    destage_room: u32,
    /// Set by a destage pump that could start nothing: until it is cleared or the dirty
    /// level reaches it, the next pumps could not either ([`write::PumpRest`]).
    pump_rest: write::PumpRest,
    failed: bool,
}

/// A LUN with its host-side queue.
struct LunRt {
    group: u32,
    offset: u64,
    failed: bool,
    outstanding: u32,
    queue: VecDeque<u32>,
    /// Pieces waiting to enter the LUN's queue while it holds `nr_requests` (arrival order).
    blocked: VecDeque<u32>,
    /// Address of the last piece sent down (deadline scheduler's sweep position).
    last_lba: u64,
}

/// One host request's share on one LUN, as the host hands it over.
#[derive(Clone, Copy)]
pub(super) struct Piece {
    /// The host request it belongs to.
    pub host: u32,
    pub lun: u32,
    pub lba: u64,
    pub sectors: u64,
    pub write: bool,
    /// When its data is at the array (after the transfer, for a write).
    pub arrive_at: SimTime,
}

/// A piece in flight.
#[derive(Clone, Copy)]
struct PieceRt {
    piece: Piece,
    queued_at: SimTime,
    /// Fetches the piece still waits for.
    waits: u32,
    /// A fetch it waited for failed (data lost).
    error: bool,
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
    fn new(first: Option<u32>) -> Waiters {
        Waiters {
            first,
            more: Vec::new(),
        }
    }

    fn push(&mut self, pid: u32) {
        if self.first.is_none() {
            self.first = Some(pid);
        } else {
            self.more.push(pid);
        }
    }

    /// Calls `f` on each waiter in the order they came; the one waiter of almost every
    /// fetch without building an iterator over the (empty) rest.
    #[inline]
    fn for_each(self, mut f: impl FnMut(u32)) {
        if let Some(pid) = self.first {
            f(pid);
        }
        if !self.more.is_empty() {
            self.more.into_iter().for_each(f);
        }
    }
}

/// What the host asks of the controllers.
impl ControllerPart {
    /// Takes a piece: it waits to enter its LUN's queue while the LUN holds `nr_requests`
    /// requests, then in the queue while the LUN has the queue depth outstanding, else goes
    /// to its controller at once.
    #[inline]
    pub fn add_piece(s: &mut Stack, piece: Piece) {
        let c = &mut s.ctrls;
        let pid = c.pieces.insert(PieceRt {
            piece,
            queued_at: s.core.now,
            waits: 0,
            error: false,
        });
        // Under both caps nothing waits at the LUN (a piece waits in its queue only while
        // the queue depth is outstanding, blocked only while it holds `nr_requests`): one
        // test sends the piece down.
        if c.luns[piece.lun as usize].outstanding < c.hold_from {
            Self::dispatch_piece(s, pid);
        } else {
            Self::hold_piece(s, pid, piece.lun);
        }
    }

    /// A piece for LUN `lun`, which has as many outstanding as one of its caps: it waits
    /// to be let in when the LUN holds `nr_requests`, else it is admitted.
    #[cold]
    #[inline(never)]
    fn hold_piece(s: &mut Stack, pid: u32, lun: u32) {
        let nr = s.core.spec.host.nr_requests;
        let l = &mut s.ctrls.luns[lun as usize];
        if nr > 0 && l.outstanding + l.queue.len() as u32 >= nr {
            l.blocked.push_back(pid);
            return;
        }
        Self::admit_piece(s, pid, lun);
    }

    /// A piece the LUN holds: it waits in the scheduler's queue while the LUN has the
    /// queue depth outstanding, else goes to its controller at once.
    #[inline]
    fn admit_piece(s: &mut Stack, pid: u32, lun: u32) {
        let limit = s.core.spec.host.queue_depth_per_lun;
        let l = &mut s.ctrls.luns[lun as usize];
        if limit > 0 && l.outstanding >= limit {
            l.queue.push_back(pid);
        } else {
            Self::dispatch_piece(s, pid);
        }
    }

    /// LUN `lun` has failed (its data cannot be read or written there).
    #[inline]
    pub fn lun_failed(&self, lun: u32) -> bool {
        self.luns[lun as usize].failed
    }

    /// The controller serving LUN `lun`.
    #[inline]
    pub fn lun_owner(&self, lun: u32) -> u32 {
        self.groups[self.luns[lun as usize].group as usize].ctrl
    }

    /// Starts loading the cache entries a piece of `sectors` at `lba` on `lun` will look up:
    /// the write cache's dirty-page entries, and for a read the read cache's entries too
    /// (first and last segment). Changes no state.
    #[inline]
    pub fn prefetch_piece(&self, lun: u32, lba: u64, sectors: u64, write: bool) {
        let l = &self.luns[lun as usize];
        let first = l.offset + lba;
        let grp = &self.groups[l.group as usize];
        let seg = grp.reads.segment_sectors;
        if write {
            grp.dirty.prefetch(first / PAGE_SECTORS);
        } else {
            // A read looks in the write cache first (dirty data is read from there),
            // through the summary bit of its page's word.
            if !grp.dirty.is_empty() {
                grp.dirty.prefetch_summary(first / PAGE_SECTORS);
            }
            if grp.read_cache {
                let cache = &self.ctrls[grp.ctrl as usize].cache;
                let (s0, s1) = (segment_of(first, seg), segment_of(first + sectors - 1, seg));
                cache.prefetch(l.group, s0);
                // A small read lies in one segment: its entry is loading already.
                if s1 != s0 {
                    cache.prefetch(l.group, s1);
                }
            }
        }
    }
}

impl ControllerPart {
    /// Sends a piece to its group's controller.
    fn dispatch_piece(s: &mut Stack, pid: u32) {
        let c = &mut s.ctrls;
        let now = s.core.now;
        let p = &c.pieces.get(pid).piece;
        let (lun, lba, sectors, write, arrive) =
            (p.lun, p.lba, p.sectors, p.write, p.arrive_at.max(now));
        let l = &mut c.luns[lun as usize];
        l.outstanding += 1;
        let (g, glba) = (l.group, l.offset + lba);
        if c.controller_dead(g) {
            // No controller left to serve the LUN: the piece fails at once.
            Self::piece_done(s, pid, now, true);
            return;
        }
        if write {
            let ctrl = c.groups[g as usize].ctrl;
            let cost = s.core.spec.controller_spec(ctrl).write_ns;
            let t_cpu = c.controller_time(&s.core, ctrl, arrive, cost);
            Self::write_piece(s, pid, (g, glba, sectors), t_cpu);
        } else {
            // Its processing cost depends on whether it hits: booked once it is known.
            Self::read_piece(s, pid, (g, glba, sectors), arrive);
        }
    }

    /// A piece is ready at `ready_at` (data in cache, write accepted) or failed: its LUN
    /// sends the next queued piece down, and the host hears.
    #[inline(always)]
    fn piece_done(s: &mut Stack, pid: u32, ready_at: SimTime, error: bool) {
        let c = &mut s.ctrls;
        let p = c.pieces.take(pid).piece;
        let l = &mut c.luns[p.lun as usize];
        l.outstanding -= 1;
        // Nothing waits at the LUN in the common case: one test.
        if (l.queue.len() | l.blocked.len()) != 0 {
            Self::release_waiting(s, p.lun);
        }
        s.host.piece_done(&mut s.core, p.host, ready_at, error);
    }

    /// A piece of LUN `lun` is done and pieces wait there: the next queued one, by the host
    /// scheduler, goes down, and the longest blocked one, if any, is let in.
    #[cold]
    #[inline(never)]
    fn release_waiting(s: &mut Stack, lun: u32) {
        if !s.ctrls.luns[lun as usize].queue.is_empty() {
            if let Some(next) = s.ctrls.pick_queued(&s.core, lun) {
                Self::dispatch_piece(s, next);
            }
        }
        if let Some(next) = s.ctrls.luns[lun as usize].blocked.pop_front() {
            Self::admit_piece(s, next, lun);
        }
    }

    fn pick_queued(&mut self, core: &Core, lun: u32) -> Option<u32> {
        let l = &self.luns[lun as usize];
        let q = &l.queue;
        let i = match core.spec.host.scheduler {
            HostScheduler::None => 0,
            HostScheduler::Deadline => {
                // Expired first, else the next address at or after the last one sent (a
                // one-way sweep that wraps), as Linux's deadline scheduler dispatches in order.
                let pieces = &self.pieces;
                let (now, from) = (core.now, l.last_lba);
                let expired = q
                    .iter()
                    .position(|&p| now - pieces.get(p).queued_at > DEADLINE_NS);
                let key = |i: usize| {
                    let lba = pieces.get(q[i]).piece.lba;
                    (lba < from, lba)
                };
                expired.or_else(|| (0..q.len()).min_by_key(|&i| key(i)))?
            }
        };
        let pid = self.luns[lun as usize].queue.remove(i)?;
        self.luns[lun as usize].last_lba = self.pieces.get(pid).piece.lba;
        Some(pid)
    }

    /// True when group `g`'s controller has failed with no survivor to take its LUNs (after a
    /// failover the group names the survivor).
    fn controller_dead(&self, g: u32) -> bool {
        self.ctrls[self.groups[g as usize].ctrl as usize].failed
    }

    /// A disk operation ended ([`super::array::ArrayPart::disk_done`]): destage accounting, the
    /// controller's request when its plan has ended, and more destage.
    #[inline]
    pub fn on_disk_done(s: &mut Stack, op: u32) {
        let groups = &s.ctrls.groups;
        let done = s.arrays.disk_done(&mut s.core, op, |g, req| {
            if let CtrlReq::Destage { first_page, pages } = *req {
                // Its pages are freed when these writes end: load their entries.
                groups[g as usize].dirty.prefetch_run(first_page, pages);
            }
        });
        let g = done.group;
        let ctrl = s.ctrls.groups[g as usize].ctrl as usize;
        let mut destage = done.class == OpClass::Destage;
        if destage {
            s.ctrls.destage_ops_moved(g, 1, done.started);
        }
        if let Some((id, req)) = done.finished {
            match req {
                req @ CtrlReq::Fetch { .. } => Self::fetch_done(s, id, g, req),
                CtrlReq::Destage { first_page, pages } => {
                    // It pumps the destage itself: another pump would find nothing changed.
                    Self::destage_done(s, g, (first_page, pages));
                    destage = false;
                }
                CtrlReq::WriteThrough { piece } => {
                    let unreachable = s.ctrls.controller_dead(g);
                    Self::piece_done(s, piece, s.core.now, unreachable)
                }
            }
        }
        if destage {
            Self::pump_destage(s, ctrl);
        }
    }

    /// Statistics restart (end of the warm-up).
    pub fn reset_stats(&mut self) {
        for g in &mut self.groups {
            g.stats = GroupStats::default();
        }
    }

    /// Group `g`'s cache-side figures (host pieces, read hits, NVS waits).
    pub fn cache_stats(&self, g: u32) -> &GroupStats {
        &self.groups[g as usize].stats
    }
}

/// The read-cache segment of `seg` sectors holding sector `lba`: a shift when the segment size
/// is a power of two (every shipped array's), else a division. Every read computes a few.
/// The test is `seg & (seg - 1)` (segments are at least one sector), not `is_power_of_two`:
/// that counts bits, a dozen instructions on x86-64 without `popcnt`.
#[inline(always)]
pub(super) fn segment_of(lba: u64, seg: u64) -> u64 {
    debug_assert!(seg > 0, "segment of 0 sectors");
    if seg & (seg - 1) == 0 {
        lba >> seg.trailing_zeros()
    } else {
        lba / seg
    }
}

#[cfg(test)]
mod tests {
    use super::segment_of;

    #[test]
    fn segment_of_divides_by_any_segment_size() {
        // Powers of two take the shift; 12 and 24 sectors (6 and 12 KiB) the division.
        for seg in [1u64, 12, 16, 24, 128, 1 << 20] {
            for lba in [0u64, 1, 11, 12, 15, 16, 17, 1_000_003, u64::MAX / 2] {
                assert_eq!(
                    segment_of(lba, seg),
                    lba / seg,
                    "sector {lba}, {seg} sectors"
                );
            }
        }
    }
}
