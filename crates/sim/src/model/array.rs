//! Array requests: a RAID group's plan of disk operations, issued in phases (reads before the
//! writes that depend on them), and completion back to the controller.

use super::{AreqKind, ArrayReq, DiskOp, Model};
use crate::config::MirrorRead;
use crate::device::Command;
use crate::engine::{Event, SimTime};
use crate::raid::{DiskIo, ReadExtent};

impl Model {
    /// Plans and issues an array read; returns the array request id.
    pub(super) fn issue_read(&mut self, g: u32, lba: u64, sectors: u64, kind: AreqKind) -> u32 {
        let mut extents = std::mem::take(&mut self.read_scratch);
        extents.clear();
        self.groups[g as usize]
            .layout
            .plan_read(lba, sectors, &mut extents);
        let id = self.areqs.insert(ArrayReq {
            group: g,
            kind,
            pending: extents.len() as u32,
            phase2: Vec::new(),
        });
        for e in &extents {
            let io = self.choose_copy(g, e);
            self.submit_disk_op(id, g, io, false, false);
        }
        self.read_scratch = extents;
        id
    }

    /// Plans and issues an array write (destage or write-through); returns its id.
    pub(super) fn issue_write(&mut self, g: u32, lba: u64, sectors: u64, kind: AreqKind) -> u32 {
        let mut plan = std::mem::take(&mut self.write_scratch);
        self.groups[g as usize]
            .layout
            .plan_write(lba, sectors, &mut plan);
        let grp = &mut self.groups[g as usize];
        grp.stats.full_stripe += plan.full_stripe as u64;
        grp.stats.read_modify_write += plan.read_modify_write as u64;
        grp.stats.reconstruct_write += plan.reconstruct_write as u64;
        let destage = matches!(kind, AreqKind::Destage { .. });
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
        });
        let first_is_write = plan.reads.is_empty();
        for &io in first.iter() {
            self.submit_disk_op(id, g, io, first_is_write, destage);
        }
        self.write_scratch = plan;
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
                let base = grp.first_disk as usize;
                let a = self.devices[base + e.io.disk as usize].load();
                let b = self.devices[base + mirror.disk as usize].load();
                if b < a {
                    mirror
                } else {
                    e.io
                }
            }
        }
    }

    fn submit_disk_op(&mut self, areq: u32, g: u32, io: DiskIo, write: bool, destage: bool) {
        let disk = self.groups[g as usize].first_disk + io.disk;
        let cmd = Command {
            op: 0,
            lba: io.disk_lba,
            sectors: io.sectors as u32,
            write,
        };
        if destage {
            self.groups[g as usize].destage_ops_inflight += 1;
        }
        let id = self.ops.insert(DiskOp {
            areq,
            disk,
            cmd,
            arrived_ns: self.now,
            destage,
        });
        let op = self.ops.get_mut(id);
        op.cmd.op = id;
        let cmd = op.cmd;
        if let Some(s) = self.devices[disk as usize].submit(self.now, cmd) {
            self.queue
                .schedule(SimTime(s.done_ns), Event::DeviceDone { disk, op: s.op });
        }
    }

    pub(super) fn on_disk_done(&mut self, disk: u32, op_id: u32) {
        let op = self.ops.remove(op_id);
        debug_assert_eq!(op.disk, disk);
        if let Some(s) = self.devices[disk as usize].complete(self.now, &op.cmd, op.arrived_ns) {
            self.queue
                .schedule(SimTime(s.done_ns), Event::DeviceDone { disk, op: s.op });
        }
        let areq = self.areqs.get_mut(op.areq);
        let grp = &mut self.groups[areq.group as usize];
        let took = self.now - op.arrived_ns;
        if op.destage {
            grp.stats.destage_ops += 1;
            grp.stats.destage_delay_ns += took;
            grp.destage_ops_inflight -= 1;
        } else if !op.cmd.write {
            grp.stats.read_ops += 1;
            grp.stats.read_delay_ns += took;
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
                for &io in &writes {
                    self.submit_disk_op(op.areq, g, io, true, op.destage);
                }
                writes.clear();
                self.vec_pool.push(writes);
            }
        }
        if op.destage {
            self.pump_destage(ctrl);
        }
    }

    fn complete_areq(&mut self, id: u32) {
        let areq = self.areqs.remove(id);
        match areq.kind {
            AreqKind::Fetch {
                lba,
                sectors,
                waiters,
                cache,
            } => self.fetch_done(id, areq.group, lba, sectors, waiters, cache),
            AreqKind::Destage { first_page, pages } => {
                self.destage_done(areq.group, first_page, pages)
            }
            AreqKind::WriteThrough { host } => self.piece_done(host, self.now),
        }
    }
}
