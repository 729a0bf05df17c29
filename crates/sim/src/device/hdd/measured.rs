//! A command on a drive described by its measured parameters: overheads by kind of command,
//! a segmented buffer with read-ahead, and write caching (see the parent module).
//!
//! Each command first pays its overhead, chosen by whether it is a read or a write, whether
//! its data is in the buffer (a hit) and whether the previous command was a write. A read
//! hit is served from the buffer at the interface rate (waiting, while its overhead runs,
//! for read-ahead still bringing its data in); a read miss first waits for any write the drive is still putting
//! on the media, then seeks, waits for its first sector, and sends its data as it comes
//! off the media (the interface finishes one sector after the media, or later when it is
//! the slower); a drive that disconnects while it positions reconnects once its read
//! water mark is buffered, paying its reselect and data preparation overheads (a drive
//! that frees the bus whenever a read runs dry comes back each time: bus.rs; a read miss
//! may also keep the blocks it passes before its own: free_blocks.rs). After a read the drive reads ahead into the same segment, while idle, up
//! to `readahead_kib` (or where `readahead_limit` stops it); the head follows the
//! read-ahead, so the next command seeks from the last block read ahead, not from the end
//! of the read. A segment holds at most `cache_segment_kib`: read-ahead running on past
//! that overwrites the segment's oldest data, the read's own first. The segments it filled
//! before stay readable until reused, least recently used first; with `readahead_after_hit`
//! a read served whole from one of them starts read-ahead from its end. With `write_cache` a write completes once its data crossed the
//! interface, and the drive writes it to the media afterwards; otherwise it positions and
//! writes before it completes, its data crossing the interface while the head moves: the
//! head writes a sector only once its data is in the buffer, and a sector that passes
//! under the head before its data arrived is written when it comes round again (on a drive
//! whose interface is slower than its media, a write costs a revolution each time the head
//! catches up with the data; write.rs has the details; a drive with zero-latency writes
//! writes from wherever the head lands: immediate.rs). A write ends read-ahead and drops
//! any buffered data it overlaps. Completion overheads are added at the end.

mod bus;
mod free_blocks;
mod immediate;
mod readahead;
mod write;

use super::params::{ExtraWriteDisconnect, HddParams, Overheads, ReadaheadLimit};
use super::{Access, Hdd, Pending, ReadAhead};
#[cfg(test)]
use write::{write_from_buffer_ns, BufferedData};

/// The measured-drive state and parameters (absent for the parametric form).
#[derive(Clone, Debug)]
pub(super) struct Measured {
    overheads: Overheads,
    segments_max: usize,
    keep_read: bool,
    write_cache: bool,
    limit: ReadaheadLimit,
    watermark: f64,
    /// Filled segments no longer read ahead into: [start, end) sectors, most recent first.
    segments: Vec<(u64, u64)>,
    /// When the media is free of writes taken into the buffer.
    media_free_ns: u64,
    last_write: bool,
    /// End of the last read (its last block plus one), for stream detection.
    last_read_end: Option<u64>,
    /// Least positioning time before a write.
    write_seek_min_ns: u64,
    /// Interface time of one sector of a write's data.
    write_iface_ns_per_sector: f64,
    extra_disconnect: Option<ExtraWriteDisconnect>,
    /// End of the last write (its last block plus one).
    last_write_end: Option<u64>,
    /// Blocks one segment holds (0: no bound beyond read-ahead's).
    segment_sectors: u64,
    /// A whole hit on a filled segment starts read-ahead from its end.
    readahead_after_hit: bool,
    /// Blocks read ahead past a read before the head serves a command that is not a read
    /// hit on them.
    min_ra_sectors: u64,
    /// A write overlapping the data being read ahead stops read-ahead at once (false: it
    /// waits for the least read-ahead like any other command).
    write_hit_stops_ra: bool,
    /// Where the least read-ahead of the last read ends (its end plus `min_ra_sectors`).
    ra_min_end: u64,
    /// The read water mark in blocks, whatever the read's size (0: `watermark`'s share).
    fixed_water: u64,
    /// A partial hit with fewer blocks buffered than its water mark waits for it.
    partial_hit_waits: bool,
    /// Reads may hit on a write's data.
    read_hits_on_writes: bool,
    /// Segments holding a write's data, when reads may not hit on them.
    write_data: Vec<(u64, u64)>,
    /// A write on or right after buffered data is a hit.
    writes_combine: bool,
}

