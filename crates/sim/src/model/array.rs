//! Arrays and disks: RAID groups plan array requests into disk operations (degraded when
//! members have failed) issued in phases (reads before the writes that depend on them), the
//! devices serve them; spare pools, failed members and rebuilds onto spares.
//!
//! Its interface to the controllers: [`ArrayPart::read`] and [`ArrayPart::write`] start an
//! array request on behalf of a controller request ([`CtrlReq`]), and
//! [`ArrayPart::disk_done`] takes a device's completion and hands back a [`DiskDone`], which
//! carries the controller's request back once the last disk operation of its plan has ended.
//! Rebuild requests never leave this part.

mod backend;
mod build;
mod rebuild;
mod report;

use super::controller::CtrlReq;
use super::core::Core;
use crate::config::MirrorRead;
use crate::device::{Command, Device};
use crate::engine::{Event, SimTime};
use crate::metrics::GroupStats;
use crate::raid::sets::SetHealth;
use crate::raid::{DiskIo, FailedDisks, Layout, ReadExtent, WritePlan};
use crate::slab::Slab;
use rebuild::{RebuildPacer, RebuildTask};

/// The RAID groups and their devices, with the array requests and disk operations in flight.
pub(super) struct ArrayPart {
    devices: Vec<Device>,
    groups: Vec<ArrayGroup>,
    areqs: Slab<ArrayReq>,
    ops: Slab<DiskOp>,
    /// Spare devices of each pool (a disk group's, or a RAID group's own).
    spare_pools: Vec<Vec<u32>>,
    rebuilds: Vec<RebuildTask>,
    /// The rate of each failed disk, shared by the rebuilds it started.
    pacers: Vec<RebuildPacer>,
    /// Sectors allocated in the reserve of each disk of each disk group (redundancy sets'
    /// distributed sparing), shared by the group's virtual disks.
    reserves: Vec<Vec<u64>>,
    /// Scratch plans reused across requests so the hot path allocates nothing.
    reads: Vec<ReadExtent>,
    write: WritePlan,
    vec_pool: Vec<Vec<DiskIo>>,
    back_ends: backend::BackEnds,
}

/// A RAID group or virtual disk, as the disks see it.
struct ArrayGroup {
    layout: Layout,
    /// Device index of each member (a spare replaces a member after its rebuild).
    members: Vec<u32>,
    /// Where the group's space starts on each member.
    disk_offset: u64,
    failed: FailedDisks,
    /// A virtual disk over redundancy sets: its sets' failed and rebuilt disks, once one of
    /// them failed (None while all are healthy, and for other groups).
    health: Option<SetHealth>,
    /// Index into `ArrayPart::spare_pools`.
    spare_pool: u32,
    mirror_read: MirrorRead,
    round_robin: u32,
    /// The disk-side figures: disk reads, destage operations, stripe writes, rebuild ops.
    stats: GroupStats,
}

/// Who an array request is for.
enum AreqKind {
    Ctrl(CtrlReq),
    Rebuild { task: u32 },
}

struct ArrayReq {
    group: u32,
    kind: AreqKind,
    pending: u32,
    phase2: Vec<DiskIo>,
    /// When its first disk operations were issued.
    issued_at: SimTime,
}

/// Traffic class of a disk operation, for the group statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OpClass {
    Foreground,
    Destage,
    Rebuild,
}

#[derive(Clone, Copy)]
struct DiskOp {
    areq: u32,
    disk: u32,
    cmd: Command,
    arrived_at: SimTime,
    class: OpClass,
}

/// A disk operation ended: what the controllers need to know of it.
pub(super) struct DiskDone {
    /// The group it belongs to.
    pub group: u32,
    pub class: OpClass,
    /// Disk operations of the request's second phase started now (its writes).
    pub started: u32,
    /// The controller's request, with the array request's id, when its plan has ended.
    pub finished: Option<(u32, CtrlReq)>,
}

