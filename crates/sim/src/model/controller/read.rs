//! Reads: cache hits, waits for fetches in flight, fetches from the arrays, and sequential
//! detection with prefetch.

use super::{segment_of, ControllerPart, CtrlReq, DelayedFetch, SeqStream, Waiters, SEQ_SLOTS};
use crate::cache::page_key;
use crate::config::resolve::PAGE_SECTORS;
use crate::config::Staging;
use crate::engine::{Event, SimTime};
use crate::model::core::Core;
use crate::model::Stack;

impl ControllerPart {
    /// A read piece of `sectors` at `lba` of group `g`: hit, wait for fetches in flight, or
    /// fetch.
    pub(super) fn read_piece(
        s: &mut Stack,
        pid: u32,
        (g, lba, sectors): (u32, u64, u64),
        arrive: SimTime,
    ) {
        let this = &mut s.ctrls;
        let grp = &mut this.groups[g as usize];
        grp.stats.host_reads += 1;
        let (ctrl, reads) = (grp.ctrl, grp.reads);
        let miss_ns = reads.read_miss_ns;
        if !grp.read_cache {
            let t_cpu = this.controller_time(&s.core, ctrl, arrive, miss_ns);
            this.pieces.get_mut(pid).waits = 1;
            Self::fetch_after(s, (g, lba, sectors), pid, false, t_cpu);
            return;
        }
        let seg = reads.segment_sectors;
        let (s0, s1) = (segment_of(lba, seg), segment_of(lba + sectors - 1, seg));
        let ctrl = ctrl as usize;
        let mut waits: [u32; 4] = [u32::MAX; 4];
        let mut n_waits = 0usize;
        let mut absent: Option<(u64, u64)> = None;
        for segment in s0..=s1 {
            let key = page_key(g, segment);
            if this.ctrls[ctrl].cache.touch(g, segment) || this.dirty_covers(g, segment * seg, seg)
            {
                continue;
            }
            match this.ctrls[ctrl].inflight.get(key).checked_sub(1) {
                Some(f) if n_waits < waits.len() => {
                    if !waits[..n_waits].contains(&f) {
                        waits[n_waits] = f;
                        n_waits += 1;
                    }
                }
                _ => absent = Some(absent.map_or((segment, segment), |(a, _)| (a, segment))),
            }
        }
        if n_waits == 0 && absent.is_none() {
            this.groups[g as usize].stats.read_hits += 1;
            let t_cpu = this.controller_time(&s.core, ctrl as u32, arrive, reads.read_hit_ns);
            Self::piece_done(s, pid, t_cpu, false);
        } else {
            // A miss's processing holds the processor (and delays the hits and writes behind
            // it); when the array declares its internals, its disk read starts after it.
            let t_cpu = this.controller_time(&s.core, ctrl as u32, arrive, miss_ns);
            this.pieces.get_mut(pid).waits = n_waits as u32 + absent.is_some() as u32;
            for &f in &waits[..n_waits] {
                if let Some(CtrlReq::Fetch { waiters, .. }) = s.arrays.request_mut(f) {
                    waiters.push(pid);
                }
            }
            if let Some(miss) = absent {
                let (a, b) = this.staged_segments(&s.core, ctrl, g, miss);
                let extent = (g, a * seg, (b - a + 1) * seg);
                Self::fetch_after(s, extent, pid, true, t_cpu);
            }
        }
        Self::detect_sequential(s, g, lba, sectors);
    }

    /// Starts the fetch of a read miss, piece `pid`, once its processor work ends at
    /// `t_cpu`: at once when the array leaves its internals undeclared (the processor time
    /// then runs beside the disk read, as the model always did), else at `t_cpu`
    /// ([`ControllerPart::on_read_miss_start`]).
    #[inline]
    fn fetch_after(s: &mut Stack, extent: (u32, u64, u64), pid: u32, cache: bool, t_cpu: SimTime) {
        if !s.ctrls.miss_after_processor || t_cpu <= s.core.now {
            Self::start_fetch(s, extent, Some(pid), cache);
            return;
        }
        let (g, lba, sectors) = extent;
        let id = s.ctrls.delayed_fetches.insert(DelayedFetch {
            g,
            lba,
            sectors,
            pid,
            cache,
        });
        s.core.schedule(t_cpu, Event::ReadMissStart(id));
    }

    /// A read miss's processor work has ended ([`ControllerPart::fetch_after`]): its disk
    /// read starts. Another read of the same data in the meantime started a fetch of its
    /// own: the processor had not yet recorded this one.
    pub fn on_read_miss_start(s: &mut Stack, id: u32) {
        let f = s.ctrls.delayed_fetches.take(id);
        Self::start_fetch(s, (f.g, f.lba, f.sectors), Some(f.pid), f.cache);
    }

    /// One fetch a piece waited for ended.
    #[inline(always)]
    fn fetch_waiter_done(s: &mut Stack, pid: u32, error: bool) {
        let p = s.ctrls.pieces.get_mut(pid);
        p.waits -= 1;
        p.error |= error;
        if p.waits == 0 {
            let error = p.error;
            Self::piece_done(s, pid, s.core.now, error);
        }
    }

    /// True when every write-cache page of [lba, lba+sectors) is dirty (readable from NVS).
    fn dirty_covers(&self, g: u32, lba: u64, sectors: u64) -> bool {
        let dirty = &self.groups[g as usize].dirty;
        !dirty.is_empty()
            && dirty.covers(lba / PAGE_SECTORS, (lba + sectors).div_ceil(PAGE_SECTORS))
    }

