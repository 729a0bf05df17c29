//! Array and workload configuration: the TOML file format, its validation, and the resolved
//! specification the model is built from.
//!
//! The simulator never reads files: callers pass the text and the file name, which every
//! error message carries along with the offending key. Unknown keys are errors.

pub mod back_ends;
pub mod database;
pub mod docs;
mod failures;
pub mod host;
pub mod host_ports;
pub mod keys;
pub mod limits;
mod links;
pub mod resolve;
mod sections;
pub mod virtual_disks;
mod workload;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use storlab_core::{ByteSize, TimeSpan};

pub use back_ends::BackEndSpec;
pub use database::{
    after_durations_ns, character_workload, CharacterSpec, DbSpec, DbTest, PriorTest,
    DEFAULT_MULTIBLOCK_READ_COUNT,
};
pub use host::{
    FailureSpec, FailureTarget, HostScheduler, LunSpec, MultipathPolicy, PathSpec, RebuildSpec,
    VolumeSpec,
};
pub use host_ports::HostPortSpec;
pub use resolve::{
    parse_failure_arg, ControllerSpec, DestageOrder, GroupSpec, HostSpec, MirrorRead, Staging,
    SystemSpec, WritePolicy,
};
pub use virtual_disks::DiskGroupSpec;
pub use workload::{Placement, StreamSpec, WorkloadSpec};

/// Bad input: a configuration that cannot be simulated. Recoverable: report and exit 2.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The text is not valid TOML or does not fit the schema (unknown key, wrong type).
    #[error("{file}: {message}")]
    Parse {
        /// File name as given by the caller.
        file: String,
        /// Parser message (names the key and the line).
        message: String,
    },
    /// A value breaks a rule.
    #[error("{file}: {key}: {reason}")]
    Invalid {
        /// File name.
        file: String,
        /// Dotted key path (`raid_groups[1].stripe_unit`).
        key: String,
        /// The rule and the value found.
        reason: String,
    },
}

impl ConfigError {
    pub(crate) fn invalid(file: &str, key: impl Into<String>, reason: impl Into<String>) -> Self {
        ConfigError::Invalid {
            file: file.to_string(),
            key: key.into(),
            reason: reason.into(),
        }
    }
}

/// Host side of the array: front-end links.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostFile {
    /// Front-end paths (FC links) between host and array; I/O is spread round-robin.
    pub links: u32,
    /// Bandwidth of each link, MB/s (2 Gb FC ~ 200, 4 Gb FC ~ 400).
    pub link_mbps: f64,
    /// Fixed latency per I/O on a link (protocol and switch).
    pub link_latency: TimeSpan,
    /// Explicit paths; when given, `links`, `link_mbps` and `link_latency` are not used.
    pub paths: Vec<host::PathFile>,
    /// `round-robin`, `preferred` (per-LUN path to the owning controller, failover) or `single`.
    pub multipath: host::MultipathPolicy,
    /// Host I/Os outstanding per LUN (0 = no limit); more wait in the host queue.
    pub queue_depth_per_lun: u32,
    /// Order of the host queue: `none` (FIFO) or `deadline` (by address, 500 ms deadline).
    pub scheduler: host::HostScheduler,
    /// Requests held per LUN, outstanding plus queued (0 = no limit).
    pub nr_requests: u32,
}

/// Controllers (every controller of the array gets the same settings).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllersFile {
    /// Number of controllers; RAID groups are assigned round-robin unless a group names one.
    pub count: u32,
    /// Cache memory per controller.
    pub cache: ByteSize,
    /// Battery-backed write cache (NVS) per controller, part of `cache`.
    pub write_cache: ByteSize,
    /// `write-back` (acknowledge from NVS) or `write-through` (acknowledge after the disks).
    pub write_policy: WritePolicy,
    /// Copy every write to the peer controller's cache before acknowledging it (no effect
    /// with one controller: there is no peer; after a failover the survivor stops copying).
    pub mirror_writes: bool,
    /// Write policy of a controller once it has taken over a failed peer's LUNs:
    /// `write-back` keeps acknowledging from its NVS (now holding both controllers' dirty
    /// pages, so new writes wait until destaging brings it back under its size);
    /// `write-through`, as many arrays do once writes can no longer be mirrored, sends new
    /// writes to the disks and destages everything it holds.
    pub failover_write_policy: WritePolicy,
    /// Bandwidth of the inter-controller mirror link, MB/s.
    pub mirror_mbps: f64,
    /// Fixed cost of one mirror copy.
    pub mirror_latency: TimeSpan,
    /// Controller processing time per host I/O (one I/O at a time per controller).
    pub overhead: TimeSpan,
    /// Processors per controller.
    pub processors: u32,
    /// Processor time of a host read served from cache (default `overhead`).
    pub read_hit_cost: Option<TimeSpan>,
    /// Processor time of a host read that goes to the disks (default `overhead`).
    pub read_miss_cost: Option<TimeSpan>,
    /// Processor time of a host write (default `overhead`).
    pub write_cost: Option<TimeSpan>,
    /// Processor time of one RAID 5/6 stripe update.
    pub parity_cost: TimeSpan,
    /// ALUA forwarding cost from the non-owning controller (None: no ownership cost).
    pub forward_cost: Option<TimeSpan>,
    /// Commands kept at each drive (None: the drive's own queue depth).
    pub disk_queue_depth: Option<u32>,
    /// Start destaging when dirty data exceeds this share of the write cache, percent.
    pub destage_high_pct: f64,
    /// Stop destaging when dirty data falls to this share, percent.
    pub destage_low_pct: f64,
    /// Destage from the low watermark with the operations in flight growing with the dirty
    /// level up to `destage_queue_per_disk` at the high watermark, instead of starting at the
    /// high watermark at full depth and stopping at the low one.
    pub paced_destage: bool,
    /// Destage disk operations kept outstanding per member disk; when absent, each group's
    /// follows its disks ([`ControllerSpec::destage_queue_for`]).
    pub destage_queue_per_disk: Option<u32>,
    /// Which dirty data a destage takes first: by address or by age.
    pub destage_order: DestageOrder,
    /// RAID 5/6 write gathering: how long the partial stripe at a sequential writer's head
    /// waits for the writer to fill it, from the writer's last write (0: no wait).
    pub full_stripe_hold: TimeSpan,
    /// Read cache segment (staging unit) size.
    pub read_segment: ByteSize,
    /// How far ahead of a sequential reader the controller prefetches.
    pub prefetch: ByteSize,
    /// Consecutive sequential reads that start prefetching.
    pub sequential_trigger: u32,
    /// The read cache's unit of allocation, a power-of-two number of segments (None: each
    /// segment is allocated on its own).
    pub cache_slot: Option<ByteSize>,
    /// What a read miss stages: the blocks asked for, from them to the end of their track,
    /// or their whole track.
    pub staging: Staging,
    /// The cache's track (the unit `staging` counts in), when tracks are staged.
    pub track: Option<ByteSize>,
}

