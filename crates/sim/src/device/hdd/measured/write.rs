//! A write on a measured drive (see the parent module): its overheads placed where the
//! drive pays them, the head writing each sector only once its data is in the buffer, and
//! write caching.
//!
//! Without write caching the command overhead comes first; the head then positions while
//! the data crosses the interface (after the data preparation overhead), and the drive
//! reports completion after the media write, paying a reselect to reconnect and the
//! completion overhead. A drive with an extra write disconnect (DiskSim's `Extra write
//! disconnect`) disconnects early from a write that follows a write elsewhere: it starts
//! positioning `command + seek_delta` after the command arrived, takes the data only
//! `inter_disconnect` after its disconnect, and reconnects for the completion with its
//! other reselect overhead. Such a drive also writes nothing until a share of the write is
//! buffered: the whole write up to 10 sectors, 10 sectors of a write of up to 44, 15 of a
//! longer one (data of an earlier write, already on the media, does not count: one
//! command at a time, the write segment is clean when the next write comes and starts
//! afresh).

use super::super::layout::MediaRun;
use super::super::{Access, Hdd, Pending};
use super::{ms_ns, Measured};

/// Sectors an extra-disconnect drive buffers before it writes any of a write of
/// `sectors`.
fn sectors_before_writing(sectors: u64) -> u64 {
    if sectors < 45 {
        sectors.min(10)
    } else {
        15
    }
}

/// True when a write of [lba, end) overlaps buffered data [s, e) as DiskSim counts it: it
/// starts inside, ends inside (or at its end) or covers it.
fn overlaps((s, e): (u64, u64), lba: u64, end: u64) -> bool {
    (s <= lba && lba < e) || (s < end && end <= e) || (lba <= s && e <= end)
}

/// When the parts of an uncached write happen, from the command's arrival.
struct WriteTiming {
    /// The head starts positioning.
    mech_ns: u64,
    /// The first sector starts crossing the interface.
    data_ns: u64,
    /// After the data is in: the drive disconnects before it can reconnect.
    disconnect_ns: u64,
    /// After the media write (and the disconnect): reconnection and completion.
    tail_ns: u64,
}

impl Hdd {
    pub(super) fn write_measured(
        &mut self,
        m: &mut Measured,
        now_ns: u64,
        p: &Pending,
        after_write: bool,
    ) -> Access {
        let (lba, n) = (p.lba, u64::from(p.sectors));
        let end = lba + n;
        // A write hits when it lands on or right after buffered data (on a drive that
        // combines writes with it).
        let ra_range = self
            .readahead
            .as_ref()
            .map(|ra| (ra.from, self.ra_available_end(ra, now_ns)));
        let hit = m.writes_combine
            && m.segments
                .iter()
                .copied()
                .chain(ra_range)
                .any(|(s, e)| s <= lba && lba <= e);
        // The head is free once read-ahead has brought in its least, unless the write
        // overlaps the data read ahead and that stops read-ahead at once.
        let stops = m.write_hit_stops_ra && ra_range.is_some_and(|r| overlaps(r, lba, end));
        let free = if stops {
            now_ns
        } else {
            self.readahead_min_done_ns(m, now_ns)
        };
        let held_by_ra = free - now_ns;
        self.retire_readahead(m, free);
        m.segments.retain(|&(s, e)| e <= lba || end <= s);
        m.write_data.retain(|&(s, e)| e <= lba || end <= s);
        let overhead = ms_ns(m.overheads.of(true, hit, after_write));
        let completion = ms_ns(m.overheads.write_completion);
        let iface = (n as f64 * m.write_iface_ns_per_sector) as u64;
        let wait = m.media_free_ns.saturating_sub(now_ns);
        // A write that starts where the last one ended continues it.
        let continues = m.last_write_end == Some(lba);
        m.last_write_end = Some(end);
        if m.write_cache {
            let prep = ms_ns(m.overheads.data_prep);
            // Reported once the data is in the buffer; written when the media is free.
            let a = Access {
                overhead_ns: overhead + prep + completion,
                transfer_ns: iface,
                ..Access::default()
            };
            let start = (now_ns + overhead + prep + iface)
                .max(m.media_free_ns)
                .max(free);
            let pos = self.locate(lba);
            let seek = self
                .seek_between(pos.cyl, pos.head, true)
                .max(m.write_seek_min_ns);
            m.media_free_ns = if m.overheads.immediate_write {
                // All its data is in: the head writes from wherever it lands.
                let data = BufferedData {
                    first_ns: 0,
                    ns_per_sector: 0.0,
                    sectors_first: 0,
                };
                start + self.immediate_write_ns(start, seek, lba, n, &data).1
            } else {
                let rot = self.rotate_wait_ns(
                    self.wrap_rev(start + self.phase_ns),
                    seek,
                    u64::from(p.angle_ns),
                );
                start + seek + rot + self.transfer_measured_ns(lba, n)
            };
            if m.segments_max > 0 {
                m.segments.insert(0, (lba, end));
                m.segments.truncate(m.segments_max);
                if !m.read_hits_on_writes {
                    m.write_data.insert(0, (lba, end));
                    m.write_data.truncate(m.segments_max);
                }
            }
            self.move_head_to(end.saturating_sub(1));
            return a;
        }
        let t = write_timing(m, overhead, after_write && !continues);
        let pos = self.locate(lba);
        let seek_ns = self
            .seek_between(pos.cyl, pos.head, true)
            .max(m.write_seek_min_ns);
        // The data crosses the interface while the head moves; the head writes a sector
        // only once its data is in the buffer.
        let held_by_ra = held_by_ra.saturating_sub(wait + t.mech_ns);
        let lead = wait + t.mech_ns + held_by_ra + seek_ns;
        let data = BufferedData {
            first_ns: wait + t.data_ns,
            ns_per_sector: m.write_iface_ns_per_sector,
            sectors_first: match m.extra_disconnect {
                Some(_) => sectors_before_writing(n),
                None => 0,
            },
        };
        let (rotate_ns, written) = if m.overheads.immediate_write {
            let (rotate_ns, written) = self.immediate_write_ns(now_ns, lead, lba, n, &data);
            (rotate_ns, written.max(lead + rotate_ns))
        } else {
            let rotate_ns = self.rotate_wait_ns(
                self.wrap_rev(now_ns + self.phase_ns),
                lead,
                u64::from(p.angle_ns),
            );
            let mut runs = Vec::with_capacity(2);
            let media = self.media_runs(lba, n, |r| runs.push(r));
            let written = write_from_buffer_ns(lead + rotate_ns, &runs, media, data, self.rev_ns);
            (rotate_ns, written)
        };
        let taken = wait + t.data_ns + iface + t.disconnect_ns;
        let a = Access {
            overhead_ns: wait + t.mech_ns + held_by_ra + t.tail_ns + completion,
            seek_ns,
            rotate_ns,
            transfer_ns: written.max(taken) - lead - rotate_ns,
        };
        self.move_head_to(end.saturating_sub(1));
        a
    }
}

