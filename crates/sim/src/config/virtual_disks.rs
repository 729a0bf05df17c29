//! Virtualized arrays: disk groups spanning many disks, and virtual disks striped over the
//! whole group at VRAID 0, 1 or 5 (EVA-style). Each virtual disk becomes a group of the model
//! that shares the disk group's devices at its own offset on every disk.

use serde::{Deserialize, Serialize};
use storlab_core::ByteSize;

use super::limits;
use super::resolve::arrays::Owners;
use super::resolve::{GroupSpec, MirrorRead};
use super::ConfigError;
use crate::device::DiskModel;
use crate::raid::sets::{reserve_sectors, split_sets, SetLayout, SetParams, Sparing};
use crate::raid::{Layout, RaidLevel};

/// A disk group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskGroupFile {
    /// Name; its disks are `name.d0` ...
    pub name: String,
    /// Disks in the group.
    pub disks: u32,
    /// Built-in or user disk model.
    pub disk_model: String,
    /// Spare disks of the group.
    pub spares: u32,
    /// Redundancy sets with distributed sparing: `none`, `single` or `double`.
    #[serde(default)]
    pub sparing: Option<String>,
    /// Target disks per redundancy set.
    pub set_disks: u32,
    /// Allocation segment.
    pub segment_size: ByteSize,
    /// The `[[arrays]]` entry it belongs to (None: the file's only array).
    #[serde(default)]
    pub array: Option<String>,
}

/// One virtual disk entry (`count` identical ones).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VirtualDiskFile {
    /// Name; with `count` > 1: `name-0`, `name-1`, ...
    pub name: String,
    /// How many.
    pub count: u32,
    /// Disk group it lives in.
    pub disk_group: String,
    /// `vraid0`, `vraid1` or `vraid5`.
    pub level: String,
    /// Usable size.
    pub size: ByteSize,
    /// Chunk per disk.
    pub stripe_unit: ByteSize,
    /// Owning controller (default round-robin).
    #[serde(default)]
    pub controller: Option<u32>,
    /// Read cache on.
    pub read_cache: bool,
    /// Write-back caching on.
    pub write_cache: bool,
}

/// A disk group, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct DiskGroupSpec {
    /// Name.
    pub name: String,
    /// Disks.
    pub disks: u32,
    /// Spares.
    pub spares: u32,
    /// Model name.
    pub model_name: String,
    /// Model.
    pub model: DiskModel,
    /// Redundancy sets with distributed sparing (None: virtual disks stripe over all disks).
    pub sets: Option<RedundancySets>,
    /// The array it belongs to (0 in a file without `[[arrays]]`).
    pub array: u32,
}

/// A disk group laid out as redundancy sets.
#[derive(Clone, Debug, PartialEq)]
pub struct RedundancySets {
    pub sparing: Sparing,
    /// `(first disk, disks)` of each set.
    pub sets: Vec<(u32, u32)>,
    pub segment_sectors: u64,
    /// Reserved sectors at the end of every disk.
    pub reserve_sectors: u64,
}

/// Virtual disk `v`'s `n`th group at `offset` sectors of each disk of disk group `dg`, owned
/// by system controller `controller`.
fn group_spec(
    v: &VirtualDiskFile,
    n: u32,
    (spec, dg): (&DiskGroupSpec, usize),
    layout: Layout,
    controller: u32,
    offset: u64,
) -> GroupSpec {
    GroupSpec {
        name: if v.count > 1 {
            format!("{}-{n}", v.name)
        } else {
            v.name.clone()
        },
        layout,
        spares: 0,
        model_name: spec.model_name.clone(),
        model: spec.model.clone(),
        controller,
        read_cache: v.read_cache,
        write_cache: v.write_cache,
        mirror_read: MirrorRead::ShortestQueue,
        disk_group: Some(dg as u32),
        disk_offset_sectors: offset,
    }
}

