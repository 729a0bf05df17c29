//! Validation of an array file and resolution into the specification the model is built from:
//! the system and its host side here, the controllers in `controllers`, the RAID groups and
//! their disk models in `groups`.

use super::back_ends::{self, BackEndSpec};
use super::host::{
    self, FailureSpec, HostScheduler, LunSpec, MultipathPolicy, PathSpec, RebuildSpec, VolumeSpec,
};
use super::host_ports::{self, HostPortSpec};
use super::limits;
use super::virtual_disks::{self, DiskGroupSpec};
use super::{failures, ArrayFile, ConfigError};

pub(crate) mod arrays;
mod controllers;
mod groups;

pub use super::failures::parse_failure_arg;
pub use arrays::ArraySpec;
pub use controllers::{
    ControllerSpec, DestageOrder, Staging, WritePolicy, HDD_DESTAGE_QUEUE, MAX_DESTAGE_QUEUE,
    PAGE_SECTORS,
};
pub use groups::{GroupSpec, MirrorRead};

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
    /// Requests held per LUN, outstanding plus queued (0 = no limit).
    pub nr_requests: u32,
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
    /// Controllers: the settings of the first array, `count` of all arrays together (a
    /// controller's own array's settings: [`SystemSpec::controller_spec`]).
    pub controllers: ControllerSpec,
    /// The arrays, each with its controllers (one, unnamed, in a file without `[[arrays]]`).
    pub arrays: Vec<ArraySpec>,
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
    /// Back-end loops or buses (none: the back end has no bandwidth limit).
    pub back_ends: Vec<BackEndSpec>,
    /// The array's host ports (none: each path is its own port).
    pub host_ports: Vec<HostPortSpec>,
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

    /// The file declares components inside the array with a capacity of their own: back
    /// ends, processors or their costs, ALUA forwarding, a per-disk queue depth. Their figures
    /// are reported only then, so results of arrays without them stay as they were.
    pub fn declares_internals(&self) -> bool {
        let declared = |c: &ControllerSpec| {
            let costs = [c.read_hit_ns, c.read_miss_ns, c.write_ns];
            c.processors != 1
                || costs.iter().any(|&ns| ns != c.overhead_ns)
                || c.parity_ns > 0
                || c.forward_ns.is_some()
                || c.disk_queue_depth.is_some()
        };
        !self.back_ends.is_empty()
            || !self.host_ports.is_empty()
            || self.arrays.iter().any(|a| declared(&a.controllers))
    }

    /// The file declares several arrays (`[[arrays]]`).
    pub fn has_arrays(&self) -> bool {
        self.arrays.len() > 1 || self.arrays.first().is_some_and(|a| !a.name.is_empty())
    }

    /// The array of controller `c` (a system index).
    #[inline]
    pub fn array_of_controller(&self, c: u32) -> usize {
        (self.arrays.iter())
            .rposition(|a| a.first_controller <= c)
            .unwrap_or(0)
    }

    /// The settings of controller `c` (a system index): its array's.
    #[inline]
    pub fn controller_spec(&self, c: u32) -> &ControllerSpec {
        if self.arrays.len() == 1 {
            return &self.controllers;
        }
        &self.arrays[self.array_of_controller(c)].controllers
    }

    /// Controller `c` as results name it: `controller 1`, or with `[[arrays]]`
    /// `array east controller 1` (counted inside its array).
    pub fn controller_name(&self, c: u32) -> String {
        if !self.has_arrays() {
            return format!("controller {c}");
        }
        let a = &self.arrays[self.array_of_controller(c)];
        format!("array {} controller {}", a.name, c - a.first_controller)
    }

    /// The system indices of the controllers of controller `c`'s array.
    pub fn array_controllers(&self, c: u32) -> std::ops::Range<u32> {
        let a = &self.arrays[self.array_of_controller(c)];
        a.first_controller..a.first_controller + a.controllers.count
    }

    /// The array LUN `lun` lives in (its group's owner's).
    pub fn lun_array(&self, lun: usize) -> usize {
        let g = self.luns[lun].group as usize;
        self.array_of_controller(self.groups[g].controller)
    }

    /// Index of the LUN called `name`.
    pub fn lun_index(&self, name: &str) -> Option<usize> {
        self.luns.iter().position(|l| l.name == name)
    }

    /// Index of the volume called `name`.
    pub fn volume_index(&self, name: &str) -> Option<usize> {
        self.volumes.iter().position(|v| v.name == name)
    }

    /// Where a simulated database goes when its placement is not given, as target names
    /// (data, log): the data on the volume `datavol`, else on the array's only volume when
    /// it has one (an ASM disk group, a host stripe), else on every LUN ("all", which a
    /// database fills in turn); the log on `logvol`, else with the data (after it).
    pub fn default_db_targets(&self) -> (String, String) {
        let data = match (self.volume_index("datavol"), self.volumes.as_slice()) {
            (Some(_), _) => "datavol".to_string(),
            (None, [only]) if only.name != "logvol" => only.name.clone(),
            _ => "all".to_string(),
        };
        let log = match self.volume_index("logvol") {
            Some(_) => "logvol".to_string(),
            None => data.clone(),
        };
        (data, log)
    }
}

