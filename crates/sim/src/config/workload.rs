//! Workload files: streams of I/O profiles aimed at RAID groups of an array.
//!
//! ```toml
//! name = "oltp-plus-redo"
//! [[streams]]
//! profile = "oltp-60-40"        # a built-in as the base (optional)
//! target = ["rg-0", "rg-1"]     # group names, or "all" (the default)
//! iodepth = 16                  # any IoProfile key overrides the base
//! [[streams]]
//! profile = "redo"
//! target = "log"
//! ```

use serde::Serialize;
use storlab_core::profile::BUILTIN_PROFILES;
use storlab_core::IoProfile;

use storlab_core::keys;

use super::keys::{BLOCK_SIZE_KEYS, STREAM_KEYS, WORKLOAD_KEYS};
use super::{limits, ConfigError, SystemSpec};

/// One stream: a profile over a target (a host volume, or LUNs concatenated).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StreamSpec {
    /// What the stream issues.
    pub profile: IoProfile,
    /// Host volume index, when the target is a configured volume.
    pub volume: Option<u32>,
    /// Otherwise the LUN indices concatenated, in order.
    pub luns: Vec<u32>,
    /// Target as named (for reports).
    pub target_names: Vec<String>,
}

impl StreamSpec {
    /// Capacity of the target in bytes.
    pub fn target_bytes(&self, system: &SystemSpec) -> u64 {
        target_bytes(self.volume, &self.luns, system)
    }
}

/// A resolved target: a host volume, or LUNs concatenated (what a stream, a trace device or
/// a database's data or log is placed on).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Placement {
    /// Host volume index, when the target is a configured volume.
    pub volume: Option<u32>,
    /// Otherwise the LUN indices concatenated, in order.
    pub luns: Vec<u32>,
    /// Target as named (for reports).
    pub names: Vec<String>,
}

impl Placement {
    /// Capacity in bytes.
    pub fn bytes(&self, system: &SystemSpec) -> u64 {
        target_bytes(self.volume, &self.luns, system)
    }

    /// Every LUN the target uses (a volume's members, or the LUNs themselves).
    pub fn member_luns(&self, system: &SystemSpec) -> Vec<u32> {
        match self.volume {
            Some(v) => system.volumes[v as usize].luns.clone(),
            None => self.luns.clone(),
        }
    }
}

fn target_bytes(volume: Option<u32>, luns: &[u32], system: &SystemSpec) -> u64 {
    match volume {
        Some(v) => system.volumes[v as usize].volume.capacity_sectors() * 512,
        None => luns
            .iter()
            .map(|&l| system.luns[l as usize].sectors * 512)
            .sum(),
    }
}

/// A workload: concurrent streams.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkloadSpec {
    /// Name used in results.
    pub name: String,
    /// The streams.
    pub streams: Vec<StreamSpec>,
    /// A simulated database (`[database]`), alongside or instead of the streams.
    pub database: Option<super::DbSpec>,
}

/// The workload for `--profile NAME`: the built-in profile over all groups of the array.
pub fn profile_workload(name: &str, system: &SystemSpec) -> Result<WorkloadSpec, ConfigError> {
    let profile = IoProfile::builtin(name).ok_or_else(|| {
        ConfigError::invalid(
            "--profile",
            "profile",
            format!(
                "unknown profile {name:?}; built-in profiles: {}",
                BUILTIN_PROFILES.join(", ")
            ),
        )
    })?;
    let stream =
        resolve_target(profile, &["all".to_string()], system).expect("\"all\" always resolves");
    check_region(&stream, system, "--profile", "profile")?;
    Ok(WorkloadSpec {
        name: name.to_string(),
        streams: vec![stream],
        database: None,
    })
}

/// A stream of `profile` on the target `names` names (see `resolve_placement`).
pub fn resolve_target(
    profile: IoProfile,
    names: &[String],
    system: &SystemSpec,
) -> Result<StreamSpec, String> {
    let p = resolve_placement(names, system)?;
    Ok(StreamSpec {
        profile,
        volume: p.volume,
        luns: p.luns,
        target_names: p.names,
    })
}

