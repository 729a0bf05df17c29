//! Import of a drive described for DiskSim: a `NAME.diskspecs` file (controller, cache and
//! overheads), the mechanical and layout model it sources (`Model = source FILE`) and the
//! seek curve that model names (`Full seek curve = FILE`), turned into storlab's HDD
//! parameters (docs/models.md lists each key).
//!
//! What is taken from where:
//! - layout: surfaces, block count, each zone's cylinders, blocks per track, skews for a
//!   track and a cylinder switch, front space, spares and slipped sectors; DiskSim's
//!   sparing schemes map to `sparing` (track sparing to `tracks`, sectors per cylinder or
//!   per range of one cylinder to `sectors_per_cylinder`, sectors per range of several
//!   cylinders to `sectors_per_range` with `spare_range_cylinders` from `Rangesize for
//!   sparing`, sectors per track to `sectors_per_track`, sectors at the front of each
//!   cylinder (schemes 5 and 6) to `sectors_per_cylinder_at_front`, sectors at the end of
//!   each zone (9, and 10 with the zone's slips among them) to `sectors_per_zone`; spares
//!   at the end of the disk move no block); or a `dm_layout_g4` table (g4.rs) or a
//!   `dm_layout_g2` extent map (g2.rs), carried into zones with exactly its mapping. When the spares as read leave fewer blocks than the block
//!   count, they are not counted. Defects remapped to a spare become the zone's `remaps`
//!   (one remapped to itself moves nothing); the `LBN-to-PBN mapping scheme` becomes
//!   `surface_order` (0 ascending, 1 alternating from each zone's first cylinder, 2 on odd
//!   cylinders).
//! - mechanics: rotation speed, head switch, additional write settle (negative on a drive
//!   whose writes position faster than its seek curve), the seek curve: the measured table
//!   (`Seek type = extracted`, or any type when `Full seek curve` names a file), or
//!   `hplplus10`: the first ten measured seek times then `a + b*sqrt(d)` below the boundary
//!   distance and `c + e*d` beyond (`HPL seek equation values`), or the three-point forms
//!   `linear` and `curve` and a `constant` seek, sampled into a table. Skews and first-block
//!   offsets in whole sectors, or in revolutions (`Skew units`).
//! - controller: the eight overheads (read or write, hit or miss, after a read or a write,
//!   each with the per-request overhead, all scaled by `Time scale for overheads`),
//!   the completion overheads, and the overheads of a drive that disconnects while it
//!   positions (data preparation, first reselect, read and write disconnects; the extra
//!   write disconnect with its own times and the other reselect); the bulk sector transfer
//!   time, or the slower block transfer time of the buses (or the controller's bulk sector
//!   transfer time) in `NAME.parv` when one lies beside the file, as the interface rate (one rate for both directions); buffer segments
//!   and their size, maximum read-ahead, whether the read's own data stays buffered
//!   (`Read-ahead over requested`: DiskSim drops it only at -1), where read-ahead stops (`Buffer continuous read`: track, cylinder,
//!   segment, or a track ahead of a stream and none after an isolated read), the minimum
//!   read-ahead a command that needs the head waits for (and whether a write on the data
//!   read ahead stops it at once), the read water mark as a share of
//!   the request (or of the segment, `Set watermark by reqsize = 0`), whether a partial
//!   hit waits for it (`Immed transfer partial hit = 0`), whether reads may hit on a
//!   write's data and writes on buffered data, the minimum seek delay (before a write), fast writes (any level) as write
//!   caching; the queue length. A drive that never disconnects pays no disconnect or
//!   reselect overhead and keeps no read water mark.
//!
//! Every other key is checked (support.rs): a value the model cannot honour is refused.

mod g2;
mod g4;
mod parts;
mod replay;
mod support;
mod syntax;

use std::path::{Path, PathBuf};

use super::hdd::{HddParams, ReadaheadLimit, Scheduler};
use parts::{
    extra_write_disconnect, overheads, sector_transfer_ms, seek_curve, seek_summary, surface_order,
    zones,
};
pub use replay::{
    demerit, parse_trace, quantiles, read_trace, replay, Replay, TraceRequest, DEMERIT_QUANTILES,
};
pub use syntax::{parse, Block, Value};

/// A drive read from a DiskSim description.
#[derive(Clone, Debug)]
pub struct ImportedDrive {
    /// The drive's name in the description (`QUANTUM_QM39100TD-SW`).
    pub disksim_name: String,
    /// Its parameters.
    pub params: HddParams,
    /// What the import could not carry over exactly, in words (one line each).
    pub notes: Vec<String>,
}

