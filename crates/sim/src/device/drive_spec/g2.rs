//! DiskSim 4.0's extent-list layout, `dm_layout_g2`: its `Zones` and the map file its
//! `Layout Map File` names (map.rs), read as DiskSim's `diskmodel/layout_g2_load.c` reads
//! them, each block placed as `layout_g2.c`'s `ltop` places it and each track turned as
//! `pbn_skew_new` turns it, then carried into storlab's zones through the g4 path
//! (`g4::to_zones`, which checks every block).
//!
//! Angles, in DiskSim's fixed point (2^32 to a revolution; a zone's sector is `2^32 / spt`
//! rounded down): `precompute_skews` walks the extents in block order and gives each
//! cylinder a skew. A zone's first cylinder takes the zone's `Zone Skew`; every other
//! cylinder the skew of the one before it plus, for each extent of that one, the cylinder
//! switch skew when the next extent lies on another cylinder, else the track switch skew
//! when it lies on another surface. The first cylinder's own skew is never added to the
//! next one's (the zone skew holds for that cylinder alone), and cylinder 0 keeps 0 (its
//! first extent is preset, so its zone skew is never read). A track then starts at its
//! cylinder's skew plus, walking the extents from the cylinder's first one to the track's,
//! a track switch skew at each change of surface and a cylinder switch skew at each change
//! of cylinder (an extent kept on another track on the way counts twice, going and coming).
//! Skews in sectors are whole (DiskSim truncates them) times the sector's width; in
//! revolutions the fraction of a revolution; `Skew units` applies to the skews written
//! after it in the zone (DiskSim loads a zone's keys in the order written).
//!
//! Tracks are the runs of extents on one surface; the sectors of a track no extent covers
//! are slipped positions, and an extent on another track between two of the same track
//! is a remapped run, kept in the sectors that follow on its own track. Refused, naming the
//! file and line: a map file missing or malformed, extents out of block order, overlapping,
//! leaving blocks unmapped, beyond the drive's cylinders, surfaces, block count or a track's
//! sectors; zones out of order, overlapping, or leaving an extent's cylinder or block
//! without one (DiskSim's lookups assert there); a remapped run on a track storlab's zones
//! turn otherwise than DiskSim (`check_remapped`).

mod map;

use std::path::{Path, PathBuf};

use super::g4::{Geometry, Remap, Table, Track};
use super::{Block, Value};
use crate::device::hdd::ZoneSpec;

/// Most extents a map file may list, whatever the drive's geometry says.
pub const MAX_EXTENTS: u64 = 1 << 23;

/// Most cylinders a g2 drive may have (the skews are kept per cylinder).
pub const MAX_CYLINDERS: u32 = 1 << 22;

/// Most walking steps spent on the tracks' angles (DiskSim walks the extents for each).
const MAX_STEPS: u64 = 1 << 28;

/// A zone: cylinders and blocks, sectors per track, sector width and the three skews in
/// DiskSim's fixed point.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Zone {
    cyllow: u32,
    cylhigh: u32,
    lbnlow: u64,
    lbnhigh: u64,
    st: u32,
    width: u32,
    zskew: u32,
    hs: u32,
    cs: u32,
}

/// DiskSim's fixed point of a skew `d` in sectors (`(int)d` times the sector width, wrapping
/// as C's unsigned arithmetic wraps) or in revolutions (`dm_angle_dtoi`).
fn fixed(d: f64, revolutions: bool, width: u32) -> Option<u32> {
    if revolutions {
        if !(0.0..1e9).contains(&d) {
            return None;
        }
        let a = if d > 1.0 { d - d.trunc() } else { d };
        // `(dm_angle_t)(a * 2^32)`: a whole revolution wraps to 0.
        return Some(((a * 4_294_967_296.0) as u64 & 0xffff_ffff) as u32);
    }
    if d.abs() >= 2_147_483_648.0 || !d.is_finite() {
        return None;
    }
    Some(((d.trunc() as i64).rem_euclid(1 << 32) as u32).wrapping_mul(width))
}