impl Measured {
    /// The state for `p`, or `None` when it uses none of the measured-drive keys.
    pub fn new(p: &HddParams) -> Option<Box<Measured>> {
        let used = !p.zone_table.is_empty()
            || !p.seek_curve.is_empty()
            || p.command_overheads_ms.is_some()
            || p.cache_segments > 0
            || p.write_cache
            || p.cache_keeps_read_data
            || p.cache_segment_kib > 0.0
            || p.readahead_limit != ReadaheadLimit::Segment
            || p.read_watermark > 0.0
            || p.write_seek_min_ms > 0.0
            || p.interface_write_mbps > 0.0
            || p.extra_write_disconnect_ms.is_some()
            || p.readahead_after_hit
            || p.readahead_min_kib > 0.0
            || p.write_hit_keeps_readahead
            || p.read_watermark_kib > 0.0
            || p.partial_hit_waits
            || p.write_data_unreadable
            || p.writes_never_hit;
        used.then(|| {
            Box::new(Measured {
                overheads: p
                    .command_overheads_ms
                    .as_deref()
                    .copied()
                    .unwrap_or_else(|| Overheads::uniform(p.command_overhead_ms)),
                segments_max: p.cache_segments.max(1) as usize - 1,
                keep_read: p.cache_keeps_read_data,
                write_cache: p.write_cache,
                limit: p.readahead_limit,
                watermark: p.read_watermark,
                segments: Vec::new(),
                media_free_ns: 0,
                last_write: false,
                last_read_end: None,
                write_seek_min_ns: ms_ns(p.write_seek_min_ms),
                write_iface_ns_per_sector: 512.0 * 1e3
                    / if p.interface_write_mbps > 0.0 {
                        p.interface_write_mbps
                    } else {
                        p.interface_mbps
                    },
                extra_disconnect: p.extra_write_disconnect_ms.as_deref().copied(),
                last_write_end: None,
                segment_sectors: (p.cache_segment_kib * 2.0).round() as u64,
                readahead_after_hit: p.readahead_after_hit,
                min_ra_sectors: (p.readahead_min_kib * 2.0).round() as u64,
                write_hit_stops_ra: !p.write_hit_keeps_readahead,
                ra_min_end: 0,
                fixed_water: (p.read_watermark_kib * 2.0).round() as u64,
                partial_hit_waits: p.partial_hit_waits,
                read_hits_on_writes: !p.write_data_unreadable,
                write_data: Vec::new(),
                writes_combine: !p.writes_never_hit,
            })
        })
    }

    /// First block still in a segment whose data runs from `from` to `end`: a segment holds
    /// its last `segment_sectors` blocks.
    fn window_start(&self, from: u64, end: u64) -> u64 {
        if self.segment_sectors == 0 {
            from
        } else {
            from.max(end.saturating_sub(self.segment_sectors))
        }
    }
}

fn ms_ns(ms: f64) -> u64 {
    (ms * 1e6) as u64
}

impl Hdd {
    /// One command on a measured drive, started at `now_ns`.
    pub(super) fn access_measured(&mut self, now_ns: u64, p: &Pending) -> Access {
        let Some(mut m) = self.measured.take() else {
            return Access::default();
        };
        let after_write = m.last_write;
        m.last_write = p.write;
        let a = if p.write {
            self.write_measured(&mut m, now_ns, p, after_write)
        } else {
            let a = self.read_measured(&mut m, now_ns, p, after_write);
            m.last_read_end = Some(p.lba + u64::from(p.sectors));
            a
        };
        self.measured = Some(m);
        a
    }

    fn iface_ns(&self, sectors: u64) -> u64 {
        (sectors as f64 * self.iface_ns_per_sector) as u64
    }

