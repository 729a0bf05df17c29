//! I/O profiles: the one workload vocabulary of storlab.
//!
//! A profile says *what* I/O a workload issues (pattern, read share, block sizes, load) and
//! never *where*: the simulator runs it on a simulated volume, `storlab io` on a real file or
//! device. The names of the built-in profiles follow the "IOgen" matrix of the classic studies.
//! Load is expressed like fio: `jobs` independent streams, each keeping `iodepth` I/Os
//! outstanding (closed loop), or an arrival rate (`rate_iops`, open loop, split over the jobs).

use serde::{Deserialize, Serialize};

use crate::keys;
use crate::units::{ByteSize, TimeSpan};

mod keys_table;

pub use keys_table::{
    BLOCK_SIZE_KEYS, GROUP_COMMIT_KEY, IO_STREAM_KEYS, MAX_COMMITTERS, MAX_REGION_BYTES,
    MAX_THINK_NS, PROFILE_KEYS, RATE_IOPS_KEY,
};

/// Highest open-loop arrival rate of a profile: well above any single array or host today
/// (a few million IO/s), low enough that a simulated or real run stays bounded.
pub const MAX_RATE_IOPS: f64 = 10_000_000.0;
/// Largest block size of a profile (each outstanding I/O holds a buffer this large).
pub const MAX_BLOCK_BYTES: u64 = 64 << 20;

/// Random or sequential addressing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessPattern {
    /// Uniformly random, block-aligned offsets within the region.
    Random,
    /// Each job walks its share of the region in ascending order and wraps at its end.
    Sequential,
}

/// One entry of a block-size mix.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockSizeWeight {
    /// Size of the I/O.
    pub size: ByteSize,
    /// Relative weight (any positive number; weights are normalised).
    pub weight: f64,
}

/// An I/O profile. Every field has a default so user files only name what differs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IoProfile {
    /// Name used in results (`randread-8k`, or the user's own).
    pub name: String,
    /// Random or sequential.
    pub pattern: AccessPattern,
    /// Share of reads in percent, 0 to 100.
    pub read_pct: f64,
    /// Block-size mix; one entry for a fixed size.
    pub block_sizes: Vec<BlockSizeWeight>,
    /// Independent streams (fio's numjobs).
    pub jobs: u32,
    /// Outstanding I/Os per job in closed loop (fio's iodepth).
    pub iodepth: u32,
    /// Open loop: total arrival rate over all jobs (Poisson arrivals); `None` for closed loop.
    pub rate_iops: Option<f64>,
    /// Closed loop: pause between an I/O's completion and the next issue of that slot.
    pub think_time: TimeSpan,
    /// Writes are synchronous (O_DSYNC on real targets; acknowledged from stable storage).
    pub sync_writes: bool,
    /// Start of the region inside the target.
    pub region_offset: ByteSize,
    /// Size of the region; `None` means up to the end of the target.
    pub region_size: Option<ByteSize>,
}

impl Default for IoProfile {
    fn default() -> Self {
        IoProfile {
            name: "custom".to_string(),
            pattern: AccessPattern::Random,
            read_pct: 100.0,
            block_sizes: vec![BlockSizeWeight {
                size: ByteSize(8192),
                weight: 1.0,
            }],
            jobs: 1,
            iodepth: 1,
            rate_iops: None,
            think_time: TimeSpan(0),
            sync_writes: false,
            region_offset: ByteSize(0),
            region_size: None,
        }
    }
}

/// A profile that breaks a rule, with the offending key.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("profile {profile}: {key} {reason}")]
pub struct ProfileError {
    /// Profile name.
    pub profile: String,
    /// Offending key.
    pub key: &'static str,
    /// What is wrong and what is allowed.
    pub reason: String,
}

/// Names of the built-in profiles, in the order the IOgen matrix prints them.
pub const BUILTIN_PROFILES: [&str; 12] = [
    "randread-1k",
    "randread-8k",
    "randwrite-1k",
    "randwrite-8k",
    "seqread-1k",
    "seqread-8k",
    "seqread-1m",
    "seqwrite-1k",
    "seqwrite-8k",
    "seqwrite-1m",
    "oltp-60-40",
    "redo",
];

/// The IOgen matrix: random and sequential reads and writes at 1 KiB, 8 KiB and 1 MiB.
pub const IOGEN_MATRIX: [&str; 10] = [
    "randread-1k",
    "randread-8k",
    "randwrite-1k",
    "randwrite-8k",
    "seqread-1k",
    "seqread-8k",
    "seqread-1m",
    "seqwrite-1k",
    "seqwrite-8k",
    "seqwrite-1m",
];