pub(super) fn resolve(raw: ArrayFile, file: &str) -> Result<SystemSpec, ConfigError> {
    let arrays = arrays::resolve_arrays(&raw, file)?;
    let mut controllers = arrays[0].controllers.clone();
    controllers.count = arrays.iter().map(|a| a.controllers.count).sum();
    let host = resolve_host(&raw, &arrays, file)?;
    let mut owners = arrays::Owners::new(&arrays, file);
    let mut groups = groups::resolve_raid_groups(&raw, &mut owners, file)?;
    let model_of = |name: &str, key: &str| groups::resolve_model(&raw, name, file, key);
    let (disk_groups, virtual_groups) = virtual_disks::resolve_virtual_disks(
        (&raw.disk_groups, &raw.virtual_disks),
        &mut owners,
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
        arrays,
        groups,
        disk_groups,
        luns,
        volumes,
        failures: Vec::new(),
        rebuild: host::resolve_rebuild(&raw.rebuild, file)?,
        back_ends: Vec::new(),
        host_ports: Vec::new(),
    };
    spec.host_ports = host_ports::resolve_host_ports(&raw.host_ports, &spec.host.paths, file)?;
    spec.back_ends = back_ends::resolve_back_ends(&raw.back_ends, &spec, file)?;
    for (i, f) in raw.failures.iter().enumerate() {
        let failure = failures::resolve_failure_file(f, &spec, file, &format!("failures[{i}]"))?;
        spec.failures.push(failure);
    }
    Ok(spec)
}

/// The host side; without `[[host.paths]]`, `links` paths to each array (named `p0` ..., or
/// `NAME.p0` ... with `[[arrays]]`), to its controllers in turn.
fn resolve_host(
    raw: &ArrayFile,
    arrays: &[ArraySpec],
    file: &str,
) -> Result<HostSpec, ConfigError> {
    let h = &raw.host;
    let paths = if h.paths.is_empty() {
        let mut paths = Vec::new();
        for (a, arr) in arrays.iter().enumerate() {
            let prefix = if arr.name.is_empty() {
                String::new()
            } else {
                format!("{}.", arr.name)
            };
            paths.extend((0..h.links).map(|i| PathSpec {
                name: format!("{prefix}p{i}"),
                ns_per_byte: 1e3 / h.link_mbps,
                latency_ns: h.link_latency.0,
                controller: Some(arr.first_controller + i % arr.controllers.count),
                array: a as u32,
            }));
        }
        paths
    } else {
        host::resolve_paths(&h.paths, arrays, file)?
    };
    Ok(HostSpec {
        paths,
        multipath: h.multipath,
        queue_depth_per_lun: h.queue_depth_per_lun,
        scheduler: h.scheduler,
        nr_requests: h.nr_requests,
    })
}

#[cfg(test)]
mod tests;
