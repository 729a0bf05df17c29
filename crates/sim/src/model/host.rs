//! Host and paths: jobs that issue I/O (closed or open loop) and trace replay, target
//! volumes mapped onto LUN pieces, copy choice for mirrored reads, path choice and transfer,
//! and completion at the host with its statistics.
//!
//! Its interface: the stack (and through it the database engine) issues host requests with
//! [`HostPart::issue`]; the pieces go to the controllers ([`ControllerPart::add_piece`]),
//! which report each back through [`HostPart::piece_done`]; a finished request comes back
//! as an [`Event::HostDone`] to [`HostPart::on_host_done`].

mod jobs;
mod paths;
mod report;
mod trace_replay;

use storlab_core::LatencyHistogram;

use super::controller::{ControllerPart, Piece};
use super::core::Core;
use super::{DbIoDone, Stack};
use crate::config::SystemSpec;
use crate::engine::{Event, SimTime};
use crate::metrics::HostStats;
use crate::slab::Slab;
use crate::volume::{VolPiece, Volume, VolumeKind};
use jobs::{Job, StreamRt};
use paths::PathRt;

pub use trace_replay::{TraceMode, TraceSource};

/// A host request that cannot be served (no path, data lost) fails after this long, like a
/// SCSI command timing out; it also keeps a closed loop from spinning.
const IO_ERROR_NS: u64 = 1_000_000_000;

/// The host: its jobs, trace replay, targets, paths, the requests in flight and the host
/// figures.
pub(super) struct HostPart {
    paths: Vec<PathRt>,
    ports: paths::HostPorts,
    next_path: usize,
    targets: Vec<TargetRt>,
    streams: Vec<StreamRt>,
    jobs: Vec<Job>,
    hosts: Slab<HostReq>,
    trace: Option<Box<trace_replay::TraceRt>>,
    stats: HostStats,
    /// Every host I/O is the database's: the host figures are its roles' figures merged at
    /// the end, and each I/O is recorded once (under its role), not twice.
    from_db: bool,
    /// Host latency before any failure, while any member is failed or rebuilding, after.
    phase_latency: [LatencyHistogram; 3],
    io_errors: u64,
    issued: u64,
    completed: u64,
    /// Scratch mapping reused across requests so the hot path allocates nothing.
    vol_pieces: Vec<VolPiece>,
}

/// What a stream (or a trace device) addresses.
struct TargetRt {
    volume: Volume,
    /// LUN index of each volume member.
    luns: Vec<u32>,
    /// Failure group to read from while it is healthy (ASM preferred read).
    preferred_group: Option<u32>,
}

/// Who issued a host request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Issuer {
    Job(u32),
    Trace,
    Db(crate::db::DbIo),
}

#[derive(Clone, Copy)]
struct HostReq {
    issuer: Issuer,
    write: bool,
    bytes: u64,
    start_at: SimTime,
    pending: u32,
    ready_at: SimTime,
    path: u32,
    error: bool,
}

/// A host I/O: `sectors` at `lba` of a target.
#[derive(Clone, Copy)]
pub(super) struct HostIo {
    pub target: u32,
    pub lba: u64,
    pub sectors: u64,
    pub write: bool,
}

impl HostPart {
    /// A target over LUNs: a configured volume, or the concatenation of `luns`.
    pub fn add_target(
        &mut self,
        spec: &SystemSpec,
        volume: Option<u32>,
        luns: &[u32],
    ) -> Result<u32, String> {
        let t = match volume {
            Some(v) => {
                let v = &spec.volumes[v as usize];
                TargetRt {
                    volume: v.volume.clone(),
                    luns: v.luns.clone(),
                    preferred_group: v.preferred_read,
                }
            }
            None => {
                let sizes: Vec<u64> = luns
                    .iter()
                    .map(|&l| spec.luns[l as usize].sectors)
                    .collect();
                TargetRt {
                    volume: Volume::new(VolumeKind::Concat, &sizes).map_err(|e| e.to_string())?,
                    luns: luns.to_vec(),
                    preferred_group: None,
                }
            }
        };
        self.targets.push(t);
        Ok(self.targets.len() as u32 - 1)
    }

    /// Maps [lba, lba + sectors) of `target` onto its members into `out` (cleared first).
    #[inline(always)]
    fn map_io(&self, target: u32, lba: u64, sectors: u64, out: &mut Vec<VolPiece>) {
        out.clear();
        self.targets[target as usize].volume.map(lba, sectors, out);
    }

