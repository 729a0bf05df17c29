//! Controller: read cache with sequential detection and prefetch, write-back cache (NVS) with
//! watermark destage in address order, write-through, and the NVS-full wait.

use super::array::OpClass;
use super::state::{CtrlReq, NvsWaiter, SeqStream, Waiters, SEQ_SLOTS};
use super::Stack;
use crate::cache::page_key;
use crate::config::resolve::PAGE_SECTORS;
use crate::config::WritePolicy;
use crate::engine::SimTime;
use crate::raid::Layout;

/// Longest destage run: 1 MiB, rounded down to whole stripes (at least one stripe).
const DESTAGE_RUN_SECTORS: u64 = 2048;

/// Longest destage run of a group, pages. Runs end on stripe boundaries (parity is computed
/// per stripe) and span whole stripes up to DESTAGE_RUN_SECTORS, so sequential data leaves
/// the cache in large writes.
pub(super) fn destage_run_pages(layout: &Layout) -> u64 {
    let stripe = layout.full_stripe_sectors().max(PAGE_SECTORS);
    stripe * (DESTAGE_RUN_SECTORS / stripe).max(1) / PAGE_SECTORS
}

impl Stack {
    /// A read piece: hit, wait for fetches in flight, or fetch.
    pub(super) fn read_piece(&mut self, pid: u32, g: u32, lba: u64, sectors: u64, t_cpu: SimTime) {
        let grp = &mut self.groups[g as usize];
        grp.stats.host_reads += 1;
        if !grp.read_cache {
            self.pieces.get_mut(pid).waits = 1;
            self.start_fetch(g, lba, sectors, Some(pid), false);
            return;
        }
        let seg = self.core.spec.controllers.segment_sectors;
        let (s0, s1) = (lba / seg, (lba + sectors - 1) / seg);
        let ctrl = grp.ctrl as usize;
        let mut waits: [u32; 4] = [u32::MAX; 4];
        let mut n_waits = 0usize;
        let mut absent: Option<(u64, u64)> = None;
        for s in s0..=s1 {
            let key = page_key(g, s);
            if self.ctrls[ctrl].cache.touch(g, s) || self.dirty_covers(g, s * seg, seg) {
                continue;
            }
            match self.ctrls[ctrl].inflight.get(key).checked_sub(1) {
                Some(f) if n_waits < waits.len() => {
                    if !waits[..n_waits].contains(&f) {
                        waits[n_waits] = f;
                        n_waits += 1;
                    }
                }
                _ => absent = Some(absent.map_or((s, s), |(a, _)| (a, s))),
            }
        }
        if n_waits == 0 && absent.is_none() {
            self.groups[g as usize].stats.read_hits += 1;
            self.piece_done(pid, t_cpu, false);
        } else {
            self.pieces.get_mut(pid).waits = n_waits as u32 + absent.is_some() as u32;
            for &f in &waits[..n_waits] {
                if let Some(CtrlReq::Fetch { waiters, .. }) = self.arrays.request_mut(f) {
                    waiters.push(pid);
                }
            }
            if let Some((a, b)) = absent {
                self.start_fetch(g, a * seg, (b - a + 1) * seg, Some(pid), true);
            }
        }
        self.detect_sequential(g, lba, sectors);
    }

    /// One fetch a piece waited for ended.
    fn fetch_waiter_done(&mut self, pid: u32, error: bool) {
        let p = self.pieces.get_mut(pid);
        p.waits -= 1;
        p.error |= error;
        if p.waits == 0 {
            let error = p.error;
            self.piece_done(pid, self.core.now, error);
        }
    }

    /// True when every write-cache page of [lba, lba+sectors) is dirty (readable from NVS).
    fn dirty_covers(&self, g: u32, lba: u64, sectors: u64) -> bool {
        let dirty = &self.groups[g as usize].dirty;
        !dirty.is_empty()
            && dirty.covers(lba / PAGE_SECTORS, (lba + sectors).div_ceil(PAGE_SECTORS))
    }

    /// Starts an array read; with `cache`, its segments are marked in flight and cached on
    /// completion. A read of lost data fails its waiter at once.
    fn start_fetch(&mut self, g: u32, lba: u64, sectors: u64, waiter: Option<u32>, cache: bool) {
        let cap = self.groups[g as usize].capacity_sectors;
        let sectors = sectors.min(cap - lba);
        let ctrl = self.groups[g as usize].ctrl;
        let req = CtrlReq::Fetch {
            lba,
            sectors,
            waiters: Waiters::new(waiter),
            cache,
            ctrl,
        };
        let Some(id) = self.arrays.read(&mut self.core, g, lba, sectors, req) else {
            if let Some(pid) = waiter {
                self.fetch_waiter_done(pid, true);
            }
            return;
        };
        if cache {
            let seg = self.core.spec.controllers.segment_sectors;
            for s in lba / seg..(lba + sectors).div_ceil(seg) {
                self.ctrls[ctrl as usize]
                    .inflight
                    .set(page_key(g, s), id + 1);
            }
        }
    }

