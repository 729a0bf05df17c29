//! Writes: into the write cache (NVS) and acknowledged after the optional mirror copy,
//! waiting while it is full, or through to the disks; destage above the low watermark paced by
//! the dirty level (`paced_destage`, the default), or from the high watermark down to the low
//! one at full depth, in address order, one stripe-bounded run at a time.

use super::{ControllerPart, CtrlReq, NvsWaiter};
use crate::config::resolve::PAGE_SECTORS;
use crate::config::WritePolicy;
use crate::engine::SimTime;
use crate::model::array::OpClass;
use crate::model::core::Core;
use crate::model::Stack;
use crate::raid::Layout;

mod rest;

pub(super) use rest::PumpRest;
use rest::{paced_wake, Skip};

/// What the destage pump's visits of one controller's groups share, fixed while it runs:
/// whether destage is paced, the watermarks (high, low), whether writes wait for room, and
/// whether a group at its limit says from which dirty level it may start again (`wake`: only
/// a pump that may rest uses it, [`PumpRest`]).
#[derive(Clone, Copy, Debug)]
struct Pacing {
    paced: bool,
    marks: (u64, u64),
    waiting: bool,
    wake: bool,
}

/// Longest destage run: 1 MiB, rounded down to whole stripes (at least one stripe).
const DESTAGE_RUN_SECTORS: u64 = 2048;

/// Longest destage run of a group, pages. Runs end on stripe boundaries (parity is computed
/// per stripe) and span whole stripes up to DESTAGE_RUN_SECTORS, so sequential data leaves
/// the cache in large writes.
pub(super) fn destage_run_pages(layout: &Layout) -> u64 {
    let stripe = layout.full_stripe_sectors().max(PAGE_SECTORS);
    stripe * (DESTAGE_RUN_SECTORS / stripe).max(1) / PAGE_SECTORS
}

/// Destage operations a group keeps in flight at `dirty` pages of its controller's write
/// cache: none at or below the low watermark, its whole limit from the high one (or while
/// writes wait for room), and in between a share growing linearly with the dirty level, at
/// least one. Destage so keeps pace with the writes at a steady dirty level instead of
/// starting at the high watermark at full depth and stopping at the low one, which at a
/// steady write load alternates bursts that crowd the reads out with pauses.
pub(super) fn paced_destage_limit(
    full: u32,
    dirty: u64,
    (high, low): (u64, u64),
    waiting: bool,
) -> u32 {
    if waiting || dirty >= high {
        return full;
    }
    if dirty <= low {
        return 0;
    }
    let share = (u64::from(full) * (dirty - low)).div_ceil(high - low);
    share.clamp(1, u64::from(full)) as u32
}

impl ControllerPart {
    /// A write piece of `sectors` at `lba` of group `g`: into NVS (maybe waiting for space),
    /// or through to the disks.
    pub(super) fn write_piece(
        s: &mut Stack,
        pid: u32,
        (g, lba, sectors): (u32, u64, u64),
        t_cpu: SimTime,
    ) {
        let c = &mut s.ctrls;
        let grp = &mut c.groups[g as usize];
        grp.stats.host_writes += 1;
        let ctrl = grp.ctrl as usize;
        let write_back = grp.write_cache
            && s.core.spec.controller_spec(ctrl as u32).write_policy == WritePolicy::WriteBack
            && !c.ctrls[ctrl].write_through;
        if !write_back {
            Self::write_through(s, pid, (g, lba, sectors));
            return;
        }
        if c.ctrls[ctrl].waiters.is_empty() && Self::try_accept(s, pid, (g, lba, sectors), t_cpu) {
            return;
        }
        let c = &mut s.ctrls;
        c.groups[g as usize].stats.nvs_delayed += 1;
        c.ctrls[ctrl].waiters.push_back(NvsWaiter {
            piece: pid,
            group: g,
            lba,
            sectors,
            since: t_cpu,
        });
    }

    /// Sends a write piece to the disks; the host hears when they have it. Dirty pages it
    /// covers whole (held from before a failover to write-through) hold older data: they are
    /// dropped rather than destaged over it later.
    pub(super) fn write_through(s: &mut Stack, pid: u32, (g, lba, sectors): (u32, u64, u64)) {
        let c = &mut s.ctrls;
        let grp = &mut c.groups[g as usize];
        if !grp.dirty.is_empty() {
            let (first, end) = (lba.div_ceil(PAGE_SECTORS), (lba + sectors) / PAGE_SECTORS);
            if first < end {
                let cleaned = grp.dirty.clean_idle(first, end);
                c.ctrls[grp.ctrl as usize].dirty_pages -= cleaned;
            }
        }
        let req = CtrlReq::WriteThrough { piece: pid };
        let updates = s.ctrls.stripe_updates(&s.core, &s.arrays, g);
        let written = s
            .arrays
            .write(&mut s.core, g, lba, sectors, req, OpClass::Foreground);
        if written.is_none() {
            Self::piece_done(s, pid, s.core.now, true);
        } else {
            s.ctrls.charge_parity(&s.core, &s.arrays, g, updates);
        }
    }