fn read(path: &Path) -> Result<String, String> {
    storlab_core::input::read_text_bounded(path, storlab_core::input::TEXT_MAX_BYTES)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))
}

fn need(b: &Block, key: &str, file: &Path) -> Result<f64, String> {
    b.num(key).ok_or_else(|| {
        format!(
            "{}: `{key}` is missing or not a number in block `{}`",
            file.display(),
            b.header
        )
    })
}

/// The file a `source FILE` or plain `FILE` value names, beside `from`.
fn sourced(value: &str, from: &Path) -> PathBuf {
    let name = value.trim().trim_start_matches("source").trim();
    from.parent().unwrap_or(Path::new(".")).join(name)
}

/// Imports `NAME.diskspecs` and the files it names.
pub fn import(diskspecs: &Path) -> Result<ImportedDrive, String> {
    let blocks = parse(&read(diskspecs)?).map_err(|e| format!("{}: {e}", diskspecs.display()))?;
    let disk = blocks
        .iter()
        .find(|b| b.header.starts_with("disksim_disk"))
        .ok_or_else(|| {
            format!(
                "{}: no `disksim_disk NAME {{ ... }}` block",
                diskspecs.display()
            )
        })?;
    let disksim_name = disk
        .header
        .trim_start_matches("disksim_disk")
        .trim()
        .to_string();
    let model_ref = disk
        .word("Model")
        .ok_or_else(|| format!("{}: `Model = source FILE` is missing", diskspecs.display()))?;
    let mut notes = Vec::new();
    support::check_disk(disk, diskspecs, &mut notes)?;
    let model_path = sourced(model_ref, diskspecs);
    let model_blocks =
        parse(&read(&model_path)?).map_err(|e| format!("{}: {e}", model_path.display()))?;
    let model = model_blocks
        .first()
        .ok_or_else(|| format!("{}: no model block", model_path.display()))?;
    let mech = model.block("Mechanical Model").ok_or_else(|| {
        format!(
            "{}: `Mechanical Model` block is missing",
            model_path.display()
        )
    })?;
    let layout = model
        .block("Layout Model")
        .ok_or_else(|| format!("{}: `Layout Model` block is missing", model_path.display()))?;
    support::check_model(model, layout, mech, &model_path, &mut notes)?;
    let heads = need(model, "Number of data surfaces", &model_path)? as u32;
    let cylinders = need(model, "Number of cylinders", &model_path)? as u32;
    let blocks = need(model, "Block count", &model_path)? as u64;
    let rpm_exact = need(mech, "Rotation speed (in rpms)", &model_path)?;
    let geo = g4::Geometry {
        cylinders,
        heads,
        blocks,
    };
    let (table, remapped) = match layout.header.trim() {
        "dm_layout_g4" => (Some(g4::read_table(layout, geo, &model_path)?), Vec::new()),
        "dm_layout_g2" => {
            let (table, remapped) = g2::read_table(layout, geo, &model_path)?;
            (Some(table), remapped)
        }
        _ => (None, Vec::new()),
    };
    let table = match table {
        Some(t) => Some(g4::to_zones(t, geo, &model_path)?),
        None => None,
    };
    if let Some(t) = &table {
        g2::check_remapped(&remapped, &t.zones, heads, &model_path)?;
    }
    let (zone_table, sparing, spare_range_cylinders) = match &table {
        Some(t) => (t.zones.clone(), t.sparing, 1),
        None => zones(layout, heads, blocks, &model_path, &mut notes)?,
    };
    let seek_curve = seek_curve(mech, cylinders, &model_path)?;
    let settle = mech.num("Add. write settling delay").unwrap_or(0.0);
    let rpm = rpm_exact.round() as u32;
    let rate = |spt: u32| f64::from(spt) * 512.0 * f64::from(rpm) / 60.0 / 1e6;
    let (outer, inner) = (
        zone_table
            .first()
            .map_or(1.0, |z| rate(z.sectors_per_track)),
        zone_table.last().map_or(1.0, |z| rate(z.sectors_per_track)),
    );
    let overheads = overheads(disk, diskspecs)?;
    let (sector_ms, write_sector_ms) = sector_transfer_ms(disk, diskspecs, &mut notes);
    let mbps = |ms: f64| if ms > 0.0 { 0.512 / ms } else { 1000.0 };
    let (t1, tavg, tfull) = seek_summary(&seek_curve, cylinders);
    let caching = disk.num("Enable caching in buffer").unwrap_or(0.0) > 0.0;
    let min_readahead = min_readahead(disk, diskspecs)?;
    // DiskSim raises the most read-ahead to the least.
    let readahead = disk
        .num("Maximum read-ahead (blks)")
        .unwrap_or(0.0)
        .max(0.0)
        .max(min_readahead);
    let queue = disk
        .num("Max queue length")
        .unwrap_or(1.0)
        .clamp(1.0, 256.0) as u32;
    let mut params = HddParams {
        rpm,
        capacity_gb: (blocks as f64 + 0.5) * 512.0 / 1e9,
        heads,
        zones: zone_table.len() as u32,
        media_rate_outer_mbps: outer.max(inner),
        media_rate_inner_mbps: inner.min(outer),
        seek_track_to_track_ms: t1,
        seek_avg_ms: tavg,
        seek_full_stroke_ms: tfull,
        head_switch_ms: need(mech, "Head switch time", &model_path)?.max(0.0),
        write_settle_ms: settle,
        command_overhead_ms: overheads.read_miss_after_read,
        interface_mbps: mbps(sector_ms),
        interface_write_mbps: if write_sector_ms == sector_ms {
            0.0
        } else {
            mbps(write_sector_ms)
        },
        queue_depth: queue,
        scheduler: if queue > 1 {
            Scheduler::Sptf
        } else {
            Scheduler::Fifo
        },
        readahead_kib: if caching {
            (readahead / 2.0).ceil() as u32
        } else {
            0
        },
        max_queue_age_ms: 1000.0,
        seek_curve,
        zone_table,
        sparing,
        spare_range_cylinders,
        surface_order: surface_order(layout),
        command_overheads_ms: Some(Box::new(overheads)),
        cache_segments: if caching {
            disk.num("Number of buffer segments")
                .unwrap_or(1.0)
                .clamp(1.0, 64.0) as u32
        } else {
            0
        },
        // DiskSim drops the read's data from its segment only at -1.
        cache_keeps_read_data: disk.num("Read-ahead over requested").unwrap_or(0.0) != -1.0,
        // Read-ahead is whole KiB, rounded up: the segment grows by what the rounding added,
        // so that it holds the read-ahead as the drive's holds its own.
        cache_segment_kib: match disk.num("Segment size (in blks)") {
            Some(blocks) if caching && blocks > 0.0 => {
                let rounding = (readahead / 2.0).ceil() - readahead / 2.0;
                blocks.min(2_097_150.0) / 2.0 + rounding
            }
            _ => 0.0,
        },
        write_cache: caching && disk.num("Fast write level").unwrap_or(0.0) > 0.0,
        readahead_limit: match disk.num("Buffer continuous read").unwrap_or(3.0) as i64 {
            1 => ReadaheadLimit::Track,
            2 => ReadaheadLimit::Cylinder,
            4 => ReadaheadLimit::TrackOrStream,
            _ => ReadaheadLimit::Segment,
        },
        // A drive that never disconnects sends a read's data as it comes.
        read_watermark: disk
            .num("High (read) water mark")
            .filter(|_| disk.num("Never disconnect").unwrap_or(0.0) == 0.0)
            .unwrap_or(0.0)
            .clamp(0.0, 1.0),
        write_seek_min_ms: disk
            .num("Minimum seek delay")
            .unwrap_or(0.0)
            .clamp(0.0, 1000.0),
        extra_write_disconnect_ms: extra_write_disconnect(disk).map(Box::new),
        readahead_after_hit: disk.num("Read-ahead on idle hit").unwrap_or(0.0) != 0.0,
        readahead_min_kib: if caching { min_readahead / 2.0 } else { 0.0 },
        write_hit_keeps_readahead: disk.num("Write hit stop prefetch").unwrap_or(1.0) == 0.0,
        read_watermark_kib: fixed_watermark_kib(disk),
        partial_hit_waits: disk.num("Immed transfer partial hit") == Some(0.0),
        write_data_unreadable: disk.num("Allow read hits on write data") == Some(0.0),
        writes_never_hit: disk.num("Combine seq writes") == Some(0.0),
    };
    if disk.num("Buffer continuous read") == Some(0.0) {
        params.readahead_kib = 0;
        params.readahead_min_kib = 0.0;
    }
    if (rpm_exact - f64::from(rpm)).abs() > 1e-9 {
        notes.push(format!("rotation speed {rpm_exact} rpm rounded to {rpm}"));
    }
    // Values DiskSim accepts can still lie outside what a storlab model allows (an overhead
    // of hours): refused here, naming the description, rather than when the model runs.
    crate::device::hdd::check_params(&params).map_err(|e| {
        format!(
            "{}: the drive's values make a model storlab cannot run: {e}",
            diskspecs.display()
        )
    })?;
    if let Some(t) = &table {
        t.verify(&params)?;
    }
    Ok(ImportedDrive {
        disksim_name,
        params,
        notes,
    })
}

