//! The validated options of one real I/O run.

use std::path::PathBuf;

use storlab_core::profile::GROUP_COMMIT_KEY;
use storlab_core::{ByteSize, IoProfile};

/// How I/O is submitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// One thread per outstanding I/O, each doing pread/pwrite.
    Psync,
    /// One io_uring per job, `iodepth` I/Os in flight, batched submission and completion.
    IoUring,
}

impl EngineKind {
    /// Name as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Psync => "psync",
            EngineKind::IoUring => "io_uring",
        }
    }
}

/// How synchronous writes reach stable storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// The file is opened with O_DSYNC: every write is synchronous.
    Dsync,
    /// fdatasync(2) after every write (psync engine).
    Fdatasync,
}

/// One I/O class: a profile on a target, or a group-commit log.
#[derive(Clone, Debug)]
pub struct IoClass {
    /// Name in results.
    pub name: String,
    /// File, directory or block device.
    pub target: PathBuf,
    /// The profile, with overrides applied.
    pub profile: IoProfile,
    /// Group commit: this many committers share one log writer that batches their records
    /// (each record one block of the profile); None for plain I/O.
    pub group_commit: Option<u32>,
}

impl IoClass {
    /// True when the class writes its target (any write share, or a commit log).
    pub fn writes(&self) -> bool {
        self.profile.read_pct < 100.0 || self.group_commit.is_some()
    }
}

/// Most I/Os one run keeps outstanding in all (psync runs a thread for each).
pub const MAX_OUTSTANDING: u64 = 4096;
/// Most memory one run holds in I/O buffers.
pub const MAX_BUFFER_BYTES: u64 = 4 << 30;

/// Stop early once throughput is steady.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyState {
    /// The last this-many one-second samples ...
    pub samples: u32,
    /// ... are all within this percentage of their mean.
    pub within_pct: f64,
}

/// Everything a run needs, checked.
#[derive(Clone, Debug)]
pub struct IoOptions {
    /// The classes that run concurrently (at least one).
    pub classes: Vec<IoClass>,
    /// Engine.
    pub engine: EngineKind,
    /// Size of each file (of each file of a directory target); for a device, how much of it
    /// to use (None: all).
    pub size_bytes: Option<u64>,
    /// Measured time after the warm-up (the longest; steady state may stop it earlier).
    pub duration_ns: u64,
    /// Warm-up excluded from the measurement (with `warmup_auto`, its limit).
    pub warmup_ns: u64,
    /// Automatic warm-up: until the one-second series passes the steady-state test, at most
    /// `warmup_ns`.
    pub warmup_auto: bool,
    /// O_DIRECT (the default) or buffered.
    pub direct: bool,
    /// Synchronous write method when a profile asks for synchronous writes.
    pub sync: SyncMode,
    /// Keep files storlab created.
    pub keep: bool,
    /// Allow writing an existing file storlab did not create: the target (or one file of a
    /// directory target) named by `--overwrite PATH`.
    pub overwrite: Option<PathBuf>,
    /// Allow writing this block device even though it holds data.
    pub force_destroy: Option<PathBuf>,
    /// Seed of the address streams.
    pub seed: u64,
    /// Stop when throughput is steady.
    pub steady: Option<SteadyState>,
    /// Write every target sequentially once before measuring (SSD preconditioning).
    pub precondition: bool,
    /// Stamp every written block and check every read (lost, torn, misplaced writes).
    pub verify: bool,
}

impl IoOptions {
    /// Options for one profile on one target, with the defaults of `storlab io`.
    pub fn single(target: PathBuf, profile: IoProfile) -> IoOptions {
        IoOptions {
            classes: vec![IoClass {
                name: profile.name.clone(),
                target,
                profile,
                group_commit: None,
            }],
            engine: EngineKind::Psync,
            size_bytes: None,
            duration_ns: 30_000_000_000,
            warmup_ns: 5_000_000_000,
            warmup_auto: false,
            direct: true,
            sync: SyncMode::Dsync,
            keep: false,
            overwrite: None,
            force_destroy: None,
            seed: 1,
            steady: None,
            precondition: false,
            verify: false,
        }
    }