fn read_zone(z: &Block, i: usize, file: &Path) -> Result<Zone, String> {
    let what = format!("{}: zone {} of dm_layout_g2", file.display(), i + 1);
    let mut seen: Vec<String> = Vec::new();
    let mut revolutions = false;
    let whole = |key: &str, min: f64| -> Result<f64, String> {
        let v = z.num(key).ok_or_else(|| {
            format!("{what}: `{key}` is missing or not a number (DiskSim requires it)")
        })?;
        if v.fract() != 0.0 || v < min || v > (1u64 << 40) as f64 {
            return Err(format!(
                "{what}: `{key} = {v}` must be a whole number from {min} to 2^40"
            ));
        }
        Ok(v)
    };
    let st = whole("Blocks per track", 1.0)?;
    if st > 100_000.0 {
        return Err(format!(
            "{what}: `Blocks per track = {st}` must be at most 100000"
        ));
    }
    let st = st as u32;
    let width = ((1u64 << 32) / u64::from(st)) as u32;
    let mut skews = [0u32; 3];
    // Keys load in the order written, the first of a name only; skews after `Blocks per
    // track` (their dependency), in the units set before them.
    for (key, value) in &z.params {
        let key = key.trim().to_ascii_lowercase();
        if seen.contains(&key) {
            continue;
        }
        seen.push(key.clone());
        let slot = match key.as_str() {
            "skew units" => {
                match value {
                    Value::Scalar(s) if s.trim() == "revolutions" => revolutions = true,
                    Value::Scalar(s) if s.trim() == "sectors" => revolutions = false,
                    _ => return Err(format!("{what}: `Skew units` must be `revolutions` or `sectors` (DiskSim stops at any other)")),
                }
                continue;
            }
            "zone skew" => 0,
            "skew for track switch" => 1,
            "skew for cylinder switch" => 2,
            _ => continue,
        };
        let d = z
            .num(&key)
            .ok_or_else(|| format!("{what}: `{key}` must be a number"))?;
        skews[slot] = fixed(d, revolutions, width).ok_or_else(|| {
            format!("{what}: `{key} = {d}` must be a whole number of sectors below 2^31 in size, or revolutions from 0 (DiskSim's conversion is undefined beyond)")
        })?;
    }
    Ok(Zone {
        // Past u32 saturates: the zone is then beyond the drive's cylinders, and refused.
        cyllow: whole("First cylinder number", 0.0)?.min(f64::from(u32::MAX)) as u32,
        cylhigh: whole("Last cylinder number", 0.0)?.min(f64::from(u32::MAX)) as u32,
        lbnlow: whole("First LBN", 0.0)? as u64,
        lbnhigh: whole("Last LBN", 0.0)? as u64,
        st,
        width,
        zskew: skews[0],
        hs: skews[1],
        cs: skews[2],
    })
}

/// The zones, in ascending and disjoint ranges of cylinders and of blocks.
fn read_zones(layout: &Block, geo: Geometry, file: &Path) -> Result<Vec<Zone>, String> {
    let list = layout.list("Zones").unwrap_or(&[]);
    let mut zones = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let Value::Block(z) = v else { continue };
        let z = read_zone(z, zones.len(), file)?;
        let prev: Option<&Zone> = zones.last();
        let ordered = z.cyllow <= z.cylhigh
            && z.lbnlow <= z.lbnhigh
            && z.cylhigh < geo.cylinders
            && prev.is_none_or(|p| p.cylhigh < z.cyllow && p.lbnhigh < z.lbnlow);
        if !ordered {
            return Err(format!(
                "{}: zone {} of dm_layout_g2 (cylinders {} to {}, blocks {} to {}): zones must follow one another in ascending cylinders and blocks, apart, within the drive's {} cylinders",
                file.display(), i + 1, z.cyllow, z.cylhigh, z.lbnlow, z.lbnhigh, geo.cylinders
            ));
        }
        zones.push(z);
    }
    if zones.is_empty() || zones.len() > 256 {
        return Err(format!(
            "{}: dm_layout_g2 needs 1 to 256 zones; got {}",
            file.display(),
            zones.len()
        ));
    }
    Ok(zones)
}

/// The zone holding cylinder `c`, or block `lbn` (DiskSim's `find_zone_pbn`, `find_zone_lbn`).
fn by_cyl(zones: &[Zone], c: u32) -> Option<&Zone> {
    let i = zones.partition_point(|z| z.cylhigh < c);
    zones.get(i).filter(|z| z.cyllow <= c)
}

fn by_lbn(zones: &[Zone], lbn: u64) -> Option<&Zone> {
    let i = zones.partition_point(|z| z.lbnhigh < lbn);
    zones.get(i).filter(|z| z.lbnlow <= lbn)
}

