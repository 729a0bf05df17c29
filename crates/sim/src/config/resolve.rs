//! Validation of an array file and resolution into the specification the model is built from.

use serde::{Deserialize, Serialize};

use super::host::{
    self, FailureSpec, HostScheduler, LunSpec, MultipathPolicy, PathSpec, RebuildSpec, VolumeSpec,
};
use super::limits::{self, check_mbps, check_time};
use super::virtual_disks::{self, DiskGroupSpec};
use super::{failures, merge_tables, ArrayFile, ConfigError, RaidGroupFile};

pub use super::failures::parse_failure_arg;
use crate::device::models::{builtin_model, BUILTIN_MODELS};
use crate::device::{DiskModel, Mechanism};
use crate::raid::{Layout, RaidLevel};

/// When the host gets its write acknowledgement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    /// From the battery-backed cache; disks are written later (destage).
    #[default]
    WriteBack,
    /// After the disks.
    WriteThrough,
}

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

/// Host side, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct HostSpec {
    /// Paths between host and array.
    pub paths: Vec<PathSpec>,
    /// Multipath policy.
    pub multipath: MultipathPolicy,
    /// Host I/Os outstanding per LUN (0 = no limit).
    pub queue_depth_per_lun: u32,
    /// Host queue order.
    pub scheduler: HostScheduler,
}

/// Controller settings, resolved into sectors and nanoseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct ControllerSpec {
    /// Controllers.
    pub count: u32,
    /// Read cache per controller in segments.
    pub read_cache_segments: u64,
    /// Write cache per controller in 4 KiB pages.
    pub write_cache_pages: u64,
    /// Write-back or write-through.
    pub write_policy: WritePolicy,
    /// Mirror writes to the peer.
    pub mirror_writes: bool,
    /// Write policy of a controller that took over a failed peer's LUNs.
    pub failover_write_policy: WritePolicy,
    /// Nanoseconds per byte on the mirror link.
    pub mirror_ns_per_byte: f64,
    /// Fixed mirror copy cost.
    pub mirror_latency_ns: u64,
    /// Processing per host I/O.
    pub overhead_ns: u64,
    /// Dirty pages that start destaging.
    pub destage_high_pages: u64,
    /// Dirty pages that stop destaging.
    pub destage_low_pages: u64,
    /// Destage disk operations outstanding per member disk, when set in the file; otherwise
    /// each group's follows its disks ([`ControllerSpec::destage_queue_for`]).
    pub destage_queue_per_disk: Option<u32>,
    /// Read segment in sectors.
    pub segment_sectors: u64,
    /// Prefetch distance in sectors.
    pub prefetch_sectors: u64,
    /// Sequential reads before prefetch starts.
    pub sequential_trigger: u32,
}

/// Destage operations kept outstanding per HDD: one head serves one command at a time; a
/// few queued writes let the drive reorder them, and reads do not wait behind many writes.
pub const HDD_DESTAGE_QUEUE: u32 = 4;

impl ControllerSpec {
    /// Destage operations kept outstanding per member disk of a group of `model` disks:
    /// `destage_queue_per_disk` when the file sets it, else what the disk can work on at
    /// once. An HDD: [`HDD_DESTAGE_QUEUE`]. An SSD programs one page per flash die at a
    /// time, so one write per die keeps every die busy (fewer leave dies idle while dirty
    /// pages wait in the write cache); never more than the drive accepts (its queue depth)
    /// nor than the key's bound.
    pub fn destage_queue_for(&self, model: &DiskModel) -> u32 {
        self.destage_queue_per_disk.unwrap_or(match model {
            DiskModel::Hdd(_) => HDD_DESTAGE_QUEUE,
            DiskModel::Ssd(p) => (p.channels.saturating_mul(p.dies_per_channel))
                .min(p.queue_depth)
                .clamp(1, MAX_DESTAGE_QUEUE),
        })
    }
}

/// Bound of `destage_queue_per_disk`.
const MAX_DESTAGE_QUEUE: u32 = 256;

/// Write-cache page: the granularity of dirty tracking and destage.
pub const PAGE_SECTORS: u64 = 8;

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