    fn read_measured(
        &mut self,
        m: &mut Measured,
        now_ns: u64,
        p: &Pending,
        after_write: bool,
    ) -> Access {
        let (lba, n) = (p.lba, u64::from(p.sectors));
        let end = lba + n;
        let completion = ms_ns(m.overheads.read_completion);
        // A hit on the segment being read ahead into (its data may still be coming in);
        // a read running past where read-ahead stops reads the rest from the media.
        let ra_limit = self.readahead.as_ref().map_or(0, |ra| ra.limit);
        let stream = self.continues_stream(m, lba);
        let in_window = self
            .readahead
            .as_ref()
            .is_none_or(|ra| lba >= m.window_start(ra.from, self.ra_available_end(ra, now_ns)));
        if let Some(avail) = self.ra_hit(p, now_ns).filter(|_| in_window) {
            if end > ra_limit && avail < ra_limit {
                return self.read_on(m, now_ns, lba, n, avail, stream, after_write);
            }
            if end > ra_limit {
                let from = avail.clamp(lba, end - 1);
                return self.read_media(m, now_ns, lba, n, from, stream, after_write);
            }
            let overhead = ms_ns(m.overheads.of(false, true, after_write) + m.overheads.data_prep);
            // Blocks still coming in: the overhead runs while they do, and the last one
            // crosses the interface after it is in.
            let (ns_per_sector, partial) = (
                self.media_ns_per_sector(avail),
                self.ra_partial_ns(now_ns, avail),
            );
            let media_wait =
                ((end.saturating_sub(avail) as f64 * ns_per_sector) as u64).saturating_sub(partial);
            let last_in = if media_wait > 0 {
                (media_wait + self.iface_ns(1)).saturating_sub(overhead)
            } else {
                0
            };
            let transfer_ns = match m.bus_cycles(n, after_write).filter(|_| media_wait > 0) {
                // The bus goes and comes back while the rest comes in.
                Some(cycle) => {
                    let ready = |k: u64| {
                        let behind = (lba + k + 1).saturating_sub(avail);
                        ((behind as f64 * ns_per_sector) as u64).saturating_sub(partial)
                    };
                    self.read_bus_cycles_end_ns(n, m.water(n), cycle, overhead, ready)
                        .saturating_sub(overhead)
                }
                None => self.iface_ns(n).max(last_in),
            };
            let a = Access {
                overhead_ns: overhead + completion,
                transfer_ns,
                ..Access::default()
            };
            let limit = self.readahead_end(m, stream, end);
            m.ra_min_end = m.ra_min_end.max(end + m.min_ra_sectors);
            if let Some(ra) = self.readahead.as_mut() {
                // The segment slides on: read-ahead continues past this read.
                ra.fill_lba = avail.max(end);
                ra.fill_time_ns = now_ns + a.total_ns();
                ra.from = if m.keep_read { lba } else { end };
                ra.limit = limit.max(ra.fill_lba);
            }
            return a;
        }
        // A hit on a filled segment.
        let readable = |seg: &(u64, u64)| m.read_hits_on_writes || !m.write_data.contains(seg);
        if let Some(i) = m
            .segments
            .iter()
            .position(|&(s, e)| s <= lba && end <= e && readable(&(s, e)))
        {
            let seg = m.segments.remove(i);
            let overhead = ms_ns(m.overheads.of(false, true, after_write) + m.overheads.data_prep);
            let a = Access {
                overhead_ns: overhead + completion,
                transfer_ns: self.iface_ns(n),
                ..Access::default()
            };
            let limit = self.readahead_end(m, stream, end);
            if m.readahead_after_hit && self.readahead_sectors > 0 && limit > seg.1 {
                // Read-ahead under way first brings in its least.
                let free = self.readahead_min_done_ns(m, now_ns);
                self.read_ahead_from(m, free, (now_ns + a.total_ns()).max(free), seg, limit);
                m.ra_min_end = end + m.min_ra_sectors;
            } else {
                m.segments.insert(0, seg);
            }
            return a;
        }
        self.read_media(m, now_ns, lba, n, lba, stream, after_write)
    }