/// Each cylinder's skew and first extent, as `precompute_skews` leaves them.
fn cylinder_skews(
    ext: &[map::Extent],
    zones: &[Zone],
    cylinders: u32,
    file: &Path,
) -> Result<(Vec<u32>, Vec<Option<usize>>), String> {
    let mut skew = vec![0u32; cylinders as usize + 2];
    let mut first: Vec<Option<usize>> = vec![None; cylinders as usize + 1];
    first[0] = Some(0);
    let mut zi = 0usize;
    for (i, e) in ext.iter().enumerate() {
        let c = e.cyl as usize;
        if first[c].is_none() {
            first[c] = Some(i);
            if zones[zi].cylhigh < e.cyl {
                zi += 1;
                if zi == zones.len() || zones[zi].cylhigh < e.cyl {
                    return Err(format!(
                        "{}: line {}: cylinder {} is not in the zone after the last one used (DiskSim steps one zone at a time and would read past its zones)",
                        file.display(), e.line, e.cyl
                    ));
                }
            }
            if e.cyl == zones[zi].cyllow {
                skew[c] = zones[zi].zskew;
            } else {
                skew[c + 1] = skew[c];
            }
        }
        // After the last extent DiskSim reads the next, zeroed, slot of its table: an extent
        // on cylinder 0, surface 0.
        let (nc, nh) = ext.get(i + 1).map_or((0, 0), |n| (n.cyl, n.head));
        if nc != e.cyl {
            skew[c + 1] = skew[c + 1].wrapping_add(zones[zi].cs);
        } else if nh != e.head {
            skew[c + 1] = skew[c + 1].wrapping_add(zones[zi].hs);
        }
    }
    Ok((skew, first))
}

/// The angle of sector 0 of track (`cyl`, `head`), as `pbn_skew_new` gives it.
fn track_angle(
    ext: &[map::Extent],
    zone: &Zone,
    skew: &[u32],
    first: usize,
    (cyl, head): (u32, u32),
    steps: &mut u64,
) -> Option<u32> {
    let mut a = skew[cyl as usize];
    let (mut lc, mut lh) = (ext[first].cyl, ext[first].head);
    for e in &ext[first..] {
        *steps += 1;
        if *steps > MAX_STEPS {
            return None;
        }
        if e.cyl != lc {
            a = a.wrapping_add(zone.cs);
            lc = e.cyl;
        }
        if e.head != lh {
            a = a.wrapping_add(zone.hs);
            lh = e.head;
        }
        if (e.cyl, e.head) == (cyl, head) {
            return Some(a);
        }
    }
    None
}

/// The map file's path: as written when absolute, else beside `file` (DiskSim's
/// `lp_search_path` from the directory of the file holding the layout).
fn map_path(layout: &Block, file: &Path) -> Result<PathBuf, String> {
    let name = layout
        .word("Layout Map File")
        .map(|s| s.trim_matches('"'))
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            format!(
                "{}: `Layout Map File` of dm_layout_g2 is missing",
                file.display()
            )
        })?;
    Ok(file.parent().unwrap_or(Path::new(".")).join(name))
}

/// A remapped run's place and the angle DiskSim gives its track, in revolutions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Remapped {
    lbn: u64,
    cyl: u32,
    head: u32,
    angle: f64,
}

/// Checks that storlab's zones turn each remapped run's track as DiskSim does (the tracks
/// holding blocks are checked as the zones are fitted; a track holding only remapped
/// blocks is not among them).
pub(super) fn check_remapped(
    remapped: &[Remapped],
    zones: &[ZoneSpec],
    heads: u32,
    file: &Path,
) -> Result<(), String> {
    for r in remapped {
        let Some(z) = zones
            .iter()
            .find(|z| (z.first_cylinder..=z.last_cylinder).contains(&r.cyl))
        else {
            continue;
        };
        let spt = f64::from(z.sectors_per_track);
        let c = f64::from(r.cyl - z.first_cylinder);
        let switches = f64::from(r.head) + f64::from(heads.max(1) - 1) * c;
        let at = z.first_block_offset_sectors
            + z.track_skew_sectors * switches
            + z.cylinder_skew_sectors * c;
        let d = (at - r.angle * spt).rem_euclid(spt);
        if d.min(spt - d) > 1e-6 {
            return Err(format!(
                "{}: block {} is kept on cylinder {} surface {}, which DiskSim turns to {:.6} revolutions and storlab's zones to {:.6}: the g2 map cannot be carried into zones exactly",
                file.display(),
                r.lbn,
                r.cyl,
                r.head,
                r.angle,
                (at / spt).rem_euclid(1.0)
            ));
        }
    }
    Ok(())
}