fn fixed(
    name: &str,
    pattern: AccessPattern,
    read_pct: f64,
    size: u64,
    jobs: u32,
    iodepth: u32,
) -> IoProfile {
    IoProfile {
        name: name.to_string(),
        pattern,
        read_pct,
        block_sizes: vec![BlockSizeWeight {
            size: ByteSize(size),
            weight: 1.0,
        }],
        jobs,
        iodepth,
        ..IoProfile::default()
    }
}

impl IoProfile {
    /// A built-in profile by name, or `None`.
    ///
    /// Load levels (documented in the README): random profiles keep 64 I/Os outstanding
    /// (8 jobs x 8), enough to keep every spindle of a 20-disk array queued the way the
    /// studies' multi-threaded IOgen runs did; sequential profiles run 4 jobs x 2 outstanding,
    /// each job on its own quarter of the target; `redo` is one job at depth 1 with synchronous
    /// writes, like a log writer; `oltp-60-40` is the studies' OLTP mix at 32 outstanding.
    pub fn builtin(name: &str) -> Option<IoProfile> {
        use AccessPattern::{Random, Sequential};
        const K: u64 = 1024;
        let p = match name {
            "randread-1k" => fixed(name, Random, 100.0, K, 8, 8),
            "randread-8k" => fixed(name, Random, 100.0, 8 * K, 8, 8),
            "randwrite-1k" => fixed(name, Random, 0.0, K, 8, 8),
            "randwrite-8k" => fixed(name, Random, 0.0, 8 * K, 8, 8),
            "seqread-1k" => fixed(name, Sequential, 100.0, K, 8, 2),
            "seqread-8k" => fixed(name, Sequential, 100.0, 8 * K, 8, 2),
            "seqread-1m" => fixed(name, Sequential, 100.0, K * K, 8, 2),
            "seqwrite-1k" => fixed(name, Sequential, 0.0, K, 8, 2),
            "seqwrite-8k" => fixed(name, Sequential, 0.0, 8 * K, 8, 2),
            "seqwrite-1m" => fixed(name, Sequential, 0.0, K * K, 8, 2),
            "oltp-60-40" => IoProfile {
                block_sizes: vec![
                    BlockSizeWeight {
                        size: ByteSize(2 * K),
                        weight: 75.0,
                    },
                    BlockSizeWeight {
                        size: ByteSize(16 * K),
                        weight: 25.0,
                    },
                ],
                ..fixed(name, Random, 60.0, 2 * K, 8, 4)
            },
            "redo" => IoProfile {
                sync_writes: true,
                ..fixed(name, Sequential, 0.0, 8 * K, 1, 1)
            },
            _ => return None,
        };
        Some(p)
    }

