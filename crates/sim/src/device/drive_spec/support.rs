//! Which of DiskSim 4.0's disk parameters the import honours. Every key of the disk block,
//! its scheduler, the model, its layout, zones and mechanics is known here (a key DiskSim
//! 4.0 does not know is ignored with a note, as DiskSim ignores it with a warning); a value
//! the model cannot honour is refused, naming the file, the key, the value and what is
//! supported, rather than imported as something else. references/drives/PARAMETERS.md gives the table with the
//! reasons.

use std::path::Path;

use super::{Block, Value};

/// What the import does with a key.
#[derive(Clone, Copy)]
enum Rule {
    /// Read by the import at any value DiskSim accepts (the parts check it further).
    Used,
    /// Read by the import; a number below the bound is refused, as DiskSim 4.0 refuses it
    /// (`TEST d >= 0.0` in its src/modules/disk.modspec).
    UsedFrom(f64),
    /// No effect on a drive that is given one command at a time and is alone on its bus,
    /// which is how a drive is replayed; accepted at any value (references/drives/PARAMETERS.md says why).
    Inert,
    /// Honoured at these values only.
    Only(&'static [f64]),
    /// Accepted at any value; the model follows the first of the values listed, and
    /// references/drives/PARAMETERS.md says what a drive with another value does differently.
    Approx(&'static [f64]),
    /// Accepted from the first bound to the second, as DiskSim accepts it, with no effect
    /// on the model: DiskSim 4.0 itself times nothing by it (references/drives/PARAMETERS.md says why).
    Unused(f64, f64),
}

use Rule::{Approx, Inert, Only, Unused, Used, UsedFrom};

const DISK: &[(&str, Rule)] = &[
    ("Model", Used),
    ("Scheduler", Used),
    ("Max queue length", UsedFrom(0.0)),
    ("Bulk sector transfer time", UsedFrom(0.0)),
    ("Segment size (in blks)", Used),
    ("Number of buffer segments", UsedFrom(0.0)),
    ("Print stats", Inert),
    ("Per-request overhead time", UsedFrom(0.0)),
    ("Time scale for overheads", UsedFrom(0.0)),
    ("Hold bus entire read xfer", Only(&[0.0, 1.0])),
    ("Hold bus entire write xfer", Approx(&[1.0])),
    ("Allow almost read hits", Approx(&[1.0])),
    ("Allow sneaky full read hits", Inert),
    ("Allow sneaky partial read hits", Inert),
    ("Allow sneaky intermediate read hits", Inert),
    ("Allow read hits on write data", Used),
    ("Allow write prebuffering", Inert),
    ("Preseeking level", Inert),
    ("Never disconnect", Used),
    ("Avg sectors per cylinder", Inert),
    ("Maximum number of write segments", Approx(&[1.0])),
    ("Use separate write segment", Approx(&[0.0])),
    ("Low (write) water mark", Approx(&[0.0])),
    ("High (read) water mark", Used),
    ("Set watermark by reqsize", Used),
    ("Calc sector by sector", Inert),
    ("Enable caching in buffer", Used),
    ("Buffer continuous read", Used),
    ("Minimum read-ahead (blks)", Used),
    ("Maximum read-ahead (blks)", Used),
    ("Read-ahead over requested", Used),
    ("Read-ahead on idle hit", Used),
    ("Read any free blocks", Only(&[0.0, 1.0])),
    ("Fast write level", Used),
    ("Combine seq writes", Used),
    ("Stop prefetch in sector", Approx(&[1.0])),
    ("Disconnect write if seek", Approx(&[0.0])),
    ("Write hit stop prefetch", Used),
    ("Read directly to buffer", Approx(&[1.0])),
    ("Immed transfer partial hit", Used),
    ("Read hit over. after read", UsedFrom(0.0)),
    ("Read hit over. after write", UsedFrom(0.0)),
    ("Read miss over. after read", UsedFrom(0.0)),
    ("Read miss over. after write", UsedFrom(0.0)),
    ("Write hit over. after read", UsedFrom(0.0)),
    ("Write hit over. after write", UsedFrom(0.0)),
    ("Write miss over. after read", UsedFrom(0.0)),
    ("Write miss over. after write", UsedFrom(0.0)),
    ("Read completion overhead", UsedFrom(0.0)),
    ("Write completion overhead", UsedFrom(0.0)),
    ("Data preparation overhead", UsedFrom(0.0)),
    ("First reselect overhead", UsedFrom(0.0)),
    ("Other reselect overhead", UsedFrom(0.0)),
    ("Read disconnect afterread", UsedFrom(0.0)),
    ("Read disconnect afterwrite", UsedFrom(0.0)),
    ("Write disconnect overhead", UsedFrom(0.0)),
    ("Extra write disconnect", Used),
    ("Extradisc command overhead", UsedFrom(0.0)),
    ("Extradisc disconnect overhead", UsedFrom(0.0)),
    ("Extradisc inter-disconnect delay", UsedFrom(0.0)),
    ("Extradisc 2nd disconnect overhead", UsedFrom(0.0)),
    ("Extradisc seek delta", UsedFrom(0.0)),
    ("Minimum seek delay", UsedFrom(0.0)),
    ("Immediate buffer read", Approx(&[0.0])),
    ("Immediate buffer write", Only(&[0.0, 1.0, 2.0])),
];

const SCHEDULER: &[(&str, Rule)] = &[
    ("Scheduling policy", Inert),
    ("Cylinder mapping strategy", Inert),
    ("Write initiation delay", Unused(0.0, f64::INFINITY)),
    ("Read initiation delay", Unused(0.0, f64::INFINITY)),
    ("Sequential stream scheme", Inert),
    ("Maximum concat size", Inert),
    ("Overlapping request scheme", Inert),
    ("Sequential stream diff maximum", Inert),
    ("Scheduling timeout scheme", Inert),
    ("Timeout time/weight", Inert),
    ("Timeout scheduling", Inert),
    ("Scheduling priority scheme", Inert),
    ("Priority scheduling", Inert),
];

const MODEL: &[(&str, Rule)] = &[
    ("Block count", Used),
    ("Number of data surfaces", Used),
    ("Number of cylinders", Used),
    ("Mechanical Model", Used),
    ("Layout Model", Used),
];

const LAYOUT: &[(&str, Rule)] = &[
    ("LBN-to-PBN mapping scheme", Only(&[0.0, 1.0, 2.0])),
    (
        "Sparing scheme used",
        Only(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]),
    ),
    ("Rangesize for sparing", Used),
    ("Skew units", Used),
    ("Zones", Used),
];

/// `dm_layout_g2`'s keys and its zones' (g2.rs reads and checks them).
const LAYOUT_G2: &[(&str, Rule)] = &[("Layout Map File", Used), ("Zones", Used)];

const ZONE_G2: &[(&str, Rule)] = &[
    ("First cylinder number", Used),
    ("Last cylinder number", Used),
    ("First LBN", Used),
    ("Last LBN", Used),
    ("Blocks per track", Used),
    ("Zone Skew", Used),
    ("Skew units", Used),
    ("Skew for track switch", Used),
    ("Skew for cylinder switch", Used),
];

/// `dm_layout_g4`'s keys (g4.rs reads and checks them).
const LAYOUT_G4: &[(&str, Rule)] = &[
    ("TP", Used),
    ("IDX", Used),
    ("Slips", Used),
    ("Remaps", Used),
];

const ZONE: &[(&str, Rule)] = &[
    ("First cylinder number", Used),
    ("Last cylinder number", Used),
    ("Blocks per track", Used),
    ("Offset of first block", Used),
    ("Skew units", Used),
    ("Empty space at zone front", Used),
    ("Skew for track switch", Used),
    ("Skew for cylinder switch", Used),
    ("Number of spares", Used),
    ("slips", Used),
    ("defects", Used),
];

const MECH: &[(&str, Rule)] = &[
    ("Access time type", Used),
    ("Constant access time", Inert),
    ("Seek type", Used),
    ("Average seek time", Used),
    ("Constant seek time", Used),
    ("Single cylinder seek time", Used),
    ("Full strobe seek time", Used),
    ("Full seek curve", Used),
    ("Add. write settling delay", Used),
    ("Head switch time", Used),
    ("Rotation speed (in rpms)", Used),
    ("Percent error in rpms", Unused(0.0, 100.0)),
    ("First ten seek times", Used),
    ("HPL seek equation values", Used),
];

/// The values a key is honoured at, in words.
fn listed(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Checks every key of `block` against `rules`; `what` names the block in messages.
fn check_block(
    block: &Block,
    rules: &[(&str, Rule)],
    what: &str,
    file: &Path,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    for (key, value) in &block.params {
        let key = key.trim();
        let Some(&(name, rule)) = rules.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)) else {
            notes.push(format!(
                "`{key}` in {what} of {} is not a DiskSim 4.0 parameter of that block: ignored, as DiskSim ignores it",
                file.display()
            ));
            continue;
        };
        let values = match rule {
            Only(values) | Approx(values) => values,
            Unused(..) => &[][..],
            UsedFrom(lo) => {
                let below = match value {
                    Value::Scalar(text) => text.trim().parse::<f64>().ok().filter(|v| *v < lo),
                    _ => None,
                };
                if let Some(v) = below {
                    return Err(out_of_range(file, name, v, what, (lo, f64::INFINITY)));
                }
                continue;
            }
            Used | Inert => continue,
        };
        let Value::Scalar(text) = value else {
            return Err(format!(
                "{}: `{name}` in {what} must be a number",
                file.display()
            ));
        };
        let v: f64 = text.trim().parse().map_err(|_| {
            format!(
                "{}: `{name}` in {what} must be a number; got `{}`",
                file.display(),
                text.trim()
            )
        })?;
        if values.contains(&v) {
            continue;
        }
        match rule {
            Unused(lo, hi) if !(lo..=hi).contains(&v) => {
                return Err(out_of_range(file, name, v, what, (lo, hi)));
            }
            Unused(..) => {}
            Only(_) => {
                return Err(format!(
                    "{}: `{name} = {v}` in {what} is not supported: storlab's disk model honours only {} (references/drives/PARAMETERS.md lists every parameter)",
                    file.display(),
                    listed(values)
                ))
            }
            _ => notes.push(format!(
                "`{name} = {v}` is modelled as {} (references/drives/PARAMETERS.md says what differs)",
                listed(values)
            )),
        }
    }
    Ok(())
}

