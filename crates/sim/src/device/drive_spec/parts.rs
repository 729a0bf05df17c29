//! The parts of a DiskSim description: zones, seek curve, overheads, transfer time.

use std::path::Path;

use super::{need, read, sourced, Block, Value};
use crate::device::hdd::{
    ExtraWriteDisconnect, Overheads, Sparing, SurfaceOrder, ZoneSpec, MAX_SPARE_RANGE_CYLINDERS,
};

fn scalars(list: Option<&[Value]>) -> Vec<f64> {
    list.unwrap_or(&[])
        .iter()
        .filter_map(|v| match v {
            Value::Scalar(s) => s.trim().parse().ok(),
            _ => None,
        })
        .collect()
}

/// The zone table, where its spares lie, and the cylinders of a sparing range.
pub(super) fn zones(
    layout: &Block,
    heads: u32,
    blocks: u64,
    file: &Path,
    notes: &mut Vec<String>,
) -> Result<(Vec<ZoneSpec>, Sparing, u16), String> {
    let scheme = layout.num("Sparing scheme used").unwrap_or(0.0) as i64;
    let range = layout.num("Rangesize for sparing").unwrap_or(1.0);
    let range_ok =
        range.fract() == 0.0 && (1.0..=f64::from(MAX_SPARE_RANGE_CYLINDERS)).contains(&range);
    let mut sparing = match scheme {
        1 => Sparing::Tracks,
        2 | 4 => Sparing::SectorsPerCylinder,
        5 | 6 => Sparing::SectorsPerCylinderAtFront,
        8 if range == 1.0 => Sparing::SectorsPerCylinder,
        8 if range_ok => Sparing::SectorsPerRange,
        3 => Sparing::SectorsPerTrack,
        9 | 10 => Sparing::SectorsPerZone,
        _ => Sparing::None,
    };
    if scheme == 8 && !range_ok {
        notes.push(format!(
            "sparing scheme 8: `Rangesize for sparing` {range} is not a whole number of 1 to {MAX_SPARE_RANGE_CYLINDERS} cylinders; spares not counted"
        ));
    }
    let range = if sparing == Sparing::SectorsPerRange {
        range as u16
    } else {
        1
    };
    let layout_units = skew_units(layout, file)?;
    let mut table = Vec::new();
    for v in layout.list("Zones").unwrap_or(&[]) {
        let Value::Block(z) = v else {
            return Err(format!("{}: a zone is not a block", file.display()));
        };
        let mut slips: Vec<u64> = scalars(z.list("slips")).iter().map(|&s| s as u64).collect();
        slips.sort_unstable();
        // Pairs (defect, spare); a defect kept in place moves nothing.
        let numbers = scalars(z.list("defects"));
        let remaps = numbers
            .chunks_exact(2)
            .map(|p| [p[0] as u64, p[1] as u64])
            .filter(|[d, s]| d != s)
            .collect();
        let spt = need(z, "Blocks per track", file)? as u32;
        let in_revolutions = skew_units(z, file)?.unwrap_or(layout_units.unwrap_or(false));
        // Sectors as DiskSim takes them: whole sectors, or a share of a revolution.
        let angle = |key: &str| {
            let v = z.num(key).unwrap_or(0.0).max(0.0);
            if in_revolutions {
                v * f64::from(spt)
            } else {
                v.trunc()
            }
        };
        table.push(ZoneSpec {
            first_cylinder: need(z, "First cylinder number", file)? as u32,
            last_cylinder: need(z, "Last cylinder number", file)? as u32,
            sectors_per_track: spt,
            track_skew_sectors: angle("Skew for track switch"),
            cylinder_skew_sectors: angle("Skew for cylinder switch"),
            first_block_offset_sectors: angle("Offset of first block"),
            reserved_front_sectors: z.num("Empty space at zone front").unwrap_or(0.0).max(0.0)
                as u64,
            // Scheme 10 takes the zone's slipped sectors from its spares at its end.
            spares: (z.num("Number of spares").unwrap_or(0.0).max(0.0) as u32).saturating_add(
                if scheme == 10 {
                    u32::try_from(slips.len()).unwrap_or(u32::MAX)
                } else {
                    0
                },
            ),
            slips,
            remaps,
        });
    }
    if table.is_empty() {
        return Err(format!("{}: the layout has no zones", file.display()));
    }
    if layout_blocks(&table, heads, sparing, range) < blocks && sparing != Sparing::None {
        notes.push(format!(
            "sparing scheme {scheme}: its spares as read leave fewer blocks than the block count {blocks}; not counted"
        ));
        sparing = Sparing::None;
    }
    let range = if sparing == Sparing::SectorsPerRange {
        range
    } else {
        1
    };
    if layout_blocks(&table, heads, sparing, range) < blocks {
        return Err(format!(
            "{}: the zones hold {} blocks, fewer than the block count {blocks}",
            file.display(),
            layout_blocks(&table, heads, sparing, range)
        ));
    }
    Ok((table, sparing, range))
}