    /// Marks the pages dirty and acknowledges after the mirror copy, if the write cache has
    /// room for the pages the write adds; false (nothing changed) when it has not. A
    /// controller that took over its failed peer's LUNs holds both caches' dirty pages, more
    /// than its own capacity: it has no room until destaging brings it back under.
    fn try_accept(
        s: &mut Stack,
        pid: u32,
        (g, lba, sectors): (u32, u64, u64),
        ready_at: SimTime,
    ) -> bool {
        let this = &mut s.ctrls;
        let ctrl = this.groups[g as usize].ctrl as usize;
        let cs = s.core.spec.controller_spec(ctrl as u32);
        let room = cs
            .write_cache_pages
            .saturating_sub(this.ctrls[ctrl].dirty_pages);
        let pages = (lba / PAGE_SECTORS, (lba + sectors).div_ceil(PAGE_SECTORS));
        let grp = &mut this.groups[g as usize];
        let Some(added) = grp.dirty.write_within(pages.0, pages.1, room) else {
            return false;
        };
        if grp.gather.enabled() {
            grp.gather.note_write(lba, sectors, s.core.now);
        }
        if let (Some(order), true) = (&mut grp.write_order, added > 0) {
            order.note(pages.0, &grp.dirty);
        }
        // Pages that were all destaging now have idle company: a pump may start a run.
        let woke = added > 0 && grp.dirty.idle_len() as u64 == added;
        let (full, inflight) = (grp.destage_ops_limit, grp.destage_ops_inflight);
        let c = &mut this.ctrls[ctrl];
        c.dirty_pages += added;
        if woke {
            c.pump_rest.readmit(full, inflight);
        }
        let mut ack = ready_at;
        if c.mirroring {
            let bytes = sectors * 512;
            let ns = crate::divisor::scale(bytes, cs.mirror_ns_per_byte);
            ack = c.mirror.book(&s.core, ready_at, ns, bytes) + cs.mirror_latency_ns;
        }
        Self::piece_done(s, pid, ack, false);
        Self::pump_destage(s, ctrl);
        true
    }

    /// Admits NVS waiters in arrival order while they fit.
    fn admit_waiters(s: &mut Stack, ctrl: usize) {
        while let Some(w) = s.ctrls.ctrls[ctrl].waiters.front() {
            let c = &s.ctrls;
            let (pid, group, lba, sectors, since) = (w.piece, w.group, w.lba, w.sectors, w.since);
            // The next waiter's dirty-page entry, loading while this one is admitted.
            if let Some(n) = c.ctrls[ctrl].waiters.get(1) {
                c.groups[n.group as usize]
                    .dirty
                    .prefetch(n.lba / PAGE_SECTORS);
            }
            let now = s.core.now;
            if !Self::try_accept(s, pid, (group, lba, sectors), now.max(since)) {
                break;
            }
            let c = &mut s.ctrls;
            c.ctrls[ctrl].waiters.pop_front();
            c.groups[group as usize].stats.nvs_delay_ns += now.saturating_since(since);
        }
    }

    /// Starts destage at the high watermark (paced: above the low one) or when writes wait
    /// for room, and keeps it going down to the low watermark, sweeping each group's dirty
    /// pages in address order, one stripe-bounded run at a time; paced, with as many
    /// operations in flight as [`paced_destage_limit`] allows at the dirty level.
    #[inline]
    pub(super) fn pump_destage(s: &mut Stack, ctrl: usize) {
        // Destaging, and every group's destage queue full or the pump at rest (most calls):
        // nothing to start, decided here without the call.
        let c = &s.ctrls.ctrls[ctrl];
        if c.destage_active && !c.failed && (c.destage_room == 0 || c.at_rest()) {
            debug_assert!(
                c.destage_room == 0
                    || c.groups.iter().all(|&g| {
                        let p = s.ctrls.pacing(&s.core, ctrl);
                        s.ctrls.skip_reason(g, &p).is_some()
                    }),
                "a pump at rest would have started a destage"
            );
            return;
        }
        Self::pump_destage_walk(s, ctrl);
    }