/// The refusal of `name = v` in `what`, outside DiskSim's bounds `lo` to `hi`.
fn out_of_range(file: &Path, name: &str, v: f64, what: &str, (lo, hi): (f64, f64)) -> String {
    let range = if hi.is_finite() {
        format!("{lo} to {hi}")
    } else {
        format!("{lo} or more")
    };
    format!(
        "{}: `{name} = {v}` in {what} is out of range: DiskSim 4.0 accepts {range}",
        file.display()
    )
}

/// Checks the disk block of a `.diskspecs` file and its scheduler.
pub(super) fn check_disk(disk: &Block, file: &Path, notes: &mut Vec<String>) -> Result<(), String> {
    check_block(disk, DISK, "the disk block", file, notes)?;
    if let Some(s) = disk.block("Scheduler") {
        check_block(s, SCHEDULER, "the scheduler", file, notes)?;
    }
    // DiskSim stops at a drive that reads free blocks into a buffer it does not cache in.
    if disk.num("Read any free blocks").unwrap_or(0.0) != 0.0
        && disk.num("Enable caching in buffer").unwrap_or(1.0) == 0.0
    {
        return Err(format!(
            "{}: `Read any free blocks = {}` with `Enable caching in buffer = 0` is refused, as DiskSim 4.0 refuses it: blocks read into the buffer must be cached (set one of them)",
            file.display(),
            disk.num("Read any free blocks").unwrap_or(0.0)
        ));
    }
    Ok(())
}