/// The order of a cylinder's surfaces from `LBN-to-PBN mapping scheme` (0 to 2, checked
/// by the support rules).
pub(super) fn surface_order(layout: &Block) -> SurfaceOrder {
    match layout.num("LBN-to-PBN mapping scheme").unwrap_or(0.0) as i64 {
        1 => SurfaceOrder::AlternateInZone,
        2 => SurfaceOrder::Alternate,
        _ => SurfaceOrder::Ascending,
    }
}

/// `Skew units` of a layout or zone: `Some(true)` for revolutions, `Some(false)` for
/// sectors (DiskSim's default), `None` when the block does not say.
fn skew_units(b: &Block, file: &Path) -> Result<Option<bool>, String> {
    match b.word("Skew units") {
        None => Ok(None),
        Some("revolutions") => Ok(Some(true)),
        Some("sectors") => Ok(Some(false)),
        Some(other) => Err(format!(
            "{}: `Skew units = {other}` is not one of `sectors`, `revolutions`",
            file.display()
        )),
    }
}

/// Blocks the zones hold with `sparing`.
fn layout_blocks(table: &[ZoneSpec], heads: u32, sparing: Sparing, range: u16) -> u64 {
    table.iter().map(|z| z.blocks(heads, sparing, range)).sum()
}

/// The seek curve as `[cylinders, ms]` points.
pub(super) fn seek_curve(
    mech: &Block,
    cylinders: u32,
    file: &Path,
) -> Result<Vec<[f64; 2]>, String> {
    // DiskSim reads the curve file whenever it is named, whatever the seek type says.
    let kind = if mech.get("Full seek curve").is_some() {
        "extracted"
    } else {
        mech.word("Seek type").unwrap_or("")
    };
    let mut pts: Vec<[f64; 2]> = match kind {
        "extracted" => {
            let name = mech
                .word("Full seek curve")
                .ok_or_else(|| format!("{}: `Full seek curve` is missing", file.display()))?;
            let path = sourced(name, file);
            let text = read(&path)?;
            let mut pts = Vec::new();
            for (i, line) in text.lines().enumerate().skip(1) {
                let f: Vec<f64> = line
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse::<f64>())
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("{} line {}: {e}", path.display(), i + 1))?;
                match f[..] {
                    [] => {}
                    [d, ms] => pts.push([d, ms]),
                    _ => {
                        return Err(format!(
                            "{} line {}: expected `distance, ms`",
                            path.display(),
                            i + 1
                        ))
                    }
                }
            }
            pts
        }
        "hplplus10" | "hpl" => hpl_points(mech, kind == "hplplus10", cylinders, file)?,
        "constant" | "linear" | "curve" => three_point(mech, kind, cylinders, file)?,
        other => {
            return Err(format!(
                "{}: seek type `{other}` is not supported (extracted, hpl, hplplus10, linear, curve, constant are)",
                file.display()
            ))
        }
    };
    if let Some(p) = pts.iter().find(|p| !(p[1].is_finite() && p[1] >= 0.0)) {
        return Err(format!(
            "{}: the seek curve gives {} ms for {} cylinders; a seek time is at least 0",
            file.display(),
            p[1],
            p[0]
        ));
    }
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
    pts.dedup_by(|a, b| a[0] == b[0]);
    if pts.is_empty() {
        return Err(format!("{}: the seek curve has no points", file.display()));
    }
    Ok(pts)
}

/// The HPL seek equation (and the first ten measured times), sampled.
fn hpl_points(
    mech: &Block,
    ten: bool,
    cylinders: u32,
    file: &Path,
) -> Result<Vec<[f64; 2]>, String> {
    let v = scalars(mech.list("HPL seek equation values"));
    let [x, a, b, c, e, single] = v[..] else {
        return Err(format!(
            "{}: `HPL seek equation values` needs six numbers",
            file.display()
        ));
    };
    let f = |d: f64| if d < x { a + b * d.sqrt() } else { c + e * d };
    let mut pts = Vec::new();
    let first = scalars(mech.list("First ten seek times"));
    if ten && first.len() == 10 {
        pts.extend(first.iter().enumerate().map(|(i, &t)| [(i + 1) as f64, t]));
    } else if single > 0.0 {
        pts.push([1.0, single]);
    }
    let mut d = pts.last().map_or(1.0, |p| p[0] + 1.0);
    let max = f64::from(cylinders.max(2) - 1);
    while d < max {
        pts.push([d, f(d)]);
        d = (d * 1.15).ceil();
        if d > x - 1.0 && d < x + 1.0 {
            pts.push([x - 1.0, f(x - 1.0)]);
        }
    }
    pts.push([max, f(max)]);
    Ok(pts)
}

