//! Failures (disks, paths, controllers, failure groups) and rebuilds onto spares.

use super::state::{AreqKind, OpClass, RebuildTask};
use super::Stack;
use crate::config::{FailureTarget, WritePolicy};
use crate::engine::Event;

/// Rebuild works in chunks of 1 MiB of member address space.
const REBUILD_CHUNK_SECTORS: u64 = 2048;

impl Stack {
    pub(super) fn on_failure(&mut self, i: u32) {
        let f = self.failures[i as usize].clone();
        self.note("failure", &f.label, "failed".into());
        self.failed_once = true;
        match f.target {
            FailureTarget::Disk { device, members } => self.fail_disk(&device, &members),
            FailureTarget::Path(p) => {
                self.paths[p as usize].failed = true;
                if self.paths.iter().all(|p| p.failed) {
                    self.note(
                        "data_unavailable",
                        &f.label,
                        "no path left: every I/O fails".into(),
                    );
                }
            }
            FailureTarget::Controller(c) => self.fail_controller(c),
            FailureTarget::FailureGroup { volume, group } => {
                let v = &self.spec.volumes[volume as usize];
                let luns: Vec<u32> = (0..v.luns.len() as u32)
                    .filter(|&m| v.volume.failure_group(m) == Some(group))
                    .map(|m| v.luns[m as usize])
                    .collect();
                for l in luns {
                    self.luns[l as usize].failed = true;
                }
            }
        }
    }

    fn fail_disk(&mut self, device: &str, members: &[(u32, u32)]) {
        let mut spare: Option<u32> = None;
        for &(g, m) in members {
            let name = self.spec.groups[g as usize].name.clone();
            let grp = &mut self.groups[g as usize];
            if grp.failed.contains(m) || grp.failed.mark(m).is_err() {
                continue;
            }
            if !grp.layout.survives(&grp.failed) {
                let detail = format!(
                    "{} with disks {} failed cannot serve all of its data",
                    grp.layout.level().name(),
                    grp.failed
                );
                self.note("data_loss", &name, detail);
                continue;
            }
            if spare.is_none() {
                spare = self.spare_pools[grp.spare_pool as usize].pop();
            }
            let Some(s) = spare else {
                self.note(
                    "no_spare",
                    &name,
                    format!("{device} stays failed: no spare left"),
                );
                continue;
            };
            let start = self.now + self.spec.rebuild.start_delay_ns;
            let task = self.rebuilds.len() as u32;
            self.rebuilds.push(RebuildTask {
                group: g,
                member: m,
                spare: s,
                label: format!("{name}.d{m}"),
                next_lba: 0,
                end_lba: grp.layout.usable_disk_sectors(),
                inflight: 0,
                started_at: start,
                finished_at: None,
                bytes: 0,
                failed: false,
            });
            let spare_name = self.devices[s as usize].name.clone();
            self.note(
                "rebuild_start",
                &format!("{name}.d{m}"),
                format!("onto {spare_name}"),
            );
            self.queue.schedule(start, Event::RebuildTick(task));
        }
    }