impl ArrayPart {
    /// Plans and issues an array read for `req`; returns its id, None when the data is lost.
    #[inline]
    pub fn read(
        &mut self,
        core: &mut Core,
        g: u32,
        lba: u64,
        sectors: u64,
        req: CtrlReq,
    ) -> Option<u32> {
        let mut extents = std::mem::take(&mut self.reads);
        extents.clear();
        let grp = &self.groups[g as usize];
        let planned = if let (Some(h), Some(v)) = (&grp.health, grp.layout.sets()) {
            v.plan_read(lba, sectors, Some(h), &mut extents).is_ok()
        } else if grp.failed.is_empty() {
            grp.layout.plan_read(lba, sectors, &mut extents);
            true
        } else {
            grp.layout
                .plan_read_degraded(lba, sectors, &grp.failed, &mut extents)
                .is_ok()
        };
        let id = planned.then(|| {
            let id = self.areqs.insert(ArrayReq {
                group: g,
                kind: AreqKind::Ctrl(req),
                pending: extents.len() as u32,
                phase2: Vec::new(),
                issued_at: core.now,
            });
            for e in &extents {
                let io = self.choose_copy(g, e);
                self.submit_disk_op(core, id, g, io, false, OpClass::Foreground, None);
            }
            id
        });
        self.reads = extents;
        id
    }

    /// Plans and issues an array write for `req` (a destage or a write-through); returns how
    /// many disk operations started, None when the layout can no longer store the data.
    #[inline]
    pub fn write(
        &mut self,
        core: &mut Core,
        g: u32,
        lba: u64,
        sectors: u64,
        req: CtrlReq,
        class: OpClass,
    ) -> Option<u32> {
        let mut plan = std::mem::take(&mut self.write);
        let grp = &self.groups[g as usize];
        let planned = if let (Some(h), Some(v)) = (&grp.health, grp.layout.sets()) {
            v.plan_write(lba, sectors, Some(h), &mut plan).is_ok()
        } else if grp.failed.is_empty() {
            grp.layout.plan_write(lba, sectors, &mut plan);
            true
        } else {
            grp.layout
                .plan_write_degraded(lba, sectors, &grp.failed, &mut plan)
                .is_ok()
        };
        let started = planned.then(|| {
            let grp = &mut self.groups[g as usize];
            grp.stats.full_stripe += plan.full_stripe as u64;
            grp.stats.read_modify_write += plan.read_modify_write as u64;
            grp.stats.reconstruct_write += plan.reconstruct_write as u64;
            self.issue_plan(core, g, &plan, AreqKind::Ctrl(req), class, None);
            // The first phase: the reads, or the writes when there are none.
            let first = if plan.reads.is_empty() {
                &plan.writes
            } else {
                &plan.reads
            };
            first.len() as u32
        });
        self.write = plan;
        started
    }

    /// Issues a two-phase plan (its reads, then its writes). `spare` redirects the writes to
    /// a spare device (rebuild).
    fn issue_plan(
        &mut self,
        core: &mut Core,
        g: u32,
        plan: &WritePlan,
        kind: AreqKind,
        class: OpClass,
        spare: Option<u32>,
    ) -> u32 {
        let (first, phase2) = if plan.reads.is_empty() {
            (&plan.writes, Vec::new())
        } else {
            let mut writes = self.vec_pool.pop().unwrap_or_default();
            writes.extend_from_slice(&plan.writes);
            (&plan.reads, writes)
        };
        let id = self.areqs.insert(ArrayReq {
            group: g,
            kind,
            pending: first.len() as u32,
            phase2,
            issued_at: core.now,
        });
        let first_is_write = plan.reads.is_empty();
        for &io in first.iter() {
            let spare = spare.filter(|_| first_is_write);
            self.submit_disk_op(core, id, g, io, first_is_write, class, spare);
        }
        id
    }