    /// A fetch completed: cache its segments and release the readers waiting for it.
    fn fetch_done(&mut self, id: u32, g: u32, req: CtrlReq) {
        let CtrlReq::Fetch {
            lba,
            sectors,
            waiters,
            cache,
            ctrl,
        } = req
        else {
            unreachable!("fetch_done on a non-fetch request");
        };
        if cache {
            let seg = self.core.spec.controllers.segment_sectors;
            let c = &mut self.ctrls[ctrl as usize];
            for s in lba / seg..(lba + sectors).div_ceil(seg) {
                let key = page_key(g, s);
                // Forgotten only if this fetch is the one recorded: one probe.
                let (slot, fetch, found) = c.inflight.probe(key);
                if fetch == id + 1 {
                    c.inflight.set_at(slot, found, key, 0);
                }
                if !c.failed {
                    c.cache.insert(g, s);
                }
            }
        }
        // Data the disks returned after the group's controller died (no survivor took its
        // LUNs) never reaches the host.
        let unreachable = self.controller_dead(g);
        for pid in waiters.into_pieces() {
            self.fetch_waiter_done(pid, unreachable);
        }
    }

    /// True when group `g`'s controller has failed with no survivor to take its LUNs (after a
    /// failover the group names the survivor).
    pub(super) fn controller_dead(&self, g: u32) -> bool {
        self.ctrls[self.groups[g as usize].ctrl as usize].failed
    }

    /// Tracks up to `SEQ_SLOTS` sequential readers per group and prefetches ahead of them.
    fn detect_sequential(&mut self, g: u32, lba: u64, sectors: u64) {
        let c = &self.core.spec.controllers;
        let (trigger, prefetch, seg) =
            (c.sequential_trigger, c.prefetch_sectors, c.segment_sectors);
        if trigger == 0 || prefetch == 0 {
            return;
        }
        let grp = &mut self.groups[g as usize];
        let end = lba + sectors;
        let slot = match grp.seq.iter().position(|s| s.next_lba == lba && s.run > 0) {
            Some(i) => {
                grp.seq[i].run += 1;
                i
            }
            None => {
                let i = grp.seq_victim;
                grp.seq_victim = (i + 1) % SEQ_SLOTS;
                grp.seq[i] = SeqStream {
                    next_lba: 0,
                    run: 1,
                    prefetched_to: end,
                };
                i
            }
        };
        let s = &mut grp.seq[slot];
        s.next_lba = end;
        if s.run < trigger {
            return;
        }
        let ahead = prefetch.max(2 * sectors);
        let cap = grp.capacity_sectors;
        let from = s.prefetched_to.max(end) / seg * seg;
        if from >= cap || from.saturating_sub(end) >= ahead / 2 {
            return;
        }
        let to = (end + ahead).div_ceil(seg) * seg;
        let to = to.min(cap);
        s.prefetched_to = to;
        let ctrl = grp.ctrl as usize;
        let mut first = from;
        while first < to && self.segment_known(ctrl, g, first / seg) {
            first += seg;
        }
        if first < to {
            self.start_fetch(g, first, to - first, None, true);
        }
    }

    fn segment_known(&self, ctrl: usize, g: u32, s: u64) -> bool {
        let key = page_key(g, s);
        self.ctrls[ctrl].cache.contains(g, s) || (self.ctrls[ctrl].inflight.get(key) != 0)
    }

