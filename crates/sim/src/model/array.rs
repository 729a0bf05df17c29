//! Array requests: a RAID group's plan of disk operations (degraded when members have
//! failed), issued in phases (reads before the writes that depend on them), mapped to the
//! group's devices, and completion back to the controller or the rebuild.

use super::state::{AreqKind, ArrayReq, DiskOp, OpClass};
use super::Stack;
use crate::config::MirrorRead;
use crate::device::Command;
use crate::engine::Event;
use crate::raid::{DiskIo, ReadExtent, WritePlan};

impl Stack {
    /// Plans and issues an array read; None when the data is lost.
    pub(super) fn issue_read(
        &mut self,
        g: u32,
        lba: u64,
        sectors: u64,
        kind: AreqKind,
    ) -> Option<u32> {
        let mut extents = std::mem::take(&mut self.scratch.reads);
        extents.clear();
        let grp = &self.groups[g as usize];
        let planned = if grp.failed.is_empty() {
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
                kind,
                pending: extents.len() as u32,
                phase2: Vec::new(),
            });
            for e in &extents {
                let io = self.choose_copy(g, e);
                self.submit_disk_op(id, g, io, false, OpClass::Foreground, None);
            }
            id
        });
        self.scratch.reads = extents;
        id
    }

    /// Plans and issues an array write (destage or write-through); None when the layout can
    /// no longer store the data.
    pub(super) fn issue_write(
        &mut self,
        g: u32,
        lba: u64,
        sectors: u64,
        kind: AreqKind,
    ) -> Option<u32> {
        let mut plan = std::mem::take(&mut self.scratch.write);
        let grp = &self.groups[g as usize];
        let planned = if grp.failed.is_empty() {
            grp.layout.plan_write(lba, sectors, &mut plan);
            true
        } else {
            grp.layout
                .plan_write_degraded(lba, sectors, &grp.failed, &mut plan)
                .is_ok()
        };
        let class = match kind {
            AreqKind::Destage { .. } => OpClass::Destage,
            _ => OpClass::Foreground,
        };
        let id = planned.then(|| {
            let grp = &mut self.groups[g as usize];
            grp.stats.full_stripe += plan.full_stripe as u64;
            grp.stats.read_modify_write += plan.read_modify_write as u64;
            grp.stats.reconstruct_write += plan.reconstruct_write as u64;
            self.issue_plan(g, &plan, kind, class, None)
        });
        self.scratch.write = plan;
        id
    }

    /// Issues a two-phase plan (its reads, then its writes). `spare` redirects the writes to
    /// a spare device (rebuild).
    pub(super) fn issue_plan(
        &mut self,
        g: u32,
        plan: &WritePlan,
        kind: AreqKind,
        class: OpClass,
        spare: Option<u32>,
    ) -> u32 {
        let (first, phase2) = if plan.reads.is_empty() {
            (&plan.writes, Vec::new())
        } else {
            let mut writes = self.scratch.vec_pool.pop().unwrap_or_default();
            writes.extend_from_slice(&plan.writes);
            (&plan.reads, writes)
        };
        let id = self.areqs.insert(ArrayReq {
            group: g,
            kind,
            pending: first.len() as u32,
            phase2,
        });
        let first_is_write = plan.reads.is_empty();
        for &io in first.iter() {
            self.submit_disk_op(
                id,
                g,
                io,
                first_is_write,
                class,
                spare.filter(|_| first_is_write),
            );
        }
        id
    }

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

    fn submit_disk_op(
        &mut self,
        areq: u32,
        g: u32,
        io: DiskIo,
        write: bool,
        class: OpClass,
        device: Option<u32>,
    ) {
        let grp = &mut self.groups[g as usize];
        let disk = device.unwrap_or(grp.members[io.disk as usize]);
        if class == OpClass::Destage {
            grp.destage_ops_inflight += 1;
            if grp.destage_ops_inflight == grp.destage_ops_limit {
                self.ctrls[grp.ctrl as usize].destage_room -= 1;
            }
        }
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
            arrived_at: self.now,
            class,
        });
        let op = self.ops.get_mut(id);
        op.cmd.op = id;
        let cmd = op.cmd;
        if let Some(s) = self.devices[disk as usize].submit(self.now, cmd) {
            self.queue.schedule(s.done, Event::DeviceDone(s.op));
        }
    }

    pub(super) fn on_disk_done(&mut self, op_id: u32) {
        let op = self.ops.take(op_id);
        let disk = op.disk;
        if let Some(s) = self.devices[disk as usize].complete(self.now, &op.cmd, op.arrived_at) {
            self.queue.schedule(s.done, Event::DeviceDone(s.op));
        }
        let areq = self.areqs.get_mut(op.areq);
        let grp = &mut self.groups[areq.group as usize];
        let took = self.now - op.arrived_at;
        match op.class {
            OpClass::Destage => {
                grp.stats.destage_ops += 1;
                grp.stats.destage_delay_ns += took;
                if grp.destage_ops_inflight == grp.destage_ops_limit {
                    self.ctrls[grp.ctrl as usize].destage_room += 1;
                }
                grp.destage_ops_inflight -= 1;
            }
            OpClass::Rebuild => grp.stats.rebuild_ops += 1,
            OpClass::Foreground if !op.cmd.write => {
                grp.stats.read_ops += 1;
                grp.stats.read_delay_ns += took;
            }
            OpClass::Foreground => {}
        }
        let ctrl = grp.ctrl as usize;
        areq.pending = areq
            .pending
            .checked_sub(1)
            .expect("array request got more disk completions than its plan had operations");
        if areq.pending == 0 {
            if areq.phase2.is_empty() {
                self.complete_areq(op.areq);
            } else {
                let mut writes = std::mem::take(&mut areq.phase2);
                areq.pending = writes.len() as u32;
                let g = areq.group;
                let spare = match areq.kind {
                    AreqKind::Rebuild { task } => Some(self.rebuilds[task as usize].spare),
                    AreqKind::Destage { first_page, pages } => {
                        // Its pages are freed when these writes end: load their entries.
                        self.groups[g as usize]
                            .dirty
                            .prefetch_run(first_page, pages);
                        None
                    }
                    _ => None,
                };
                for &io in &writes {
                    self.submit_disk_op(op.areq, g, io, true, op.class, spare);
                }
                writes.clear();
                self.scratch.vec_pool.push(writes);
            }
        }
        if op.class == OpClass::Destage {
            self.pump_destage(ctrl);
        }
    }

    fn complete_areq(&mut self, id: u32) {
        let areq = self.areqs.remove(id);
        match areq.kind {
            kind @ AreqKind::Fetch { .. } => self.fetch_done(id, areq.group, kind),
            AreqKind::Destage { first_page, pages } => {
                self.destage_done(areq.group, first_page, pages)
            }
            AreqKind::WriteThrough { piece } => {
                let unreachable = self.controller_dead(areq.group);
                self.piece_done(piece, self.now, unreachable)
            }
            AreqKind::Rebuild { task } => self.rebuild_chunk_done(task),
        }
    }
}
