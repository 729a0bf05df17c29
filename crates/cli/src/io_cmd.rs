//! `storlab io`: build the options from the flags (profile plus overrides), run, print, write.

use storlab_core::profile::BUILTIN_PROFILES;
use storlab_core::{AccessPattern, BlockSizeWeight, IoProfile};
use storlab_io::{run_io, EngineKind, IoOptions, SyncMode};

use crate::cli::IoArgs;
use crate::error::CliError;
use crate::output::write_results;
use crate::table;

fn profile(a: &IoArgs) -> Result<IoProfile, CliError> {
    let mut p = IoProfile::builtin(&a.profile).ok_or_else(|| {
        CliError::BadInput(format!(
            "--profile: unknown profile {:?}; built-in profiles: {}",
            a.profile,
            BUILTIN_PROFILES.join(", ")
        ))
    })?;
    if let Some(bs) = a.bs {
        p.block_sizes = vec![BlockSizeWeight {
            size: bs,
            weight: 1.0,
        }];
    }
    if let Some(n) = a.iodepth {
        p.iodepth = n;
    }
    if let Some(n) = a.jobs {
        p.jobs = n;
    }
    if let Some(rw) = &a.rw {
        let (pattern, read_pct) = match rw.as_str() {
            "read" => (AccessPattern::Sequential, 100.0),
            "write" => (AccessPattern::Sequential, 0.0),
            "randread" => (AccessPattern::Random, 100.0),
            "randwrite" => (AccessPattern::Random, 0.0),
            "rw" => (AccessPattern::Sequential, 50.0),
            _ => (AccessPattern::Random, 50.0),
        };
        p.pattern = pattern;
        p.read_pct = read_pct;
    }
    if let Some(r) = a.rate_iops {
        p.rate_iops = Some(r);
    }
    p.validate()
        .map_err(|e| CliError::BadInput(format!("--{}: {}", e.key.replace('_', "-"), e.reason)))?;
    Ok(p)
}

pub fn run(a: IoArgs) -> Result<(), CliError> {
    let opts = IoOptions {
        target: a.target.clone(),
        profile: profile(&a)?,
        engine: if a.engine == "io_uring" {
            EngineKind::IoUring
        } else {
            EngineKind::Psync
        },
        size_bytes: a.size.map(|s| s.0),
        duration_ns: a.duration.0,
        warmup_ns: a.warmup.0,
        direct: !a.buffered,
        sync: if a.sync == "fdatasync" {
            SyncMode::Fdatasync
        } else {
            SyncMode::Dsync
        },
        keep: a.keep,
        overwrite: a.overwrite,
        force_destroy: a.force_destroy.clone(),
        seed: a.seed,
    };
    let run = run_io(&opts)?;
    print!("{}", table::single(&run));
    print!("{}", table::real_io(&run));
    let partial = run.partial;
    if let Some(path) = &a.json {
        write_results(path, vec![run])?;
        println!("results: {}", path.display());
    }
    if partial {
        return Err(CliError::Failed(
            "interrupted; partial results written".into(),
        ));
    }
    Ok(())
}
