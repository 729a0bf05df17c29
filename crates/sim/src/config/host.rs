//! Host side of an array file: paths and multipathing, host queueing, LUNs carved from RAID
//! groups, host volumes (concatenated, striped, multiplexed, ASM-like mirrored), failure
//! events and the rebuild policy.

use super::resolve::arrays::{array_index, ArraySpec};
use serde::{Deserialize, Serialize};
use storlab_core::{ByteSize, TimeSpan};

use super::ConfigError;
use crate::volume::{Volume, VolumeKind};

mod luns;

pub(super) use luns::resolve_luns;

/// How the host spreads I/O over paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MultipathPolicy {
    /// Every I/O to the next healthy path in turn.
    #[default]
    RoundRobin,
    /// Each LUN uses a path to its owning controller; another path only when that one fails.
    Preferred,
    /// Path 0 only (no multipathing software): its failure stops I/O.
    Single,
}

/// Host I/O scheduler for requests waiting behind the per-LUN queue depth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostScheduler {
    /// Arrival order (noop / none).
    #[default]
    None,
    /// Sorted by address, with a 500 ms deadline that serves starved requests first.
    Deadline,
}

/// One path (HBA port, switch, controller port).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathFile {
    /// Name (`p0`), used by failure events.
    pub name: String,
    /// Bandwidth, MB/s (2 Gb FC ~ 200, 4 Gb FC ~ 400).
    pub mbps: f64,
    /// Fixed latency per I/O.
    pub latency: TimeSpan,
    /// Controller whose port the path reaches (for the preferred policy).
    #[serde(default)]
    pub controller: Option<u32>,
    /// The `[[arrays]]` entry it belongs to (None: the file's only array).
    #[serde(default)]
    pub array: Option<String>,
}

/// A LUN carved from a RAID group or virtual disk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LunFile {
    /// Name.
    pub name: String,
    /// RAID group (or virtual disk) it is carved from.
    pub group: String,
    /// Size; default: the rest of the free space it is placed in.
    #[serde(default)]
    pub size: Option<ByteSize>,
    /// Where it starts in the group's address space; default: the first free space from the
    /// outer edge that holds it, in file order.
    #[serde(default)]
    pub offset: Option<ByteSize>,
}

/// A failure group of an ASM-like volume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureGroupFile {
    /// Name (`ssd`).
    pub name: String,
    /// LUNs in the group.
    pub luns: Vec<String>,
}

/// A host volume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeFile {
    /// Name (workload targets use it).
    pub name: String,
    /// `concat`, `stripe`, `multiplex` or `asm`.
    pub kind: String,
    /// Members (concat, stripe, multiplex).
    pub luns: Vec<String>,
    /// Stripe size (stripe).
    #[serde(default)]
    pub stripe: Option<ByteSize>,
    /// `normal` (2 copies) or `high` (3 copies) (asm).
    #[serde(default)]
    pub redundancy: Option<String>,
    /// Allocation unit (asm), default 1m.
    #[serde(default)]
    pub au: Option<ByteSize>,
    /// Failure groups (asm).
    pub failure_groups: Vec<FailureGroupFile>,
    /// Failure group that serves reads while healthy (asm).
    #[serde(default)]
    pub preferred_read: Option<String>,
}

/// A failure event. Exactly one of the target keys.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureFile {
    /// Simulated time of the failure.
    pub at: TimeSpan,
    /// `group.dN` member disk.
    #[serde(default)]
    pub disk: Option<String>,
    /// Path name.
    #[serde(default)]
    pub path: Option<String>,
    /// Controller index.
    #[serde(default)]
    pub controller: Option<u32>,
    /// The `[[arrays]]` entry it belongs to (None: the file's only array).
    #[serde(default)]
    pub array: Option<String>,
    /// `volume.failure_group`.
    #[serde(default)]
    pub failure_group: Option<String>,
}

/// Rebuild onto a spare after a disk failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RebuildFile {
    /// Rebuild rate per failed disk, MB/s.
    pub rate_mbps: f64,
    /// `low`: one rebuild operation at a time, behind foreground work; `high`: four.
    pub priority: String,
    /// Delay between the failure and the start of the rebuild.
    pub start_delay: TimeSpan,
}

