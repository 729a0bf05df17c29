//! Zero-latency writes (see the parent module; DiskSim's `Immediate buffer write`, 1 and 2
//! alike: DiskSim 4.0 uses the value only as true or false).
//!
//! On each track of a write the head starts wherever it lands: when it lands past the
//! start of the write's first sector on the track and before the start of the track's last
//! sector, it starts at the next sector boundary, else it waits for the write's first
//! sector as any write does. It then passes the track sector by sector. A sector is
//! written when it passes under the head with its data in the buffer, and either it is the
//! next in block order (the first not yet written), or it starts or extends the one run
//! of sectors the drive writes out of order: a run starts at a sector past the next in
//! order when no run is open, grows by the sector right after it, and a buffered sector
//! further on starts a new run in its place (the old run is forgotten and written again in
//! order). When the blocks in order reach the run's start they jump past its end. The
//! track is done when every block of the write on it is written, in order or in the run:
//! with its data all buffered, a write landing inside its own sectors ends one revolution
//! after it started, where it started. The head then switches to the next track, where
//! the write's blocks start at the track's first sector, so that it may start anywhere.

use super::super::Hdd;
use super::write::BufferedData;

/// The state of one track of a zero-latency write: the next block in order and the run
/// written out of order, as indices into the write's blocks on the track.
pub(super) struct TrackWrite {
    next: u64,
    run: Option<(u64, u64)>,
}

impl TrackWrite {
    pub(super) fn new() -> TrackWrite {
        TrackWrite { next: 0, run: None }
    }

    /// Sector `k` passes under the head with its data in; true when the track is done.
    pub(super) fn pass(&mut self, k: u64, blocks: u64) -> bool {
        if k == self.next {
            self.next += 1;
            if let Some((start, end)) = self.run.filter(|r| r.0 == self.next) {
                debug_assert!(start < end);
                self.next = end;
                self.run = None;
            }
            return self.next >= blocks;
        }
        self.run = match self.run {
            None => Some((k, k + 1)),
            Some((start, end)) if k == end => Some((start, end + 1)),
            Some((_, end)) if k > end => Some((k, k + 1)),
            run => run,
        };
        false
    }
}

impl Hdd {
    /// A zero-latency write of `n` blocks from `lba` whose head lands on its first track
    /// `land_ns` after `now_ns` (the command's start), its data as `data` says: the wait
    /// from landing to the first sector the head writes or passes, and when (from `now_ns`)
    /// it has written its last sector.
    /// How far past the start of `sector` (of a track of zone `zone`) the head landed when
    /// it then waits `rotate_ns` for that sector, when it landed past it and before the
    /// start of the track's last sector: the head then passes the track's other sectors
    /// before it comes round to this one (`None` when it landed on the sector's start or
    /// before it, or on the track's last sector).
    pub(super) fn landed_past_ns(&self, zone: usize, sector: u64, rotate_ns: u64) -> Option<f64> {
        let z = &self.zones.list[zone];
        let past = self.rev_ns.saturating_sub(rotate_ns) as f64;
        let to_last = z.spt.get().saturating_sub(1 + sector) as f64 * z.ns_per_sector;
        (rotate_ns > 0 && past < to_last).then_some(past)
    }

    pub(super) fn immediate_write_ns(
        &self,
        now_ns: u64,
        land_ns: u64,
        lba: u64,
        n: u64,
        data: &BufferedData,
    ) -> (u64, u64) {
        if n == 0 {
            return (0, land_ns);
        }
        let mut runs = Vec::with_capacity(2);
        self.media_runs(lba, n, |r| runs.push(r.sectors));
        let rev = self.rev_ns as f64;
        let spin = self.wrap_rev(now_ns + self.phase_ns);
        let (mut t, mut first_wait, mut done) = (land_ns as f64, None, 0u64);
        let mut prev = None;
        for blocks in runs.into_iter().filter(|&b| b > 0) {
            let at = lba + done;
            let zi = self.zones.index_of(at);
            let pos = self.locate_in(zi, at);
            if let Some((cyl, head)) = prev {
                t += self.move_ns(cyl, head, pos.cyl, pos.head) as f64;
            }
            prev = Some((pos.cyl, pos.head));
            let z = &self.zones.list[zi];
            let (w, spt, k0) = (z.ns_per_sector, z.spt.get(), u64::from(pos.sector));
            let wait = self.rotate_wait_ns(spin, t as u64, self.angle_of(zi, &pos));
            let (mut k, mut base) = match self.landed_past_ns(zi, k0, wait) {
                Some(past) => ((past / w).ceil() as u64, t - past),
                None => (0, t + wait as f64),
            };
            first_wait.get_or_insert(base + k as f64 * w - t);
            let mut track = TrackWrite::new();
            loop {
                let start = base + k as f64 * w;
                // Data comes in block order: until the next block in order is in, no block
                // of the track can be written, so the revolutions before it pass whole.
                let next_in = data.ready_ns(done + track.next);
                if next_in > start + rev {
                    base += ((next_in - start) / rev).floor() * rev;
                    continue;
                }
                let buffered = k < blocks && k >= track.next && data.ready_ns(done + k) <= start;
                if buffered && track.pass(k, blocks) {
                    t = start + w;
                    break;
                }
                k += 1;
                if k == spt {
                    k = 0;
                    base += rev;
                }
            }
            done += blocks;
        }
        let wait = first_wait.unwrap_or(0.0).max(0.0) as u64;
        (wait, t.round() as u64)
    }
}
