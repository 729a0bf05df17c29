//! Failures (disks, paths, controllers, failure groups) and rebuilds onto spares.

use super::Stack;
use crate::config::{FailureTarget, WritePolicy};

impl Stack {
    pub(super) fn on_failure(&mut self, i: u32) {
        let f = self.failures[i as usize].clone();
        self.core.note("failure", &f.label, "failed".into());
        self.failed_once = true;
        match f.target {
            FailureTarget::Disk { device, members } => {
                self.arrays.fail_disk(&mut self.core, &device, &members)
            }
            FailureTarget::Path(p) => {
                self.paths[p as usize].failed = true;
                if self.paths.iter().all(|p| p.failed) {
                    self.core.note(
                        "data_unavailable",
                        &f.label,
                        "no path left: every I/O fails".into(),
                    );
                }
            }
            FailureTarget::Controller(c) => self.fail_controller(c),
            FailureTarget::FailureGroup { volume, group } => {
                let v = &self.core.spec.volumes[volume as usize];
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
            self.core.note(
                "data_unavailable",
                &format!("controller:{c}"),
                "no controller left".into(),
            );
            // Writes waiting for write cache room will never get it: they fail. (Disk
            // operations already started still complete; their requests end as they would.)
            let waiters = std::mem::take(&mut self.ctrls[c as usize].waiters);
            for w in waiters {
                self.piece_done(w.piece, self.core.now, true);
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
        if self.core.spec.controllers.failover_write_policy == WritePolicy::WriteThrough {
            // New writes, and those waiting for cache room, go to the disks.
            self.ctrls[to as usize].write_through = true;
            let waiting = std::mem::take(&mut self.ctrls[to as usize].waiters);
            for w in waiting {
                self.groups[w.group as usize].stats.nvs_delay_ns +=
                    self.core.now.saturating_since(w.since);
                self.write_through(w.piece, w.group, w.lba, w.sectors);
            }
        }
        self.core.note(
            "failover",
            &format!("controller:{c}"),
            format!("LUNs move to controller {to}"),
        );
        if lost > 0 {
            let detail = format!("{lost} dirty 4 KiB pages were not mirrored and are lost");
            self.core
                .note("data_loss", &format!("controller:{c}"), detail);
        }
        self.pump_destage(to as usize);
    }
}