/// `Minimum read-ahead (blks)`: whole blocks from 0 to the segment size, as DiskSim
/// accepts it (a drive that reads nothing ahead, `Buffer continuous read = 0`, has it set
/// to 0 with its read-ahead at the end of [`import`]).
fn min_readahead(disk: &Block, file: &Path) -> Result<f64, String> {
    let v = disk.num("Minimum read-ahead (blks)").unwrap_or(0.0);
    let segment = disk.num("Segment size (in blks)").unwrap_or(0.0);
    if !(v.fract() == 0.0 && v >= 0.0 && v <= segment.max(0.0)) {
        return Err(format!(
            "{}: `Minimum read-ahead (blks) = {v}` must be whole blocks from 0 to the segment size ({segment}), as DiskSim 4.0 requires",
            file.display()
        ));
    }
    Ok(v)
}

/// The read water mark of a drive that sets it by the segment (`Set watermark by reqsize =
/// 0`): the high water mark's share of the segment, rounded up to whole blocks, as KiB; 0
/// when it sets it by the request, or never disconnects (it keeps none).
fn fixed_watermark_kib(disk: &Block) -> f64 {
    let by_segment = disk.num("Set watermark by reqsize") == Some(0.0)
        && disk.num("Never disconnect").unwrap_or(0.0) == 0.0;
    let share = disk
        .num("High (read) water mark")
        .unwrap_or(0.0)
        .clamp(0.0, 1.0);
    let segment = disk
        .num("Segment size (in blks)")
        .unwrap_or(0.0)
        .clamp(0.0, 2_097_150.0);
    if by_segment {
        (segment * share).ceil() / 2.0
    } else {
        0.0
    }
}