/// A whole storage system, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct SystemSpec {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// File it came from.
    pub file: String,
    /// Host paths and queueing.
    pub host: HostSpec,
    /// Controllers.
    pub controllers: ControllerSpec,
    /// RAID groups, then virtual disks.
    pub groups: Vec<GroupSpec>,
    /// Disk groups of virtual disks.
    pub disk_groups: Vec<DiskGroupSpec>,
    /// LUNs (explicit ones first, then one per uncarved group).
    pub luns: Vec<LunSpec>,
    /// Host volumes.
    pub volumes: Vec<VolumeSpec>,
    /// Failure events from the file (the CLI may add more).
    pub failures: Vec<FailureSpec>,
    /// Rebuild policy.
    pub rebuild: RebuildSpec,
}

impl SystemSpec {
    /// Index of the group called `name`.
    pub fn group_index(&self, name: &str) -> Option<usize> {
        self.groups.iter().position(|g| g.name == name)
    }

    /// Member disks over all groups and disk groups (spares excluded).
    pub fn member_disks(&self) -> u32 {
        let own: u32 = self
            .groups
            .iter()
            .filter(|g| g.disk_group.is_none())
            .map(|g| g.layout.disks())
            .sum();
        own + self.disk_groups.iter().map(|d| d.disks).sum::<u32>()
    }

    /// Index of the LUN called `name`.
    pub fn lun_index(&self, name: &str) -> Option<usize> {
        self.luns.iter().position(|l| l.name == name)
    }

    /// Index of the volume called `name`.
    pub fn volume_index(&self, name: &str) -> Option<usize> {
        self.volumes.iter().position(|v| v.name == name)
    }
}

pub(super) fn resolve(raw: ArrayFile, file: &str) -> Result<SystemSpec, ConfigError> {
    check_model_names(&raw, file)?;
    let controllers = resolve_controllers(&raw, file)?;
    let host = resolve_host(&raw, controllers.count, file)?;
    let mut groups = resolve_raid_groups(&raw, &controllers, file)?;
    let model_of = |name: &str, key: &str| resolve_model(&raw, name, file, key);
    let (disk_groups, virtual_groups) = virtual_disks::resolve_virtual_disks(
        &raw.disk_groups,
        &raw.virtual_disks,
        controllers.count,
        groups.len(),
        file,
        &model_of,
    )?;
    groups.extend(virtual_groups);
    if groups.is_empty() {
        return Err(ConfigError::invalid(
            file,
            "raid_groups",
            "at least one RAID group or virtual disk is needed",
        ));
    }
    let mut names: Vec<&str> = groups
        .iter()
        .map(|g| g.name.as_str())
        .chain(disk_groups.iter().map(|d| d.name.as_str()))
        .collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(ConfigError::invalid(
            file,
            "raid_groups",
            format!("two groups are named {:?}", w[0]),
        ));
    }
    limits::check_sizes(&groups, &disk_groups, file)?;
    let luns = host::resolve_luns(&raw.luns, &groups, file)?;
    let volumes = host::resolve_volumes(&raw.volumes, &luns, file)?;
    if let Some(v) = volumes
        .iter()
        .find(|v| luns.iter().any(|l| l.name == v.name))
    {
        return Err(ConfigError::invalid(
            file,
            "volumes",
            format!("volume {:?} has the name of a LUN", v.name),
        ));
    }
    let mut spec = SystemSpec {
        name: raw.name.clone(),
        description: raw.description.clone(),
        file: file.to_string(),
        host,
        controllers,
        groups,
        disk_groups,
        luns,
        volumes,
        failures: Vec::new(),
        rebuild: host::resolve_rebuild(&raw.rebuild, file)?,
    };
    for (i, f) in raw.failures.iter().enumerate() {
        let failure = failures::resolve_failure_file(f, &spec, file, &format!("failures[{i}]"))?;
        spec.failures.push(failure);
    }
    Ok(spec)
}

fn resolve_host(raw: &ArrayFile, controllers: u32, file: &str) -> Result<HostSpec, ConfigError> {
    let h = &raw.host;
    let paths = if h.paths.is_empty() {
        if h.links == 0 || h.links > 64 {
            return Err(ConfigError::invalid(
                file,
                "host.links",
                format!("must be 1..=64; got {}", h.links),
            ));
        }
        check_mbps(file, "host.link_mbps", h.link_mbps)?;
        check_time(
            file,
            "host.link_latency",
            h.link_latency.0,
            limits::MAX_IO_LATENCY_NS,
        )?;
        (0..h.links)
            .map(|i| PathSpec {
                name: format!("p{i}"),
                ns_per_byte: 1e3 / h.link_mbps,
                latency_ns: h.link_latency.0,
                controller: Some(i % controllers),
            })
            .collect()
    } else {
        host::resolve_paths(&h.paths, controllers, file)?
    };
    Ok(HostSpec {
        paths,
        multipath: h.multipath,
        queue_depth_per_lun: h.queue_depth_per_lun,
        scheduler: h.scheduler,
    })
}