/// Checks the model file: its blocks, layout, zones and mechanics.
pub(super) fn check_model(
    model: &Block,
    layout: &Block,
    mech: &Block,
    file: &Path,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    check_block(model, MODEL, "the model block", file, notes)?;
    let kind = layout.header.trim();
    let layout_rules = match kind {
        "dm_layout_g4" => LAYOUT_G4,
        "dm_layout_g2" => LAYOUT_G2,
        _ => LAYOUT,
    };
    check_block(layout, layout_rules, "the layout", file, notes)?;
    check_block(mech, MECH, "the mechanical model", file, notes)?;
    for (what, block, kinds) in [
        (
            "Layout Model",
            layout,
            &["dm_layout_g1", "dm_layout_g2", "dm_layout_g4"][..],
        ),
        ("Mechanical Model", mech, &["dm_mech_g1"][..]),
    ] {
        if !kinds.contains(&block.header.trim()) {
            return Err(format!(
                "{}: `{what} = {}` is not supported: storlab imports {} only",
                file.display(),
                block.header.trim(),
                kinds.join(" and ")
            ));
        }
    }
    // DiskSim 4.0 reads the access time type (and a constant access time) but its
    // mechanical model never consults them: every drive seeks and waits for its sector.
    match mech.word("Access time type") {
        None | Some("trackSwitchPlusRotation") => {}
        Some(kind @ ("constant" | "averageRotation")) => notes.push(format!(
            "`Access time type = {kind}` is modelled as trackSwitchPlusRotation, as DiskSim 4.0 runs it (its mechanical model never reads the type)"
        )),
        Some(other) => {
            return Err(format!(
                "{}: `Access time type = {other}` is not one of constant, averageRotation, trackSwitchPlusRotation (DiskSim 4.0 refuses it too)",
                file.display()
            ))
        }
    }
    let heads = model.num("Number of data surfaces").unwrap_or(1.0).max(1.0) as u64;
    let tracks_spared = layout.num("Sparing scheme used") == Some(1.0);
    for (i, z) in layout.list("Zones").unwrap_or(&[]).iter().enumerate() {
        let Value::Block(z) = z else { continue };
        let what = format!("zone {}", i + 1);
        if kind == "dm_layout_g2" {
            check_block(z, ZONE_G2, &what, file, notes)?;
            continue;
        }
        check_block(z, ZONE, &what, file, notes)?;
        let cyls = z.num("Last cylinder number").unwrap_or(0.0)
            - z.num("First cylinder number").unwrap_or(0.0)
            + 1.0;
        let tracks = cyls.max(0.0) as u64 * heads;
        let size = if tracks_spared {
            (tracks, "tracks")
        } else {
            let spt = z.num("Blocks per track").unwrap_or(0.0).max(0.0) as u64;
            (tracks * spt, "sectors")
        };
        let pairs = check_defects(z, &what, size, file)?;
        check_slips(z, &what, tracks_spared, pairs, file)?;
    }
    Ok(())
}

