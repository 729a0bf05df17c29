//! The layout keys of a measured drive: its zone table, where the spares lie, the order of
//! a cylinder's surfaces and the defective sectors remapped to spares (see the parent module
//! for the model).

use serde::{Deserialize, Serialize};

use super::{is_zero_f64, HddParams};

/// One measured zone: a band of cylinders with the same sectors per track.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZoneSpec {
    /// First cylinder of the zone.
    pub first_cylinder: u32,
    /// Last cylinder of the zone (inclusive).
    pub last_cylinder: u32,
    /// Physical sectors per track.
    pub sectors_per_track: u32,
    /// Rotational offset of a track's first block from the previous track's, after a head
    /// switch, in sectors.
    #[serde(default)]
    pub track_skew_sectors: f64,
    /// Rotational offset added by a change of cylinder, in sectors.
    #[serde(default)]
    pub cylinder_skew_sectors: f64,
    /// Rotational position of the zone's first block (on its first track), in sectors from
    /// the spindle's index: where the zone's skews count from.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub first_block_offset_sectors: f64,
    /// Sectors at the zone's front that hold no data.
    #[serde(default)]
    pub reserved_front_sectors: u64,
    /// Spare sectors (or tracks, with `sparing = "tracks"`), placed as `sparing` says.
    #[serde(default)]
    pub spares: u32,
    /// Slipped sectors: physical sector numbers, counted from the zone's first data
    /// sector, that hold no data (the blocks after each slide one sector on); with
    /// `sparing = "tracks"`, slipped tracks: track numbers counted from the zone's first
    /// track (the tracks after each slide one track on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slips: Vec<u64>,
    /// Defective sectors whose block is kept in a spare elsewhere: `[defect, spare]` pairs
    /// of physical sector numbers counted from the zone's first sector (cylinder in the
    /// zone times the sectors of a cylinder, plus surface times `sectors_per_track`, plus
    /// sector); with `sparing = "tracks"`, track numbers counted from the zone's first track
    /// (the whole track moves); with `"sectors_per_range"` the spare lies in the defect's
    /// range, at its number modulo the sectors of a range. The block the defective sector
    /// would hold is read and written at the spare, so an access to it moves the heads there
    /// and back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remaps: Vec<[u64; 2]>,
}

impl ZoneSpec {
    /// Blocks the zone holds on a drive of `heads` surfaces with its spares placed as
    /// `sparing` says (`range_cylinders`: cylinders per range with `SectorsPerRange`; a
    /// partial range at the zone's end keeps no spares).
    pub fn blocks(&self, heads: u32, sparing: Sparing, range_cylinders: u16) -> u64 {
        let heads = u64::from(heads);
        let cyls = u64::from(self.last_cylinder.saturating_sub(self.first_cylinder)) + 1;
        let (spt, spares) = (u64::from(self.sectors_per_track), u64::from(self.spares));
        let spc = match sparing {
            Sparing::SectorsPerTrack => spt.saturating_sub(spares).max(1) * heads,
            Sparing::SectorsPerCylinder | Sparing::SectorsPerCylinderAtFront => {
                (spt * heads).saturating_sub(spares).max(1)
            }
            _ => spt * heads,
        };
        let lost = match sparing {
            Sparing::Tracks => spares * spt,
            Sparing::SectorsPerZone => spares,
            Sparing::SectorsPerRange => spares * (cyls / u64::from(range_cylinders.max(1))),
            _ => 0,
        };
        (cyls * spc).saturating_sub(self.reserved_front_sectors + lost)
    }
}

/// Placement of a zone's spare sectors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sparing {
    /// No spares in the layout (spares at the end of the disk do not move blocks).
    #[default]
    None,
    /// `spares` whole tracks at the end of the zone.
    Tracks,
    /// `spares` sectors at the end of every cylinder.
    SectorsPerCylinder,
    /// `spares` sectors at the front of every cylinder (its first track's first sectors).
    SectorsPerCylinderAtFront,
    /// `spares` sectors at the end of every track.
    SectorsPerTrack,
    /// `spares` sectors at the end of every range of `spare_range_cylinders` cylinders (a
    /// slipped sector moves blocks only within its range).
    SectorsPerRange,
    /// `spares` sectors at the end of the zone: they move no block of the zone, but the next
    /// zone starts that many blocks sooner.
    SectorsPerZone,
}