    /// Starts loading the cache entries an I/O with these pieces on `target` will look up
    /// ([`ControllerPart::prefetch_piece`]). Changes no state. Inlined: a call would cost
    /// a sixth of the hint's instructions in saved registers.
    #[inline(always)]
    fn prefetch_pieces(
        &self,
        ctrls: &ControllerPart,
        target: u32,
        pieces: &[VolPiece],
        write: bool,
    ) {
        let t = &self.targets[target as usize];
        for p in pieces {
            let lun = t.luns[p.member as usize];
            ctrls.prefetch_piece(lun, p.member_lba, p.sectors, write);
        }
    }

    /// [`HostPart::prefetch_pieces`] for an I/O not yet mapped.
    pub fn prefetch_io(&mut self, ctrls: &ControllerPart, io: HostIo) {
        let mut pieces = std::mem::take(&mut self.vol_pieces);
        self.map_io(io.target, io.lba, io.sectors, &mut pieces);
        self.prefetch_pieces(ctrls, io.target, &pieces, io.write);
        self.vol_pieces = pieces;
    }

    /// Issues a host request; `start_at` is when it was meant to start.
    pub fn issue(s: &mut Stack, issuer: Issuer, io: HostIo, start_at: SimTime) {
        let host = &mut s.host;
        // Mapped in place: the targets and the scratch pieces are separate fields.
        host.vol_pieces.clear();
        host.targets[io.target as usize]
            .volume
            .map(io.lba, io.sectors, &mut host.vol_pieces);
        Self::issue_mapped(s, issuer, io, start_at);
    }

    /// [`HostPart::issue`] for a request already mapped into `self.vol_pieces`.
    fn issue_mapped(s: &mut Stack, issuer: Issuer, io: HostIo, start_at: SimTime) {
        let host = &mut s.host;
        let now = s.core.now;
        let HostIo {
            target,
            lba,
            sectors,
            write,
        } = io;
        debug_assert!({
            let mut check = Vec::new();
            host.map_io(target, lba, sectors, &mut check);
            check == host.vol_pieces
        });
        host.issued += 1;
        let pieces = std::mem::take(&mut host.vol_pieces);
        let t = &host.targets[target as usize];
        let first_lun = pieces.first().map_or(0, |p| t.luns[p.member as usize]);
        // Path and arrival are known before the request is stored: one slab write.
        let path = host.pick_path(&s.core, &s.ctrls, first_lun);
        let arrive = match path {
            Some(path) if write => host.path_transfer(&s.core, path, now, sectors * 512),
            _ => now,
        };
        let h = host.hosts.insert(HostReq {
            issuer,
            write,
            bytes: sectors * 512,
            start_at,
            pending: 1,
            ready_at: arrive,
            path: path.unwrap_or(0),
            error: false,
        });
        if path.is_none() {
            host.fail_host(&mut s.core, h);
            host.vol_pieces = pieces;
            return;
        }
        let template = Piece {
            host: h,
            lun: 0,
            lba: 0,
            sectors: 0,
            write,
            arrive_at: arrive,
        };
        let mut i = 0;
        while i < pieces.len() {
            let extent = pieces[i].extent;
            let end = pieces[i..]
                .iter()
                .position(|p| p.extent != extent)
                .map_or(pieces.len(), |n| i + n);
            if !Self::send_extent(s, target, &pieces[i..end], template) {
                s.host.hosts.get_mut(h).error = true;
            }
            i = end;
        }
        let host = &mut s.host;
        host.vol_pieces = pieces;
        let req = host.hosts.get_mut(h);
        if req.pending == 1 && req.error {
            req.pending = 0;
            host.fail_host(&mut s.core, h);
            return;
        }
        host.host_part_done(&mut s.core, h, now);
    }