/// A zone's defects come in pairs (defective sector, the spare its block is kept in), both
/// numbered from the zone's first sector (tracks with track sparing, `size` says which and
/// how many the zone has); a pair naming one sector twice moves nothing.
fn check_defects(
    zone: &Block,
    what: &str,
    (units, kind): (u64, &str),
    file: &Path,
) -> Result<usize, String> {
    let list = zone.list("defects").unwrap_or(&[]);
    let mut nums = Vec::with_capacity(list.len());
    for v in list {
        match v {
            Value::Scalar(s) => nums.push(s.trim().parse::<u64>().map_err(|_| {
                format!(
                    "{}: `defects` in {what} must be whole block numbers; got `{}`",
                    file.display(),
                    s.trim()
                )
            })?),
            _ => {
                return Err(format!(
                    "{}: `defects` in {what} must be a list of numbers",
                    file.display()
                ))
            }
        }
    }
    if nums.len() % 2 != 0 {
        return Err(format!(
            "{}: `defects` in {what} must hold pairs (defect, remapped block); got {} numbers",
            file.display(),
            nums.len()
        ));
    }
    if let Some(p) = nums
        .chunks(2)
        .find(|p| p[0] != p[1] && p[0].max(p[1]) >= units)
    {
        return Err(format!(
            "{}: `defects` in {what} remaps {} to {}: both must be {kind} of the zone, below {units}",
            file.display(),
            p[0],
            p[1]
        ));
    }
    Ok(nums.len() / 2)
}

/// A zone's slips are sector (or track) numbers, none negative; with track sparing, the
/// slipped and the remapped tracks (`defects` pairs, counted as DiskSim counts them) must not
/// outnumber the zone's spare tracks: DiskSim 4.0 stops at such a zone.
fn check_slips(
    zone: &Block,
    what: &str,
    tracks_spared: bool,
    defects: usize,
    file: &Path,
) -> Result<(), String> {
    let mut slips = 0usize;
    for v in zone.list("slips").unwrap_or(&[]) {
        let Value::Scalar(s) = v else {
            return Err(format!(
                "{}: `slips` in {what} must be a list of numbers",
                file.display()
            ));
        };
        if s.trim().parse::<u64>().is_err() {
            return Err(format!(
                "{}: `slips` in {what} must be whole, nonnegative numbers; got `{}`",
                file.display(),
                s.trim()
            ));
        }
        slips += 1;
    }
    let spares = zone.num("Number of spares").unwrap_or(0.0).max(0.0) as usize;
    if tracks_spared && slips + defects > spares {
        return Err(format!(
            "{}: {what} has {slips} slipped and {defects} remapped tracks but {spares} spare tracks: with track sparing they must not outnumber the spares (DiskSim 4.0 stops at such a zone)",
            file.display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