/// The timing of an uncached write with command overhead `overhead_ns`; `early` when it
/// follows a write elsewhere (the drive's extra write disconnect applies, if it has one).
fn write_timing(m: &Measured, overhead_ns: u64, early: bool) -> WriteTiming {
    let o = &m.overheads;
    let (prep, reselect) = (ms_ns(o.data_prep), ms_ns(o.reselect));
    match m.extra_disconnect.filter(|_| early) {
        Some(x) => WriteTiming {
            mech_ns: ms_ns(x.command + x.seek_delta),
            data_ns: ms_ns(x.command + x.disconnect + x.inter_disconnect) + reselect + prep,
            disconnect_ns: ms_ns(x.second_disconnect),
            tail_ns: ms_ns(x.reselect),
        },
        None => WriteTiming {
            mech_ns: overhead_ns,
            data_ns: overhead_ns + prep,
            disconnect_ns: ms_ns(o.write_disconnect),
            tail_ns: reselect,
        },
    }
}

/// Data of a write arriving in the drive's buffer over the interface: the first sector's
/// transfer starts `first_ns` after the command starts, and each sector takes
/// `ns_per_sector`; the head writes nothing before `sectors_first` sectors are in.
#[derive(Clone, Copy, Debug)]
pub(in crate::device::hdd) struct BufferedData {
    pub first_ns: u64,
    pub ns_per_sector: f64,
    pub sectors_first: u64,
}

impl BufferedData {
    /// When sector `j` (from 0) of the write may be written.
    pub(super) fn ready_ns(&self, j: u64) -> f64 {
        self.first_ns as f64 + (j + 1).max(self.sectors_first) as f64 * self.ns_per_sector
    }
}

/// When a write whose first sector is under the head at `start_ns` (both from the
/// command's start) has written its last sector, taking `media_ns` on the media when
/// nothing stops it; `runs` are its sectors track by track, each reached at its own time
/// (a track switch takes the time it takes at the boundary, not spread over the sectors).
/// The head writes a sector only if its data is already in the buffer: a sector that
/// passes under the head before its data arrived is written one revolution later, when it
/// comes round again, and the rest of the write with it. A write fed over an interface
/// slower than the media loses a revolution each time the media catches up with the data.
pub(in crate::device::hdd) fn write_from_buffer_ns(
    start_ns: u64,
    runs: &[MediaRun],
    media_ns: u64,
    data: BufferedData,
    rev_ns: u64,
) -> u64 {
    // On the current pass the head reaches the run's sector `k` at
    // `pass + start_ns + k * ns_per_sector`.
    let mut pass = start_ns as f64;
    let mut j = 0;
    for r in runs {
        let mut k = 0;
        while k < r.sectors {
            let at = pass + r.start_ns as f64 + k as f64 * r.ns_per_sector;
            let ready = data.ready_ns(j);
            if at >= ready {
                k += 1;
                j += 1;
            } else {
                pass += ((ready - at) / rev_ns as f64).ceil() * rev_ns as f64;
            }
        }
    }
    ((pass + media_ns as f64).round() as u64).max(start_ns + media_ns)
}