/// `f` sampled from one cylinder to the longest seek, densely where it bends (each
/// distance 15% beyond the last), with `knee` among the points.
fn sampled(cylinders: u32, knee: Option<f64>, f: impl Fn(f64) -> f64) -> Vec<[f64; 2]> {
    let max = f64::from(cylinders.max(2) - 1);
    let mut ds = vec![1.0];
    let mut d = 2.0f64;
    while d < max {
        ds.push(d);
        d = (d * 1.15).ceil();
    }
    ds.extend(knee.filter(|&k| k > 1.0 && k < max));
    ds.push(max);
    ds.sort_by(f64::total_cmp);
    ds.into_iter().map(|d| [d, f(d)]).collect()
}

/// The seek forms of three summary times (single-cylinder, average and full-strobe) and
/// the constant one, sampled. `linear` interpolates in straight lines from the single
/// cylinder time at one cylinder to the average a third of the cylinders further and the
/// full strobe at the longest seek; `curve` is Lee's equation, `t(d) = t1 + a sqrt(d-1) + b (d-1)`
/// with `a = (-10 t1 + 15 tavg - 5 tfull) / (3 sqrt N)` and `b = (7 t1 - 15 tavg + 8
/// tfull) / (3 N)` for `N` cylinders: it runs from `t1` to `tfull` and averages `tavg`
/// over random seeks; `constant` is `Constant seek time` at every distance.
fn three_point(
    mech: &Block,
    kind: &str,
    cylinders: u32,
    file: &Path,
) -> Result<Vec<[f64; 2]>, String> {
    let n = f64::from(cylinders.max(2));
    if kind == "constant" {
        let t = need(mech, "Constant seek time", file)?;
        return Ok(sampled(cylinders, None, |_| t));
    }
    let one = need(mech, "Single cylinder seek time", file)?;
    let avg = need(mech, "Average seek time", file)?;
    let full = need(mech, "Full strobe seek time", file)?;
    Ok(if kind == "linear" {
        let third = n / 3.0;
        sampled(cylinders, Some(1.0 + third), |d| {
            if d - 1.0 <= third {
                one + (avg - one) * (d - 1.0) / third
            } else {
                avg + (full - avg) * (d - 1.0 - third) / (n - 2.0 - third).max(1.0)
            }
        })
    } else {
        let a = (-10.0 * one + 15.0 * avg - 5.0 * full) / (3.0 * n.sqrt());
        let b = (7.0 * one - 15.0 * avg + 8.0 * full) / (3.0 * n);
        sampled(cylinders, None, |d| {
            one + a * (d - 1.0).sqrt() + b * (d - 1.0)
        })
    })
}

/// Track-to-track, random-average and full-stroke times of a curve (the average over
/// uniformly random start and end cylinders).
pub(super) fn seek_summary(pts: &[[f64; 2]], cylinders: u32) -> (f64, f64, f64) {
    let curve = crate::device::hdd::seek_table_ms(pts);
    let big = f64::from(cylinders.max(2));
    let (mut sum, mut weight) = (0.0, 0.0);
    for d in 1..cylinders.max(2) {
        let w = 2.0 * (big - f64::from(d)) / (big * big);
        sum += w * curve(f64::from(d));
        weight += w;
    }
    (curve(1.0), sum / weight.max(1e-12), curve(big - 1.0))
}

/// `Time scale for overheads` (DiskSim multiplies every controller overhead by it).
fn time_scale(disk: &Block) -> f64 {
    disk.num("Time scale for overheads").unwrap_or(1.0).max(0.0)
}

/// True when the drive keeps the bus from a command's arrival to its end.
fn never_disconnects(disk: &Block) -> bool {
    disk.num("Never disconnect").unwrap_or(0.0) != 0.0
}