    /// Hands the copies of one extent to the controllers as pieces like `template`: a write
    /// to every healthy copy, a read to one. False when no copy could take it.
    #[inline]
    fn send_extent(s: &mut Stack, target: u32, copies: &[VolPiece], template: Piece) -> bool {
        let host = &mut s.host;
        let copies = if template.write {
            copies
        } else {
            match host.choose_read_copy(&s.ctrls, target, copies) {
                Some(k) => &copies[k..k + 1],
                None => &[],
            }
        };
        let mut sent = false;
        for p in copies {
            let host = &mut s.host;
            let lun = host.targets[target as usize].luns[p.member as usize];
            if template.write && s.ctrls.lun_failed(lun) {
                continue;
            }
            host.hosts.get_mut(template.host).pending += 1;
            let arrive_at = Self::forwarded(s, template, lun, p.sectors);
            let piece = Piece {
                lun,
                lba: p.member_lba,
                sectors: p.sectors,
                arrive_at,
                ..template
            };
            ControllerPart::add_piece(s, piece);
            sent = true;
        }
        sent
    }

    /// Copy to read: the preferred failure group's while it is healthy, else the first
    /// healthy copy (primary first).
    fn choose_read_copy(
        &self,
        ctrls: &ControllerPart,
        target: u32,
        copies: &[VolPiece],
    ) -> Option<usize> {
        let t = &self.targets[target as usize];
        let healthy = |p: &VolPiece| !ctrls.lun_failed(t.luns[p.member as usize]);
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

    /// A piece of host request `h` is ready at `ready_at` (data in cache, write accepted),
    /// or failed.
    #[inline(always)]
    pub fn piece_done(&mut self, core: &mut Core, h: u32, ready_at: SimTime, error: bool) {
        if error {
            self.hosts.get_mut(h).error = true;
        }
        self.host_part_done(core, h, ready_at);
    }

    #[inline(always)]
    fn host_part_done(&mut self, core: &mut Core, h: u32, ready_at: SimTime) {
        let req = self.hosts.get_mut(h);
        req.ready_at = req.ready_at.max(ready_at);
        req.pending -= 1;
        if req.pending > 0 {
            return;
        }
        if req.error {
            self.fail_host(core, h);
            return;
        }
        let (write, bytes, ready, path) = (req.write, req.bytes, req.ready_at, req.path);
        let delivered = if write {
            ready
        } else {
            self.path_transfer(core, path, ready, bytes)
        };
        let done = delivered.max(core.now) + self.paths[path as usize].latency_ns;
        core.schedule(done, Event::HostDone(h));
    }

    #[inline]
    fn fail_host(&mut self, core: &mut Core, h: u32) {
        self.hosts.get_mut(h).error = true;
        core.schedule(core.now + IO_ERROR_NS, Event::HostDone(h));
    }

    /// Host request `h` completes: counted (its latency under `phase`, when failures can
    /// happen), and its issuer goes on. A database I/O is handed back for the database
    /// engine.
    #[inline(always)]
    pub fn on_host_done(s: &mut Stack, h: u32, phase: Option<usize>) -> Option<DbIoDone> {
        let (this, core) = (&mut s.host, &s.core);
        let req = this.hosts.take(h);
        this.completed += 1;
        let now = core.now;
        let latency = now - req.start_at;
        let mut measured = false;
        if req.error {
            if core.measuring() {
                this.io_errors += 1;
            }
        } else {
            if core.measuring() {
                measured = true;
                if !this.from_db {
                    this.stats.record(now.ns(), req.write, req.bytes, latency);
                }
                if let Issuer::Job(j) = req.issuer {
                    let stream = this.jobs[j as usize].stream as usize;
                    if let Some(c) = this.streams[stream].class.as_mut() {
                        c.io.record(now.ns(), req.write, req.bytes, latency);
                    }
                }
            }
            // Latency before, during and after a rebuild: reported only when a failure
            // can start one.
            if let Some(phase) = phase {
                this.phase_latency[phase].record(latency);
            }
        }
        match req.issuer {
            Issuer::Trace => Self::trace_request_done(s),
            Issuer::Db(io) => {
                return Some(DbIoDone {
                    io,
                    write: req.write,
                    bytes: req.bytes,
                    latency_ns: latency,
                    measured,
                })
            }
            Issuer::Job(j) => Self::job_io_done(s, j),
        }
        None
    }

    /// The host ports' figures over a window of `window_ns`.
    pub fn port_metrics(
        &self,
        window_ns: u64,
    ) -> impl Iterator<Item = storlab_core::result::ComponentMetrics> + '_ {
        self.ports.metrics(window_ns)
    }

    /// Every issued request either completed once or is still in flight.
    pub fn check_accounts(&self) {
        assert_eq!(
            self.issued,
            self.completed + self.hosts.len() as u64,
            "host requests lost or completed twice"
        );
    }
}
