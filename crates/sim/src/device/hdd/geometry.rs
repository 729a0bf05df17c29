//! Geometry of a hard disk drive: its zones, the zone of an address, and the seek curve (see
//! the parent module for the model).

use super::{Position, SurfaceOrder};
use crate::divisor::{Divisor, Ratio};

#[derive(Clone, Copy, Debug)]
pub(super) struct Zone {
    pub first_lba: u64,
    pub first_cyl: u32,
    pub cylinders: u32,
    /// Sectors per track, and per cylinder (all surfaces), as divisors: every queued
    /// command's position and every transfer divide by them (`get()` is the count).
    pub spt: Divisor,
    pub spc: Divisor,
    /// Media time of one sector (a revolution over the sectors per track).
    pub ns_per_sector: f64,
    /// Start of sector `s` on a track, `floor(s * rev_ns / spt)`, for `s` up to `spt`.
    pub sector_start: Ratio,
    /// Data sectors per track (below `spt` when every track keeps spares), as a divisor.
    pub data_spt: Divisor,
    /// Skews of a measured zone, in sectors: per head switch and per cylinder switch.
    pub track_skew: f64,
    pub cyl_skew: f64,
    /// Rotational position of the zone's first block, in sectors (measured zones).
    pub first_offset: f64,
    /// Sectors at the zone's front that hold no data (measured zones).
    pub front: u64,
    /// Cylinders of a sparing range that keeps spares at its end (0: no such ranges), and
    /// the blocks one range holds, as a divisor.
    pub range_cyls: u32,
    pub range_blocks: Divisor,
    /// Spare sectors at the front of each cylinder, before its first block (measured zones).
    pub front_spares: u32,
}

impl Zone {
    pub fn new(
        first_lba: u64,
        first_cyl: u32,
        cylinders: u32,
        spt: u32,
        heads: u64,
        rev_ns: u64,
    ) -> Zone {
        Zone {
            first_lba,
            first_cyl,
            cylinders,
            spt: Divisor::new(u64::from(spt)),
            spc: Divisor::new(u64::from(spt) * heads),
            ns_per_sector: rev_ns as f64 / f64::from(spt),
            sector_start: Ratio::new(rev_ns, u64::from(spt)),
            data_spt: Divisor::new(u64::from(spt)),
            track_skew: 0.0,
            cyl_skew: 0.0,
            first_offset: 0.0,
            front: 0,
            range_cyls: 0,
            range_blocks: Divisor::new(1),
            front_spares: 0,
        }
    }
}

/// Finds the zone of an address with one table read: the address space is cut into
/// power-of-two buckets no larger than the smallest zone, each holding the zone its first
/// address falls in, so at most one zone boundary lies inside a bucket: one comparison
/// with the next zone's start finishes the lookup.
#[derive(Clone, Debug)]
pub(super) struct ZoneIndex {
    shift: u32,
    zone_at_bucket: Vec<u8>,
    /// First address of the zone after each zone (`u64::MAX` after the last): the one
    /// boundary a bucket may hold is found with one comparison.
    next_start: Vec<u64>,
    /// True when a bucket may hold more than one boundary (the bucket count was capped).
    multi: bool,
}

/// Most buckets a zone index holds (zones far smaller than usual cost extra steps instead).
const MAX_ZONE_BUCKETS: u64 = 4096;

impl ZoneIndex {
    pub fn new(zones: &[Zone], end_lba: u64) -> ZoneIndex {
        let smallest = zones
            .windows(2)
            .map(|w| w[1].first_lba - w[0].first_lba)
            .chain(std::iter::once(end_lba - zones[zones.len() - 1].first_lba))
            .min()
            .unwrap_or(1)
            .max(1);
        let mut shift = smallest.ilog2();
        while end_lba >> shift >= MAX_ZONE_BUCKETS {
            shift += 1;
        }
        let zone_at_bucket = (0..=end_lba >> shift)
            .map(|b| zones.partition_point(|z| z.first_lba <= b << shift) - 1)
            .map(|z| z as u8)
            .collect();
        let next_start = zones
            .iter()
            .skip(1)
            .map(|z| z.first_lba)
            .chain(std::iter::once(u64::MAX))
            .collect();
        ZoneIndex {
            shift,
            zone_at_bucket,
            next_start,
            multi: 1u64 << shift > smallest,
        }
    }