/// The eight overheads by kind and the completion overheads, each scaled by `Time scale
/// for overheads`; the `Per-request overhead time`, paid on every command's arrival before
/// anything else, is part of each command overhead. A drive that never disconnects pays
/// no disconnect or reselect overhead and holds the bus through every read.
pub(super) fn overheads(disk: &Block, file: &Path) -> Result<Overheads, String> {
    let scale = time_scale(disk);
    let per_request = disk
        .num("Per-request overhead time")
        .unwrap_or(0.0)
        .max(0.0);
    let g = |k: &str| need(disk, k, file).map(|v| (v + per_request) * scale);
    let connected = if never_disconnects(disk) { 0.0 } else { 1.0 };
    let opt = |k: &str| disk.num(k).unwrap_or(0.0).max(0.0) * scale;
    Ok(Overheads {
        read_hit_after_read: g("Read hit over. after read")?,
        read_hit_after_write: g("Read hit over. after write")?,
        read_miss_after_read: g("Read miss over. after read")?,
        read_miss_after_write: g("Read miss over. after write")?,
        write_hit_after_read: g("Write hit over. after read")?,
        write_hit_after_write: g("Write hit over. after write")?,
        write_miss_after_read: g("Write miss over. after read")?,
        write_miss_after_write: g("Write miss over. after write")?,
        read_completion: disk.num("Read completion overhead").unwrap_or(0.0) * scale,
        write_completion: disk.num("Write completion overhead").unwrap_or(0.0) * scale,
        data_prep: opt("Data preparation overhead"),
        reselect: opt("First reselect overhead") * connected,
        read_disconnect_after_read: opt("Read disconnect afterread") * connected,
        read_disconnect_after_write: opt("Read disconnect afterwrite") * connected,
        write_disconnect: opt("Write disconnect overhead") * connected,
        read_frees_bus: connected > 0.0 && disk.num("Hold bus entire read xfer") == Some(0.0),
        read_any_free_blocks: disk.num("Read any free blocks").unwrap_or(0.0) != 0.0,
        immediate_write: disk.num("Immediate buffer write").unwrap_or(0.0) != 0.0,
    })
}

/// The early write disconnect (`Extra write disconnect = 1` and its `Extradisc` times, the
/// overheads scaled by `Time scale for overheads` and the command's including the
/// per-request overhead), or `None` when the drive has none or never disconnects.
pub(super) fn extra_write_disconnect(disk: &Block) -> Option<ExtraWriteDisconnect> {
    let scale = time_scale(disk);
    let opt = |k: &str| disk.num(k).unwrap_or(0.0).max(0.0);
    let on = opt("Extra write disconnect") > 0.0 && !never_disconnects(disk);
    on.then(|| ExtraWriteDisconnect {
        command: (opt("Extradisc command overhead") + opt("Per-request overhead time")) * scale,
        disconnect: opt("Extradisc disconnect overhead") * scale,
        inter_disconnect: opt("Extradisc inter-disconnect delay"),
        second_disconnect: opt("Extradisc 2nd disconnect overhead") * scale,
        seek_delta: opt("Extradisc seek delta") * scale,
        reselect: opt("Other reselect overhead") * scale,
    })
}

/// Time of one sector across the interface, ms, for a read's data and for a write's: the
/// largest of the drive's bulk sector transfer time, the slowest bus's read (write) block
/// transfer time and the slowest controller's bulk sector transfer time in `NAME.parv`
/// beside the description (DiskSim takes the largest of the three). A bus arbitration
/// time is not modelled: it gets a note.
pub(super) fn sector_transfer_ms(
    disk: &Block,
    diskspecs: &Path,
    notes: &mut Vec<String>,
) -> (f64, f64) {
    let bulk = disk.num("Bulk sector transfer time").unwrap_or(0.0);
    let parv = diskspecs.with_extension("parv");
    let text = storlab_core::input::read_text_bounded(&parv, storlab_core::input::TEXT_MAX_BYTES)
        .unwrap_or_default();
    // The bus and controller blocks only: the rest of a .parv (topology, instantiation) is
    // another syntax.
    let (mut read, mut write) = (0.0f64, 0.0f64);
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let l = line.trim();
        if !((l.starts_with("disksim_bus") || l.starts_with("disksim_ctlr")) && l.ends_with('{')) {
            continue;
        }
        let mut block = String::from(l);
        for inner in lines.by_ref() {
            block.push('\n');
            block.push_str(inner);
            if inner.trim_start().starts_with('}') {
                break;
            }
        }
        if let Some(b) = super::parse(&block).ok().and_then(|v| v.into_iter().next()) {
            let ctlr = b.num("Bulk sector transfer time").unwrap_or(0.0);
            read = read
                .max(b.num("Read block transfer time").unwrap_or(0.0))
                .max(ctlr);
            write = write
                .max(b.num("Write block transfer time").unwrap_or(0.0))
                .max(ctlr);
            let arbitration = b.num("Arbitration time").unwrap_or(0.0);
            if arbitration > 0.0 {
                notes.push(format!(
                    "`Arbitration time = {arbitration}` of `{}` in the .parv is not modelled",
                    b.header
                ));
            }
        }
    }
    (bulk.max(read), bulk.max(write))
}