    /// A read of [lba, lba + n) whose blocks from `from` on come from the media.
    #[allow(clippy::too_many_arguments)]
    fn read_media(
        &mut self,
        m: &mut Measured,
        now_ns: u64,
        lba: u64,
        n: u64,
        from: u64,
        stream: bool,
        after_write: bool,
    ) -> Access {
        let end = lba + n;
        let media_n = end - from;
        // The head is free once read-ahead has brought in its least.
        let free = self.readahead_min_done_ns(m, now_ns);
        self.retire_readahead(m, free);
        let wait = m.media_free_ns.saturating_sub(now_ns);
        let o = &m.overheads;
        let overhead = ms_ns(o.of(false, false, after_write));
        let disconnect = ms_ns(if after_write {
            o.read_disconnect_after_write
        } else {
            o.read_disconnect_after_read
        });
        let reconnect = ms_ns(o.reselect + o.data_prep);
        let held_by_ra = (free - now_ns).saturating_sub(wait + overhead);
        let zi = self.zones.index_of(from);
        let pos = self.locate_in(zi, from);
        let seek_ns = self.seek_between(pos.cyl, pos.head, false);
        let lead = wait + overhead + held_by_ra + seek_ns;
        let angle = self.angle_of(zi, &pos);
        let rotate_ns = self.rotate_wait_ns(self.wrap_rev(now_ns + self.phase_ns), lead, angle);
        let media = self.transfer_measured_ns(from, media_n);
        // The drive disconnects while it positions and reconnects once the watermark's
        // share of the read is buffered (whole sectors, at least one; not before its
        // disconnect is done), paying the reselect and data preparation; the interface
        // then runs at its rate, never ahead of the media: it ends one sector after the
        // media at the earliest.
        let water = m.water(n);
        let held = water.saturating_sub(from - lba).min(media_n);
        // (Read off the media like the rest: with any track switch on the way.)
        let held_ns = if held == 0 {
            0
        } else {
            self.transfer_measured_ns(from, held)
        };
        // A read whose start is buffered (a partial hit) sends that part at once, after the
        // hit overhead, and the rest as the media brings it in; on a drive that sends a
        // partial hit at once only when its water mark is buffered, one with fewer blocks
        // waits for it like a miss.
        let ready = from - lba >= water.min(n) || !m.partial_hit_waits;
        let send = if from > lba && ready {
            ms_ns(o.of(false, true, after_write) + o.data_prep)
        } else {
            (lead + rotate_ns + held_ns).max(wait + overhead + disconnect) + reconnect
        };
        let transfer_ns = match m.bus_cycles(n, after_write) {
            Some(cycle) => {
                let mut runs = Vec::with_capacity(2);
                self.media_runs(from, media_n, |r| runs.push(r));
                let (pre, start) = (from - lba, lead + rotate_ns);
                let ready = |k| bus::run_ready_ns(&runs, pre, start, k);
                self.read_bus_cycles_end_ns(n, water, cycle, send, ready)
                    .saturating_sub(start)
            }
            None => (media + self.iface_ns(1))
                .max((send + self.iface_ns(n)).saturating_sub(lead + rotate_ns)),
        };
        let a = Access {
            overhead_ns: wait + overhead + held_by_ra + ms_ns(m.overheads.read_completion),
            seek_ns,
            rotate_ns,
            transfer_ns,
        };
        // With read any free blocks, the segment may start before the read.
        let first_kept = if m.overheads.read_any_free_blocks && from == lba {
            self.free_blocks_from(zi, &pos, lba, rotate_ns)
        } else {
            lba
        };
        let done_media = now_ns + lead + rotate_ns + media;
        let limit = self.readahead_end(m, stream, end);
        m.ra_min_end = end + m.min_ra_sectors;
        self.readahead = (self.readahead_sectors > 0).then(|| ReadAhead {
            from: if m.keep_read { first_kept } else { end },
            limit,
            fill_lba: end,
            fill_time_ns: done_media,
            ns_per_sector: self
                .media_ns_per_sector(end.min(self.capacity_sectors.saturating_sub(1))),
        });
        self.move_head_to(end.saturating_sub(1));
        a
    }
}

#[cfg(test)]
mod tests;
