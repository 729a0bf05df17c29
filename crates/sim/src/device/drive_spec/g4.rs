//! DiskSim 4.0's table-driven layout, `dm_layout_g4` (the form of DIXtrac-extracted drives),
//! read as DiskSim's `diskmodel/layout_g4_load.c` loads it and mapped as `layout_g4.c`'s
//! `ltop` maps a block, then carried into storlab's zone table where that gives the same
//! mapping (zones.rs).
//!
//! The table: `TP` lists track types `low, high, spt` (a track whose blocks are sectors `low`
//! to `high` of `spt`); `IDX` lists index nodes, the last one the root, each a flat list of
//! entries `lbn, cyl, off, len, cyllen, alen, runlen, cylrunlen, TRACK|IDX, child[, head]`
//! (the head after a `TRACK` child only). An entry covers blocks `lbn .. lbn + runlen` of its
//! parent's instance: instance `q` of its child (`len` blocks each, the last one cut short
//! at `runlen`) starts `q * cyllen` cylinders on from `cyl` (back, when `cylrunlen` is
//! negative) and `off + q * alen` revolutions round, both relative to the parent's instance;
//! a `TRACK` child puts the instance's blocks on sectors `low ..` of that cylinder's track
//! `head`, sector `s` starting `s / spt` of a revolution after the track's angle (`g4_skew`).
//! `Slips` lists `lbn, count` pairs in the table's block numbering: `count` positions from
//! `lbn` hold no block, and the blocks after them slide on (`slipcount`). `Remaps` lists
//! `lbn, count, cylinder, head, sector, spt`: blocks `lbn ..` (counted before the slips) are
//! kept from that sector on, and their own positions stay empty (`remap_lbn`).
//!
//! Bounds: every entry must tile its parent's instance from block 0 with no gap or overlap
//! (DiskSim's lookup would leave a block unmapped or shadow one), at most
//! [`MAX_DEPTH`] levels (DiskSim's path holds 16, which also stops a cycle), and the table
//! expands to at most the drive's cylinders times surfaces tracks (and [`MAX_TRACKS`]).

mod zones;

use std::path::Path;

use super::{Block, Value};

pub(super) use zones::to_zones;

/// Deepest index tree accepted: DiskSim's `g4_path` holds 16 nodes.
pub const MAX_DEPTH: usize = 16;

/// Most tracks a table may expand to, whatever the drive's geometry says (32 bytes each).
pub const MAX_TRACKS: u64 = 1 << 22;

/// A track type: blocks on sectors `0 ..= high` of `spt`.
#[derive(Clone, Copy, Debug)]
struct TrackType {
    high: u32,
    spt: u32,
}

#[derive(Clone, Copy, Debug)]
enum Child {
    Idx(usize),
    Track(usize, u32),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    lbn: i64,
    cyl: i64,
    off: f64,
    len: i64,
    cyllen: i64,
    alen: f64,
    runlen: i64,
    cylrunlen: i64,
    child: Child,
}

/// A remapped run of blocks: `count` blocks from `lbn` kept from `sector` of the track.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Remap {
    pub lbn: u64,
    pub count: u64,
    pub cyl: u32,
    pub head: u32,
    pub sector: u32,
    pub spt: u32,
}

/// One track of the expanded table, in block order: where it lies, its sectors, how many
/// of the table's block positions it holds (its sectors `0 .. blocks`), and the angle of its
/// sector 0 in revolutions, in `[0, 1)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Track {
    pub cyl: u32,
    pub head: u32,
    pub spt: u32,
    pub blocks: u32,
    pub angle: f64,
}

/// A table read and expanded: its tracks in block order, its slips (`[first, count]`
/// positions, sorted, apart) and its remaps; `kind` names the layout in messages, and
/// `exact_skews` takes skews between tracks as they are (DiskSim's fixed-point angles)
/// instead of rounding those within a millionth of a sector to whole sectors.
#[derive(Clone, Debug)]
pub(super) struct Table {
    pub tracks: Vec<Track>,
    pub slips: Vec<[u64; 2]>,
    pub remaps: Vec<Remap>,
    pub kind: &'static str,
    pub exact_skews: bool,
}

/// The drive's geometry a table must fit.
#[derive(Clone, Copy, Debug)]
pub(super) struct Geometry {
    pub cylinders: u32,
    pub heads: u32,
    pub blocks: u64,
}

struct Reader<'a> {
    file: &'a Path,
    types: Vec<TrackType>,
    nodes: Vec<Vec<Entry>>,
    geo: Geometry,
    tracks: Vec<Track>,
    limit: u64,
}

/// Numbers of a list key, each checked whole (or any number for the angles).
fn numbers<'a>(layout: &'a Block, key: &str, file: &Path) -> Result<&'a [Value], String> {
    match layout.get(key) {
        None => Ok(&[]),
        Some(Value::List(l)) => Ok(l),
        Some(_) => Err(format!(
            "{}: `{key}` of dm_layout_g4 must be a list",
            file.display()
        )),
    }
}

