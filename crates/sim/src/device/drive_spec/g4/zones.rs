//! An expanded g4 table carried into storlab's zone table, when the zones give exactly its
//! mapping (checked block by block after the drive is built).
//!
//! A zone is a run of tracks in block order that follow one another (the next surface of
//! the cylinder, or the first surface of the next cylinder), with the same sectors per track
//! and the same blocks per track, whose angles follow one track skew and one cylinder skew
//! (storlab's zone formula: sector 0 of surface `h` of the zone's cylinder `c` starts
//! `first_offset + track_skew * (h + (surfaces - 1) * c) + cylinder_skew * c` sectors
//! round). A zone may start on any surface (the surfaces before it are its reserved front)
//! but must end on the cylinder's last surface, unless it is the table's last. Tracks that
//! hold every sector make `sparing = "sectors_per_zone"`, each zone's spares its slipped
//! positions (so the next zone starts where the table says); tracks that keep their last
//! sectors spare make `"sectors_per_track"`, without slips. Anything else is refused, naming
//! the track.

use std::path::{Path, PathBuf};

use super::{Geometry, Table, Track};
use crate::device::hdd::{Hdd, HddParams, Sparing, ZoneSpec};

/// Most slipped positions and remapped blocks a table may list (each is one entry of a zone).
pub const MAX_LISTED: u64 = 1 << 20;

/// Largest drive whose every block is checked against the table (32 GiB: some seconds).
pub const FULL_CHECK_BLOCKS: u64 = 1 << 26;

/// Angles closer than this, in sectors, are the same (DiskSim keeps angles to 2^-32 of a
/// revolution).
const EPS: f64 = 1e-6;

/// A table with its zones.
#[derive(Clone, Debug)]
pub(in crate::device::drive_spec) struct Translated {
    pub zones: Vec<ZoneSpec>,
    pub sparing: Sparing,
    table: Table,
    geo: Geometry,
    file: PathBuf,
}

/// The zone formula's skews of a run of tracks, in sectors.
#[derive(Clone, Copy, Debug)]
struct Fit {
    first: f64,
    track: f64,
    cyl: f64,
}

fn snap(v: f64, spt: f64, exact: bool) -> f64 {
    let v = v.rem_euclid(spt);
    let r = v.round();
    let v = if !exact && (v - r).abs() < EPS { r } else { v };
    if v >= spt {
        v - spt
    } else {
        v
    }
}

impl Fit {
    /// The skews of `run`'s first head switch and first cylinder switch.
    fn of(run: &[Track], exact: bool) -> Fit {
        let spt = f64::from(run[0].spt);
        let sectors = |t: &Track| t.angle * spt;
        let step = |same_cyl: bool| {
            run.windows(2)
                .find(|w| (w[0].cyl == w[1].cyl) == same_cyl)
                .map_or(0.0, |w| snap(sectors(&w[1]) - sectors(&w[0]), spt, exact))
        };
        let track = step(true);
        Fit {
            first: snap(
                sectors(&run[0]) - track * f64::from(run[0].head),
                spt,
                exact,
            ),
            track,
            cyl: step(false),
        }
    }

    /// True when `t` lies where the skews put a track `c` cylinders into the zone.
    fn fits(&self, t: &Track, c: u32, heads: u32) -> bool {
        let spt = f64::from(t.spt);
        let switches = f64::from(t.head) + f64::from(heads - 1) * f64::from(c);
        let at = self.first + self.track * switches + self.cyl * f64::from(c);
        let d = (at - t.angle * spt).rem_euclid(spt);
        d < EPS || spt - d < EPS
    }
}

/// True when `b` is the track after `a` in storlab's block order.
fn follows(a: &Track, b: &Track, heads: u32) -> bool {
    (b.cyl == a.cyl && b.head == a.head + 1)
        || (a.head + 1 == heads && b.cyl == a.cyl + 1 && b.head == 0)
}

fn at(t: &Track) -> String {
    format!("cylinder {} surface {}", t.cyl, t.head)
}