    /// Index of the zone holding `lba`: the last zone starting at or before it.
    #[inline]
    pub fn zone_of(&self, zones: &[Zone], lba: u64) -> usize {
        let b = ((lba >> self.shift) as usize).min(self.zone_at_bucket.len() - 1);
        let z = self.zone_at_bucket[b] as usize;
        let mut z = z + usize::from(self.next_start[z] <= lba);
        if self.multi {
            while z + 1 < zones.len() && zones[z + 1].first_lba <= lba {
                z += 1;
            }
        }
        z
    }
}

/// A drive model's zones with their index, shared by every drive of the model (through an
/// `Arc`): one copy stays in the processor cache however many drives there are.
#[derive(Debug)]
pub(super) struct Zones {
    pub list: Vec<Zone>,
    pub index: ZoneIndex,
    /// Slipped sectors of each measured zone, sorted (empty for the parametric form).
    pub slips: Vec<Vec<u64>>,
    /// True when the slips are whole tracks (track sparing), not sectors.
    pub slipped_tracks: bool,
    /// Blocks of each measured zone kept in a spare elsewhere, sorted by block, with where
    /// they lie (empty when no zone has one).
    pub remapped: Vec<Vec<(u64, Position)>>,
    /// Tracks of each measured zone moved whole to a spare track (track sparing):
    /// `[track, spare]`, counted from the zone's first track.
    pub remapped_tracks: Vec<Vec<[u64; 2]>>,
    /// Order of a cylinder's surfaces in the block order.
    pub surface_order: SurfaceOrder,
}

impl Zones {
    pub fn new(list: Vec<Zone>, end_lba: u64) -> Zones {
        let index = ZoneIndex::new(&list, end_lba);
        Zones {
            list,
            index,
            slips: Vec::new(),
            slipped_tracks: false,
            remapped: Vec::new(),
            remapped_tracks: Vec::new(),
            surface_order: SurfaceOrder::Ascending,
        }
    }

    /// The zone holding `lba`.
    #[inline]
    pub fn of(&self, lba: u64) -> &Zone {
        &self.list[self.index_of(lba)]
    }

    /// Index in `list` of the zone holding `lba`.
    #[inline]
    pub fn index_of(&self, lba: u64) -> usize {
        self.index.zone_of(&self.list, lba)
    }

    /// Total cylinders.
    pub fn cylinders(&self) -> u32 {
        self.list.last().map_or(0, |z| z.first_cyl + z.cylinders)
    }
}

/// Seek curve `a + b*sqrt(d) + c*d` in nanoseconds, with the first `SHORT_SEEKS` distances
/// tabulated. (A table over the whole stroke, read without a branch on the distance, made
/// case 2's mix of short destage seeks and long read seeks 1% faster, but random reads 7%
/// slower on a 73 GB drive and 27% on a 300 GB one: the table leaves the first-level cache.)
#[derive(Clone, Debug)]
pub(super) struct SeekCurve {
    a: f64,
    b: f64,
    c: f64,
    short: std::sync::Arc<[u32]>,
    /// Measured points (cylinders, ns), when the curve is a table.
    points: Option<std::sync::Arc<[(f64, f64)]>>,
}

/// Distances tabulated (8 KiB).
const SHORT_SEEKS: u32 = 2048;

/// Longest time of one step of a command accepted, ms: a full-stroke seek (drives take 3
/// to 30; a second keeps every tabulated time in 32 bits), a head switch, a write settle, a
/// command overhead (well under one). Every sum of a drive's times stays far from overflow.
pub(crate) const MAX_STEP_MS: f64 = 1000.0;