fn whole(v: &Value, what: &dyn Fn() -> String, file: &Path) -> Result<i64, String> {
    let x = real(v, what, file)?;
    if x.fract() != 0.0 || x.abs() > (1u64 << 40) as f64 {
        return Err(format!(
            "{}: {} must be a whole number of at most 2^40 in size; got {x}",
            file.display(),
            what()
        ));
    }
    Ok(x as i64)
}

fn real(v: &Value, what: &dyn Fn() -> String, file: &Path) -> Result<f64, String> {
    match v {
        Value::Scalar(s) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| {
                format!(
                    "{}: {} must be a number; got `{}`",
                    file.display(),
                    what(),
                    s.trim()
                )
            }),
        _ => Err(format!("{}: {} must be a number", file.display(), what())),
    }
}

/// Reads and expands the table of a `dm_layout_g4` block.
pub(super) fn read_table(layout: &Block, geo: Geometry, file: &Path) -> Result<Table, String> {
    let limit = (u64::from(geo.cylinders) * u64::from(geo.heads)).min(MAX_TRACKS);
    let mut r = Reader {
        file,
        types: Vec::new(),
        nodes: Vec::new(),
        geo,
        tracks: Vec::new(),
        limit,
    };
    r.read_types(numbers(layout, "TP", file)?)?;
    r.read_nodes(numbers(layout, "IDX", file)?)?;
    let root = r.nodes.len().checked_sub(1).ok_or_else(|| {
        format!(
            "{}: `IDX` of dm_layout_g4 is empty: the last index node is the root",
            file.display()
        )
    })?;
    let extent = r.nodes[root]
        .iter()
        .try_fold(0i64, |at, e| (e.lbn == at).then_some(at + e.runlen))
        .ok_or_else(|| {
            format!(
                "{}: `IDX` root node {root}: its entries must tile the blocks from 0 (each `lbn` the previous entry's `lbn + runlen`)",
                file.display()
            )
        })?;
    r.walk(root, 0, 0.0, extent as u64, 1)?;
    let total: u64 = r.tracks.iter().map(|t| u64::from(t.blocks)).sum();
    let slips = read_slips(numbers(layout, "Slips", file)?, total, file)?;
    let remaps = read_remaps(numbers(layout, "Remaps", file)?, geo, file)?;
    Ok(Table {
        tracks: r.tracks,
        slips,
        remaps,
        kind: "g4",
        exact_skews: false,
    })
}

