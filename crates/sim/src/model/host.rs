//! Host side: jobs that issue I/O (closed or open loop), target volumes mapped to LUN pieces,
//! copy choice for mirrored reads, per-LUN host queues, paths, and completion at the host.

use storlab_core::stream::JobStream;

use super::state::*;
use super::{DbIoDone, Stack};
use crate::config::limits::OPEN_LOOP_MAX_OUTSTANDING;
use crate::config::resolve::PAGE_SECTORS;
use crate::config::{HostScheduler, MultipathPolicy, WorkloadSpec};
use crate::engine::{Event, SimTime};
use crate::rng::{Purpose, Rng};

/// A host request that cannot be served (no path, data lost) fails after this long, like a
/// SCSI command timing out; it also keeps a closed loop from spinning.
const IO_ERROR_NS: u64 = 1_000_000_000;
/// Deadline scheduler: a queued piece older than this is served first.
const DEADLINE_NS: u64 = 500_000_000;

impl Stack {
    pub(super) fn build_jobs(&mut self, workload: &WorkloadSpec) -> Result<(), String> {
        let classes = super::report::stream_classes(workload, self.core.opts.warmup_ns);
        for ((si, s), class) in workload.streams.iter().enumerate().zip(classes) {
            let p = &s.profile;
            let target = self.add_target(s.volume, &s.luns)?;
            let volume = self.targets[target as usize].volume.capacity_sectors();
            for j in 0..p.jobs {
                let index = ((si as u64) << 32) | j as u64;
                let mut ios = JobStream::new(p, si as u32, j, volume, self.core.opts.seed);
                let next_io = ios.next_io();
                let mut next_pieces = Vec::new();
                self.map_io(target, next_io.lba, next_io.sectors, &mut next_pieces);
                self.jobs.push(Job {
                    stream: si as u32,
                    next_io,
                    next_pieces,
                    ios,
                    arrivals: Rng::derive(self.core.opts.seed, Purpose::Arrival, index),
                    mean_interarrival_ns: p.rate_iops.map_or(0.0, |r| 1e9 * p.jobs as f64 / r),
                    think_ns: p.think_time.0,
                });
            }
            self.streams.push(StreamRt {
                profile: p.clone(),
                target,
                open_outstanding: 0,
                dropped: 0,
                completed: 0,
                class,
            });
        }
        Ok(())
    }

    pub(super) fn start_jobs(&mut self) {
        for j in 0..self.jobs.len() as u32 {
            let job = &mut self.jobs[j as usize];
            if job.mean_interarrival_ns > 0.0 {
                let gap = job.arrivals.exp(job.mean_interarrival_ns) as u64;
                self.core.queue.schedule(SimTime(gap), Event::JobIssue(j));
            } else {
                let depth = self.streams[job.stream as usize].profile.iodepth;
                for _ in 0..depth {
                    self.issue_job_io(j);
                }
            }
        }
        self.start_trace();
    }

    pub(super) fn on_job_issue(&mut self, j: u32) {
        let job = &mut self.jobs[j as usize];
        if job.mean_interarrival_ns > 0.0 {
            let gap = job.arrivals.exp(job.mean_interarrival_ns) as u64;
            self.core
                .queue
                .schedule(self.core.now + gap.max(1), Event::JobIssue(j));
            // An overloaded array would otherwise queue arrivals without end: past the bound
            // they are dropped and counted (reported as overload).
            let s = &mut self.streams[job.stream as usize];
            if s.open_outstanding >= OPEN_LOOP_MAX_OUTSTANDING {
                s.dropped += 1;
                return;
            }
            s.open_outstanding += 1;
        }
        self.issue_job_io(j);
    }

    /// Sends job `j`'s next I/O down and draws the one after it (the same sequence as drawing
    /// each when issued: a job's stream has its own random numbers). The one after it is
    /// mapped onto the target now, and the cache entries it will look up (usually many events
    /// later) start loading; neither changes any state the run depends on.
    fn issue_job_io(&mut self, j: u32) {
        let job = &mut self.jobs[j as usize];
        let following = job.ios.next_io();
        let io = std::mem::replace(&mut job.next_io, following);
        let target = self.streams[job.stream as usize].target;
        // The I/O's pieces, mapped when it was drawn, go where issue_host takes them from.
        std::mem::swap(&mut self.scratch.vol_pieces, &mut job.next_pieces);
        self.issue_mapped(
            Issuer::Job(j),
            target,
            io.lba,
            io.sectors,
            io.write,
            self.core.now,
        );
        let mut pieces = std::mem::take(&mut self.jobs[j as usize].next_pieces);
        self.map_io(target, following.lba, following.sectors, &mut pieces);
        self.prefetch_pieces(target, &pieces, following.write);
        self.jobs[j as usize].next_pieces = pieces;
    }