/// The drive as its datasheet describes it: the same rotation speed, capacity, heads, zone
/// count, media rates, three-point seek summary (track-to-track, average, full stroke), head
/// switch, write settle, one command overhead, interface rate, queue and read-ahead, but none
/// of the measured tables (seek curve, zone table with skews, spares and slips, overheads by
/// command kind, buffer segments and their read-ahead rules). Replaying a trace through both
/// forms shows what the measured parameters are worth, and what a model built from a
/// datasheet alone (like the built-in `hdd-*` models) can be expected to miss.
pub fn datasheet_form(p: &HddParams) -> HddParams {
    HddParams {
        seek_curve: Vec::new(),
        zone_table: Vec::new(),
        sparing: Default::default(),
        spare_range_cylinders: 1,
        surface_order: Default::default(),
        command_overheads_ms: None,
        cache_segments: 0,
        cache_keeps_read_data: false,
        cache_segment_kib: 0.0,
        readahead_limit: Default::default(),
        read_watermark: 0.0,
        interface_write_mbps: 0.0,
        write_seek_min_ms: 0.0,
        extra_write_disconnect_ms: None,
        readahead_after_hit: false,
        readahead_min_kib: 0.0,
        write_hit_keeps_readahead: false,
        read_watermark_kib: 0.0,
        partial_hit_waits: false,
        write_data_unreadable: false,
        writes_never_hit: false,
        ..p.clone()
    }
}

/// The drive as a `[disk_models.NAME]` table (TOML), with a header saying where it came
/// from and what the import could not carry over.
pub fn to_toml(name: &str, drive: &ImportedDrive, source: &Path) -> Result<String, String> {
    let model = super::DiskModel::Hdd(drive.params.clone());
    let table = toml::Table::try_from(&model).map_err(|e| e.to_string())?;
    let mut models = toml::Table::new();
    models.insert(name.to_string(), toml::Value::Table(table));
    let mut root = toml::Table::new();
    root.insert("disk_models".into(), toml::Value::Table(models));
    let body = toml::to_string(&root).map_err(|e| e.to_string())?;
    let mut out = format!(
        "# {} imported from {} by `storlab drive import`.\n# Use it with disk_model = \"{name}\".\n",
        drive.disksim_name,
        source.display()
    );
    for n in &drive.notes {
        out += &format!("# Note: {n}.\n");
    }
    Ok(out + &body)
}

#[cfg(test)]
mod test_copies;
#[cfg(test)]
mod tests;