impl Reader<'_> {
    fn read_types(&mut self, list: &[Value]) -> Result<(), String> {
        if !list.len().is_multiple_of(3) {
            return Err(format!(
                "{}: `TP` of dm_layout_g4 must hold triples (low, high, spt); got {} numbers",
                self.file.display(),
                list.len()
            ));
        }
        for (i, t) in list.chunks_exact(3).enumerate() {
            let what = |f: &'static str| move || format!("`TP` track type {i} `{f}`");
            let low = whole(&t[0], &what("low"), self.file)?;
            let high = whole(&t[1], &what("high"), self.file)?;
            let spt = whole(&t[2], &what("spt"), self.file)?;
            if !(1..=100_000).contains(&spt) || low != 0 || !(0..spt).contains(&high) {
                return Err(format!(
                    "{}: `TP` track type {i} ({low}, {high}, {spt}): spt must be 1 to 100000, low 0 (DiskSim's ltop and ptol disagree on any other) and high below spt",
                    self.file.display()
                ));
            }
            self.types.push(TrackType {
                high: high as u32,
                spt: spt as u32,
            });
        }
        Ok(())
    }

    fn read_nodes(&mut self, list: &[Value]) -> Result<(), String> {
        for (i, node) in list.iter().enumerate() {
            let Value::List(items) = node else {
                return Err(format!(
                    "{}: `IDX` node {i} must be a list of entries",
                    self.file.display()
                ));
            };
            let mut entries = Vec::new();
            let mut at = 0;
            while at < items.len() {
                let e = self.read_entry(items, &mut at, i, entries.len(), list.len())?;
                entries.push(e);
            }
            self.nodes.push(entries);
        }
        Ok(())
    }

    /// One entry of node `node` from `items[*at..]` (10 values, 11 after `TRACK`).
    fn read_entry(
        &self,
        items: &[Value],
        at: &mut usize,
        node: usize,
        n: usize,
        nodes: usize,
    ) -> Result<Entry, String> {
        let file = self.file;
        let short = || {
            format!(
                "{}: `IDX` node {node} entry {n} is cut short: an entry holds lbn, cyl, off, len, cyllen, alen, runlen, cylrunlen, TRACK or IDX, child (and head after TRACK)",
                file.display()
            )
        };
        let need = if matches!(items.get(*at + 8), Some(Value::Scalar(s)) if s.trim() == "TRACK") {
            11
        } else {
            10
        };
        let v = items.get(*at..*at + need).ok_or_else(short)?;
        *at += need;
        let what = |f: &'static str| move || format!("`IDX` node {node} entry {n} `{f}`");
        let kind = match &v[8] {
            Value::Scalar(s) => s.trim().to_string(),
            _ => String::new(),
        };
        let index = whole(&v[9], &what("child"), file)?;
        let bad_child = |count: usize| {
            format!(
                "{}: `IDX` node {node} entry {n} names {kind} {index}, but there are {count}",
                file.display()
            )
        };
        let child = match kind.as_str() {
            "TRACK" => {
                let head = whole(&v[10], &what("head"), file)?;
                if !(0..i64::from(self.geo.heads)).contains(&head) {
                    return Err(format!(
                        "{}: `IDX` node {node} entry {n}: head {head} must be below the {} surfaces",
                        file.display(),
                        self.geo.heads
                    ));
                }
                if !(0..self.types.len() as i64).contains(&index) {
                    return Err(bad_child(self.types.len()));
                }
                Child::Track(index as usize, head as u32)
            }
            "IDX" => {
                if !(0..nodes as i64).contains(&index) {
                    return Err(bad_child(nodes));
                }
                Child::Idx(index as usize)
            }
            _ => {
                return Err(format!(
                    "{}: `IDX` node {node} entry {n}: the child's kind must be TRACK or IDX; got `{kind}`",
                    file.display()
                ))
            }
        };
        let e = Entry {
            lbn: whole(&v[0], &what("lbn"), file)?,
            cyl: whole(&v[1], &what("cyl"), file)?,
            off: real(&v[2], &what("off"), file)?,
            len: whole(&v[3], &what("len"), file)?,
            cyllen: whole(&v[4], &what("cyllen"), file)?,
            alen: real(&v[5], &what("alen"), file)?,
            runlen: whole(&v[6], &what("runlen"), file)?,
            cylrunlen: whole(&v[7], &what("cylrunlen"), file)?,
            child,
        };
        if e.len < 1 || e.runlen < 1 || e.lbn < 0 || e.cyllen < 0 {
            return Err(format!(
                "{}: `IDX` node {node} entry {n}: len and runlen must be at least 1, lbn and cyllen not negative; got len {}, runlen {}, lbn {}, cyllen {}",
                file.display(),
                e.len,
                e.runlen,
                e.lbn,
                e.cyllen
            ));
        }
        Ok(e)
    }

    /// Expands an instance of node `node` holding `extent` blocks, at cylinder `cyl` and
    /// angle `angle` (revolutions), `depth` levels down.
    fn walk(
        &mut self,
        node: usize,
        cyl: i64,
        angle: f64,
        extent: u64,
        depth: usize,
    ) -> Result<(), String> {
        let file = self.file;
        if depth > MAX_DEPTH {
            return Err(format!(
                "{}: `IDX` node {node} lies more than {MAX_DEPTH} levels below the root (a cycle, or deeper than DiskSim's g4 path holds)",
                file.display()
            ));
        }
        let mut at = 0u64;
        for n in 0..self.nodes[node].len() {
            let e = self.nodes[node][n];
            if at >= extent {
                break;
            }
            if e.lbn as u64 != at {
                return Err(format!(
                    "{}: `IDX` node {node} entry {n} starts at block {} but the entries before it end at {at}: entries must tile their node with no gap or overlap",
                    file.display(),
                    e.lbn
                ));
            }
            let run = (e.runlen as u64).min(extent - at);
            let len = e.len as u64;
            for q in 0..run.div_ceil(len) {
                let part = len.min(run - q * len);
                // Saturating: a cylinder this far out is refused at its track.
                let step = (q as i64).saturating_mul(e.cyllen);
                let step = if e.cylrunlen < 0 { -step } else { step };
                let c = cyl.saturating_add(e.cyl).saturating_add(step);
                let a = angle + e.off + q as f64 * e.alen;
                match e.child {
                    Child::Idx(k) => self.walk(k, c, a, part, depth + 1)?,
                    Child::Track(t, head) => self.track(node, n, t, head, c, a, part)?,
                }
            }
            at += run;
        }
        if at < extent {
            return Err(format!(
                "{}: `IDX` node {node} maps {at} blocks, but its parent's entry gives it {extent}: blocks {at} to {} would be unmapped",
                file.display(),
                extent - 1
            ));
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn track(
        &mut self,
        node: usize,
        n: usize,
        t: usize,
        head: u32,
        cyl: i64,
        angle: f64,
        part: u64,
    ) -> Result<(), String> {
        let file = self.file;
        let ty = self.types[t];
        if part > u64::from(ty.high) + 1 {
            return Err(format!(
                "{}: `IDX` node {node} entry {n} puts {part} blocks on track type {t}, which holds {} (sectors 0 to {})",
                file.display(),
                ty.high + 1,
                ty.high
            ));
        }
        if !(0..i64::from(self.geo.cylinders)).contains(&cyl) {
            return Err(format!(
                "{}: `IDX` node {node} entry {n} puts a track on cylinder {cyl}, outside the drive's 0 to {}",
                file.display(),
                i64::from(self.geo.cylinders) - 1
            ));
        }
        if self.tracks.len() as u64 >= self.limit {
            return Err(format!(
                "{}: the `IDX` table expands to more than {} tracks (the drive's cylinders times surfaces, at most {MAX_TRACKS})",
                file.display(),
                self.limit
            ));
        }
        self.tracks.push(Track {
            cyl: cyl as u32,
            head,
            spt: ty.spt,
            blocks: part as u32,
            angle: angle.rem_euclid(1.0),
        });
        Ok(())
    }
}

/// `Slips`: `lbn, count` pairs, sorted, apart, inside the table's `total` positions.
fn read_slips(list: &[Value], total: u64, file: &Path) -> Result<Vec<[u64; 2]>, String> {
    if !list.len().is_multiple_of(2) {
        return Err(format!(
            "{}: `Slips` of dm_layout_g4 must hold pairs (lbn, count); got {} numbers",
            file.display(),
            list.len()
        ));
    }
    let mut slips: Vec<[u64; 2]> = Vec::new();
    for (i, p) in list.chunks_exact(2).enumerate() {
        let what = |f: &'static str| move || format!("`Slips` pair {i} `{f}`");
        let (lbn, count) = (
            whole(&p[0], &what("lbn"), file)?,
            whole(&p[1], &what("count"), file)?,
        );
        let end = slips.last().map_or(0, |s| s[0] + s[1]);
        if count < 0 || lbn < end as i64 || (lbn + count) as u64 > total {
            return Err(format!(
                "{}: `Slips` pair {i} ({lbn}, {count}): counts must not be negative (spares in the slip list are not supported), pairs sorted and apart (this one must start at or after {end}), and inside the table's {total} block positions",
                file.display()
            ));
        }
        if count > 0 {
            slips.push([lbn as u64, count as u64]);
        }
    }
    Ok(slips)
}

/// `Remaps`: `lbn, count, cylinder, head, sector, spt` rows, blocks below the block count,
/// on a track of the drive, runs apart.
fn read_remaps(list: &[Value], geo: Geometry, file: &Path) -> Result<Vec<Remap>, String> {
    if !list.len().is_multiple_of(6) {
        return Err(format!(
            "{}: `Remaps` of dm_layout_g4 must hold rows of six (lbn, count, cylinder, head, sector, spt); got {} numbers",
            file.display(),
            list.len()
        ));
    }
    let mut remaps: Vec<Remap> = Vec::new();
    for (i, row) in list.chunks_exact(6).enumerate() {
        let mut v = [0i64; 6];
        for (k, f) in ["lbn", "count", "cylinder", "head", "sector", "spt"]
            .iter()
            .enumerate()
        {
            v[k] = whole(&row[k], &|| format!("`Remaps` row {i} `{f}`"), file)?;
        }
        let [lbn, count, cyl, head, sector, spt] = v;
        let ok = lbn >= 0
            && count >= 1
            && (lbn + count) as u64 <= geo.blocks
            && (0..i64::from(geo.cylinders)).contains(&cyl)
            && (0..i64::from(geo.heads)).contains(&head)
            && (1..=100_000).contains(&spt)
            && sector >= 0
            && sector + count <= spt;
        if !ok {
            return Err(format!(
                "{}: `Remaps` row {i} ({lbn}, {count}, {cyl}, {head}, {sector}, {spt}): the blocks must lie below the block count {}, the destination on cylinders 0 to {}, heads 0 to {}, and its sectors below its spt (1 to 100000)",
                file.display(),
                geo.blocks,
                i64::from(geo.cylinders) - 1,
                i64::from(geo.heads) - 1
            ));
        }
        remaps.push(Remap {
            lbn: lbn as u64,
            count: count as u64,
            cyl: cyl as u32,
            head: head as u32,
            sector: sector as u32,
            spt: spt as u32,
        });
    }
    remaps.sort_by_key(|r| r.lbn);
    if let Some(w) = remaps.windows(2).find(|w| w[0].lbn + w[0].count > w[1].lbn) {
        return Err(format!(
            "{}: `Remaps` rows for blocks {} and {} overlap: each block is remapped at most once",
            file.display(),
            w[0].lbn,
            w[1].lbn
        ));
    }
    Ok(remaps)
}

#[cfg(test)]
mod tests;
