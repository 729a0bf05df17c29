//! Hard disk drive: geometry, seek curve, rotation, zoned transfer, read-ahead and a tagged
//! command queue with reordering.
//!
//! Geometry. The media is split into `zones` bands of equal cylinder count from the outer to
//! the inner diameter; the media rate falls linearly from `media_rate_outer_mbps` to
//! `media_rate_inner_mbps`, and a zone's sectors per track follow from its rate and the
//! revolution time. Logical blocks fill a zone cylinder by cylinder, surface by surface, so
//! low LBAs are on the fast outer tracks and nearby LBAs are on nearby cylinders: short-stroked
//! and sequential access are cheaper than random access, as on a real drive.
//!
//! Seek curve. For a distance of d >= 1 cylinders, `t(d) = a + b*sqrt(d) + c*d` (the classic
//! shape: acceleration-limited square root for short seeks, coast-limited linear for long
//! ones). The three coefficients are solved so that t(1) equals the track-to-track time, t(D)
//! the full-stroke time and the mean over uniformly random start and end cylinders (distance
//! density 2(D-d)/D^2, so E[sqrt d] = 8/15 sqrt D and E[d] = D/3) the average seek time of the
//! data sheet. A zero-distance seek costs nothing; a change of surface costs `head_switch_ms`.
//!
//! Timing of one command: command overhead (skipped when the command was already queued while
//! the previous one ran: tagged queueing overlaps it), seek, rotational wait until the first
//! sector passes under the head (each drive's spindle has its own phase; a write that moved
//! the head first waits `write_settle_ms` more, or less when it is negative), then media
//! transfer at the zone's rate. Tracks are skewed by the longer of a head switch and a
//! one-cylinder seek, plus any positive write settle, so a transfer that continues onto the next track does not lose a revolution. Reads that continue a
//! previous read are served from the drive's read-ahead buffer, which fills at media speed
//! while the drive has nothing else to do, up to `readahead_kib`.
//!
//! Reordering: FIFO, elevator (LOOK), shortest-seek-time-first, or shortest positioning time
//! first (seek + rotational wait), each with an age limit that serves a starved command first.

mod build;
mod defects;
mod geometry;
mod layout;
mod measured;
mod params;
mod schedule;

use crate::divisor::{Divisor, Ratio};
pub(crate) use geometry::MAX_STEP_MS;
use geometry::{SeekCurve, Zones};
use measured::Measured;
pub(crate) use params::check_params;
pub(crate) use params::MAX_QUEUE_DEPTH;
pub(crate) use params::MAX_SPARE_RANGE_CYLINDERS;
pub use params::{
    ExtraWriteDisconnect, HddParams, Overheads, ReadaheadLimit, Scheduler, Sparing, SurfaceOrder,
    ZoneSpec,
};
use std::sync::Arc;

/// A measured seek curve (`[cylinders, ms]` points, as `seek_curve`) as a function of the
/// distance, ms: the interpolation the drive uses.
pub fn seek_table_ms(points: &[[f64; 2]]) -> impl Fn(f64) -> f64 {
    let curve = SeekCurve::from_points(points);
    move |d: f64| curve.formula_ns(d.max(0.0) as u32) as f64 / 1e6
}

/// Physical position of a sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// Cylinder.
    pub cyl: u32,
    /// Surface.
    pub head: u32,
    /// Sector index on the track.
    pub sector: u32,
    /// Sectors per track of the zone, as a divisor (`spt.get()` is the count).
    pub spt: Divisor,
}

/// A command waiting in the drive's queue, in 40 bytes: the SPTF pick reads every queued
/// command, so a queue of eight spans five cache lines. The sectors per track of its zone
/// are looked up again for the command picked (the zone table is shared and cached).
#[derive(Clone, Copy, Debug)]
struct Pending {
    lba: u64,
    arrived_ns: u64,
    op: u32,
    sectors: u32,
    cyl: u32,
    /// Angular position of the first sector, as time into the revolution (a revolution is
    /// at most 60 ms: `rpm` is at least 1000).
    angle_ns: u32,
    /// Sector index on the track.
    sector: u32,
    /// Surface (at most 64).
    head: u8,
    write: bool,
    /// Index of its zone (at most 256 zones).
    zone: u8,
}