    /// [`ControllerPart::pump_destage`] past its quick checks.
    #[inline(never)]
    fn pump_destage_walk(s: &mut Stack, ctrl: usize) {
        let this = &mut s.ctrls;
        // A failed controller destages nothing: its groups moved to a survivor, or, with no
        // controller left, their data is unavailable.
        if this.ctrls[ctrl].failed {
            return;
        }
        if !this.ctrls[ctrl].destage_active {
            let (high, low) = this.destage_marks(&s.core, ctrl);
            let paced = s.core.spec.controller_spec(ctrl as u32).paced_destage;
            let c = &mut this.ctrls[ctrl];
            let idle = if paced {
                c.dirty_pages <= low
            } else {
                c.dirty_pages < high
            };
            if idle && c.waiters.is_empty() {
                return;
            }
            c.destage_active = true;
        }
        debug_assert_eq!(
            this.ctrls[ctrl].destage_room as usize,
            this.ctrls[ctrl]
                .groups
                .iter()
                .filter(|&&g| {
                    let grp = &this.groups[g as usize];
                    grp.destage_ops_inflight < grp.destage_ops_limit
                })
                .count(),
            "destage room count out of step"
        );
        // Every group's destage queue full (a pump follows each accepted write and each
        // destage disk operation, most of them while the queues are full): nothing to start.
        if this.ctrls[ctrl].destage_room == 0 {
            return;
        }
        if this.ctrls[ctrl].at_rest() {
            return;
        }
        // Nothing the visits below do changes the pacing: no write is admitted meanwhile.
        let pacing = this.pacing(&s.core, ctrl);
        let marks = pacing.marks;
        let low = marks.1;
        let rest_allowed = pacing.wake;
        this.ctrls[ctrl].pump_rest = PumpRest::default();
        // The lowest wake level of the groups skipped since the last start; 0 once one
        // found no run (a search that may change state).
        let mut wake = u64::MAX;
        let mut idle_groups = 0;
        loop {
            let this = &mut s.ctrls;
            let c = &this.ctrls[ctrl];
            let more = c.destage_active
                && c.destage_room > 0
                && (c.dirty_pages - c.destaging_pages > low || !c.waiters.is_empty())
                && idle_groups < c.groups.len();
            if !more {
                break;
            }
            let c = &mut this.ctrls[ctrl];
            let g = c.groups[c.next_group];
            c.next_group += 1;
            if c.next_group == c.groups.len() {
                c.next_group = 0;
            }
            match Self::destage_one(s, g, &pacing) {
                None => {
                    idle_groups = 0;
                    wake = u64::MAX;
                }
                Some(skip) => {
                    idle_groups += 1;
                    wake = match skip {
                        Skip::NothingIdle => wake,
                        Skip::AtLimit(at) => wake.min(at),
                        Skip::NoRun => 0,
                    };
                }
            }
        }
        let c = &mut s.ctrls.ctrls[ctrl];
        if rest_allowed && idle_groups == c.groups.len() && wake > c.dirty_pages {
            c.pump_rest = PumpRest {
                wake_dirty: wake,
                groups: c.groups.len(),
                marks,
            };
        }
    }

    /// What the destage pump's visits of controller `ctrl`'s groups share ([`Pacing`]).
    fn pacing(&self, core: &Core, ctrl: usize) -> Pacing {
        let paced = core.spec.controller_spec(ctrl as u32).paced_destage;
        let c = &self.ctrls[ctrl];
        let waiting = !c.waiters.is_empty();
        Pacing {
            paced,
            marks: self.destage_marks(core, ctrl),
            waiting,
            wake: paced && !c.write_through && !waiting,
        }
    }

    /// Why group `g` cannot start a destage run without searching for one (None: it may),
    /// its controller's pacing being `p`.
    #[inline]
    fn skip_reason(&self, g: u32, p: &Pacing) -> Option<Skip> {
        let grp = &self.groups[g as usize];
        // Every dirty page of the group on its way to disk already (most calls, as the pump
        // goes round the groups): no run to find. A group destaging by age would also tidy
        // its queue in the search, so it searches anyway.
        if grp.dirty.idle_len() == 0 && grp.write_order.is_none() {
            return Some(Skip::NothingIdle);
        }
        let full = grp.destage_ops_limit;
        let inflight = grp.destage_ops_inflight;
        if p.paced {
            let dirty = self.ctrls[grp.ctrl as usize].dirty_pages;
            if inflight >= paced_destage_limit(full, dirty, p.marks, p.waiting) {
                let wake = if p.wake {
                    paced_wake(full, inflight, p.marks)
                } else {
                    u64::MAX
                };
                return Some(Skip::AtLimit(wake));
            }
        } else if inflight >= full {
            return Some(Skip::AtLimit(u64::MAX));
        }
        None
    }