    /// Starts an array read of `sectors` at `lba` of group `g`; with `cache`, its segments
    /// are marked in flight and cached on completion. A read of lost data fails its waiter
    /// at once.
    #[inline(always)]
    fn start_fetch(
        s: &mut Stack,
        (g, lba, sectors): (u32, u64, u64),
        waiter: Option<u32>,
        cache: bool,
    ) {
        let grp = &s.ctrls.groups[g as usize];
        let sectors = sectors.min(grp.capacity_sectors - lba);
        let ctrl = grp.ctrl;
        let req = CtrlReq::Fetch {
            lba,
            sectors,
            waiters: Waiters::new(waiter),
            cache,
            ctrl,
        };
        let Some(id) = s.arrays.read(&mut s.core, g, lba, sectors, req) else {
            if let Some(pid) = waiter {
                Self::fetch_waiter_done(s, pid, true);
            }
            return;
        };
        if cache {
            let seg = s.ctrls.groups[g as usize].reads.segment_sectors;
            let inflight = &mut s.ctrls.ctrls[ctrl as usize].inflight;
            for segment in segment_of(lba, seg)..segment_of(lba + sectors + seg - 1, seg) {
                // Stored where the lookup ends, inlined here (`set` is a call).
                let key = page_key(g, segment);
                let (slot, _, found) = inflight.probe(key);
                inflight.set_at(slot, found, key, id + 1);
            }
        }
    }

    /// Fetch `id` completed: cache its segments and release the readers waiting for it.
    pub(super) fn fetch_done(s: &mut Stack, id: u32, g: u32, req: CtrlReq) {
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
            let seg = s.ctrls.groups[g as usize].reads.segment_sectors;
            let c = &mut s.ctrls.ctrls[ctrl as usize];
            for segment in segment_of(lba, seg)..segment_of(lba + sectors + seg - 1, seg) {
                let key = page_key(g, segment);
                // Forgotten only if this fetch is the one recorded: one probe.
                let (slot, fetch, found) = c.inflight.probe(key);
                if fetch == id + 1 {
                    c.inflight.set_at(slot, found, key, 0);
                }
                if !c.failed {
                    c.cache.insert(g, segment);
                }
            }
        }
        // Data the disks returned after the group's controller died (no survivor took its
        // LUNs) never reaches the host.
        let unreachable = s.ctrls.controller_dead(g);
        waiters.for_each(|pid| Self::fetch_waiter_done(s, pid, unreachable));
    }

    /// Tracks up to `SEQ_SLOTS` sequential readers per group and prefetches ahead of them.
    fn detect_sequential(s: &mut Stack, g: u32, lba: u64, sectors: u64) {
        let c = s.ctrls.groups[g as usize].reads;
        let (trigger, prefetch, seg) =
            (c.sequential_trigger, c.prefetch_sectors, c.segment_sectors);
        if trigger == 0 || prefetch == 0 {
            return;
        }
        let this = &mut s.ctrls;
        let grp = &mut this.groups[g as usize];
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
        let stream = &mut grp.seq[slot];
        stream.next_lba = end;
        if stream.run < trigger {
            return;
        }
        let ahead = prefetch.max(2 * sectors);
        let cap = grp.capacity_sectors;
        let from = stream.prefetched_to.max(end) / seg * seg;
        if from >= cap || from.saturating_sub(end) >= ahead / 2 {
            return;
        }
        let to = (end + ahead).div_ceil(seg) * seg;
        let to = to.min(cap);
        stream.prefetched_to = to;
        let ctrl = grp.ctrl as usize;
        let mut first = from;
        while first < to && this.segment_known(ctrl, g, first / seg) {
            first += seg;
        }
        if first < to {
            Self::start_fetch(s, (g, first, to - first), None, true);
        }
    }

    /// The segments a read miss of segments `a..=b` of group `g` stages: those, and under
    /// track staging the rest of the last one's track (and, staging whole tracks, the start
    /// of the first one's), each side stopping before a segment already cached or on its way
    /// (so one contiguous disk read brings only what the cache lacks).
    fn staged_segments(&self, core: &Core, ctrl: usize, g: u32, (a, b): (u64, u64)) -> (u64, u64) {
        let c = &core.spec.controllers;
        // Block staging (the default) needs no division.
        if c.staging == Staging::Block {
            return (a, b);
        }
        let per_track = c.track_sectors / c.segment_sectors;
        if per_track <= 1 {
            return (a, b);
        }
        let segments = self.groups[g as usize]
            .capacity_sectors
            .div_ceil(c.segment_sectors);
        let track_end = ((b / per_track + 1) * per_track).min(segments);
        let mut hi = b;
        while hi + 1 < track_end && !self.segment_known(ctrl, g, hi + 1) {
            hi += 1;
        }
        let mut lo = a;
        if c.staging == Staging::Track {
            let track_start = a / per_track * per_track;
            while lo > track_start && !self.segment_known(ctrl, g, lo - 1) {
                lo -= 1;
            }
        }
        (lo, hi)
    }

    fn segment_known(&self, ctrl: usize, g: u32, s: u64) -> bool {
        let key = page_key(g, s);
        self.ctrls[ctrl].cache.contains(g, s) || (self.ctrls[ctrl].inflight.get(key) != 0)
    }
}