impl Sparing {
    pub(super) fn is_none(&self) -> bool {
        *self == Sparing::None
    }
}

/// Order of a cylinder's surfaces in the order of the logical blocks (DiskSim's `LBN-to-PBN
/// mapping scheme`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SurfaceOrder {
    /// Every cylinder from its first surface to its last: a cylinder switch also switches
    /// from the last surface to the first.
    #[default]
    Ascending,
    /// Surfaces in reverse order on every other cylinder counted from its zone's first, so
    /// that a cylinder switch inside a zone stays on one surface.
    AlternateInZone,
    /// Surfaces in reverse order on every odd-numbered cylinder.
    Alternate,
}

impl SurfaceOrder {
    pub(super) fn is_ascending(&self) -> bool {
        *self == SurfaceOrder::Ascending
    }

    /// The surface holding track `track` (counted in block order) of cylinder `cyl`, in a
    /// zone starting at cylinder `zone_first` on a drive of `heads` surfaces. Reversing is
    /// its own inverse: given a surface it gives the track.
    #[inline]
    pub fn surface(self, cyl: u32, zone_first: u32, track: u32, heads: u32) -> u32 {
        let reversed = match self {
            SurfaceOrder::Ascending => false,
            SurfaceOrder::AlternateInZone => (cyl - zone_first) % 2 == 1,
            SurfaceOrder::Alternate => cyl % 2 == 1,
        };
        if reversed {
            heads - 1 - track
        } else {
            track
        }
    }
}

/// Checks of the zone table: rows in cylinder order, sectors per track, skews, and spares
/// for the remapped defects inside their zone.
pub(super) fn check_zone_table(p: &HddParams) -> Result<(), String> {
    let mut next_cyl = 0u64;
    for (i, z) in p.zone_table.iter().enumerate() {
        let n = i + 1;
        if u64::from(z.first_cylinder) < next_cyl || z.last_cylinder < z.first_cylinder {
            return Err(format!(
                "zone_table row {n} must start at or after cylinder {next_cyl} and end at or after its start; got {}..={}",
                z.first_cylinder, z.last_cylinder
            ));
        }
        next_cyl = u64::from(z.last_cylinder) + 1;
        if !(1..=100_000).contains(&z.sectors_per_track) {
            return Err(format!(
                "zone_table row {n}: sectors_per_track must be 1..=100000; got {}",
                z.sectors_per_track
            ));
        }
        for (key, v) in [
            ("track_skew_sectors", z.track_skew_sectors),
            ("cylinder_skew_sectors", z.cylinder_skew_sectors),
            ("first_block_offset_sectors", z.first_block_offset_sectors),
        ] {
            if !(v.is_finite() && v >= 0.0 && v <= f64::from(z.sectors_per_track) * 64.0) {
                return Err(format!(
                    "zone_table row {n}: {key} must be 0 to 64 tracks; got {v}"
                ));
            }
        }
        let tracks = u64::from(z.last_cylinder - z.first_cylinder + 1) * u64::from(p.heads);
        let (units, what) = if p.sparing == Sparing::Tracks {
            (tracks, "tracks")
        } else {
            (tracks * u64::from(z.sectors_per_track), "sectors")
        };
        if let Some([d, s]) = z
            .remaps
            .iter()
            .find(|[d, s]| d >= &units || s >= &units || d == s)
        {
            return Err(format!(
                "zone_table row {n}: remaps pair [{d}, {s}] must name two different {what} of the zone (below {units})"
            ));
        }
    }
    if p.zone_table.len() > 256 {
        return Err(format!(
            "zone_table must have at most 256 rows; got {}",
            p.zone_table.len()
        ));
    }
    Ok(())
}