/// A path, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct PathSpec {
    /// Name.
    pub name: String,
    /// Nanoseconds per byte.
    pub ns_per_byte: f64,
    /// Fixed latency per I/O.
    pub latency_ns: u64,
    /// Controller the path reaches (its index among the system's controllers).
    pub controller: Option<u32>,
    /// Array the path reaches (0 in a file without `[[arrays]]`).
    pub array: u32,
}

/// A LUN, resolved: a range of a group's logical space.
#[derive(Clone, Debug, PartialEq)]
pub struct LunSpec {
    /// Name.
    pub name: String,
    /// Group index.
    pub group: u32,
    /// First group sector.
    pub offset_sectors: u64,
    /// Size in sectors.
    pub sectors: u64,
}

/// A host volume, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct VolumeSpec {
    /// Name.
    pub name: String,
    /// Address mapping.
    pub volume: Volume,
    /// Member LUN indices, in the mapping's member order.
    pub luns: Vec<u32>,
    /// Failure group names (asm), indexed like the mapping's groups.
    pub failure_groups: Vec<String>,
    /// Preferred read failure group (asm).
    pub preferred_read: Option<u32>,
}

/// What fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureTarget {
    /// A disk: a member of one RAID group, or a disk of a disk group and so a member of every
    /// virtual disk in it.
    Disk {
        /// Device name (`r5-0.d3`, `dg.d17`).
        device: String,
        /// (group, member index) pairs the disk serves as configured (none for a spare);
        /// the model looks the device up where it is when it fails.
        members: Vec<(u32, u32)>,
    },
    /// A host path.
    Path(u32),
    /// A controller: its groups fail over to the next healthy controller.
    Controller(u32),
    /// Every LUN of a failure group of an ASM volume.
    FailureGroup {
        /// Volume index.
        volume: u32,
        /// Failure group index.
        group: u32,
    },
}

/// A failure at a simulated time.
#[derive(Clone, Debug, PartialEq)]
pub struct FailureSpec {
    /// When.
    pub at_ns: u64,
    /// What.
    pub target: FailureTarget,
    /// As written by the user (for reports).
    pub label: String,
}

/// Rebuild policy, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct RebuildSpec {
    /// Nanoseconds per byte rebuilt.
    pub ns_per_byte: f64,
    /// Rebuild operations kept outstanding per rebuilding disk.
    pub outstanding: u32,
    /// Delay before the rebuild starts.
    pub start_delay_ns: u64,
}

pub(super) fn resolve_rebuild(r: &RebuildFile, file: &str) -> Result<RebuildSpec, ConfigError> {
    let outstanding = match r.priority.as_str() {
        "low" => 1,
        "high" => 4,
        other => {
            return Err(ConfigError::invalid(
                file,
                "rebuild.priority",
                format!("must be \"low\" or \"high\"; got {other:?}"),
            ))
        }
    };
    Ok(RebuildSpec {
        ns_per_byte: 1e3 / r.rate_mbps,
        outstanding,
        start_delay_ns: r.start_delay.0,
    })
}

pub(super) fn resolve_paths(
    paths: &[PathFile],
    arrays: &[ArraySpec],
    file: &str,
) -> Result<Vec<PathSpec>, ConfigError> {
    let mut out: Vec<PathSpec> = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        let key = |k: &str| format!("host.paths[{i}].{k}");
        let a = array_index(arrays, p.array.as_deref())
            .map_err(|reason| ConfigError::invalid(file, key("array"), reason))?;
        let (first, controllers) = (arrays[a].first_controller, arrays[a].controllers.count);
        if let Some(c) = p.controller.filter(|&c| c >= controllers) {
            return Err(ConfigError::invalid(
                file,
                key("controller"),
                format!("no controller {c}; the array has {controllers}"),
            ));
        }
        if out.iter().any(|o| o.name == p.name) {
            return Err(ConfigError::invalid(
                file,
                key("name"),
                format!("two paths are named {:?}", p.name),
            ));
        }
        out.push(PathSpec {
            name: p.name.clone(),
            ns_per_byte: 1e3 / p.mbps,
            latency_ns: p.latency.0,
            controller: p.controller.map(|c| first + c),
            array: a as u32,
        });
    }
    Ok(out)
}