    /// Checks what the run would hold at once: threads (psync: one per outstanding I/O) and
    /// I/O buffers (one per outstanding I/O, of the largest block size).
    pub fn check_bounds(&self) -> Result<(), String> {
        let mut outstanding: u64 = 0;
        let mut buffer_bytes: u64 = 0;
        for c in &self.classes {
            let p = &c.profile;
            let n =
                u64::from(p.jobs) * u64::from(p.iodepth) + u64::from(c.group_commit.unwrap_or(0));
            outstanding += n;
            buffer_bytes = buffer_bytes.saturating_add(n.saturating_mul(p.max_block_bytes()));
        }
        if outstanding > MAX_OUTSTANDING {
            return Err(format!(
                "the run would keep {outstanding} I/Os outstanding (jobs x iodepth over every class); at most {MAX_OUTSTANDING}"
            ));
        }
        if buffer_bytes > MAX_BUFFER_BYTES {
            return Err(format!(
                "the run would hold {} of I/O buffers (jobs x iodepth x the largest block); at most {}; lower --iodepth, --jobs or --bs",
                ByteSize(buffer_bytes),
                ByteSize(MAX_BUFFER_BYTES)
            ));
        }
        Ok(())
    }

    /// The first class's profile (the run's name).
    pub fn profile(&self) -> &IoProfile {
        &self.classes[0].profile
    }
}

/// Parses an I/O workload file: `[[streams]]` tables, each a profile (an optional built-in
/// `profile` as the base plus any profile keys), an optional `target` path (default:
/// `default_target`), an optional `name`, and `group_commit = N` for a commit path.
pub fn parse_classes(
    text: &str,
    file: &str,
    default_target: &std::path::Path,
) -> Result<Vec<IoClass>, crate::IoError> {
    let bad =
        |key: String, reason: String| crate::IoError::BadInput(format!("{file}: {key}: {reason}"));
    let mut table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| crate::IoError::BadInput(format!("{file}: {e}")))?;
    let streams = match table.remove("streams") {
        Some(toml::Value::Array(a)) if !a.is_empty() => a,
        _ => {
            return Err(bad(
                "streams".into(),
                "needs at least one [[streams]] table".into(),
            ))
        }
    };
    if let Some(k) = table.keys().next() {
        return Err(bad(
            k.clone(),
            "unknown key (allowed at top level: streams)".into(),
        ));
    }
    let mut out = Vec::new();
    for (i, v) in streams.into_iter().enumerate() {
        let key = format!("streams[{i}]");
        let toml::Value::Table(mut t) = v else {
            return Err(bad(key, "must be a table".into()));
        };
        let target = match t.remove("target") {
            None => default_target.to_path_buf(),
            Some(toml::Value::String(s)) => PathBuf::from(s),
            Some(other) => {
                return Err(bad(
                    format!("{key}.target"),
                    format!("must be a path; got {other}"),
                ))
            }
        };
        let name = t.remove("name").and_then(|v| v.as_str().map(String::from));
        let group_commit = match t.remove("group_commit") {
            None => None,
            Some(v) => {
                let at = || format!("{key}.group_commit");
                GROUP_COMMIT_KEY
                    .check(&v)
                    .map_err(|reason| bad(at(), reason))?;
                let n = v.as_integer().and_then(|n| u32::try_from(n).ok());
                Some(n.ok_or_else(|| bad(at(), format!("must be a count; got {v}")))?)
            }
        };
        let profile = IoProfile::from_table(t).map_err(|(k, reason)| {
            let at = if k.is_empty() {
                key.clone()
            } else {
                format!("{key}.{k}")
            };
            bad(at, reason)
        })?;
        out.push(IoClass {
            name: name.unwrap_or_else(|| profile.name.clone()),
            target,
            profile,
            group_commit,
        });
    }
    Ok(out)
}