/// The zones of an expanded table: each `[first track, end track)` with its skews.
fn runs(table: &Table, heads: u32, file: &Path) -> Result<Vec<(usize, usize, Fit)>, String> {
    let (tr, kind) = (&table.tracks[..], table.kind);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tr.len() {
        let like = |j: usize| {
            follows(&tr[j - 1], &tr[j], heads)
                && tr[j].spt == tr[i].spt
                && (tr[j].blocks == tr[i].blocks
                    || (j + 1 == tr.len() && tr[j].blocks < tr[i].blocks))
        };
        let mut j = i + 1;
        while j < tr.len() && like(j) {
            j += 1;
        }
        let mut s = i;
        while s < j {
            let fit = Fit::of(&tr[s..j], table.exact_skews);
            let c0 = tr[s].cyl;
            let m = (s..j)
                .find(|&k| !fit.fits(&tr[k], tr[k].cyl - c0, heads))
                .unwrap_or(j);
            if m < j && tr[m].head != 0 {
                return Err(format!(
                    "{}: the {kind} track at {} starts at {:.6} revolutions, off the one track skew ({} sectors) and cylinder skew ({} sectors) of its run of tracks from {}: storlab's zones hold one of each per zone, changing only at a cylinder's first surface",
                    file.display(),
                    at(&tr[m]),
                    tr[m].angle,
                    fit.track,
                    fit.cyl,
                    at(&tr[s])
                ));
            }
            out.push((s, m, fit));
            s = m;
        }
        if j < tr.len() {
            let (a, b) = (&tr[j - 1], &tr[j]);
            if a.head + 1 != heads || b.cyl <= a.cyl {
                return Err(format!(
                    "{}: the {kind} track at {} ({} sectors, {} blocks) follows {} ({} sectors, {} blocks): storlab's zones take whole cylinders in ascending order, surfaces ascending, one sectors-per-track and blocks-per-track each",
                    file.display(),
                    at(b),
                    b.spt,
                    b.blocks,
                    at(a),
                    a.spt,
                    a.blocks
                ));
            }
        }
        i = j;
    }
    if out.len() > 256 {
        return Err(format!(
            "{}: the {kind} table needs {} zones of like tracks; storlab's zone table holds at most 256",
            file.display(),
            out.len()
        ));
    }
    Ok(out)
}

/// Carries an expanded table into zones.
pub(in crate::device::drive_spec) fn to_zones(
    table: Table,
    geo: Geometry,
    file: &Path,
) -> Result<Translated, String> {
    let heads = geo.heads.max(1);
    let tr = &table.tracks;
    if tr.is_empty() {
        return Err(format!(
            "{}: the {} table maps no track",
            file.display(),
            table.kind
        ));
    }
    let runs = runs(&table, heads, file)?;
    let per_track = runs.iter().any(|r| tr[r.0].blocks < tr[r.0].spt);
    let listed: u64 = table.slips.iter().map(|s| s[1]).sum::<u64>()
        + table.remaps.iter().map(|r| r.count).sum::<u64>();
    if listed > MAX_LISTED {
        return Err(format!(
            "{}: the {} table slips and remaps {listed} blocks; at most {MAX_LISTED}",
            file.display(),
            table.kind
        ));
    }
    if per_track && !table.slips.is_empty() {
        return Err(format!(
            "{}: the {} table keeps spare sectors on its tracks and also lists `Slips`: storlab's zones cannot hold both",
            file.display(),
            table.kind
        ));
    }
    // Block position of each track's sector 0.
    let mut first = Vec::with_capacity(tr.len() + 1);
    first.push(0u64);
    for t in tr {
        first.push(first[first.len() - 1] + u64::from(t.blocks));
    }
    let mut zones: Vec<ZoneSpec> = runs
        .iter()
        .map(|&(s, e, fit)| ZoneSpec {
            first_cylinder: tr[s].cyl,
            last_cylinder: tr[e - 1].cyl,
            sectors_per_track: tr[s].spt,
            track_skew_sectors: fit.track,
            cylinder_skew_sectors: fit.cyl,
            first_block_offset_sectors: fit.first,
            reserved_front_sectors: u64::from(tr[s].head) * u64::from(tr[s].blocks),
            spares: if per_track {
                tr[s].spt - tr[s].blocks
            } else {
                0
            },
            slips: Vec::new(),
            remaps: Vec::new(),
        })
        .collect();
    let zone_of = |track: usize| runs.partition_point(|r| r.0 <= track) - 1;
    let track_of = |pos: u64| first.partition_point(|&f| f <= pos) - 1;
    // The zone, and the track's number in it times `per`, plus the sector.
    let number = |track: usize, sector: u64, per: u64| {
        let z = zone_of(track);
        let (t, c0) = (&tr[track], tr[runs[z].0].cyl);
        let n = (u64::from(t.cyl - c0) * u64::from(heads) + u64::from(t.head)) * per + sector;
        (z, n)
    };
    for &[lbn, count] in &table.slips {
        for pos in lbn..lbn + count {
            let k = track_of(pos);
            let (z, n) = number(k, pos - first[k], u64::from(tr[k].spt));
            zones[z].slips.push(n);
            zones[z].spares += 1;
        }
    }
    for r in &table.remaps {
        for i in 0..r.count {
            let home = position(&table.slips, r.lbn + i);
            let k = track_of(home.min(first[tr.len()] - 1));
            let (z, defect) = number(k, home - first[k], u64::from(tr[k].spt));
            let zone = &zones[z];
            let inside = (zone.first_cylinder..=zone.last_cylinder).contains(&r.cyl)
                && r.spt == zone.sectors_per_track;
            if home >= first[tr.len()] || !inside {
                return Err(format!(
                    "{}: `Remaps` moves block {} to cylinder {} surface {} ({} sectors), outside its own zone of like tracks (cylinders {} to {}, {} sectors): storlab keeps a block's spare in its zone",
                    file.display(),
                    r.lbn + i,
                    r.cyl,
                    r.head,
                    r.spt,
                    zone.first_cylinder,
                    zone.last_cylinder,
                    zone.sectors_per_track
                ));
            }
            let spt = u64::from(r.spt);
            let spare = (u64::from(r.cyl - zone.first_cylinder) * u64::from(heads)
                + u64::from(r.head))
                * spt
                + u64::from(r.sector)
                + i;
            if spare != defect {
                zones[z].remaps.push([defect, spare]);
            }
        }
    }
    let sparing = if per_track {
        Sparing::SectorsPerTrack
    } else {
        Sparing::SectorsPerZone
    };
    Ok(Translated {
        zones,
        sparing,
        table,
        geo,
        file: file.to_path_buf(),
    })
}