const _: () = assert!(std::mem::size_of::<Pending>() == 40);

/// Positioning of a queued command as the SPTF pick timed it: its seek (with head switch
/// and write settle), and that plus its overhead and rotational wait; or, when the
/// read-ahead buffer holds its start, `buffered` (the times are then not used).
#[derive(Clone, Copy, Debug)]
struct Positioning {
    seek_ns: u64,
    total_ns: u64,
    buffered: bool,
}

/// Where time went in one command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Command overhead.
    pub overhead_ns: u64,
    /// Seek (and head switch).
    pub seek_ns: u64,
    /// Rotational wait.
    pub rotate_ns: u64,
    /// Media or buffer transfer.
    pub transfer_ns: u64,
}

impl Access {
    /// Total service time.
    pub fn total_ns(&self) -> u64 {
        self.overhead_ns + self.seek_ns + self.rotate_ns + self.transfer_ns
    }
}

/// Read-ahead buffer state: data for [from, fill_lba + ...) is (being) buffered.
#[derive(Clone, Copy, Debug)]
struct ReadAhead {
    from: u64,
    /// Where read-ahead stops (`from + readahead` in the parametric form).
    limit: u64,
    fill_lba: u64,
    fill_time_ns: u64,
    /// Media time per sector where the buffer fills.
    ns_per_sector: f64,
}

/// A hard disk drive with its queue.
#[derive(Clone, Debug)]
pub struct Hdd {
    /// Shared by the drives of one model (see [`Hdd::with_phase`]).
    zones: Arc<Zones>,
    /// Last cylinder.
    max_cyl: u32,
    heads: u64,
    capacity_sectors: u64,
    rev_ns: u64,
    /// `rev_ns` as a divisor: times reduce modulo a revolution without a division.
    rev: Divisor,
    phase_ns: u64,
    seek: SeekCurve,
    head_switch_ns: u64,
    /// Added to a write's positioning when the head moved; negative on a drive whose
    /// writes position faster than its (read-measured) seek curve.
    write_settle_ns: i64,
    skew_ns: u64,
    overhead_ns: u64,
    iface_ns_per_sector: f64,
    readahead_sectors: u64,
    max_age_ns: u64,
    scheduler: Scheduler,
    queue_depth: u32,
    cur_cyl: u32,
    cur_head: u32,
    sweep_up: bool,
    readahead: Option<ReadAhead>,
    pending: Vec<Pending>,
    /// At most the arrival time of every queued command (exact after a starvation check):
    /// while the age limit is not reached from it, no command can be starving.
    arrival_floor_ns: u64,
    in_service: Option<u32>,
    last_done_ns: u64,
    /// True when the zones come from a measured table (skews, spares, slips).
    table_layout: bool,
    /// Overheads by kind, buffer segments and write caching of a measured drive.
    measured: Option<Box<Measured>>,
}