fn resolve_raid_groups(
    raw: &ArrayFile,
    controllers: &ControllerSpec,
    file: &str,
) -> Result<Vec<GroupSpec>, ConfigError> {
    let mut groups = Vec::new();
    for (i, g) in raw.raid_groups.iter().enumerate() {
        let key = |k: &str| format!("raid_groups[{i}].{k}");
        let model = resolve_model(raw, &g.disk_model, file, &key("disk_model"))?;
        let layout = resolve_layout(g, &model, file, &key)?;
        if g.count == 0 || u64::from(g.count) > limits::MAX_GROUPS {
            return Err(ConfigError::invalid(
                file,
                key("count"),
                format!("must be 1..={}; got {}", limits::MAX_GROUPS, g.count),
            ));
        }
        limits::check_count(
            file,
            key("count"),
            groups.len() as u64 + u64::from(g.count),
            limits::MAX_GROUPS,
            "RAID groups and virtual disks in all",
        )?;
        limits::check_count(
            file,
            key("spares"),
            u64::from(g.spares),
            u64::from(limits::MAX_GROUP_DISKS),
            "spares per group",
        )?;
        for n in 0..g.count {
            let name = if g.count > 1 {
                format!("{}-{n}", g.name)
            } else {
                g.name.clone()
            };
            let index = groups.len() as u32;
            let controller = g.controller.unwrap_or(index % controllers.count);
            if controller >= controllers.count {
                return Err(ConfigError::invalid(
                    file,
                    key("controller"),
                    format!(
                        "must name one of the {} controllers (0..={}); got {controller}",
                        controllers.count,
                        controllers.count - 1
                    ),
                ));
            }
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

fn resolve_controllers(raw: &ArrayFile, file: &str) -> Result<ControllerSpec, ConfigError> {
    let c = &raw.controllers;
    let bad = |key: &str, reason: String| {
        ConfigError::invalid(file, format!("controllers.{key}"), reason)
    };
    if c.count == 0 || c.count > 16 {
        return Err(bad("count", format!("must be 1..=16; got {}", c.count)));
    }
    if c.cache.0 > limits::MAX_CACHE_BYTES {
        return Err(bad(
            "cache",
            format!(
                "must be at most {} per controller; got {}",
                storlab_core::ByteSize(limits::MAX_CACHE_BYTES),
                c.cache
            ),
        ));
    }
    for (key, t) in [
        ("mirror_latency", c.mirror_latency),
        ("overhead", c.overhead),
    ] {
        check_time(
            file,
            format!("controllers.{key}"),
            t.0,
            limits::MAX_IO_LATENCY_NS,
        )?;
    }
    // Mirroring needs a peer: one controller has nothing to copy its writes to.
    let mirror_writes = c.mirror_writes && c.count > 1;
    let nvs_footprint = c.write_cache.0 * if mirror_writes { 2 } else { 1 };
    if c.cache.0 < nvs_footprint {
        return Err(bad(
            "write_cache",
            format!(
                "{} of write cache{} does not fit in {} of cache",
                c.write_cache,
                if mirror_writes {
                    " (twice, with the peer's mirror copy)"
                } else {
                    ""
                },
                c.cache
            ),
        ));
    }
    if c.write_policy == WritePolicy::WriteBack && c.write_cache.0 < 1 << 20 {
        return Err(bad(
            "write_cache",
            format!(
                "write-back needs at least 1m of write cache; got {}",
                c.write_cache
            ),
        ));
    }
    if !(0.0 < c.destage_low_pct
        && c.destage_low_pct < c.destage_high_pct
        && c.destage_high_pct <= 100.0)
    {
        return Err(bad(
            "destage_high_pct",
            format!(
                "need 0 < destage_low_pct < destage_high_pct <= 100; got low {} high {}",
                c.destage_low_pct, c.destage_high_pct
            ),
        ));
    }
    if let Some(q) = c
        .destage_queue_per_disk
        .filter(|q| !(1..=MAX_DESTAGE_QUEUE).contains(q))
    {
        return Err(bad(
            "destage_queue_per_disk",
            format!("must be 1..={MAX_DESTAGE_QUEUE}; got {q}"),
        ));
    }
    let seg = c.read_segment.0;
    if !seg.is_power_of_two() || !(512..=1 << 20).contains(&seg) {
        return Err(bad(
            "read_segment",
            format!(
                "must be a power of two from 512 to 1m; got {}",
                c.read_segment
            ),
        ));
    }
    if !c.prefetch.0.is_multiple_of(512) {
        return Err(bad(
            "prefetch",
            format!("must be a multiple of 512 bytes; got {}", c.prefetch),
        ));
    }
    check_mbps(file, "controllers.mirror_mbps", c.mirror_mbps)?;
    let page_bytes = PAGE_SECTORS * 512;
    let write_cache_pages = c.write_cache.0 / page_bytes;
    let read_cache_segments = (c.cache.0 - nvs_footprint) / seg;
    if read_cache_segments > limits::MAX_READ_CACHE_SEGMENTS {
        return Err(bad(
            "cache",
            format!(
                "the read cache holds {read_cache_segments} segments of {}; at most {} are \
                 simulated: raise read_segment or lower cache",
                c.read_segment,
                limits::MAX_READ_CACHE_SEGMENTS
            ),
        ));
    }
    Ok(ControllerSpec {
        count: c.count,
        read_cache_segments,
        write_cache_pages,
        write_policy: c.write_policy,
        mirror_writes,
        failover_write_policy: c.failover_write_policy,
        mirror_ns_per_byte: 1e3 / c.mirror_mbps,
        mirror_latency_ns: c.mirror_latency.0,
        overhead_ns: c.overhead.0,
        destage_high_pages: (write_cache_pages as f64 * c.destage_high_pct / 100.0) as u64,
        destage_low_pages: (write_cache_pages as f64 * c.destage_low_pct / 100.0) as u64,
        destage_queue_per_disk: c.destage_queue_per_disk,
        segment_sectors: seg / 512,
        prefetch_sectors: c.prefetch.0 / 512,
        sequential_trigger: c.sequential_trigger,
    })
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
    let su = g.stripe_unit.0;
    if !su.is_power_of_two() || !(4096..=1 << 20).contains(&su) {
        return Err(ConfigError::invalid(
            file,
            key("stripe_unit"),
            format!(
                "must be a power of two between 4k and 1m; got {}",
                g.stripe_unit
            ),
        ));
    }
    limits::check_count(
        file,
        key("disks"),
        u64::from(g.disks),
        u64::from(limits::MAX_GROUP_DISKS),
        "member disks per group",
    )?;
    Layout::new(level, g.disks, su / 512, model.capacity_sectors())
        .map_err(|e| ConfigError::invalid(file, key("disks"), e.to_string()))
}

/// A user-defined model may not take a built-in's name: every reader of the file would take
/// `hdd-10k` for the documented drive.
fn check_model_names(raw: &ArrayFile, file: &str) -> Result<(), ConfigError> {
    match raw
        .disk_models
        .keys()
        .find(|k| BUILTIN_MODELS.contains(&k.as_str()))
    {
        Some(name) => Err(ConfigError::invalid(
            file,
            format!("disk_models.{name}"),
            format!(
                "{name:?} is a built-in model; give yours another name (base = {name:?} starts \
                 it from the built-in's parameters)"
            ),
        )),
        None => Ok(()),
    }
}

/// Finds a model: user-defined (never named like a built-in), else built-in.
fn resolve_model(
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
    let mkey = format!("disk_models.{name}");
    let mut table = table.clone();
    if let Some(base) = table.remove("base") {
        let base_name = base.as_str().unwrap_or_default().to_string();
        let base_model = builtin_model(&base_name).ok_or_else(|| {
            ConfigError::invalid(
                file,
                format!("{mkey}.base"),
                format!(
                    "unknown built-in model {base_name:?}; built-ins: {}",
                    BUILTIN_MODELS.join(", ")
                ),
            )
        })?;
        let base_table = toml::Table::try_from(&base_model)
            .map_err(|e| ConfigError::invalid(file, &mkey, e.to_string()))?;
        table = merge_tables(base_table, table);
    }
    let model: DiskModel = table
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::invalid(file, &mkey, e.message().to_string()))?;
    Mechanism::new(&model, 0).map_err(|e| ConfigError::invalid(file, &mkey, e))?;
    Ok(model)
}

#[cfg(test)]
mod tests;
