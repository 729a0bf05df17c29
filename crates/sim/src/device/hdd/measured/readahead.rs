//! Read-ahead on a measured drive (see the parent module): where it stops, how a read
//! that runs on past it continues, and how it ends when the next command needs the head.

use super::super::{Access, Hdd, ReadAhead};
use super::{ms_ns, Measured, ReadaheadLimit};

impl Hdd {
    /// When read-ahead has brought in the least the drive reads ahead after a read (up to
    /// where read-ahead stops), or `now_ns` when it has or none is under way: a command
    /// that needs the head (any but a read hit on the data read ahead) waits for it, as
    /// DiskSim's `Minimum read-ahead (blks)` makes it.
    pub(super) fn readahead_min_done_ns(&self, m: &Measured, now_ns: u64) -> u64 {
        let Some(ra) = self.readahead.as_ref().filter(|_| m.min_ra_sectors > 0) else {
            return now_ns;
        };
        let target = m.ra_min_end.min(ra.limit).min(self.capacity_sectors);
        if self.ra_available_end(ra, now_ns) >= target {
            return now_ns;
        }
        // (One nanosecond on, so that the block counts as in whatever the rounding.)
        let ns = (target.saturating_sub(ra.fill_lba) as f64 * ra.ns_per_sector).ceil() as u64;
        (ra.fill_time_ns + ns + 1).max(now_ns)
    }

    /// Ends read-ahead at `now_ns`, keeping what it filled as a segment. The head is where
    /// read-ahead left it: on the track of the last block it read, which may be past the
    /// track (or the cylinder) of the read that started it.
    pub(super) fn retire_readahead(&mut self, m: &mut Measured, now_ns: u64) {
        if let Some(ra) = self.readahead.take() {
            let end = self.ra_available_end(&ra, now_ns);
            if end > ra.fill_lba {
                self.move_head_to(end - 1);
            }
            let from = m.window_start(ra.from, end);
            if end > from && m.segments_max > 0 {
                m.segments.insert(0, (from, end));
                m.segments.truncate(m.segments_max);
            }
        }
    }

    /// Read-ahead into `seg` from its end up to `limit`, started at `start_ns` (when the hit
    /// that asked for it is done; any read-ahead under way ends at `now_ns`): the head
    /// positions for the segment's end first.
    pub(super) fn read_ahead_from(
        &mut self,
        m: &mut Measured,
        now_ns: u64,
        start_ns: u64,
        seg: (u64, u64),
        limit: u64,
    ) {
        self.retire_readahead(m, now_ns);
        let fill = seg.1.min(self.capacity_sectors.saturating_sub(1));
        let zi = self.zones.index_of(fill);
        let pos = self.locate_in(zi, fill);
        let seek_ns = self.seek_between(pos.cyl, pos.head, false);
        let angle = self.angle_of(zi, &pos);
        let rotate_ns =
            self.rotate_wait_ns(self.wrap_rev(start_ns + self.phase_ns), seek_ns, angle);
        self.readahead = Some(ReadAhead {
            from: seg.0,
            limit,
            fill_lba: seg.1,
            fill_time_ns: start_ns + seek_ns + rotate_ns,
            ns_per_sector: self.media_ns_per_sector(fill),
        });
        self.move_head_to(fill);
    }