/// Disk group `d` (entry `i`)'s redundancy sets, when it declares `sparing`.
fn redundancy_sets(
    d: &DiskGroupFile,
    i: usize,
    disk_sectors: u64,
    file: &str,
) -> Result<Option<RedundancySets>, ConfigError> {
    let Some(name) = &d.sparing else {
        return Ok(None);
    };
    let key = |k: &str| format!("disk_groups[{i}].{k}");
    let bad = |k: &str, why: String| Err(ConfigError::invalid(file, key(k), why));
    let Some(sparing) = Sparing::parse(name) else {
        return bad(
            "sparing",
            format!("unknown {name:?}; use none, single or double"),
        );
    };
    let (lo, _) = crate::raid::sets::SET_DISKS_RANGE;
    if d.disks < lo {
        return bad(
            "disks",
            format!(
                "must be at least {lo} with `sparing` (one redundancy set); got {}",
                d.disks
            ),
        );
    }
    if d.spares > 0 {
        return bad(
            "spares",
            format!(
                "must be 0 with `sparing`: reserved capacity replaces spare disks; got {}",
                d.spares
            ),
        );
    }
    if !d.segment_size.0.is_power_of_two() {
        return bad(
            "segment_size",
            format!(
                "must be a power of two from {}; got {}",
                super::keys::SEGMENT_SIZE.describe_bounds(),
                d.segment_size
            ),
        );
    }
    let sets = split_sets(d.disks, d.set_disks);
    let smallest = sets.iter().map(|s| s.1).min().unwrap_or(lo);
    Ok(Some(RedundancySets {
        sparing,
        sets,
        segment_sectors: d.segment_size.0 / 512,
        reserve_sectors: reserve_sectors(disk_sectors, smallest, sparing),
    }))
}

/// Virtual disk `v`'s layout over redundancy sets `rs`, with `room` sectors per disk between
/// its start and the reserve.
fn set_layout(
    v: &VirtualDiskFile,
    rs: &RedundancySets,
    room: u64,
    key: &dyn Fn(&str) -> String,
    file: &str,
) -> Result<SetLayout, ConfigError> {
    let level = match v.level.as_str() {
        "vraid0" => RaidLevel::Raid0,
        "vraid1" => RaidLevel::Raid1,
        "vraid5" => RaidLevel::Raid5,
        other => return Err(unknown_level(other, key, file)),
    };
    let su = limits::stripe_unit_bytes(v.stripe_unit, file, key("stripe_unit"))?;
    SetLayout::new(SetParams {
        level,
        unit_sectors: su / 512,
        segment_sectors: rs.segment_sectors,
        sets: rs.sets.clone(),
        size_sectors: v.size.0 / 512,
        reserve_at: room,
        reserve_sectors: rs.reserve_sectors,
    })
    .map_err(|e| ConfigError::invalid(file, key("stripe_unit"), e))
}

