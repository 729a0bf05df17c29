//! Controller failure: its LUNs move to a survivor (with its dirty pages when they were
//! mirrored), or, with no controller left, become unavailable; failed LUNs.

use super::ControllerPart;
use crate::config::WritePolicy;
use crate::model::Stack;

impl ControllerPart {
    /// Controller `c` fails: the paths to it fail, and its groups move to the next survivor
    /// of its own array (another array's controllers cannot reach its disks).
    pub fn fail_controller(s: &mut Stack, c: u32) {
        let this = &mut s.ctrls;
        let peers = s.core.spec.array_controllers(c);
        let (first, n) = (peers.start, peers.end - peers.start);
        this.ctrls[c as usize].failed = true;
        s.host.fail_paths_to(c);
        let Some(to) = (1..n)
            .map(|k| first + (c - first + k) % n)
            .find(|&k| !this.ctrls[k as usize].failed)
        else {
            Self::fail_last(s, c);
            return;
        };
        let groups = std::mem::take(&mut this.ctrls[c as usize].groups);
        // Its dirty pages survive if it was copying them to a peer.
        let mirrored = this.ctrls[c as usize].mirroring;
        let mut lost = 0;
        for &g in &groups {
            this.groups[g as usize].ctrl = to;
            if !mirrored {
                let dropped = this.groups[g as usize].dirty.drop_idle();
                this.groups[g as usize].stats.lost_pages += dropped;
                lost += dropped;
            }
        }
        let from = &mut this.ctrls[c as usize];
        let (dirty, destaging) = (from.dirty_pages - lost, from.destaging_pages);
        let waiters = std::mem::take(&mut from.waiters);
        let room = std::mem::take(&mut from.destage_room);
        from.dirty_pages = 0;
        from.destaging_pages = 0;
        let target = &mut this.ctrls[to as usize];
        target.groups.extend(groups);
        target.destage_room += room;
        target.dirty_pages += dirty;
        target.destaging_pages += destaging;
        target.waiters.extend(waiters);
        // The last controller standing in the array has no peer to copy writes to.
        if peers.filter(|&k| !this.ctrls[k as usize].failed).count() == 1 {
            this.ctrls[to as usize].mirroring = false;
        }
        if s.core.spec.controller_spec(to).failover_write_policy == WritePolicy::WriteThrough {
            // New writes, and those waiting for cache room, go to the disks.
            this.ctrls[to as usize].write_through = true;
            let waiting = std::mem::take(&mut this.ctrls[to as usize].waiters);
            for w in waiting {
                s.ctrls.groups[w.group as usize].stats.nvs_delay_ns +=
                    s.core.now.saturating_since(w.since);
                Self::write_through(s, w.piece, (w.group, w.lba, w.sectors));
            }
        }
        let (label, survivor) = (controller_label(s, c), s.core.spec.controller_name(to));
        s.core
            .note("failover", &label, format!("LUNs move to {survivor}"));
        if lost > 0 {
            let detail = format!("{lost} dirty 4 KiB pages were not mirrored and are lost");
            s.core.note("data_loss", &label, detail);
        }
        Self::pump_destage(s, to as usize);
    }

    /// The last controller `c` failed: its LUNs are unavailable.
    fn fail_last(s: &mut Stack, c: u32) {
        let this = &mut s.ctrls;
        let groups = std::mem::take(&mut this.ctrls[c as usize].groups);
        for l in this.luns.iter_mut().filter(|l| groups.contains(&l.group)) {
            l.failed = true;
        }
        let label = controller_label(s, c);
        s.core
            .note("data_unavailable", &label, "no controller left".into());
        // Writes waiting for write cache room will never get it: they fail. (Disk
        // operations already started still complete; their requests end as they would.)
        let waiters = std::mem::take(&mut s.ctrls.ctrls[c as usize].waiters);
        for w in waiters {
            Self::piece_done(s, w.piece, s.core.now, true);
        }
    }

    /// LUN `lun` fails (its failure group is gone).
    pub fn fail_lun(&mut self, lun: u32) {
        self.luns[lun as usize].failed = true;
    }
}

/// Controller `c` in event notes: `controller:1`, or with `[[arrays]]` `controller:east.1`
/// (as `--fail` names it).
fn controller_label(s: &Stack, c: u32) -> String {
    let spec = &s.core.spec;
    if !spec.has_arrays() {
        return format!("controller:{c}");
    }
    let a = &spec.arrays[spec.array_of_controller(c)];
    format!("controller:{}.{}", a.name, c - a.first_controller)
}