/// Reads a `dm_layout_g2` layout into an expanded table with DiskSim's angles, and the
/// remapped runs' places with theirs.
pub(super) fn read_table(
    layout: &Block,
    geo: Geometry,
    file: &Path,
) -> Result<(Table, Vec<Remapped>), String> {
    if geo.cylinders > MAX_CYLINDERS || geo.heads == 0 {
        return Err(format!(
            "{}: a dm_layout_g2 drive needs 1 to {MAX_CYLINDERS} cylinders and a surface; got {} and {}",
            file.display(), geo.cylinders, geo.heads
        ));
    }
    let zones = read_zones(layout, geo, file)?;
    let path = map_path(layout, file)?;
    let ext = map::read_map(&path, geo)?.extents;
    let mf = path.display();
    for e in &ext {
        let z = by_cyl(&zones, e.cyl).ok_or_else(|| {
            format!(
                "{mf}: line {}: cylinder {} lies in no zone of {}",
                e.line,
                e.cyl,
                file.display()
            )
        })?;
        if u64::from(e.sector) + u64::from(e.len) > u64::from(z.st) {
            return Err(format!(
                "{mf}: line {}: sectors {} to {} pass the zone's {} sectors per track",
                e.line,
                e.sector,
                e.sector + e.len - 1,
                z.st
            ));
        }
        for lbn in [e.lbn, e.lbn + u64::from(e.len) - 1] {
            if by_lbn(&zones, lbn).is_none_or(|l| l.st != z.st) {
                return Err(format!(
                    "{mf}: line {}: block {lbn} lies in no zone of {} with the {} sectors per track of cylinder {} (DiskSim finds a block's zone by its blocks)",
                    e.line, file.display(), z.st, e.cyl
                ));
            }
        }
    }
    let (skew, first) = cylinder_skews(&ext, &zones, geo.cylinders, &path)?;
    let mut steps = 0u64;
    let mut angle = |cyl: u32, head: u32| -> Result<f64, String> {
        let z = by_cyl(&zones, cyl).expect("checked above");
        first[cyl as usize]
            .and_then(|f| track_angle(&ext, z, &skew, f, (cyl, head), &mut steps))
            .map(|a| f64::from(a) / 4_294_967_296.0)
            .ok_or_else(|| {
                format!("{mf}: the angles of its tracks take more than {MAX_STEPS} steps to find")
            })
    };
    let mut tracks: Vec<Track> = Vec::new();
    let mut slips: Vec<[u64; 2]> = Vec::new();
    let mut remaps = Vec::new();
    let mut remapped = Vec::new();
    let mut slip = |at: u64, count: u64| {
        if count == 0 {
            return;
        }
        match slips.last_mut() {
            Some(s) if s[0] + s[1] == at => s[1] += count,
            _ => slips.push([at, count]),
        }
    };
    // Position of the current track's sector 0, and its next free sector.
    let (mut base, mut next) = (0u64, 0u32);
    let mut seen = std::collections::HashSet::new();
    for (i, e) in ext.iter().enumerate() {
        let st = by_cyl(&zones, e.cyl).expect("checked above").st;
        let cur = tracks.last().map(|t| (t.cyl, t.head));
        if cur == Some((e.cyl, e.head)) {
            if e.sector < next {
                return Err(format!(
                    "{mf}: line {}: sector {} of cylinder {} head {} comes after sector {} of the same track: a track's extents must ascend and not overlap",
                    e.line, e.sector, e.cyl, e.head, next - 1
                ));
            }
            slip(base + u64::from(next), u64::from(e.sector - next));
            next = e.sector + e.len;
            continue;
        }
        let back = ext.get(i + 1).is_some_and(|n| Some((n.cyl, n.head)) == cur);
        if back && ext[i + 1].sector >= next + e.len {
            remapped.push(Remapped {
                lbn: e.lbn,
                cyl: e.cyl,
                head: e.head,
                angle: angle(e.cyl, e.head)?,
            });
            remaps.push(Remap {
                lbn: e.lbn,
                count: u64::from(e.len),
                cyl: e.cyl,
                head: e.head,
                sector: e.sector,
                spt: st,
            });
            next += e.len;
            continue;
        }
        if !seen.insert((e.cyl, e.head)) {
            return Err(format!(
                "{mf}: line {}: cylinder {} head {} comes back after other tracks: a track's extents must follow one another (or hold an extent kept elsewhere between two of them)",
                e.line, e.cyl, e.head
            ));
        }
        if let Some(t) = tracks.last() {
            slip(base + u64::from(next), u64::from(t.spt - next));
            base += u64::from(t.spt);
        }
        tracks.push(Track {
            cyl: e.cyl,
            head: e.head,
            spt: st,
            blocks: st,
            angle: angle(e.cyl, e.head)?,
        });
        slip(base, u64::from(e.sector));
        next = e.sector + e.len;
    }
    if let Some(t) = tracks.last_mut() {
        t.blocks = next;
    }
    let table = Table {
        tracks,
        slips,
        remaps,
        kind: "g2",
        exact_skews: true,
    };
    Ok((table, remapped))
}

#[cfg(test)]
mod tests;
