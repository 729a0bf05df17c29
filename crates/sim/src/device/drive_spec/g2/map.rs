//! The map file of a `dm_layout_g2` layout, read as DiskSim's `layout_g2_loadmap`
//! (`diskmodel/layout_g2_load.c`) reads it: two lines it skips, a line `C cylinders, R rot,
//! H heads`, then one extent a line, `lbn L --> cyl C, head H, sect S, WORD N` (`N + 1`
//! blocks when `WORD` is `seqcnt`, `N` otherwise), from sector `S` of the track on, then
//! lines `Defect at cyl C, head H, sect S`. DiskSim stops reading at the first line of
//! another form; here such a line is refused, naming it.

use std::path::Path;

use super::super::g4::Geometry;

/// A run of blocks on consecutive sectors of one track, and its line in the map file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Extent {
    pub lbn: u64,
    pub cyl: u32,
    pub head: u32,
    pub sector: u32,
    pub len: u32,
    pub line: usize,
}

/// The extents of a map file, in its order (its defects are checked and left: DiskSim only
/// counts them, for `dm_defect_count`).
#[derive(Clone, Debug)]
pub(super) struct Map {
    pub extents: Vec<Extent>,
}

/// The fields of a line, commas taken as spaces.
fn fields(line: &str) -> Vec<&str> {
    line.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A whole number from 0 to `max`.
fn number(s: &str, max: u64) -> Option<u64> {
    s.parse::<u64>().ok().filter(|&v| v <= max)
}

/// Reads the map file `path` for a drive of geometry `geo`.
pub(super) fn read_map(path: &Path, geo: Geometry) -> Result<Map, String> {
    let text = super::super::read(path)?;
    let file = path.display();
    let mut lines = text.lines().enumerate().skip(2);
    let bad = |n: usize, why: String| format!("{file}: line {}: {why}", n + 1);
    let (n, head) = lines.find(|(_, l)| !l.trim().is_empty()).ok_or_else(|| {
        format!("{file}: no `C cylinders, R rot, H heads` line after the first two lines")
    })?;
    let f = fields(head);
    let (cyls, heads) = match f[..] {
        [c, "cylinders", r, "rot", h, "heads"] if r.parse::<i64>().is_ok() => {
            (c.parse::<i64>().ok(), h.parse::<i64>().ok())
        }
        _ => (None, None),
    };
    let (Some(cyls), Some(heads)) = (cyls, heads) else {
        return Err(bad(
            n,
            format!(
                "expected `C cylinders, R rot, H heads` (DiskSim's third line); got `{}`",
                head.trim()
            ),
        ));
    };
    if cyls < i64::from(geo.cylinders) || heads < i64::from(geo.heads) {
        return Err(bad(n, format!(
            "the map gives {cyls} cylinders and {heads} heads; the drive has {} cylinders and {} surfaces, and DiskSim sizes its tables by the map's counts (at least the drive's)",
            geo.cylinders, geo.heads
        )));
    }
    // DiskSim's table of extents holds 2.5 per track of the map; it writes past it beyond.
    let tracks = u64::from(geo.cylinders) * u64::from(geo.heads);
    let most = (tracks * 2 + tracks * 2 / 4).min(super::MAX_EXTENTS);
    let mut extents: Vec<Extent> = Vec::new();
    let mut defects = 0usize;
    let mut next = 0u64;
    for (n, line) in lines {
        let f = fields(line);
        if f.is_empty() {
            continue;
        }
        if f[0] == "Defect" {
            let ok = matches!(f[..], ["Defect", "at", "cyl", c, "head", h, "sect", s]
                if number(c, u64::from(geo.cylinders) - 1).is_some()
                    && number(h, u64::from(geo.heads) - 1).is_some()
                    && number(s, u64::from(u32::MAX)).is_some());
            if !ok {
                return Err(bad(n, format!(
                    "expected `Defect at cyl C, head H, sect S` on the drive's {} cylinders and {} surfaces; got `{}`",
                    geo.cylinders, geo.heads, line.trim()
                )));
            }
            defects += 1;
            continue;
        }
        if defects > 0 {
            return Err(bad(n, format!("expected `Defect at cyl C, head H, sect S` (DiskSim reads no extent after the defects); got `{}`", line.trim())));
        }
        let ["lbn", l, "-->", "cyl", c, "head", h, "sect", s, word, count] = f[..] else {
            return Err(bad(
                n,
                format!(
                    "expected `lbn L --> cyl C, head H, sect S, seqcnt N`; got `{}`",
                    line.trim()
                ),
            ));
        };
        let (Some(lbn), Some(count)) = (number(l, 1 << 40), number(count, 1 << 20)) else {
            return Err(bad(n, format!("the block number must be a whole number of at most 2^40 and the count one of at most 2^20; got `{}`", line.trim())));
        };
        if !word.chars().all(|c| c.is_ascii_alphabetic()) {
            return Err(bad(n, format!("the count's word must be letters (`seqcnt` counts one block more); got `{word}`")));
        }
        let len = if word == "seqcnt" { count + 1 } else { count };
        let Some(cyl) =
            number(c, u64::from(geo.cylinders).saturating_sub(1)).filter(|_| geo.cylinders > 0)
        else {
            return Err(bad(
                n,
                format!(
                    "cylinder `{c}` must be below the drive's {} cylinders",
                    geo.cylinders
                ),
            ));
        };
        let Some(head) =
            number(h, u64::from(geo.heads).saturating_sub(1)).filter(|_| geo.heads > 0)
        else {
            return Err(bad(
                n,
                format!(
                    "head `{h}` must be below the drive's {} surfaces",
                    geo.heads
                ),
            ));
        };
        let Some(sector) = number(s, 1 << 20) else {
            return Err(bad(
                n,
                format!("sector `{s}` must be a whole number of at most 2^20"),
            ));
        };
        if len == 0 {
            return Err(bad(n, "the extent holds no block".into()));
        }
        if lbn != next {
            let why = if lbn < next {
                "overlaps the extent before it or is out of order"
            } else {
                "leaves blocks before it unmapped"
            };
            return Err(bad(n, format!("the extent starts at block {lbn}, the one before ends at block {next}: it {why} (DiskSim's lookup needs the extents in block order, each starting where the last ended)")));
        }
        next = lbn + len;
        if next > geo.blocks {
            return Err(bad(
                n,
                format!(
                    "the extent runs to block {}, beyond the drive's block count {}",
                    next - 1,
                    geo.blocks
                ),
            ));
        }
        if extents.len() as u64 >= most {
            return Err(bad(n, format!("more than {most} extents: DiskSim's table holds 2.5 extents per track of the drive")));
        }
        extents.push(Extent {
            lbn,
            cyl: cyl as u32,
            head: head as u32,
            sector: sector as u32,
            len: len as u32,
            line: n + 1,
        });
    }
    if next != geo.blocks {
        return Err(format!("{file}: the extents map blocks 0 to {next}; the drive's block count is {} (DiskSim leaves the others unmapped)", geo.blocks));
    }
    Ok(Map { extents })
}