impl SeekCurve {
    /// Solves the three coefficients from the data-sheet times (ms) and the stroke in cylinders.
    pub fn fit(t1: f64, tavg: f64, tfull: f64, max_dist: f64) -> Result<SeekCurve, String> {
        if !(0.0 < t1 && t1 < tavg && tavg < tfull) {
            return Err(format!(
                "seek times must satisfy 0 < seek_track_to_track_ms < seek_avg_ms < seek_full_stroke_ms; got {t1}, {tavg}, {tfull}"
            ));
        }
        let s = max_dist.sqrt();
        // Rows: [1, sqrt(d), d] = t for d = 1, d = D, and the random-seek mean.
        let m = [
            [1.0, 1.0, 1.0],
            [1.0, s, max_dist],
            [1.0, 8.0 / 15.0 * s, max_dist / 3.0],
        ];
        let rhs = [t1, tfull, tavg];
        let det = det3(&m);
        let col = |k: usize| {
            let mut mk = m;
            for (row, r) in mk.iter_mut().zip(rhs) {
                row[k] = r;
            }
            det3(&mk) / det
        };
        let (a, b, c) = (col(0), col(1), col(2));
        let slope_at = |d: f64| b / (2.0 * d.sqrt()) + c;
        if slope_at(1.0) < 0.0 || slope_at(max_dist) < 0.0 {
            return Err(format!(
                "seek times {t1}/{tavg}/{tfull} ms give a seek curve that is not monotonic; the average seek is usually 35-55% of the full stroke"
            ));
        }
        let ms = 1e6;
        Ok(SeekCurve {
            a: a * ms,
            b: b * ms,
            c: c * ms,
            short: std::sync::Arc::from(Vec::new()),
            points: None,
        }
        .with_table())
    }

    /// A measured curve: `[cylinders, ms]` points (checked increasing), interpolated
    /// linearly; below the first point the curve runs linearly from zero, past the last it
    /// continues the last segment's slope.
    pub fn from_points(points: &[[f64; 2]]) -> SeekCurve {
        let pts: Vec<(f64, f64)> = points.iter().map(|[d, ms]| (*d, ms * 1e6)).collect();
        SeekCurve {
            a: 0.0,
            b: 0.0,
            c: 0.0,
            short: std::sync::Arc::from(Vec::new()),
            points: Some(pts.into()),
        }
        .with_table()
    }

    fn interpolate_ns(pts: &[(f64, f64)], d: f64) -> u64 {
        let i = pts.partition_point(|p| p.0 < d);
        let (lo, hi) = match (i, pts.len()) {
            (_, 0) => return 0,
            (_, 1) => return pts[0].1 as u64,
            (0, _) => ((0.0, pts[0].1), pts[0]),
            (i, n) if i >= n => (pts[n - 2], pts[n - 1]),
            (i, _) => (pts[i - 1], pts[i]),
        };
        if i == 0 {
            // At or below the first measured distance: its time (a seek of one cylinder
            // costs the settle whatever the distance).
            return lo.1 as u64;
        }
        let t = lo.1 + (hi.1 - lo.1) * (d - lo.0) / (hi.0 - lo.0);
        t.clamp(0.0, (MAX_STEP_MS * 1e6) - 1.0) as u64
    }

    /// True when both curves use the same table (tests).
    #[cfg(test)]
    pub fn shares_table(&self, other: &SeekCurve) -> bool {
        std::sync::Arc::ptr_eq(&self.short, &other.short)
    }

    #[inline]
    pub fn time_ns(&self, dist: u32) -> u64 {
        match self.short.get(dist as usize) {
            Some(&t) => u64::from(t),
            None => self.formula_ns(dist),
        }
    }

    /// The curve's value at `dist` (0 for no movement).
    #[inline]
    pub fn formula_ns(&self, dist: u32) -> u64 {
        if dist == 0 {
            return 0;
        }
        let d = dist as f64;
        if let Some(pts) = &self.points {
            return Self::interpolate_ns(pts, d);
        }
        // Through i64 (one instruction, where u64 takes several): the same value for every
        // time from 0 to 2^63 ns, and a full stroke stays below a second.
        (self.a + self.b * d.sqrt() + self.c * d).max(0.0) as i64 as u64
    }

    /// Tabulates the short seeks that dominate sorted and queued workloads (the curve rises
    /// to the full-stroke time, below a second: every value fits 32 bits).
    fn with_table(mut self) -> SeekCurve {
        let table: Vec<u32> = (0..SHORT_SEEKS)
            .map(|d| u32::try_from(self.formula_ns(d)).expect("a seek under 4 s"))
            .collect();
        self.short = table.into();
        self
    }
}

fn det3(m: &[[f64; 3]; 3]) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}
