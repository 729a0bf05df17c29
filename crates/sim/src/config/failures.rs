//! Failure events: from `[[failures]]` tables and from `--fail TARGET@TIME` on the command line.
//!
//! Targets: a disk by device name (`r5-0.d3`, or `dg1.d17` for a disk of a disk group; a hot
//! spare as `r5-0.spare0`, which fails where it is: in its pool, under a rebuild, or as the
//! member it replaced),
//! `path:NAME`, `controller:N`, `failure_group:VOLUME.GROUP`.

use storlab_core::TimeSpan;

use super::host::{FailureFile, FailureSpec, FailureTarget};
use super::limits::{check_time, MAX_SIM_TIME_NS};
use super::resolve::arrays::array_index;
use super::{ConfigError, SystemSpec};

/// Parses `TARGET@TIME` (e.g. `r5-0.d3@30s`, `path:p1@10s`, `controller:1@1m`).
pub fn parse_failure_arg(arg: &str, system: &SystemSpec) -> Result<FailureSpec, ConfigError> {
    let bad = |reason: String| ConfigError::invalid("--fail", arg, reason);
    let (target, at) = arg
        .rsplit_once('@')
        .ok_or_else(|| bad("use TARGET@TIME, e.g. r5-0.d3@30s, path:p0@10s, controller:1@20s, failure_group:data.ssd@15s".into()))?;
    let at: TimeSpan = at
        .parse()
        .map_err(|e: storlab_core::UnitError| bad(e.to_string()))?;
    check_time("--fail", arg, at.0, MAX_SIM_TIME_NS)?;
    let (kind, value) = target.split_once(':').unwrap_or(("disk", target));
    let target = resolve_target(kind, value, system).map_err(bad)?;
    Ok(FailureSpec {
        at_ns: at.0,
        target,
        label: target_label(kind, value),
    })
}

/// Resolves one `[[failures]]` table.
pub(super) fn resolve_failure_file(
    f: &FailureFile,
    system: &SystemSpec,
    file: &str,
    key: &str,
) -> Result<FailureSpec, ConfigError> {
    let controller = match (f.controller, &f.array) {
        (Some(c), Some(a)) => Some(format!("{a}.{c}")),
        (c, None) => c.map(|c| c.to_string()),
        (None, Some(_)) => {
            return Err(ConfigError::invalid(
                file,
                format!("{key}.array"),
                "names the array of a controller failure: give `controller` too",
            ))
        }
    };
    let given: Vec<(&str, &str)> = [
        ("disk", f.disk.as_deref()),
        ("path", f.path.as_deref()),
        ("controller", controller.as_deref()),
        ("failure_group", f.failure_group.as_deref()),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k, v)))
    .collect();
    let [(kind, value)] = given[..] else {
        return Err(ConfigError::invalid(
            file,
            key,
            "name exactly one of disk, path, controller, failure_group",
        ));
    };
    let target = resolve_target(kind, value, system)
        .map_err(|reason| ConfigError::invalid(file, format!("{key}.{kind}"), reason))?;
    Ok(FailureSpec {
        at_ns: f.at.0,
        target,
        label: target_label(kind, value),
    })
}

fn target_label(kind: &str, value: &str) -> String {
    if kind == "disk" {
        value.to_string()
    } else {
        format!("{kind}:{value}")
    }
}

fn resolve_target(kind: &str, value: &str, system: &SystemSpec) -> Result<FailureTarget, String> {
    match kind {
        "disk" => disk_target(value, system),
        "path" => system
            .host
            .paths
            .iter()
            .position(|p| p.name == value)
            .map(|i| FailureTarget::Path(i as u32))
            .ok_or_else(|| {
                let names: Vec<&str> = system.host.paths.iter().map(|p| p.name.as_str()).collect();
                format!("no path named {value:?} (paths: {})", names.join(", "))
            }),
        "controller" => controller_target(value, system),
        "failure_group" | "fg" => {
            let (vol, fg) = value.split_once('.').ok_or_else(|| format!("use VOLUME.GROUP; got {value:?}"))?;
            let v = system.volume_index(vol).ok_or_else(|| format!("no volume named {vol:?}"))?;
            let g = system.volumes[v]
                .failure_groups
                .iter()
                .position(|n| n == fg)
                .ok_or_else(|| format!("volume {vol} has no failure group {fg:?}"))?;
            Ok(FailureTarget::FailureGroup {
                volume: v as u32,
                group: g as u32,
            })
        }
        other => Err(format!("unknown failure target {other:?}; use a disk name, path:NAME, controller:N or failure_group:VOLUME.GROUP")),
    }
}

/// `N` (the system's controller N: the arrays' controllers numbered in their order) or
/// `ARRAY.N` (controller N of that array).
fn controller_target(value: &str, system: &SystemSpec) -> Result<FailureTarget, String> {
    let number = |n: &str| {
        n.parse::<u32>()
            .map_err(|_| format!("controller must be a number or ARRAY.N; got {value:?}"))
    };
    let Some((array, index)) = value.rsplit_once('.') else {
        let (c, count) = (number(value)?, system.controllers.count);
        if c >= count {
            return Err(format!("no controller {c}; the array has {count}"));
        }
        return Ok(FailureTarget::Controller(c));
    };
    let a = array_index(&system.arrays, Some(array))?;
    let arr = &system.arrays[a];
    let c = number(index)?;
    if c >= arr.controllers.count {
        return Err(format!(
            "no controller {c}; array {array:?} has {}",
            arr.controllers.count
        ));
    }
    Ok(FailureTarget::Controller(arr.first_controller + c))
}

fn disk_target(value: &str, system: &SystemSpec) -> Result<FailureTarget, String> {
    let unknown = || {
        format!(
            "no disk named {value:?}; disks are named GROUP.dN (e.g. {}.d0)",
            system.groups[0].name
        )
    };
    if let Some((owner, index)) = value.rsplit_once(".spare") {
        let spares = (system.group_index(owner))
            .filter(|&g| system.groups[g].disk_group.is_none())
            .map(|g| system.groups[g].spares)
            .or_else(|| {
                (system.disk_groups.iter())
                    .find(|d| d.name == owner)
                    .map(|d| d.spares)
            });
        let index: Option<u32> = index.parse().ok();
        return match (spares, index) {
            (Some(n), Some(i)) if i < n => Ok(FailureTarget::Disk {
                device: value.to_string(),
                members: Vec::new(),
            }),
            (Some(n), _) => Err(format!(
                "no spare named {value:?}: {owner} has {n} spares, {owner}.spare0 to \
                 {owner}.spare{}",
                n.saturating_sub(1)
            )),
            (None, _) => Err(unknown()),
        };
    }
    let (owner, index) = value.rsplit_once(".d").ok_or_else(unknown)?;
    let index: u32 = index.parse().map_err(|_| unknown())?;
    let mut members = Vec::new();
    if let Some(g) = system
        .group_index(owner)
        .filter(|&g| system.groups[g].disk_group.is_none())
    {
        if index < system.groups[g].layout.disks() {
            members.push((g as u32, index));
        }
    } else if let Some(dg) = system.disk_groups.iter().position(|d| d.name == owner) {
        for (g, spec) in system.groups.iter().enumerate() {
            if spec.disk_group == Some(dg as u32) && index < spec.layout.disks() {
                members.push((g as u32, index));
            }
        }
        if index >= system.disk_groups[dg].disks {
            return Err(unknown());
        }
    }
    if members.is_empty() && !system.disk_groups.iter().any(|d| d.name == owner) {
        return Err(unknown());
    }
    Ok(FailureTarget::Disk {
        device: value.to_string(),
        members,
    })
}