/// Resolves target names: "all" (every LUN), a volume (alone), or LUN and group names (their
/// LUNs, concatenated).
pub fn resolve_placement(names: &[String], system: &SystemSpec) -> Result<Placement, String> {
    if names.len() == 1 && names[0] == "all" {
        return Ok(Placement {
            volume: None,
            luns: (0..system.luns.len() as u32).collect(),
            names: vec!["all".into()],
        });
    }
    if let [one] = names {
        if let Some(v) = system.volume_index(one) {
            return Ok(Placement {
                volume: Some(v as u32),
                luns: Vec::new(),
                names: names.to_vec(),
            });
        }
    }
    let mut luns = Vec::new();
    for n in names {
        if let Some(l) = system.lun_index(n) {
            luns.push(l as u32);
        } else if let Some(g) = system.group_index(n) {
            luns.extend(
                system
                    .luns
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.group == g as u32)
                    .map(|(i, _)| i as u32),
            );
        } else if system.volume_index(n).is_some() {
            return Err(format!(
                "{n:?} is a volume: a volume must be the only target, not listed with others"
            ));
        } else {
            let mut known: Vec<&str> = system.volumes.iter().map(|v| v.name.as_str()).collect();
            known.extend(system.luns.iter().map(|l| l.name.as_str()));
            return Err(format!(
                "no volume, LUN or group named {n:?}; known: {}",
                known.join(", ")
            ));
        }
    }
    if luns.is_empty() {
        return Err("names no LUN".into());
    }
    Ok(Placement {
        volume: None,
        luns,
        names: names.to_vec(),
    })
}

/// Parses a workload file against `system` (targets must name its groups).
pub fn parse_workload(
    text: &str,
    file: &str,
    system: &SystemSpec,
) -> Result<WorkloadSpec, ConfigError> {
    parse_workload_table(super::parse_toml(text, file)?, file, system)
}

/// A workload file's table (as read from `file`, or with options written into it) against
/// `system`: each section checked from its declaration ([`super::keys::WORKLOAD_KEYS`],
/// [`super::keys::STREAM_KEYS`], `[database]`'s), messages naming `file`.
pub fn parse_workload_table(
    mut table: toml::Table,
    file: &str,
    system: &SystemSpec,
) -> Result<WorkloadSpec, ConfigError> {
    let top = |(k, reason): (String, String)| ConfigError::invalid(file, k, reason);
    keys::unknown_key(&table, WORKLOAD_KEYS).map_err(top)?;
    keys::check_table(&table, WORKLOAD_KEYS).map_err(|(k, r)| top((k.to_string(), r)))?;
    let name = match table.remove("name") {
        Some(toml::Value::String(s)) => s,
        _ => file
            .rsplit('/')
            .next()
            .unwrap_or(file)
            .trim_end_matches(".toml")
            .to_string(),
    };
    let database = match table.remove("database") {
        Some(v) => Some(super::database::parse_database(v, file, system)?),
        None => None,
    };
    let streams = match table.remove("streams") {
        Some(toml::Value::Array(a)) if !a.is_empty() => a,
        None if database.is_some() => Vec::new(),
        _ => {
            return Err(ConfigError::invalid(
                file,
                "streams",
                "needs at least one [[streams]] table (or a [database])",
            ))
        }
    };
    if streams.len() > limits::MAX_STREAMS {
        return Err(ConfigError::invalid(
            file,
            "streams",
            format!(
                "at most {} streams; got {}",
                limits::MAX_STREAMS,
                streams.len()
            ),
        ));
    }
    let mut out = Vec::new();
    for (i, v) in streams.into_iter().enumerate() {
        let key = format!("streams[{i}]");
        let toml::Value::Table(t) = v else {
            return Err(ConfigError::invalid(file, &key, "must be a table"));
        };
        let stream = parse_stream(t, file, &key, system)?;
        check_region(&stream, system, file, &key)?;
        out.push(stream);
    }
    let w = WorkloadSpec {
        name,
        streams: out,
        database,
    };
    check_outstanding(&w, file)?;
    Ok(w)
}

