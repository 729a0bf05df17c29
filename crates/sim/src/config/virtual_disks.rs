//! Virtualized arrays: disk groups spanning many disks, and virtual disks striped over the
//! whole group at VRAID 0, 1 or 5 (EVA-style). Each virtual disk becomes a group of the model
//! that shares the disk group's devices at its own offset on every disk.

use serde::{Deserialize, Serialize};
use storlab_core::ByteSize;

use super::limits;
use super::resolve::{GroupSpec, MirrorRead};
use super::ConfigError;
use crate::device::DiskModel;
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
}

/// Resolves virtual disks into groups sharing their disk group's disks.
/// `model_of` resolves a disk model name (built-in or user) for key `key`.
pub(super) fn resolve_virtual_disks(
    dgs: &[DiskGroupFile],
    vds: &[VirtualDiskFile],
    controllers: u32,
    first_index: usize,
    file: &str,
    model_of: &dyn Fn(&str, &str) -> Result<DiskModel, ConfigError>,
) -> Result<(Vec<DiskGroupSpec>, Vec<GroupSpec>), ConfigError> {
    let mut groups_out = Vec::new();
    let mut dg_specs = Vec::new();
    for (i, d) in dgs.iter().enumerate() {
        let model = model_of(&d.disk_model, &format!("disk_groups[{i}].disk_model"))?;
        dg_specs.push(DiskGroupSpec {
            name: d.name.clone(),
            disks: d.disks,
            spares: d.spares,
            model_name: d.disk_model.clone(),
            model,
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
        let (level, disks) = match v.level.as_str() {
            "vraid0" => (RaidLevel::Raid0, spec.disks),
            // Mirrored pairs over the group; an odd disk out carries no VRAID 1 data.
            "vraid1" => (RaidLevel::Raid10, spec.disks & !1),
            "vraid5" => (RaidLevel::Raid5, spec.disks),
            other => {
                return Err(ConfigError::invalid(
                    file,
                    key("level"),
                    format!("unknown level {other:?}; use vraid0, vraid1 or vraid5"),
                ))
            }
        };
        // The bounds (4 KiB to 1 MiB) are declared; a power of two is this rule.
        let su = v.stripe_unit.0;
        if !su.is_power_of_two() {
            return Err(ConfigError::invalid(
                file,
                key("stripe_unit"),
                format!(
                    "must be a power of two between 4k and 1m; got {}",
                    v.stripe_unit
                ),
            ));
        }
        let su = su / 512;
        let data_disks = match level {
            RaidLevel::Raid10 => disks / 2,
            RaidLevel::Raid5 => disks - 1,
            _ => disks,
        } as u64;
        let per_disk = (v.size.0 / 512).div_ceil(data_disks).div_ceil(su) * su;
        limits::check_count(
            file,
            key("count"),
            (first_index + groups_out.len()) as u64 + u64::from(v.count),
            limits::MAX_GROUPS,
            "RAID groups and virtual disks in all",
        )?;
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
            let index = first_index + groups_out.len();
            let controller = v.controller.unwrap_or(index as u32 % controllers);
            if controller >= controllers {
                return Err(ConfigError::invalid(
                    file,
                    key("controller"),
                    format!("no controller {controller}; the array has {controllers}"),
                ));
            }
            groups_out.push(GroupSpec {
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
                disk_offset_sectors: used[dg],
            });
            used[dg] += per_disk;
        }
    }
    Ok((dg_specs, groups_out))
}