    /// Maps [lba, lba + sectors) of `target` onto its members into `out` (cleared first).
    fn map_io(&self, target: u32, lba: u64, sectors: u64, out: &mut Vec<crate::volume::VolPiece>) {
        out.clear();
        self.targets[target as usize].volume.map(lba, sectors, out);
    }

    /// Starts loading the cache entries an I/O with these pieces on `target` will look up:
    /// the write cache's dirty-page entries, and for a read the read cache's entries too
    /// (first and last segment of each piece). Changes no state.
    fn prefetch_pieces(&self, target: u32, pieces: &[crate::volume::VolPiece], write: bool) {
        let t = &self.targets[target as usize];
        let seg = self.core.spec.controllers.segment_sectors;
        for p in pieces {
            let l = &self.luns[t.luns[p.member as usize] as usize];
            let first = l.offset + p.member_lba;
            let grp = &self.groups[l.group as usize];
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
                    cache.prefetch(l.group, first / seg);
                    cache.prefetch(l.group, (first + p.sectors - 1) / seg);
                }
            }
        }
    }

    /// [`Stack::prefetch_pieces`] for an I/O not yet mapped.
    pub(crate) fn prefetch_io(&mut self, target: u32, lba: u64, sectors: u64, write: bool) {
        let mut pieces = std::mem::take(&mut self.scratch.vol_pieces);
        self.map_io(target, lba, sectors, &mut pieces);
        self.prefetch_pieces(target, &pieces, write);
        self.scratch.vol_pieces = pieces;
    }

    /// Issues a host request on `target`; `start_at` is when it was meant to start.
    pub(super) fn issue_host(
        &mut self,
        issuer: Issuer,
        target: u32,
        lba: u64,
        sectors: u64,
        write: bool,
        start_at: SimTime,
    ) {
        let mut pieces = std::mem::take(&mut self.scratch.vol_pieces);
        self.map_io(target, lba, sectors, &mut pieces);
        self.scratch.vol_pieces = pieces;
        self.issue_mapped(issuer, target, lba, sectors, write, start_at);
    }

    /// [`Stack::issue_host`] for a request already mapped into `self.scratch.vol_pieces`.
    fn issue_mapped(
        &mut self,
        issuer: Issuer,
        target: u32,
        lba: u64,
        sectors: u64,
        write: bool,
        start_at: SimTime,
    ) {
        debug_assert!({
            let mut check = Vec::new();
            self.map_io(target, lba, sectors, &mut check);
            check == self.scratch.vol_pieces
        });
        let h = self.hosts.insert(HostReq {
            issuer,
            write,
            bytes: sectors * 512,
            start_at,
            pending: 1,
            ready_at: self.core.now,
            path: 0,
            error: false,
        });
        self.host_issued += 1;
        let pieces = std::mem::take(&mut self.scratch.vol_pieces);
        let t = &self.targets[target as usize];
        let first_lun = pieces.first().map_or(0, |p| t.luns[p.member as usize]);
        let Some(path) = self.pick_path(first_lun) else {
            self.fail_host(h);
            self.scratch.vol_pieces = pieces;
            return;
        };
        self.hosts.get_mut(h).path = path;
        let arrive = if write {
            self.path_transfer(path, self.core.now, sectors * 512)
        } else {
            self.core.now
        };
        self.hosts.get_mut(h).ready_at = arrive;
        let mut i = 0;
        while i < pieces.len() {
            let extent = pieces[i].extent;
            let end = pieces[i..]
                .iter()
                .position(|p| p.extent != extent)
                .map_or(pieces.len(), |n| i + n);
            if write {
                let mut written = false;
                for p in &pieces[i..end] {
                    let lun = self.targets[target as usize].luns[p.member as usize];
                    if !self.luns[lun as usize].failed {
                        self.add_piece(h, lun, p.member_lba, p.sectors, true, arrive);
                        written = true;
                    }
                }
                if !written {
                    self.hosts.get_mut(h).error = true;
                }
            } else if let Some(k) = self.choose_read_copy(target, &pieces[i..end]) {
                let lun = self.targets[target as usize].luns[pieces[i + k].member as usize];
                self.add_piece(
                    h,
                    lun,
                    pieces[i + k].member_lba,
                    pieces[i + k].sectors,
                    false,
                    arrive,
                );
            } else {
                self.hosts.get_mut(h).error = true;
            }
            i = end;
        }
        self.scratch.vol_pieces = pieces;
        if self.hosts.get(h).pending == 1 && self.hosts.get(h).error {
            self.hosts.get_mut(h).pending = 0;
            self.fail_host(h);
            return;
        }
        self.host_part_done(h, self.core.now);
    }

    /// Copy to read: the preferred failure group's while it is healthy, else the first
    /// healthy copy (primary first).
    fn choose_read_copy(&self, target: u32, copies: &[crate::volume::VolPiece]) -> Option<usize> {
        let t = &self.targets[target as usize];
        let healthy =
            |p: &crate::volume::VolPiece| !self.luns[t.luns[p.member as usize] as usize].failed;
        if let Some(pg) = t.preferred_group {
            if let Some(k) = copies
                .iter()
                .position(|p| t.volume.failure_group(p.member) == Some(pg) && healthy(p))
            {
                return Some(k);
            }
        }
        copies.iter().position(healthy)
    }

    fn add_piece(
        &mut self,
        h: u32,
        lun: u32,
        lba: u64,
        sectors: u64,
        write: bool,
        arrive: SimTime,
    ) {
        self.hosts.get_mut(h).pending += 1;
        let pid = self.pieces.insert(Piece {
            host: h,
            lun,
            lba,
            sectors,
            write,
            arrive_at: arrive,
            queued_at: self.core.now,
            waits: 0,
            error: false,
        });
        let limit = self.core.spec.host.queue_depth_per_lun;
        let l = &mut self.luns[lun as usize];
        if limit > 0 && l.outstanding >= limit {
            l.queue.push_back(pid);
        } else {
            self.dispatch_piece(pid);
        }
    }

    /// Sends a piece to its group's controller.
    fn dispatch_piece(&mut self, pid: u32) {
        let p = self.pieces.get(pid);
        let (lun, lba, sectors, write, arrive) = (
            p.lun,
            p.lba,
            p.sectors,
            p.write,
            p.arrive_at.max(self.core.now),
        );
        let l = &mut self.luns[lun as usize];
        l.outstanding += 1;
        let (g, glba) = (l.group, l.offset + lba);
        if self.controller_dead(g) {
            // No controller left to serve the LUN: the piece fails at once.
            self.piece_done(pid, self.core.now, true);
            return;
        }
        let t_cpu = self.controller_time(self.groups[g as usize].ctrl, arrive);
        if write {
            self.write_piece(pid, g, glba, sectors, t_cpu);
        } else {
            self.read_piece(pid, g, glba, sectors, t_cpu);
        }
    }

    fn controller_time(&mut self, ctrl: u32, arrive: SimTime) -> SimTime {
        let c = &mut self.ctrls[ctrl as usize];
        let start = arrive.max(c.cpu_free_at);
        c.cpu_free_at = start + self.core.spec.controllers.overhead_ns;
        c.cpu_free_at
    }

    /// A piece is ready at `ready_at` (data in cache, write accepted) or failed.
    pub(super) fn piece_done(&mut self, pid: u32, ready_at: SimTime, error: bool) {
        let p = self.pieces.take(pid);
        let l = &mut self.luns[p.lun as usize];
        l.outstanding -= 1;
        if let Some(next) = self.next_queued(p.lun) {
            self.dispatch_piece(next);
        }
        if error {
            self.hosts.get_mut(p.host).error = true;
        }
        self.host_part_done(p.host, ready_at);
    }

    fn next_queued(&mut self, lun: u32) -> Option<u32> {
        let l = &self.luns[lun as usize];
        let q = &l.queue;
        let i = match self.core.spec.host.scheduler {
            HostScheduler::None => 0,
            HostScheduler::Deadline => {
                // Expired first, else the next address at or after the last one sent (a
                // one-way sweep that wraps), as Linux's deadline scheduler dispatches in order.
                let pieces = &self.pieces;
                let (now, from) = (self.core.now, l.last_lba);
                let expired = q
                    .iter()
                    .position(|&p| now - pieces.get(p).queued_at > DEADLINE_NS);
                let key = |i: usize| {
                    let lba = pieces.get(q[i]).lba;
                    (lba < from, lba)
                };
                expired.or_else(|| (0..q.len()).min_by_key(|&i| key(i)))?
            }
        };
        let pid = self.luns[lun as usize].queue.remove(i)?;
        self.luns[lun as usize].last_lba = self.pieces.get(pid).lba;
        Some(pid)
    }

    fn host_part_done(&mut self, h: u32, ready_at: SimTime) {
        let req = self.hosts.get_mut(h);
        req.ready_at = req.ready_at.max(ready_at);
        req.pending -= 1;
        if req.pending > 0 {
            return;
        }
        if req.error {
            self.fail_host(h);
            return;
        }
        let (write, bytes, ready, path) = (req.write, req.bytes, req.ready_at, req.path);
        let delivered = if write {
            ready
        } else {
            self.path_transfer(path, ready, bytes)
        };
        let done = delivered.max(self.core.now) + self.paths[path as usize].latency_ns;
        self.core.queue.schedule(done, Event::HostDone(h));
    }

    fn fail_host(&mut self, h: u32) {
        self.hosts.get_mut(h).error = true;
        self.core
            .queue
            .schedule(self.core.now + IO_ERROR_NS, Event::HostDone(h));
    }

    /// The path for a request whose first piece is on `lun`, by the multipath policy.
    fn pick_path(&mut self, lun: u32) -> Option<u32> {
        let n = self.paths.len();
        match self.core.spec.host.multipath {
            MultipathPolicy::Single => (!self.paths[0].failed).then_some(0),
            MultipathPolicy::RoundRobin => {
                for _ in 0..n {
                    let i = self.next_path;
                    self.next_path = if i + 1 == n { 0 } else { i + 1 };
                    if !self.paths[i].failed {
                        return Some(i as u32);
                    }
                }
                None
            }
            MultipathPolicy::Preferred => {
                let ctrl = self.groups[self.luns[lun as usize].group as usize].ctrl;
                let ok = |p: &PathRt| !p.failed;
                let to_owner = (0..n)
                    .filter(|&i| ok(&self.paths[i]) && self.paths[i].controller == Some(ctrl));
                let candidates: Vec<usize> = to_owner.collect();
                // The LUN's preferred path among those reaching its controller, else any.
                let pick = if candidates.is_empty() {
                    (0..n).find(|&i| ok(&self.paths[i]))?
                } else {
                    candidates[lun as usize % candidates.len()]
                };
                Some(pick as u32)
            }
        }
    }

    /// Reserves `path` for `bytes` from `ready_at`; returns when the transfer ends.
    pub(super) fn path_transfer(&mut self, path: u32, ready_at: SimTime, bytes: u64) -> SimTime {
        let p = &mut self.paths[path as usize];
        let start = ready_at.max(p.free_at);
        p.free_at = start + crate::divisor::scale(bytes, p.ns_per_byte);
        p.ios += 1;
        p.bytes += bytes;
        p.free_at
    }

    /// A host request completes: counted, and its issuer goes on. A database I/O is handed
    /// back for the database engine.
    pub(super) fn on_host_done(&mut self, h: u32) -> Option<DbIoDone> {
        let req = self.hosts.take(h);
        self.host_completed += 1;
        let latency = self.core.now - req.start_at;
        let mut measured = false;
        if req.error {
            if self.core.now >= self.warmup_end() {
                self.io_errors += 1;
            }
        } else {
            if self.core.now >= self.warmup_end() {
                measured = true;
                if !self.host_from_db {
                    self.host
                        .record(self.core.now.ns(), req.write, req.bytes, latency);
                }
                if let Issuer::Job(j) = req.issuer {
                    let stream = self.jobs[j as usize].stream as usize;
                    if let Some(c) = self.streams[stream].class.as_mut() {
                        c.io.record(self.core.now.ns(), req.write, req.bytes, latency);
                    }
                }
            }
            // Latency before, during and after a rebuild: reported only when a failure
            // can start one.
            if !self.failures.is_empty() {
                let phase = self.phase();
                self.phase_latency[phase].record(latency);
            }
        }
        match req.issuer {
            Issuer::Trace => self.trace_request_done(),
            Issuer::Db(io) => {
                return Some(DbIoDone {
                    io,
                    write: req.write,
                    bytes: req.bytes,
                    latency_ns: latency,
                    measured,
                })
            }
            Issuer::Job(j) => {
                let job = &self.jobs[j as usize];
                if job.mean_interarrival_ns > 0.0 {
                    let s = &mut self.streams[job.stream as usize];
                    s.open_outstanding -= 1;
                    s.completed += 1;
                    return None;
                }
                if job.think_ns > 0 {
                    self.core
                        .queue
                        .schedule(self.core.now + job.think_ns, Event::JobIssue(j));
                } else {
                    self.issue_job_io(j);
                }
            }
        }
        None
    }
}