/// One of several arrays in a file: its name and its own controllers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrayEntryFile {
    /// Name, as other sections' `array` keys give it.
    pub name: String,
    /// Its controllers and caches.
    pub controllers: ControllersFile,
}

/// One RAID group entry (`count` identical groups).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RaidGroupFile {
    /// Name; with `count` > 1 the groups are called `name-0`, `name-1`, ...
    pub name: String,
    /// How many identical groups.
    pub count: u32,
    /// `jbod`, `raid0`, `raid1`, `raid10`, `raid5`, `raid6`.
    pub level: String,
    /// Member disks per group (spares not included).
    pub disks: u32,
    /// Built-in or `[disk_models]` name.
    pub disk_model: String,
    /// Stripe unit (per-disk chunk), a power of two from 4 KiB to 1 MiB.
    pub stripe_unit: ByteSize,
    /// Hot spares per group.
    pub spares: u32,
    /// Controller owning the group (default: round-robin).
    #[serde(default)]
    pub controller: Option<u32>,
    /// The `[[arrays]]` entry it belongs to (None: the file's only array).
    #[serde(default)]
    pub array: Option<String>,
    /// Read cache on for this group's LUN.
    pub read_cache: bool,
    /// Write-back caching on for this group's LUN.
    pub write_cache: bool,
    /// Mirror read balancing for RAID 1/10.
    pub mirror_read: MirrorRead,
}

/// An array configuration file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrayFile {
    /// Array name.
    pub name: String,
    /// One line for reports.
    pub description: String,
    /// Host links.
    pub host: HostFile,
    /// Controllers (of the only array; a file with `arrays` gives each its own).
    pub controllers: ControllersFile,
    /// Several arrays, each with its own controllers.
    pub arrays: Vec<ArrayEntryFile>,
    /// RAID groups; each is one LUN unless `luns` carve it.
    pub raid_groups: Vec<RaidGroupFile>,
    /// Disk groups of a virtualized array.
    pub disk_groups: Vec<virtual_disks::DiskGroupFile>,
    /// Virtual disks striped over a whole disk group.
    pub virtual_disks: Vec<virtual_disks::VirtualDiskFile>,
    /// LUNs carved from groups (groups not named here are one LUN each).
    pub luns: Vec<host::LunFile>,
    /// Host volumes over LUNs.
    pub volumes: Vec<host::VolumeFile>,
    /// The array's host ports.
    pub host_ports: Vec<host_ports::HostPortFile>,
    /// Back-end loops or buses.
    pub back_ends: Vec<back_ends::BackEndFile>,
    /// Failure events.
    pub failures: Vec<host::FailureFile>,
    /// Rebuild policy.
    pub rebuild: host::RebuildFile,
    /// User-defined disk models (tables with `kind` or `base` plus parameters).
    pub disk_models: BTreeMap<String, toml::Table>,
}

/// Parses TOML text into a table; syntax errors name the file and the line.
pub fn parse_toml(text: &str, file: &str) -> Result<toml::Table, ConfigError> {
    text.parse()
        .map_err(|e: toml::de::Error| ConfigError::Parse {
            file: file.to_string(),
            message: e.to_string(),
        })
}

/// Parses and validates an array configuration. `file` is used in messages only.
pub fn parse_array(text: &str, file: &str) -> Result<SystemSpec, ConfigError> {
    let mut table = parse_toml(text, file)?;
    sections::prepare_array(&mut table, file)?;
    let raw: ArrayFile = toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::Parse {
            file: file.to_string(),
            message: e.message().to_string(),
        })?;
    resolve::resolve(raw, file)
}

pub use workload::{
    check_outstanding, database_workload, parse_workload, parse_workload_table, profile_workload,
    resolve_placement, resolve_target,
};

/// Lays `overrides` over `base` (keys of `overrides` win); used for `base = "..."` entries.
pub(crate) fn merge_tables(mut base: toml::Table, overrides: toml::Table) -> toml::Table {
    for (k, v) in overrides {
        base.insert(k, v);
    }
    base
}