    #[inline]
    fn choose_copy(&mut self, g: u32, e: &ReadExtent) -> DiskIo {
        let Some(mirror) = e.mirror else {
            return e.io;
        };
        let grp = &mut self.groups[g as usize];
        match grp.mirror_read {
            MirrorRead::Primary => e.io,
            MirrorRead::RoundRobin => {
                grp.round_robin = grp.round_robin.wrapping_add(1);
                if grp.round_robin.is_multiple_of(2) {
                    e.io
                } else {
                    mirror
                }
            }
            MirrorRead::ShortestQueue => {
                let a = self.devices[grp.members[e.io.disk as usize] as usize].load();
                let b = self.devices[grp.members[mirror.disk as usize] as usize].load();
                if b < a {
                    mirror
                } else {
                    e.io
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn submit_disk_op(
        &mut self,
        core: &mut Core,
        areq: u32,
        g: u32,
        io: DiskIo,
        write: bool,
        class: OpClass,
        device: Option<u32>,
    ) {
        let grp = &self.groups[g as usize];
        let disk = device.unwrap_or(grp.members[io.disk as usize]);
        let cmd = Command {
            op: 0,
            lba: grp.disk_offset + io.disk_lba,
            sectors: io.sectors as u32,
            write,
        };
        let id = self.ops.insert(DiskOp {
            areq,
            disk,
            cmd,
            arrived_at: core.now,
            class,
        });
        let op = self.ops.get_mut(id);
        op.cmd.op = id;
        let cmd = op.cmd;
        if let Some(s) = self.devices[disk as usize].submit(core.now, cmd) {
            core.schedule(s.done, Event::DeviceDone(s.op));
        }
    }

    /// Disk operation `op_id` ended (its drive is done with it, [`ArrayPart::device_done`], and
    /// its data has crossed the back end): the device has started its next one, the request's second
    /// phase starts after its first, and a rebuild chunk that ended moves its rebuild on.
    /// `on_phase2` sees the controller's request whose writes are about to start.
    #[inline]
    pub fn disk_done(
        &mut self,
        core: &mut Core,
        op_id: u32,
        on_phase2: impl FnOnce(u32, &CtrlReq),
    ) -> DiskDone {
        let op = self.ops.take(op_id);
        let now = core.now;
        let areq = self.areqs.get_mut(op.areq);
        let g = areq.group;
        let stats = &mut self.groups[g as usize].stats;
        let took = now - op.arrived_at;
        match op.class {
            OpClass::Destage => {
                stats.destage_ops += 1;
                stats.destage_delay_ns += took;
            }
            OpClass::Rebuild => stats.rebuild_ops += 1,
            OpClass::Foreground if !op.cmd.write => {
                stats.read_ops += 1;
                stats.read_delay_ns += took;
            }
            OpClass::Foreground => {}
        }
        let mut done = DiskDone {
            group: g,
            class: op.class,
            started: 0,
            finished: None,
        };
        areq.pending = areq
            .pending
            .checked_sub(1)
            .expect("array request got more disk completions than its plan had operations");
        if areq.pending > 0 {
            return done;
        }
        if areq.phase2.is_empty() {
            let areq = self.areqs.remove(op.areq);
            if op.class == OpClass::Destage {
                let stats = &mut self.groups[g as usize].stats;
                stats.destages += 1;
                stats.destage_rank_ns += now - areq.issued_at;
            }
            match areq.kind {
                AreqKind::Ctrl(req) => done.finished = Some((op.areq, req)),
                AreqKind::Rebuild { task } => self.rebuild_chunk_done(core, task),
            }
            return done;
        }
        let mut writes = std::mem::take(&mut areq.phase2);
        areq.pending = writes.len() as u32;
        let spare = match &areq.kind {
            AreqKind::Rebuild { task } => self.rebuilds[*task as usize].spare,
            AreqKind::Ctrl(req) => {
                on_phase2(g, req);
                None
            }
        };
        for &io in &writes {
            self.submit_disk_op(core, op.areq, g, io, true, op.class, spare);
        }
        done.started = writes.len() as u32;
        writes.clear();
        self.vec_pool.push(writes);
        done
    }

    /// The controller's request held by array request `id` (a fetch gains waiters).
    #[inline]
    pub fn request_mut(&mut self, id: u32) -> Option<&mut CtrlReq> {
        match &mut self.areqs.get_mut(id).kind {
            AreqKind::Ctrl(req) => Some(req),
            AreqKind::Rebuild { .. } => None,
        }
    }

    /// A member of some group is failed or rebuilding.
    pub fn any_failed(&self) -> bool {
        let sets_failed = |g: &ArrayGroup| {
            (g.health.as_ref()).is_some_and(|h| h.failed.iter().any(|f| !f.is_empty()))
        };
        (self.groups.iter()).any(|g| !g.failed.is_empty() || sets_failed(g))
    }
}
