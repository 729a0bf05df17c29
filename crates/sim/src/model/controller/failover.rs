//! Controller failure: its LUNs move to a survivor (with its dirty pages when they were
//! mirrored), or, with no controller left, become unavailable; failed LUNs.

use super::ControllerPart;
use crate::config::WritePolicy;
use crate::model::array::ArrayPart;
use crate::model::core::Core;
use crate::model::host::HostPart;

impl ControllerPart {
    /// Controller `c` fails: the paths to it fail, and its groups move to the next survivor.
    pub fn fail_controller(
        &mut self,
        core: &mut Core,
        host: &mut HostPart,
        arrays: &mut ArrayPart,
        c: u32,
    ) {
        let n = self.ctrls.len() as u32;
        self.ctrls[c as usize].failed = true;
        host.fail_paths_to(c);
        let Some(to) = (1..n)
            .map(|k| (c + k) % n)
            .find(|&k| !self.ctrls[k as usize].failed)
        else {
            self.fail_last(core, host, arrays, c);
            return;
        };
        let groups = std::mem::take(&mut self.ctrls[c as usize].groups);
        // Its dirty pages survive if it was copying them to a peer.
        let mirrored = self.ctrls[c as usize].mirroring;
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
            self.ctrls[to as usize].mirroring = false;
        }
        if core.spec.controllers.failover_write_policy == WritePolicy::WriteThrough {
            // New writes, and those waiting for cache room, go to the disks.
            self.ctrls[to as usize].write_through = true;
            let waiting = std::mem::take(&mut self.ctrls[to as usize].waiters);
            for w in waiting {
                self.groups[w.group as usize].stats.nvs_delay_ns +=
                    core.now.saturating_since(w.since);
                self.write_through(core, host, arrays, w.piece, (w.group, w.lba, w.sectors));
            }
        }
        core.note(
            "failover",
            &format!("controller:{c}"),
            format!("LUNs move to controller {to}"),
        );
        if lost > 0 {
            let detail = format!("{lost} dirty 4 KiB pages were not mirrored and are lost");
            core.note("data_loss", &format!("controller:{c}"), detail);
        }
        self.pump_destage(core, arrays, to as usize);
    }

    /// The last controller `c` failed: its LUNs are unavailable.
    fn fail_last(&mut self, core: &mut Core, host: &mut HostPart, arrays: &mut ArrayPart, c: u32) {
        let groups = std::mem::take(&mut self.ctrls[c as usize].groups);
        for l in self.luns.iter_mut().filter(|l| groups.contains(&l.group)) {
            l.failed = true;
        }
        core.note(
            "data_unavailable",
            &format!("controller:{c}"),
            "no controller left".into(),
        );
        // Writes waiting for write cache room will never get it: they fail. (Disk
        // operations already started still complete; their requests end as they would.)
        let waiters = std::mem::take(&mut self.ctrls[c as usize].waiters);
        for w in waiters {
            self.piece_done(core, host, arrays, w.piece, core.now, true);
        }
    }

    /// LUN `lun` fails (its failure group is gone).
    pub fn fail_lun(&mut self, lun: u32) {
        self.luns[lun as usize].failed = true;
    }
}