/// Resolves virtual disks into groups sharing their disk group's disks.
/// `model_of` resolves a disk model name (built-in or user) for key `key`.
pub(super) fn resolve_virtual_disks(
    (dgs, vds): (&[DiskGroupFile], &[VirtualDiskFile]),
    owners: &mut Owners,
    first_index: usize,
    file: &str,
    model_of: &dyn Fn(&str, &str) -> Result<DiskModel, ConfigError>,
) -> Result<(Vec<DiskGroupSpec>, Vec<GroupSpec>), ConfigError> {
    let mut groups_out = Vec::new();
    let mut dg_specs = Vec::new();
    let mut dg_arrays = Vec::new();
    for (i, d) in dgs.iter().enumerate() {
        dg_arrays.push(owners.array(d.array.as_deref(), &format!("disk_groups[{i}].array"))?);
        let model = model_of(&d.disk_model, &format!("disk_groups[{i}].disk_model"))?;
        let sets = redundancy_sets(d, i, model.capacity_sectors(), file)?;
        dg_specs.push(DiskGroupSpec {
            name: d.name.clone(),
            disks: d.disks,
            spares: d.spares,
            model_name: d.disk_model.clone(),
            model,
            sets,
            array: dg_arrays[i] as u32,
        });
    }
    let mut used = vec![0u64; dgs.len()];
    for (i, v) in vds.iter().enumerate() {
        let key = |k: &str| format!("virtual_disks[{i}].{k}");
        let dg = dgs
            .iter()
            .position(|d| d.name == v.disk_group)
            .ok_or_else(|| {
                ConfigError::invalid(
                    file,
                    key("disk_group"),
                    format!("no disk group named {:?}", v.disk_group),
                )
            })?;
        let spec = &dg_specs[dg];
        limits::check_count(
            file,
            key("count"),
            (first_index + groups_out.len()) as u64 + u64::from(v.count),
            limits::MAX_GROUPS,
            "RAID groups and virtual disks in all",
        )?;
        if let Some(rs) = &spec.sets {
            for n in 0..v.count {
                let cap = spec.model.capacity_sectors() - rs.reserve_sectors;
                let layout = set_layout(v, rs, cap.saturating_sub(used[dg]), &key, file)?;
                let per_disk = layout.data_sectors_per_disk();
                if used[dg] + per_disk > cap {
                    return Err(ConfigError::invalid(
                        file,
                        key("size"),
                        format!(
                            "virtual disks need more than the {} bytes per disk that disk group {} \
                             keeps outside its reserved capacity ({} bytes per disk for sparing)",
                            cap * 512,
                            spec.name,
                            rs.reserve_sectors * 512
                        ),
                    ));
                }
                let owner = owners.owner(dg_arrays[dg], v.controller, &key("controller"))?;
                let layout = Layout::over_sets(layout);
                groups_out.push(group_spec(v, n, (spec, dg), layout, owner, used[dg]));
                used[dg] += per_disk;
            }
            continue;
        }
        let (level, disks) = match v.level.as_str() {
            "vraid0" => (RaidLevel::Raid0, spec.disks),
            // Mirrored pairs over the group; an odd disk out carries no VRAID 1 data.
            "vraid1" => (RaidLevel::Raid10, spec.disks & !1),
            "vraid5" => (RaidLevel::Raid5, spec.disks),
            other => return Err(unknown_level(other, &key, file)),
        };
        let su = limits::stripe_unit_bytes(v.stripe_unit, file, key("stripe_unit"))?;
        let su = su / 512;
        let data_disks = match level {
            RaidLevel::Raid10 => disks / 2,
            RaidLevel::Raid5 => disks - 1,
            _ => disks,
        } as u64;
        let per_disk = (v.size.0 / 512).div_ceil(data_disks).div_ceil(su) * su;
        for n in 0..v.count {
            let layout = Layout::new(level, disks, su, per_disk)
                .map_err(|e| ConfigError::invalid(file, key("level"), e.to_string()))?;
            let cap = spec.model.capacity_sectors();
            if used[dg] + per_disk > cap {
                return Err(ConfigError::invalid(
                    file,
                    key("size"),
                    format!(
                        "virtual disks need more than the {} bytes per disk of disk group {}",
                        cap * 512,
                        spec.name
                    ),
                ));
            }
            let owner = owners.owner(dg_arrays[dg], v.controller, &key("controller"))?;
            groups_out.push(group_spec(v, n, (spec, dg), layout, owner, used[dg]));
            used[dg] += per_disk;
        }
    }
    Ok((dg_specs, groups_out))
}

#[cfg(test)]
mod tests;

fn unknown_level(level: &str, key: &dyn Fn(&str) -> String, file: &str) -> ConfigError {
    ConfigError::invalid(
        file,
        key("level"),
        format!("unknown level {level:?}; use vraid0, vraid1 or vraid5"),
    )
}