    /// Checks every rule a profile must follow: the declared bounds of [`PROFILE_KEYS`] and
    /// [`BLOCK_SIZE_KEYS`], then the rules between values. The message names the key.
    pub fn validate(&self) -> Result<(), ProfileError> {
        let err = |key: &'static str, reason: String| {
            Err(ProfileError {
                profile: self.name.clone(),
                key,
                reason,
            })
        };
        let table = match toml::Table::try_from(self) {
            Ok(t) => t,
            Err(e) => return err("", e.to_string()),
        };
        if let Err((key, reason)) = keys::check_table(&table, &PROFILE_KEYS) {
            return err(key, reason);
        }
        if self.block_sizes.is_empty() {
            return err("block_sizes", "must name at least one size".into());
        }
        let entries = table.get("block_sizes").and_then(|v| v.as_array());
        for entry in entries.into_iter().flatten().filter_map(|e| e.as_table()) {
            if let Err((key, reason)) = keys::check_table(entry, BLOCK_SIZE_KEYS) {
                return err("block_sizes", format!("{key} {reason}"));
            }
        }
        if let Some(b) = self.block_sizes.iter().find(|b| b.size.0 % 512 != 0) {
            return err(
                "block_sizes",
                format!("size must be a multiple of 512 bytes; got {}", b.size),
            );
        }
        if !self.region_offset.0.is_multiple_of(512) {
            return err(
                "region_offset",
                format!(
                    "must be a multiple of 512 bytes; got {}",
                    self.region_offset
                ),
            );
        }
        if let Some(size) = self.region_size {
            if size.0 < self.max_block_bytes() {
                return err(
                    "region_size",
                    format!("must hold at least one block; got {size}"),
                );
            }
        }
        Ok(())
    }

    /// A profile from a TOML table: an optional `profile = "built-in"` as the base, then any
    /// profile keys overriding it; validated. Errors name the key (`(key, reason)`; the key is
    /// empty when the table itself is malformed).
    pub fn from_table(mut t: toml::Table) -> Result<IoProfile, (String, String)> {
        let mut base = IoProfile::default();
        if let Some(p) = t.remove("profile") {
            let name = p.as_str().unwrap_or_default();
            base = IoProfile::builtin(name).ok_or_else(|| {
                let reason = format!(
                    "unknown profile {name:?}; built-in profiles: {}",
                    BUILTIN_PROFILES.join(", ")
                );
                ("profile".to_string(), reason)
            })?;
        }
        let mut table = toml::Table::try_from(&base).map_err(|e| (String::new(), e.to_string()))?;
        for (k, v) in t {
            table.insert(k, v);
        }
        let profile: IoProfile = table
            .try_into()
            .map_err(|e: toml::de::Error| (String::new(), e.message().to_string()))?;
        profile
            .validate()
            .map_err(|e| (e.key.to_string(), e.reason))?;
        Ok(profile)
    }

    /// Largest block size of the mix.
    pub fn max_block_bytes(&self) -> u64 {
        self.block_sizes.iter().map(|b| b.size.0).max().unwrap_or(0)
    }

    /// Mean block size of the mix in bytes.
    pub fn mean_block_bytes(&self) -> f64 {
        let total: f64 = self.block_sizes.iter().map(|b| b.weight).sum();
        self.block_sizes
            .iter()
            .map(|b| b.size.0 as f64 * b.weight / total)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_profile_is_valid_and_named() {
        for name in BUILTIN_PROFILES {
            let p = IoProfile::builtin(name).expect("builtin exists");
            assert_eq!(p.name, name);
            p.validate().expect("builtin valid");
        }
        assert!(IoProfile::builtin("randread-9k").is_none());
    }

    #[test]
    fn matrix_names_are_builtins() {
        for name in IOGEN_MATRIX {
            assert!(BUILTIN_PROFILES.contains(&name));
        }
    }

    #[test]
    fn oltp_mix_mean_block() {
        let p = IoProfile::builtin("oltp-60-40").unwrap();
        assert!((p.mean_block_bytes() - (0.75 * 2048.0 + 0.25 * 16384.0)).abs() < 1e-6);
        assert_eq!(p.max_block_bytes(), 16384);
    }

    #[test]
    fn validation_names_the_key() {
        let bad = IoProfile {
            read_pct: 120.0,
            ..IoProfile::default()
        };
        let e = bad.validate().unwrap_err();
        assert_eq!(e.key, "read_pct");
        assert_eq!(
            e.to_string(),
            "profile custom: read_pct must be at least 0 and at most 100 %; got 120"
        );
        let bad = IoProfile {
            block_sizes: vec![BlockSizeWeight {
                size: ByteSize(1000),
                weight: 1.0,
            }],
            ..IoProfile::default()
        };
        assert_eq!(bad.validate().unwrap_err().key, "block_sizes");
        let bad = IoProfile {
            iodepth: 0,
            ..IoProfile::default()
        };
        assert_eq!(bad.validate().unwrap_err().key, "iodepth");
    }

    /// `storlab io`'s profile files and flags go through `from_table` and `validate`: every
    /// bound declared for a profile key is refused there just outside, naming key and bound.
    #[test]
    fn every_declared_bound_is_enforced_naming_the_key_and_the_bound() {
        let mut checked = 0;
        for key in PROFILE_KEYS {
            for (value, bound) in key.values_outside() {
                let t: toml::Table = toml::from_str(&format!("{} = {value}", key.name)).unwrap();
                let (k, reason) = IoProfile::from_table(t).unwrap_err();
                assert_eq!(k, key.name, "{value}: {reason}");
                assert!(
                    reason.starts_with("must be") && reason.contains(&bound),
                    "{} = {value}: {reason}",
                    key.name
                );
                checked += 1;
            }
        }
        for key in BLOCK_SIZE_KEYS {
            for (value, bound) in key.values_outside() {
                let entry = match key.name {
                    "size" => format!("{{ size = {value}, weight = 1.0 }}"),
                    _ => format!("{{ size = \"8k\", {} = {value} }}", key.name),
                };
                let t: toml::Table = toml::from_str(&format!("block_sizes = [{entry}]")).unwrap();
                let (k, reason) = IoProfile::from_table(t).unwrap_err();
                assert_eq!(k, "block_sizes", "{entry}: {reason}");
                let want = format!("{} must be", key.name);
                assert!(
                    reason.starts_with(&want) && reason.contains(&bound),
                    "{entry}: {reason}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 16);
    }

    #[test]
    fn profile_from_toml_with_defaults() {
        let p: IoProfile = toml::from_str(
            "name = \"mine\"\npattern = \"sequential\"\nread_pct = 0\nblock_sizes = [{ size = \"64k\", weight = 1 }]\niodepth = 4\n",
        )
        .unwrap();
        assert_eq!(p.pattern, AccessPattern::Sequential);
        assert_eq!(p.block_sizes[0].size, ByteSize(65536));
        assert_eq!(p.jobs, 1);
        let unknown: Result<IoProfile, _> = toml::from_str("nmae = \"x\"");
        assert!(unknown.unwrap_err().to_string().contains("nmae"));
    }
}