/// A workload of one simulated database whose `[database]` keys are already values (the
/// command line's `--db-test` and `--db-set`, a plan's `database` table): checked like a
/// section of a file, `source` naming where they came from in messages.
pub fn database_workload(
    name: String,
    database: toml::Table,
    source: &str,
    system: &SystemSpec,
) -> Result<WorkloadSpec, ConfigError> {
    let database = super::database::parse_database(toml::Value::Table(database), source, system)?;
    Ok(WorkloadSpec {
        name,
        streams: Vec::new(),
        database: Some(database),
    })
}

/// One `[[streams]]` table: checked from [`STREAM_KEYS`]; the declared defaults are filled in
/// unless a built-in `profile` is the base (its values are the defaults then).
fn parse_stream(
    mut t: toml::Table,
    file: &str,
    key: &str,
    system: &SystemSpec,
) -> Result<StreamSpec, ConfigError> {
    let bad =
        |(k, reason): (String, String)| ConfigError::invalid(file, format!("{key}.{k}"), reason);
    keys::unknown_key(&t, STREAM_KEYS).map_err(bad)?;
    if !t.contains_key("profile") {
        keys::fill_defaults(&mut t, STREAM_KEYS);
    }
    keys::check_table(&t, STREAM_KEYS).map_err(|(k, r)| bad((k.to_string(), r)))?;
    let path = format!("{key}.block_sizes");
    super::sections::list(&mut t, "block_sizes", BLOCK_SIZE_KEYS, file, &path)?;
    let target = t.remove("target");
    let profile = IoProfile::from_table(t).map_err(|(k, reason)| {
        let at = if k.is_empty() {
            key.to_string()
        } else {
            format!("{key}.{k}")
        };
        ConfigError::invalid(file, at, reason)
    })?;
    let names: Vec<String> = match target {
        None => vec!["all".to_string()],
        Some(toml::Value::String(s)) => vec![s],
        Some(toml::Value::Array(a)) => a.iter().map(|v| v.as_str().unwrap_or_default().to_string()).collect(),
        Some(other) => {
            return Err(ConfigError::invalid(
                file,
                format!("{key}.target"),
                format!("must be \"all\", a volume, LUN or group name, or a list of LUN and group names; got {other}"),
            ))
        }
    };
    resolve_target(profile, &names, system)
        .map_err(|e| ConfigError::invalid(file, format!("{key}.target"), e))
}

/// The stream's region must lie inside its volume.
fn check_region(
    s: &StreamSpec,
    system: &SystemSpec,
    file: &str,
    key: &str,
) -> Result<(), ConfigError> {
    let volume_bytes = s.target_bytes(system);
    let p = &s.profile;
    let end = p.region_offset.0 + p.region_size.map_or(p.max_block_bytes(), |r| r.0);
    if end > volume_bytes {
        return Err(ConfigError::invalid(
            file,
            format!("{key}.region_size"),
            format!(
                "region ends at byte {end}, beyond the target volume of {volume_bytes} bytes ({})",
                s.target_names.join(" + ")
            ),
        ));
    }
    let region = p
        .region_size
        .map_or(volume_bytes - p.region_offset.0, |r| r.0);
    if region / (p.jobs as u64) < p.max_block_bytes() {
        return Err(ConfigError::invalid(
            file,
            format!("{key}.jobs"),
            format!(
                "{} jobs leave less than one block of the region per job",
                p.jobs
            ),
        ));
    }
    Ok(())
}

/// The host I/Os the closed-loop streams keep outstanding (jobs x iodepth, summed) must stay
/// within [`limits::MAX_OUTSTANDING`]: each costs memory for the whole run.
pub fn check_outstanding(w: &WorkloadSpec, file: &str) -> Result<(), ConfigError> {
    let total: u64 = (w.streams.iter())
        .filter(|s| s.profile.rate_iops.is_none())
        .map(|s| u64::from(s.profile.jobs) * u64::from(s.profile.iodepth))
        .sum();
    if total > limits::MAX_OUTSTANDING {
        return Err(ConfigError::invalid(
            file,
            "streams",
            format!(
                "the closed-loop streams keep {total} I/Os outstanding (jobs x iodepth, summed); \
                 at most {} are simulated",
                limits::MAX_OUTSTANDING
            ),
        ));
    }
    Ok(())
}