/// The table's position of block `lbn`: past every slipped position at or before it
/// (DiskSim's `slipcount`).
fn position(slips: &[[u64; 2]], lbn: u64) -> u64 {
    let mut pos = lbn;
    for &[at, count] in slips {
        if at <= pos {
            pos += count;
        } else {
            break;
        }
    }
    pos
}

impl Translated {
    /// Checks that the drive built from `p` puts every block where the table does: each
    /// block of a drive of at most [`FULL_CHECK_BLOCKS`], else each block of a track holding
    /// a slip or a remapped block and the first and last of every other track (the zones
    /// map a track's blocks in a line between them).
    pub fn verify(&self, p: &HddParams) -> Result<(), String> {
        self.verify_up_to(p, FULL_CHECK_BLOCKS)
    }

    /// [`Translated::verify`], every block checked on a drive of at most `full` blocks.
    pub fn verify_up_to(&self, p: &HddParams, full: u64) -> Result<(), String> {
        let hdd = Hdd::new(p, 0)?;
        let blocks = self.geo.blocks;
        let file = self.file.display();
        let kind = self.table.kind;
        if hdd.capacity_sectors() < blocks {
            return Err(format!(
                "{file}: the {kind} table's zones hold {} blocks; `Block count` is {blocks}",
                hdd.capacity_sectors()
            ));
        }
        let check = |lbn: u64, want: (u32, u32, u32)| {
            let got = hdd.locate(lbn);
            if want == (got.cyl, got.head, got.sector) {
                return Ok(());
            }
            Err(format!(
                "{file}: the {kind} table cannot be carried into storlab's zones exactly: block {lbn} lies at cylinder {} surface {} sector {} in the table, {} {} {} in the zones",
                want.0, want.1, want.2, got.cyl, got.head, got.sector
            ))
        };
        let full = blocks <= full;
        let (mut lbn, mut pos) = (0u64, 0u64);
        let (mut slip, mut remap) = (0usize, 0usize);
        let (slips, remaps) = (&self.table.slips, &self.table.remaps);
        for t in &self.table.tracks {
            if lbn >= blocks {
                return Ok(());
            }
            let n = u64::from(t.blocks);
            while slip < slips.len() && slips[slip][0] + slips[slip][1] <= pos {
                slip += 1;
            }
            while remap < remaps.len() && remaps[remap].lbn + remaps[remap].count <= lbn {
                remap += 1;
            }
            let plain = slips.get(slip).is_none_or(|s| s[0] >= pos + n)
                && remaps.get(remap).is_none_or(|r| r.lbn >= lbn + n);
            if !full && plain {
                let last = n.min(blocks - lbn) - 1;
                check(lbn, (t.cyl, t.head, 0))?;
                check(lbn + last, (t.cyl, t.head, last as u32))?;
                (lbn, pos) = (lbn + last + 1, pos + n);
                if lbn >= blocks {
                    return Ok(());
                }
                continue;
            }
            for sector in 0..t.blocks {
                if lbn >= blocks {
                    return Ok(());
                }
                while slip < slips.len() && slips[slip][0] + slips[slip][1] <= pos {
                    slip += 1;
                }
                let slipped = slip < slips.len() && slips[slip][0] <= pos;
                pos += 1;
                if slipped {
                    continue;
                }
                while remap < remaps.len() && remaps[remap].lbn + remaps[remap].count <= lbn {
                    remap += 1;
                }
                let want = match remaps.get(remap) {
                    Some(r) if r.lbn <= lbn => (r.cyl, r.head, r.sector + (lbn - r.lbn) as u32),
                    _ => (t.cyl, t.head, sector),
                };
                check(lbn, want)?;
                lbn += 1;
            }
        }
        if lbn < blocks {
            return Err(format!(
                "{file}: the {kind} table maps {lbn} blocks after its slips; `Block count` is {blocks}"
            ));
        }
        Ok(())
    }
}