pub(super) fn resolve_volumes(
    vols: &[VolumeFile],
    luns: &[LunSpec],
    file: &str,
) -> Result<Vec<VolumeSpec>, ConfigError> {
    let mut out = Vec::new();
    for (i, v) in vols.iter().enumerate() {
        let key = |k: &str| format!("volumes[{i}].{k}");
        if let Some(j) = vols[..i].iter().position(|o| o.name == v.name) {
            return Err(ConfigError::invalid(
                file,
                key("name"),
                format!(
                    "two volumes are named {:?}: volumes[{j}] and volumes[{i}]",
                    v.name
                ),
            ));
        }
        let lun_index = |name: &String| {
            luns.iter()
                .position(|l| &l.name == name)
                .map(|x| x as u32)
                .ok_or_else(|| {
                    ConfigError::invalid(
                        file,
                        key("luns"),
                        format!(
                            "no LUN named {name:?} (LUNs: {})",
                            luns.iter()
                                .map(|l| l.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })
        };
        let (kind, members, fg_names, preferred) = match v.kind.as_str() {
            "concat" | "stripe" | "multiplex" => {
                let members = v
                    .luns
                    .iter()
                    .map(lun_index)
                    .collect::<Result<Vec<_>, _>>()?;
                let kind = match v.kind.as_str() {
                    "concat" => VolumeKind::Concat,
                    "multiplex" => VolumeKind::Multiplex,
                    _ => VolumeKind::Stripe {
                        stripe_sectors: v.stripe.map_or(2048, |s| s.0 / 512),
                    },
                };
                (kind, members, Vec::new(), None)
            }
            "asm" => {
                let copies = match v.redundancy.as_deref().unwrap_or("normal") {
                    "normal" => 2,
                    "high" => 3,
                    other => {
                        return Err(ConfigError::invalid(
                            file,
                            key("redundancy"),
                            format!("must be \"normal\" or \"high\"; got {other:?}"),
                        ))
                    }
                };
                let mut members = Vec::new();
                let mut groups = Vec::new();
                for fg in &v.failure_groups {
                    let mut ids = Vec::new();
                    for l in &fg.luns {
                        ids.push(members.len() as u32);
                        members.push(lun_index(l)?);
                    }
                    groups.push(ids);
                }
                let names: Vec<String> = v.failure_groups.iter().map(|f| f.name.clone()).collect();
                let preferred = match &v.preferred_read {
                    None => None,
                    Some(p) => Some(names.iter().position(|n| n == p).ok_or_else(|| {
                        ConfigError::invalid(
                            file,
                            key("preferred_read"),
                            format!(
                                "no failure group named {p:?} (groups: {})",
                                names.join(", ")
                            ),
                        )
                    })? as u32),
                };
                let kind = VolumeKind::Asm {
                    au_sectors: v.au.map_or(2048, |a| a.0 / 512),
                    copies,
                    failure_groups: groups,
                };
                (kind, members, names, preferred)
            }
            other => {
                return Err(ConfigError::invalid(
                    file,
                    key("kind"),
                    format!("unknown volume kind {other:?}; use concat, stripe, multiplex or asm"),
                ))
            }
        };
        let sizes: Vec<u64> = members.iter().map(|&m| luns[m as usize].sectors).collect();
        let mut sorted = members.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(ConfigError::invalid(
                file,
                key("luns"),
                "a LUN appears twice",
            ));
        }
        let volume = Volume::new(kind, &sizes)
            .map_err(|e| ConfigError::invalid(file, key("kind"), e.to_string()))?;
        out.push(VolumeSpec {
            name: v.name.clone(),
            volume,
            luns: members,
            failure_groups: fg_names,
            preferred_read: preferred,
        });
    }
    Ok(out)
}