    fn fail_controller(&mut self, c: u32) {
        let n = self.ctrls.len() as u32;
        self.ctrls[c as usize].failed = true;
        for p in self.paths.iter_mut().filter(|p| p.controller == Some(c)) {
            p.failed = true;
        }
        let Some(to) = (1..n)
            .map(|k| (c + k) % n)
            .find(|&k| !self.ctrls[k as usize].failed)
        else {
            let groups = std::mem::take(&mut self.ctrls[c as usize].groups);
            for l in self.luns.iter_mut().filter(|l| groups.contains(&l.group)) {
                l.failed = true;
            }
            self.note(
                "data_unavailable",
                &format!("controller:{c}"),
                "no controller left".into(),
            );
            // Writes waiting for write cache room will never get it: they fail. (Disk
            // operations already started still complete; their requests end as they would.)
            let waiters = std::mem::take(&mut self.ctrls[c as usize].waiters);
            for w in waiters {
                self.piece_done(w.piece, self.now, true);
            }
            return;
        };
        let groups = std::mem::take(&mut self.ctrls[c as usize].groups);
        // Its dirty pages survive if it was copying them to a peer.
        let mirrored = self.ctrls[c as usize].mirror;
        let mut lost = 0;
        for &g in &groups {
            self.groups[g as usize].ctrl = to;
            if !mirrored {
                let dropped = self.groups[g as usize].dirty.drop_idle();
                self.groups[g as usize].stats.lost_pages += dropped;
                lost += dropped;
            }
        }
        let from = &mut self.ctrls[c as usize];
        let (dirty, destaging) = (from.dirty_pages - lost, from.destaging_pages);
        let waiters = std::mem::take(&mut from.waiters);
        let room = std::mem::take(&mut from.destage_room);
        from.dirty_pages = 0;
        from.destaging_pages = 0;
        let target = &mut self.ctrls[to as usize];
        target.groups.extend(groups);
        target.destage_room += room;
        target.dirty_pages += dirty;
        target.destaging_pages += destaging;
        target.waiters.extend(waiters);
        // The last controller standing has no peer to copy writes to.
        if self.ctrls.iter().filter(|k| !k.failed).count() == 1 {
            self.ctrls[to as usize].mirror = false;
        }
        if self.spec.controllers.failover_write_policy == WritePolicy::WriteThrough {
            // New writes, and those waiting for cache room, go to the disks.
            self.ctrls[to as usize].write_through = true;
            let waiting = std::mem::take(&mut self.ctrls[to as usize].waiters);
            for w in waiting {
                self.groups[w.group as usize].stats.nvs_delay_ns +=
                    self.now.saturating_since(w.since);
                self.write_through(w.piece, w.group, w.lba, w.sectors);
            }
        }
        self.note(
            "failover",
            &format!("controller:{c}"),
            format!("LUNs move to controller {to}"),
        );
        if lost > 0 {
            let detail = format!("{lost} dirty 4 KiB pages were not mirrored and are lost");
            self.note("data_loss", &format!("controller:{c}"), detail);
        }
        self.pump_destage(to as usize);
    }

    /// Issues rebuild chunks up to the task's concurrency and rate.
    pub(super) fn pump_rebuild(&mut self, t: u32) {
        let outstanding = self.spec.rebuild.outstanding;
        let ns_per_byte = self.spec.rebuild.ns_per_byte;
        let mut plan = std::mem::take(&mut self.scratch.write);
        loop {
            let task = &self.rebuilds[t as usize];
            if task.failed
                || task.finished_at.is_some()
                || task.inflight >= outstanding
                || task.next_lba >= task.end_lba
            {
                break;
            }
            let allowed = task.started_at + (task.bytes as f64 * ns_per_byte) as u64;
            if allowed > self.now {
                self.queue.schedule(allowed, Event::RebuildTick(t));
                break;
            }
            let (g, m, lba) = (task.group, task.member, task.next_lba);
            let chunk = REBUILD_CHUNK_SECTORS.min(task.end_lba - lba);
            let grp = &self.groups[g as usize];
            if grp
                .layout
                .plan_rebuild(m, lba, chunk, &grp.failed, &mut plan)
                .is_err()
            {
                let label = task.label.clone();
                self.rebuilds[t as usize].failed = true;
                self.note(
                    "data_loss",
                    &label,
                    "rebuild cannot read its sources".into(),
                );
                break;
            }
            let spare = task.spare;
            self.issue_plan(
                g,
                &plan,
                AreqKind::Rebuild { task: t },
                OpClass::Rebuild,
                Some(spare),
            );
            let task = &mut self.rebuilds[t as usize];
            task.next_lba += chunk;
            task.bytes += chunk * 512;
            task.inflight += 1;
        }
        self.scratch.write = plan;
    }

    pub(super) fn rebuild_chunk_done(&mut self, t: u32) {
        let task = &mut self.rebuilds[t as usize];
        task.inflight -= 1;
        if task.inflight > 0 || task.next_lba < task.end_lba || task.failed {
            self.pump_rebuild(t);
            return;
        }
        task.finished_at = Some(self.now);
        let (g, m, spare) = (task.group, task.member, task.spare);
        let label = task.label.clone();
        let grp = &mut self.groups[g as usize];
        grp.members[m as usize] = spare;
        grp.failed.clear(m);
        let secs = (self.now - self.rebuilds[t as usize].started_at) as f64 / 1e9;
        self.note("rebuild_done", &label, format!("after {secs:.1} s"));
    }
}
