//! A plan's `[[targets]]`: a simulated array file, or a real directory (with its WAL
//! directory and the file or device for the I/O profiles), with prices and timing.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use storlab_core::steady::Warmup;
use storlab_core::{ByteSize, TimeSpan};

use super::bad;
use crate::error::CliError;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTarget {
    name: String,
    #[serde(default)]
    array: Option<PathBuf>,
    #[serde(default)]
    fail: Vec<String>,
    #[serde(default)]
    db_data: Option<String>,
    #[serde(default)]
    db_log: Option<String>,
    #[serde(default, alias = "data")]
    dir: Option<PathBuf>,
    #[serde(default, alias = "wal")]
    wal_dir: Option<PathBuf>,
    #[serde(default)]
    io_target: Option<PathBuf>,
    #[serde(default)]
    io_size: Option<ByteSize>,
    #[serde(default)]
    engine: Option<String>,
    #[serde(default)]
    price_per_disk: Option<f64>,
    #[serde(default)]
    price_per_gb: Option<f64>,
    #[serde(default)]
    duration: Option<TimeSpan>,
    #[serde(default)]
    warmup: Option<Warmup>,
}

/// Where a configuration runs.
#[derive(Debug, Clone, PartialEq)]
pub enum TargetKind {
    /// A simulated array file.
    Sim { array: PathBuf, fail: Vec<String> },
    /// A real directory (database clusters, and I/O files unless `io_target` names a file or
    /// device for the I/O profiles).
    Real {
        dir: PathBuf,
        wal_dir: Option<PathBuf>,
        io_target: Option<PathBuf>,
    },
}

/// A configuration under test.
#[derive(Debug, Clone)]
pub struct Target {
    pub name: String,
    pub kind: TargetKind,
    pub(in crate::compare) db_data: Option<String>,
    pub(in crate::compare) db_log: Option<String>,
    pub(in crate::compare) io_size: ByteSize,
    pub(in crate::compare) engine: String,
    pub price_per_disk: Option<f64>,
    pub price_per_gb: Option<f64>,
    /// Timing of this target's cells when the workload does not set its own.
    pub(super) duration: Option<TimeSpan>,
    pub(super) warmup: Option<Warmup>,
}

pub(super) fn target(
    t: RawTarget,
    i: usize,
    file: &str,
    rel: &dyn Fn(&Path) -> PathBuf,
) -> Result<Target, CliError> {
    let key = |k: &str| format!("targets[{i}].{k}");
    let ok_name = !t.name.is_empty()
        && t.name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !ok_name {
        return Err(bad(file, &key("name"), "use letters, digits, - and _"));
    }
    let kind = match (&t.array, &t.dir) {
        (Some(a), None) => TargetKind::Sim {
            array: rel(a),
            fail: t.fail.clone(),
        },
        (None, Some(d)) => {
            if !t.fail.is_empty() {
                return Err(bad(
                    file,
                    &key("fail"),
                    "failure events need a simulated array",
                ));
            }
            TargetKind::Real {
                dir: rel(d),
                wal_dir: t.wal_dir.as_deref().map(rel),
                io_target: t.io_target.as_deref().map(rel),
            }
        }
        _ => {
            return Err(bad(
                file,
                &key("array"),
                "give either array (simulated) or dir (real)",
            ))
        }
    };
    let engine = t.engine.unwrap_or_else(|| "psync".into());
    if engine != "psync" && engine != "io_uring" {
        return Err(bad(file, &key("engine"), "psync or io_uring"));
    }
    Ok(Target {
        name: t.name,
        kind,
        db_data: t.db_data,
        db_log: t.db_log,
        io_size: t.io_size.unwrap_or(ByteSize(1 << 30)),
        engine,
        price_per_disk: t.price_per_disk,
        price_per_gb: t.price_per_gb,
        duration: t.duration,
        warmup: t.warmup,
    })
}