    /// A write piece: into NVS (maybe waiting for space), or through to the disks.
    pub(super) fn write_piece(&mut self, pid: u32, g: u32, lba: u64, sectors: u64, t_cpu: SimTime) {
        let grp = &mut self.groups[g as usize];
        grp.stats.host_writes += 1;
        let ctrl = grp.ctrl as usize;
        let write_back = grp.write_cache
            && self.core.spec.controllers.write_policy == WritePolicy::WriteBack
            && !self.ctrls[ctrl].write_through;
        if !write_back {
            self.write_through(pid, g, lba, sectors);
            return;
        }
        if self.ctrls[ctrl].waiters.is_empty() && self.try_accept(pid, g, lba, sectors, t_cpu) {
            return;
        }
        self.groups[g as usize].stats.nvs_delayed += 1;
        self.ctrls[ctrl].waiters.push_back(NvsWaiter {
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
    pub(super) fn write_through(&mut self, pid: u32, g: u32, lba: u64, sectors: u64) {
        let grp = &mut self.groups[g as usize];
        if !grp.dirty.is_empty() {
            let (first, end) = (lba.div_ceil(PAGE_SECTORS), (lba + sectors) / PAGE_SECTORS);
            if first < end {
                let cleaned = grp.dirty.clean_idle(first, end);
                self.ctrls[grp.ctrl as usize].dirty_pages -= cleaned;
            }
        }
        let req = CtrlReq::WriteThrough { piece: pid };
        let written =
            (self.arrays).write(&mut self.core, g, lba, sectors, req, OpClass::Foreground);
        if written.is_none() {
            self.piece_done(pid, self.core.now, true);
        }
    }

    /// Marks the pages dirty and acknowledges after the mirror copy, if the write cache has
    /// room for the pages the write adds; false (nothing changed) when it has not. A
    /// controller that took over its failed peer's LUNs holds both caches' dirty pages, more
    /// than its own capacity: it has no room until destaging brings it back under.
    fn try_accept(&mut self, pid: u32, g: u32, lba: u64, sectors: u64, ready_at: SimTime) -> bool {
        let ctrl = self.groups[g as usize].ctrl as usize;
        let room = self
            .core
            .spec
            .controllers
            .write_cache_pages
            .saturating_sub(self.ctrls[ctrl].dirty_pages);
        let pages = (lba / PAGE_SECTORS, (lba + sectors).div_ceil(PAGE_SECTORS));
        let Some(added) = self.groups[g as usize]
            .dirty
            .write_within(pages.0, pages.1, room)
        else {
            return false;
        };
        let cs = &self.core.spec.controllers;
        let c = &mut self.ctrls[ctrl];
        c.dirty_pages += added;
        let mut ack = ready_at;
        if c.mirror {
            let start = ready_at.max(c.mirror_free_at);
            c.mirror_free_at = start + crate::divisor::scale(sectors * 512, cs.mirror_ns_per_byte);
            ack = c.mirror_free_at + cs.mirror_latency_ns;
        }
        self.piece_done(pid, ack, false);
        self.pump_destage(ctrl);
        true
    }

    /// Admits NVS waiters in arrival order while they fit.
    fn admit_waiters(&mut self, ctrl: usize) {
        while let Some(w) = self.ctrls[ctrl].waiters.front() {
            let (pid, group, lba, sectors, since) = (w.piece, w.group, w.lba, w.sectors, w.since);
            // The next waiter's dirty-page entry, loading while this one is admitted.
            if let Some(n) = self.ctrls[ctrl].waiters.get(1) {
                self.groups[n.group as usize]
                    .dirty
                    .prefetch(n.lba / PAGE_SECTORS);
            }
            if !self.try_accept(pid, group, lba, sectors, self.core.now.max(since)) {
                break;
            }
            self.ctrls[ctrl].waiters.pop_front();
            self.groups[group as usize].stats.nvs_delay_ns += self.core.now.saturating_since(since);
        }
    }

    /// Starts destage at the high watermark and keeps it going down to the low watermark,
    /// sweeping each group's dirty pages in address order, one stripe-bounded run at a time.
    pub(super) fn pump_destage(&mut self, ctrl: usize) {
        // A failed controller destages nothing: its groups moved to a survivor, or, with no
        // controller left, their data is unavailable.
        if self.ctrls[ctrl].failed {
            return;
        }
        let (high, low) = self.destage_marks(ctrl);
        let c = &mut self.ctrls[ctrl];
        if !c.destage_active && (c.dirty_pages >= high || !c.waiters.is_empty()) {
            c.destage_active = true;
        }
        debug_assert_eq!(
            self.ctrls[ctrl].destage_room as usize,
            self.ctrls[ctrl]
                .groups
                .iter()
                .filter(|&&g| {
                    let grp = &self.groups[g as usize];
                    grp.destage_ops_inflight < grp.destage_ops_limit
                })
                .count(),
            "destage room count out of step"
        );
        let mut idle_groups = 0;
        while self.ctrls[ctrl].destage_active
            && self.ctrls[ctrl].destage_room > 0
            && (self.ctrls[ctrl].dirty_pages - self.ctrls[ctrl].destaging_pages > low
                || !self.ctrls[ctrl].waiters.is_empty())
            && idle_groups < self.ctrls[ctrl].groups.len()
        {
            let c = &mut self.ctrls[ctrl];
            let g = c.groups[c.next_group];
            c.next_group += 1;
            if c.next_group == c.groups.len() {
                c.next_group = 0;
            }
            if !self.destage_one(g) {
                idle_groups += 1;
            } else {
                idle_groups = 0;
            }
        }
    }

    /// Issues one destage run for group `g` if it has dirty pages and queue room.
    fn destage_one(&mut self, g: u32) -> bool {
        let grp = &mut self.groups[g as usize];
        if grp.destage_ops_inflight >= grp.destage_ops_limit {
            return false;
        }
        let Some((first, pages)) = grp
            .dirty
            .take_run(grp.destage_cursor, grp.destage_run_pages)
        else {
            return false;
        };
        grp.destage_cursor = first + pages;
        self.ctrls[grp.ctrl as usize].destaging_pages += pages;
        let req = CtrlReq::Destage {
            first_page: first,
            pages,
        };
        let (lba, sectors) = (first * PAGE_SECTORS, pages * PAGE_SECTORS);
        match (self.arrays).write(&mut self.core, g, lba, sectors, req, OpClass::Destage) {
            Some(started) => self.destage_ops_moved(g, 0, started),
            None => {
                // The stripe's data can no longer be written (too many failed disks): the
                // dirty pages are lost. Counted, and dropped so the cache does not fill.
                self.groups[g as usize].stats.lost_pages += pages;
                self.release_destaged(g, first, pages);
            }
        }
        true
    }

    /// Group `g`'s destage operations in flight: `ended` ended, `started` started. The
    /// controller's count of groups with destage queue room follows.
    fn destage_ops_moved(&mut self, g: u32, ended: u32, started: u32) {
        let grp = &mut self.groups[g as usize];
        let had_room = grp.destage_ops_inflight < grp.destage_ops_limit;
        grp.destage_ops_inflight = grp.destage_ops_inflight - ended + started;
        let has_room = grp.destage_ops_inflight < grp.destage_ops_limit;
        let room = &mut self.ctrls[grp.ctrl as usize].destage_room;
        match (had_room, has_room) {
            (true, false) => *room -= 1,
            (false, true) => *room += 1,
            _ => {}
        }
    }

    /// A disk operation ended ([`ArrayPart::disk_done`]): destage accounting, the
    /// controller's request when its plan has ended, and more destage.
    ///
    /// [`ArrayPart::disk_done`]: super::array::ArrayPart::disk_done
    pub(super) fn on_disk_done(&mut self, op: u32) {
        let groups = &self.groups;
        let done = self.arrays.disk_done(&mut self.core, op, |g, req| {
            if let CtrlReq::Destage { first_page, pages } = *req {
                // Its pages are freed when these writes end: load their entries.
                groups[g as usize].dirty.prefetch_run(first_page, pages);
            }
        });
        let g = done.group;
        let ctrl = self.groups[g as usize].ctrl as usize;
        let destage = done.class == OpClass::Destage;
        if destage {
            self.destage_ops_moved(g, 1, done.started);
        }
        if let Some((id, req)) = done.finished {
            self.request_done(id, g, req);
        }
        if destage {
            self.pump_destage(ctrl);
        }
    }

    /// The arrays finished request `id` of group `g`.
    fn request_done(&mut self, id: u32, g: u32, req: CtrlReq) {
        match req {
            req @ CtrlReq::Fetch { .. } => self.fetch_done(id, g, req),
            CtrlReq::Destage { first_page, pages } => self.destage_done(g, first_page, pages),
            CtrlReq::WriteThrough { piece } => {
                let unreachable = self.controller_dead(g);
                self.piece_done(piece, self.core.now, unreachable)
            }
        }
    }

    /// Frees a destaged run's pages (pages written again meanwhile stay dirty).
    fn release_destaged(&mut self, g: u32, first_page: u64, pages: u64) -> usize {
        let grp = &mut self.groups[g as usize];
        let freed = grp.dirty.destaged(first_page, pages);
        let ctrl = grp.ctrl as usize;
        let c = &mut self.ctrls[ctrl];
        c.dirty_pages -= freed;
        c.destaging_pages -= pages;
        let low = self.destage_marks(ctrl).1;
        let c = &mut self.ctrls[ctrl];
        if c.dirty_pages <= low && c.waiters.is_empty() {
            c.destage_active = false;
        }
        ctrl
    }

    /// Dirty pages at which `ctrl` starts and stops destaging: the configured watermarks, or,
    /// gone write-through after a failover, any dirty page at all down to none.
    fn destage_marks(&self, ctrl: usize) -> (u64, u64) {
        let cs = &self.core.spec.controllers;
        if self.ctrls[ctrl].write_through {
            (1, 0)
        } else {
            (cs.destage_high_pages, cs.destage_low_pages)
        }
    }

    /// A destage completed: free its pages, admit waiting writes, keep destaging.
    fn destage_done(&mut self, g: u32, first_page: u64, pages: u64) {
        let ctrl = self.release_destaged(g, first_page, pages);
        self.admit_waiters(ctrl);
        self.pump_destage(ctrl);
    }
}
