//! Building a drive from its parameters: the zones (parametric bands, or a measured zone
//! table with its skews and slipped sectors), the seek curve (fitted to the data sheet, or
//! measured points) and the drive's fixed timings.

use std::sync::Arc;

use super::geometry::{SeekCurve, Zone, Zones};
use super::measured::Measured;
use super::params::check_params;
use super::{layout, Hdd, HddParams};
use crate::divisor::Divisor;

impl Hdd {
    /// Builds the drive; `phase_ns` is the spindle's angular offset at time zero.
    pub fn new(p: &HddParams, phase_ns: u64) -> Result<Hdd, String> {
        check_params(p)?;
        let rev_ns = 60_000_000_000 / p.rpm as u64;
        let mut capacity_sectors = (p.capacity_gb * 1e9 / 512.0) as u64;
        let spt_of = |z: u32| {
            let frac = if p.zones > 1 {
                z as f64 / (p.zones - 1) as f64
            } else {
                0.0
            };
            let rate = p.media_rate_outer_mbps
                - (p.media_rate_outer_mbps - p.media_rate_inner_mbps) * frac;
            ((rate * 1e6 * rev_ns as f64 / 1e9) / 512.0).max(1.0) as u32
        };
        let sectors_per_zone_cyl: u64 = (0..p.zones)
            .map(|z| spt_of(z) as u64 * p.heads as u64)
            .sum();
        let cyl_per_zone = capacity_sectors.div_ceil(sectors_per_zone_cyl).max(1) as u32;
        let mut zones = Vec::with_capacity(p.zones as usize);
        let (mut lba, mut cyl) = (0u64, 0u32);
        let mut slips = Vec::new();
        if !p.zone_table.is_empty() {
            (zones, slips, lba) = layout::measured_zones(p, rev_ns);
            cyl = p.zone_table.last().map_or(1, |z| z.last_cylinder + 1);
            capacity_sectors = capacity_sectors.min(lba);
        }
        for z in 0..p.zones * u32::from(p.zone_table.is_empty()) {
            zones.push(Zone::new(
                lba,
                cyl,
                cyl_per_zone,
                spt_of(z),
                u64::from(p.heads),
                rev_ns,
            ));
            lba += cyl_per_zone as u64 * spt_of(z) as u64 * p.heads as u64;
            cyl += cyl_per_zone;
        }
        let max_dist = (cyl.saturating_sub(1)).max(1) as f64;
        let seek = if p.seek_curve.is_empty() {
            SeekCurve::fit(
                p.seek_track_to_track_ms,
                p.seek_avg_ms,
                p.seek_full_stroke_ms,
                max_dist,
            )?
        } else {
            SeekCurve::from_points(&p.seek_curve)
        };
        let mut zones = Zones::new(zones, lba);
        zones.slips = slips;
        zones.slipped_tracks = p.sparing == super::Sparing::Tracks;
        zones.surface_order = p.surface_order;
        let mut hdd = Hdd {
            max_cyl: zones.cylinders().saturating_sub(1),
            zones: Arc::new(zones),
            heads: p.heads as u64,
            capacity_sectors,
            rev_ns,
            rev: Divisor::new(rev_ns),
            phase_ns: phase_ns % rev_ns,
            seek,
            head_switch_ns: (p.head_switch_ms * 1e6) as u64,
            write_settle_ns: (p.write_settle_ms * 1e6) as i64,
            skew_ns: ((p.head_switch_ms.max(p.seek_track_to_track_ms) + p.write_settle_ms.max(0.0))
                * 1e6) as u64
                % rev_ns,
            overhead_ns: (p.command_overhead_ms * 1e6) as u64,
            iface_ns_per_sector: 512.0 * 1e3 / p.interface_mbps,
            readahead_sectors: p.readahead_kib as u64 * 2,
            max_age_ns: (p.max_queue_age_ms * 1e6) as u64,
            scheduler: p.scheduler,
            queue_depth: p.queue_depth,
            cur_cyl: 0,
            cur_head: 0,
            sweep_up: true,
            readahead: None,
            pending: Vec::with_capacity(p.queue_depth as usize),
            arrival_floor_ns: 0,
            in_service: None,
            last_done_ns: 0,
            table_layout: !p.zone_table.is_empty(),
            measured: Measured::new(p),
        };
        let (blocks, tracks) = hdd.place_remapped(p);
        if !(blocks.is_empty() && tracks.is_empty()) {
            let zones = Arc::get_mut(&mut hdd.zones).expect("the drive's own zones");
            (zones.remapped, zones.remapped_tracks) = (blocks, tracks);
        }
        Ok(hdd)
    }

    /// The same drive with another spindle phase; copies share the seek table and the zones
    /// (one per model, so they stay in the processor cache however many drives there are).
    pub fn with_phase(&self, phase_ns: u64) -> Hdd {
        let mut d = self.clone();
        d.phase_ns = phase_ns % d.rev_ns;
        d
    }
}