    /// Issues one destage run for group `g` if it has dirty pages and queue room: None when
    /// it did, else why not.
    fn destage_one(s: &mut Stack, g: u32, pacing: &Pacing) -> Option<Skip> {
        let this = &mut s.ctrls;
        if let Some(skip) = this.skip_reason(g, pacing) {
            return Some(skip);
        }
        let Some((first, pages)) = this.next_destage_run(g, s.core.now) else {
            return Some(Skip::NoRun);
        };
        let grp = &mut this.groups[g as usize];
        grp.destage_cursor = first + pages;
        this.ctrls[grp.ctrl as usize].destaging_pages += pages;
        let req = CtrlReq::Destage {
            first_page: first,
            pages,
        };
        let (lba, sectors) = (first * PAGE_SECTORS, pages * PAGE_SECTORS);
        let updates = this.stripe_updates(&s.core, &s.arrays, g);
        match s
            .arrays
            .write(&mut s.core, g, lba, sectors, req, OpClass::Destage)
        {
            Some(started) => {
                this.charge_parity(&s.core, &s.arrays, g, updates);
                this.destage_ops_moved(g, 0, started)
            }
            None => {
                // The stripe's data can no longer be written (too many failed disks): the
                // dirty pages are lost. Counted, and dropped so the cache does not fill.
                this.groups[g as usize].stats.lost_pages += pages;
                this.release_destaged(&s.core, g, first, pages);
            }
        }
        None
    }

    /// Group `g`'s destage operations in flight: `ended` ended, `started` started. The
    /// controller's count of groups with destage queue room follows.
    pub(super) fn destage_ops_moved(&mut self, g: u32, ended: u32, started: u32) {
        let grp = &mut self.groups[g as usize];
        let had_room = grp.destage_ops_inflight < grp.destage_ops_limit;
        grp.destage_ops_inflight = grp.destage_ops_inflight - ended + started;
        let has_room = grp.destage_ops_inflight < grp.destage_ops_limit;
        let c = &mut self.ctrls[grp.ctrl as usize];
        if ended > started {
            c.pump_rest
                .readmit(grp.destage_ops_limit, grp.destage_ops_inflight);
        }
        let room = &mut c.destage_room;
        match (had_room, has_room) {
            (true, false) => *room -= 1,
            (false, true) => *room += 1,
            _ => {}
        }
    }

    /// Frees a destaged run's pages (pages written again meanwhile stay dirty).
    fn release_destaged(&mut self, core: &Core, g: u32, first_page: u64, pages: u64) -> usize {
        let grp = &mut self.groups[g as usize];
        let freed = grp.dirty.destaged(first_page, pages);
        if let (Some(order), true) = (&mut grp.write_order, freed < pages) {
            // Pages written again during their destage are dirty anew: newest by age.
            for p in (first_page..first_page + pages).filter(|&p| grp.dirty.contains(p)) {
                order.note(p, &grp.dirty);
            }
        }
        let ctrl = grp.ctrl as usize;
        let (full, inflight) = (grp.destage_ops_limit, grp.destage_ops_inflight);
        let c = &mut self.ctrls[ctrl];
        c.dirty_pages -= freed;
        c.destaging_pages -= pages;
        if freed < pages {
            // Pages written again during the destage are idle now.
            c.pump_rest.readmit(full, inflight);
        }
        let low = self.destage_marks(core, ctrl).1;
        let c = &mut self.ctrls[ctrl];
        if c.dirty_pages <= low && c.waiters.is_empty() {
            c.destage_active = false;
        }
        ctrl
    }

    /// Dirty pages at which `ctrl` starts and stops destaging: the configured watermarks, or,
    /// gone write-through after a failover, any dirty page at all down to none.
    fn destage_marks(&self, core: &Core, ctrl: usize) -> (u64, u64) {
        let cs = core.spec.controller_spec(ctrl as u32);
        if self.ctrls[ctrl].write_through {
            (1, 0)
        } else {
            (cs.destage_high_pages, cs.destage_low_pages)
        }
    }

    /// A destage of `pages` pages from `first_page` of group `g` completed: free its pages,
    /// admit waiting writes, keep destaging.
    pub(super) fn destage_done(s: &mut Stack, g: u32, (first_page, pages): (u64, u64)) {
        let ctrl = s.ctrls.release_destaged(&s.core, g, first_page, pages);
        Self::admit_waiters(s, ctrl);
        Self::pump_destage(s, ctrl);
    }
}

#[cfg(test)]
mod tests {
    use super::paced_destage_limit;

    #[test]
    fn destage_depth_grows_with_the_dirty_level_between_the_watermarks() {
        let marks = (800, 600);
        assert_eq!(paced_destage_limit(32, 600, marks, false), 0);
        assert_eq!(paced_destage_limit(32, 601, marks, false), 1);
        assert_eq!(paced_destage_limit(32, 700, marks, false), 16);
        assert_eq!(paced_destage_limit(32, 799, marks, false), 32);
        assert_eq!(paced_destage_limit(32, 900, marks, false), 32);
        // Writes waiting for room: full depth whatever the level.
        assert_eq!(paced_destage_limit(32, 0, marks, true), 32);
    }
}
