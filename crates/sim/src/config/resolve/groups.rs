//! The `[[raid_groups]]` entries resolved into groups (one per `count`), with their layouts and
//! disk models (built-in, or the file's own `[disk_models.NAME]`, complete by now).

use serde::{Deserialize, Serialize};

use super::super::{limits, ArrayFile, ConfigError, RaidGroupFile};
use super::arrays::Owners;
use crate::device::models::{builtin_model, BUILTIN_MODELS};
use crate::device::{DiskModel, Mechanism};
use crate::raid::{Layout, RaidLevel};

/// Which copy of a mirror serves a read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MirrorRead {
    /// The copy whose disk has fewer commands queued (ties: primary).
    #[default]
    ShortestQueue,
    /// Alternate between the copies.
    RoundRobin,
    /// Always the primary copy.
    Primary,
}

/// One RAID group (one LUN), resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSpec {
    /// Name.
    pub name: String,
    /// Address mapping.
    pub layout: Layout,
    /// Hot spares.
    pub spares: u32,
    /// Disk model name.
    pub model_name: String,
    /// Disk model.
    pub model: DiskModel,
    /// Owning controller.
    pub controller: u32,
    /// Read cache on.
    pub read_cache: bool,
    /// Write-back caching on.
    pub write_cache: bool,
    /// Mirror read policy.
    pub mirror_read: MirrorRead,
    /// Disk group whose disks a virtual disk shares (None: the group owns its disks).
    pub disk_group: Option<u32>,
    /// Where the group's space starts on each of its disks.
    pub disk_offset_sectors: u64,
}

pub(super) fn resolve_raid_groups(
    raw: &ArrayFile,
    owners: &mut Owners,
    file: &str,
) -> Result<Vec<GroupSpec>, ConfigError> {
    let mut groups = Vec::new();
    for (i, g) in raw.raid_groups.iter().enumerate() {
        let key = |k: &str| format!("raid_groups[{i}].{k}");
        let array = owners.array(g.array.as_deref(), &key("array"))?;
        let model = resolve_model(raw, &g.disk_model, file, &key("disk_model"))?;
        let layout = resolve_layout(g, &model, file, &key)?;
        limits::check_count(
            file,
            key("count"),
            groups.len() as u64 + u64::from(g.count),
            limits::MAX_GROUPS,
            "RAID groups and virtual disks in all",
        )?;
        for n in 0..g.count {
            let name = if g.count > 1 {
                format!("{}-{n}", g.name)
            } else {
                g.name.clone()
            };
            let controller = owners.owner(array, g.controller, &key("controller"))?;
            groups.push(GroupSpec {
                name,
                layout: layout.clone(),
                spares: g.spares,
                model_name: g.disk_model.clone(),
                model: model.clone(),
                controller,
                read_cache: g.read_cache,
                write_cache: g.write_cache,
                mirror_read: g.mirror_read,
                disk_group: None,
                disk_offset_sectors: 0,
            });
        }
    }
    Ok(groups)
}

fn resolve_layout(
    g: &RaidGroupFile,
    model: &DiskModel,
    file: &str,
    key: &dyn Fn(&str) -> String,
) -> Result<Layout, ConfigError> {
    let level = RaidLevel::parse(&g.level).ok_or_else(|| {
        ConfigError::invalid(
            file,
            key("level"),
            format!(
                "unknown RAID level {:?}; use jbod, raid0, raid1, raid10, raid5 or raid6",
                g.level
            ),
        )
    })?;
    let su = limits::stripe_unit_bytes(g.stripe_unit, file, key("stripe_unit"))?;
    Layout::new(level, g.disks, su / 512, model.capacity_sectors())
        .map_err(|e| ConfigError::invalid(file, key("disks"), e.to_string()))
}

/// Finds a model: user-defined (never named like a built-in), else built-in.
pub(super) fn resolve_model(
    raw: &ArrayFile,
    name: &str,
    file: &str,
    key: &str,
) -> Result<DiskModel, ConfigError> {
    let Some(table) = raw.disk_models.get(name) else {
        return builtin_model(name).ok_or_else(|| {
            let mut known: Vec<&str> = BUILTIN_MODELS.to_vec();
            known.extend(raw.disk_models.keys().map(String::as_str));
            ConfigError::invalid(
                file,
                key,
                format!(
                    "unknown disk model {name:?}; known models: {}",
                    known.join(", ")
                ),
            )
        });
    };
    // Complete by now: `base` resolved and every parameter checked from its declaration.
    let mkey = format!("disk_models.{name}");
    let model: DiskModel = table
        .clone()
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::invalid(file, &mkey, e.message().to_string()))?;
    Mechanism::new(&model, 0).map_err(|e| ConfigError::invalid(file, &mkey, e))?;
    Ok(model)
}