    /// A read of [lba, lba + n) that starts in the segment read-ahead is still filling (up
    /// to `avail` at `now_ns`) and runs past where read-ahead would stop: the head reads
    /// on without positioning again (across any track switch on the way), the buffered
    /// part goes out after the hit overhead and the rest as it comes off the media.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_on(
        &mut self,
        m: &mut Measured,
        now_ns: u64,
        lba: u64,
        n: u64,
        avail: u64,
        stream: bool,
        after_write: bool,
    ) -> Access {
        let end = lba + n;
        let o = &m.overheads;
        let overhead = ms_ns(o.of(false, true, after_write) + o.data_prep);
        let partial = self.ra_partial_ns(now_ns, avail);
        let media_wait = self
            .transfer_measured_ns(avail, end - avail)
            .saturating_sub(partial);
        let transfer_ns = match m.bus_cycles(n, after_write) {
            Some(cycle) => {
                let ready = |k: u64| match (lba + k + 1).checked_sub(avail) {
                    Some(behind) if behind > 0 => self
                        .transfer_measured_ns(avail, behind)
                        .saturating_sub(partial),
                    _ => 0,
                };
                self.read_bus_cycles_end_ns(n, m.water(n), cycle, overhead, ready)
                    .saturating_sub(overhead)
            }
            None => self
                .iface_ns(n)
                .max((media_wait + self.iface_ns(1)).saturating_sub(overhead)),
        };
        let a = Access {
            overhead_ns: overhead + ms_ns(o.read_completion),
            transfer_ns,
            ..Access::default()
        };
        let limit = self.readahead_end(m, stream, end);
        m.ra_min_end = m.ra_min_end.max(end + m.min_ra_sectors);
        let last = end.min(self.capacity_sectors.saturating_sub(1));
        let ns_per_sector = self.media_ns_per_sector(last);
        if let Some(ra) = self.readahead.as_mut() {
            ra.fill_lba = end;
            ra.fill_time_ns = now_ns + media_wait;
            ra.from = if m.keep_read { lba } else { end };
            ra.limit = limit.max(end);
            ra.ns_per_sector = ns_per_sector;
        }
        self.move_head_to(end - 1);
        a
    }

    /// How far read-ahead, buffered up to `avail` at `now_ns`, has read into the next block
    /// (0 once it stopped).
    pub(super) fn ra_partial_ns(&self, now_ns: u64, avail: u64) -> u64 {
        let Some(ra) = self.readahead.as_ref() else {
            return 0;
        };
        if avail >= ra.limit.min(self.capacity_sectors) {
            return 0;
        }
        let elapsed = now_ns.saturating_sub(ra.fill_time_ns) as f64;
        let done = avail.saturating_sub(ra.fill_lba) as f64 * ra.ns_per_sector;
        (elapsed - done).clamp(0.0, ra.ns_per_sector) as u64
    }

    /// True when the previous read ended exactly at `lba`: the read continues a sequential
    /// stream. A read further on along the track (or on the next one) is not one: the
    /// drive sees a stream only in blocks asked for one after the other.
    pub(super) fn continues_stream(&self, m: &Measured, lba: u64) -> bool {
        m.last_read_end == Some(lba)
    }

    /// First block of the track after the one holding `lba`, and of the cylinder after.
    pub(super) fn track_and_cylinder_end(&self, lba: u64) -> (u64, u64) {
        let last = self.capacity_sectors.saturating_sub(1);
        let zi = self.zones.index_of(lba.min(last));
        let z = self.zones.list[zi];
        let pos = self.locate_in(zi, lba.min(last));
        let spt = z.data_spt.get();
        let track_left = self
            .track_data_sectors(zi, &pos)
            .saturating_sub(u64::from(pos.sector))
            .max(1);
        let in_cyl = u64::from(pos.head) * spt + u64::from(pos.sector);
        let cyl_left = z.spc.get().saturating_sub(in_cyl).max(1);
        (lba + track_left, lba + cyl_left)
    }

    /// Where read-ahead after a read of [lba, end) stops; `stream` when the read continues
    /// a sequential stream.
    pub(super) fn readahead_end(&self, m: &Measured, stream: bool, end: u64) -> u64 {
        let most = end + self.readahead_sectors;
        let last = end.saturating_sub(1);
        let limit = match m.limit {
            ReadaheadLimit::Segment => most,
            ReadaheadLimit::Track => self.track_and_cylinder_end(last).0.min(most),
            ReadaheadLimit::Cylinder => self.track_and_cylinder_end(last).1.min(most),
            // Only a stream is read ahead, one track beyond the read's.
            ReadaheadLimit::TrackOrStream if stream => {
                let track_end = self.track_and_cylinder_end(end).0;
                self.track_and_cylinder_end(track_end).0
            }
            ReadaheadLimit::TrackOrStream => end,
        };
        limit.max(end).min(self.capacity_sectors)
    }
}

#[cfg(test)]
mod tests;