impl Hdd {
    /// Usable sectors.
    pub fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }

    /// Time of one revolution.
    pub fn revolution_ns(&self) -> u64 {
        self.rev_ns
    }

    /// Time to send `sectors` over the interface.
    pub fn interface_ns(&self, sectors: u32) -> u64 {
        (f64::from(sectors) * self.iface_ns_per_sector) as u64
    }

    /// Commands the drive accepts at once.
    pub fn queue_depth(&self) -> u32 {
        self.queue_depth
    }

    /// Commands in the drive (queued plus in service).
    pub fn outstanding(&self) -> u32 {
        self.pending.len() as u32 + self.in_service.is_some() as u32
    }

    /// True while a command is in service.
    pub fn is_busy(&self) -> bool {
        self.in_service.is_some()
    }

    /// Seek time for a distance in cylinders.
    pub fn seek_ns(&self, distance: u32) -> u64 {
        self.seek.time_ns(distance)
    }

    /// Total cylinders.
    pub fn cylinders(&self) -> u32 {
        self.zones.cylinders()
    }

    /// Physical position of `lba`.
    #[inline]
    pub fn locate(&self, lba: u64) -> Position {
        self.locate_in(self.zones.index_of(lba), lba)
    }

    /// [`Hdd::locate`] for an address known to lie in zone `zone` (always inlined: on a
    /// parametric drive it is two divisions, and a call costs case 2's hour 1%).
    #[inline(always)]
    pub(super) fn locate_in(&self, zone: usize, lba: u64) -> Position {
        if self.table_layout {
            return self.locate_measured(zone, lba);
        }
        let z = &self.zones.list[zone];
        let (cyl_in_zone, r) = z.spc.div_rem(lba - z.first_lba);
        let (head, sector) = z.spt.div_rem(r);
        Position {
            cyl: (z.first_cyl + cyl_in_zone as u32).min(self.max_cyl),
            head: head as u32,
            sector: sector as u32,
            spt: z.spt,
        }
    }

    /// Media rate of the zone holding `lba`, bytes per second.
    pub fn media_rate_bps(&self, lba: u64) -> f64 {
        self.zones.of(lba).spt.get() as f64 * 512.0 * 1e9 / self.rev_ns as f64
    }

    /// Queues a command. The caller keeps `outstanding() < queue_depth()`.
    #[inline(always)]
    pub fn enqueue(&mut self, now_ns: u64, op: u32, lba: u64, sectors: u32, write: bool) {
        debug_assert!(self.outstanding() < self.queue_depth);
        let zone = self.zones.index_of(lba);
        let pos = self.locate_in(zone, lba);
        let angle_ns = self.angle_of(zone, &pos) as u32;
        if self.pending.is_empty() {
            self.arrival_floor_ns = now_ns;
        }
        self.pending.push(Pending {
            lba,
            arrived_ns: now_ns,
            op,
            sectors,
            cyl: pos.cyl,
            angle_ns,
            sector: pos.sector,
            head: pos.head as u8,
            write,
            zone: zone as u8,
        });
    }

    /// If idle with work queued, picks the next command and returns (op, service time).
    /// Inlined into its two callers, the device's submission and completion.
    #[inline(always)]
    pub fn start_next(&mut self, now_ns: u64) -> Option<(u32, Access)> {
        if self.in_service.is_some() || self.pending.is_empty() {
            return None;
        }
        // The spindle angle now, computed once for the pick and the chosen command.
        let now_angle = self.wrap_rev(now_ns + self.phase_ns);
        let (idx, timed) = if self.scheduler == Scheduler::Sptf {
            // A lone command is the pick whatever its positioning time.
            if self.pending.len() == 1 {
                (0, None)
            } else if let Some(oldest) = self.starving(now_ns) {
                (oldest, None)
            } else {
                let (i, t) = self.pick_sptf(now_ns, now_angle);
                (i, Some(t))
            }
        } else {
            (self.pick(now_ns), None)
        };
        let p = self.pending.swap_remove(idx);
        let overlapped = p.arrived_ns < now_ns && self.last_done_ns == now_ns;
        let access = if self.measured.is_some() {
            self.access_measured(now_ns, &p)
        } else {
            self.access(now_ns, now_angle, &p, overlapped, timed)
        };
        self.in_service = Some(p.op);
        Some((p.op, access))
    }

    /// Ends the command in service at `now_ns`; returns its op id.
    pub fn finish(&mut self, now_ns: u64) -> u32 {
        self.last_done_ns = now_ns;
        self.in_service
            .take()
            .expect("finish() with no command in service")
    }

    /// End of the data buffered by read-ahead at `now_ns`. Not inlined: the SPTF pick needs it
    /// only for a read that might hit, and inlined the compiler computed it (a division) on
    /// every pick.
    #[inline(never)]
    fn ra_available_end(&self, ra: &ReadAhead, now_ns: u64) -> u64 {
        // Through i64: one instruction each way (the elapsed time is far below 2^63).
        let elapsed = now_ns.saturating_sub(ra.fill_time_ns) as i64;
        let filled = (elapsed as f64 / ra.ns_per_sector) as i64 as u64;
        (ra.fill_lba + filled)
            .min(ra.limit)
            .min(self.capacity_sectors)
    }

    fn media_ns_per_sector(&self, lba: u64) -> f64 {
        self.zones.of(lba).ns_per_sector
    }

    /// Read-ahead hit: the command starts inside the buffered window.
    fn ra_hit(&self, p: &Pending, now_ns: u64) -> Option<u64> {
        let ra = self.readahead.as_ref()?;
        if p.write || p.lba < ra.from {
            return None;
        }
        let avail = self.ra_available_end(ra, now_ns);
        (p.lba <= avail).then_some(avail)
    }

    /// Seek from the head's position to `cyl` (a head switch on the same cylinder, nothing
    /// on the same track: [`Hdd::move_ns`]), plus the write settle when a write moved the head (a negative
    /// settle shortens the move, never below zero). The switch and the settle are chosen by
    /// conditional moves, not branches (the seek table's short-or-long choice is the one
    /// branch left): the SPTF pick runs it for every queued command.
    #[inline(always)]
    fn seek_between(&self, cyl: u32, head: u32, write: bool) -> u64 {
        if self.table_layout {
            self.seek_between_in::<true>(cyl, head, write)
        } else {
            self.seek_between_in::<false>(cyl, head, write)
        }
    }

    /// [`Hdd::seek_between`] with the layout's kind known at compile time
    /// ([`Hdd::move_in`]).
    #[inline(always)]
    fn seek_between_in<const TABLE: bool>(&self, cyl: u32, head: u32, write: bool) -> u64 {
        let moved = self.move_in::<TABLE>(self.cur_cyl, self.cur_head, cyl, head);
        let settle = if write & (moved > 0) {
            self.write_settle_ns
        } else {
            0
        };
        (moved as i64 + settle).max(0) as u64
    }

    /// Angular position of a sector, as time into the revolution. Each track is skewed by
    /// `skew_ns` against the previous one so that a transfer continuing onto the next track
    /// finds its first sector just arriving after the head switch or one-cylinder seek.
    /// `start` is the sector start ratio of the zone ([`geometry::Zone::sector_start`]).
    #[inline]
    fn angle_ns(&self, pos: &Position, start: Ratio) -> u64 {
        let track = pos.cyl as u64 * self.heads + pos.head as u64;
        self.wrap_rev(start.of(pos.sector as u64) + track * self.skew_ns)
    }

    /// `t` modulo one revolution.
    #[inline]
    fn wrap_rev(&self, t: u64) -> u64 {
        self.rev.remainder(t)
    }

    /// Rotational wait for a sector at `angle_ns` when the head is ready `lead_ns` after a
    /// moment the spindle was at `now_angle` (both angles as time into the revolution).
    /// (One remainder, `(angle - now_angle - lead) mod rev`, takes fewer instructions, but
    /// its multiply chain made case 2 about 3% slower: the SPTF pick runs this per queued
    /// command.)
    #[inline]
    fn rotate_wait_ns(&self, now_angle: u64, lead_ns: u64, angle_ns: u64) -> u64 {
        let rev = self.rev_ns;
        // Two conditional subtractions (no branch) cover a lead of up to two revolutions,
        // the usual case; the loop takes the rest, rarely entered so well predicted.
        let mut at = now_angle + lead_ns;
        at -= if at >= rev { rev } else { 0 };
        at -= if at >= rev { rev } else { 0 };
        while at >= rev {
            at -= rev;
        }
        if angle_ns >= at {
            angle_ns - at
        } else {
            angle_ns + rev - at
        }
    }

    /// Media time to transfer `sectors` from `pos` (in a zone of sector start ratio
    /// `start`), with a skew per track boundary crossed.
    fn transfer_ns(&self, pos: &Position, start: Ratio, sectors: u64) -> u64 {
        let spt = pos.spt.get();
        let mut first = pos.sector as u64;
        let mut left = sectors;
        let mut total = 0;
        loop {
            let n = left.min(spt - first);
            total += start.of(first + n) - start.of(first);
            left -= n;
            if left == 0 {
                return total;
            }
            total += self.skew_ns;
            first = 0;
        }
    }

    /// Times command `p` started at `now_ns` (the spindle at `now_angle`) and moves the
    /// head; `timed` is its positioning as the SPTF pick computed it, if it did.
    #[inline(always)]
    fn access(
        &mut self,
        now_ns: u64,
        now_angle: u64,
        p: &Pending,
        overlapped: bool,
        timed: Option<Positioning>,
    ) -> Access {
        let end = p.lba + p.sectors as u64;
        // A command the pick timed in full is not buffered: no need to look again.
        let buffered = match timed {
            Some(t) if !t.buffered => None,
            _ => self.ra_hit(p, now_ns),
        };
        if let Some(avail) = buffered {
            let media_wait =
                (end.saturating_sub(avail) as f64 * self.media_ns_per_sector(avail)) as u64;
            let iface = (p.sectors as f64 * self.iface_ns_per_sector) as u64;
            let a = Access {
                overhead_ns: if overlapped { 0 } else { self.overhead_ns },
                transfer_ns: iface.max(media_wait),
                ..Access::default()
            };
            self.readahead = Some(ReadAhead {
                from: end,
                limit: end + self.readahead_sectors,
                fill_lba: avail.max(end),
                fill_time_ns: now_ns + a.total_ns(),
                ns_per_sector: self.media_ns_per_sector(avail.max(end)),
            });
            self.move_head_to(end.saturating_sub(1));
            return a;
        }
        let zone = self.zones.list[usize::from(p.zone)];
        let pos = Position {
            cyl: p.cyl,
            head: u32::from(p.head),
            sector: p.sector,
            spt: zone.spt,
        };
        let overhead_ns = if overlapped { 0 } else { self.overhead_ns };
        let (seek_ns, rotate_ns) = match timed {
            Some(t) => (t.seek_ns, t.total_ns - overhead_ns - t.seek_ns),
            None => {
                let seek_ns = self.seek_between(pos.cyl, pos.head, p.write);
                let lead = overhead_ns + seek_ns;
                (
                    seek_ns,
                    self.rotate_wait_ns(now_angle, lead, u64::from(p.angle_ns)),
                )
            }
        };
        let transfer_ns = self.transfer_ns(&pos, zone.sector_start, p.sectors as u64);
        let a = Access {
            overhead_ns,
            seek_ns,
            rotate_ns,
            transfer_ns,
        };
        self.readahead = (!p.write && self.readahead_sectors > 0).then(|| ReadAhead {
            from: end,
            limit: end + self.readahead_sectors,
            fill_lba: end,
            fill_time_ns: now_ns + a.total_ns(),
            ns_per_sector: zone.ns_per_sector,
        });
        self.move_head_after(&pos, p.lba, p.sectors as u64);
        a
    }

    fn move_head_to(&mut self, lba: u64) {
        let pos = self.locate(lba.min(self.capacity_sectors.saturating_sub(1)));
        self.cur_cyl = pos.cyl;
        self.cur_head = pos.head;
    }

    /// Head position after a transfer of `sectors` from `pos`: the same track when the
    /// transfer ends on it (the common case, no lookup), else found by address.
    fn move_head_after(&mut self, pos: &Position, lba: u64, sectors: u64) {
        if pos.sector as u64 + sectors <= pos.spt.get() {
            self.cur_cyl = pos.cyl;
            self.cur_head = pos.head;
        } else {
            self.move_head_to(lba + sectors - 1);
        }
    }
}

#[cfg(test)]
mod tests;
