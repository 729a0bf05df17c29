//! `storlab io`: build the options from the flags (profile plus overrides, or a workload file
//! of classes), run once or as a load sweep, print, write.

use storlab_core::profile::{BUILTIN_PROFILES, GROUP_COMMIT_KEY, RATE_IOPS_KEY};
use storlab_core::result::Run;
use storlab_core::steady::Warmup;
use storlab_core::{AccessPattern, BlockSizeWeight, IoProfile, TimeSpan};
use storlab_io::options::parse_classes;
use storlab_io::sweep::{doubling, run_sweep, LoadPoint};
use storlab_io::{run_io, EngineKind, IoClass, IoOptions, SteadyState, SyncMode};

use crate::cli::{resolve_warmup, IoArgs};
use crate::error::CliError;
use crate::flags::{self, IO_SWEEP_MAX, IO_WARMUP, MAX_P99_MS, SWEEP_POINTS};
use crate::output::{json_output, read_input, write_results};
use crate::table::{self, num, render};

fn profile(a: &IoArgs) -> Result<IoProfile, CliError> {
    let name = a.profile.as_deref().unwrap_or("randread-8k");
    let mut p = IoProfile::builtin(name).ok_or_else(|| {
        CliError::BadInput(format!(
            "--profile: unknown profile {name:?}; built-in profiles: {}",
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
    // Group commit makes every I/O a synchronous write: a profile that read is renamed.
    let reads_dropped = a.group_commit.is_some() && p.read_pct > 0.0;
    if a.group_commit.is_some() {
        p.read_pct = 0.0;
        p.sync_writes = true;
    }
    if a.rw.is_some() || a.bs.is_some() || reads_dropped {
        p.name = override_name(&p);
    }
    p.validate()
        .map_err(|e| CliError::BadInput(format!("{}: {}", flag_of(e.key), e.reason)))?;
    Ok(p)
}

/// The name of a profile changed by --rw or --bs, as fio names a job: `randrw-16k`, `read-1m`
/// (`mix` for several block sizes); a read share other than 0, 50 or 100 is spelled out.
fn override_name(p: &IoProfile) -> String {
    let random = p.pattern == AccessPattern::Random;
    let rw = match p.read_pct {
        r if r >= 100.0 => "read".to_string(),
        r if r <= 0.0 => "write".to_string(),
        50.0 => "rw".to_string(),
        r => format!("rw{r}"),
    };
    let bs = match p.block_sizes.as_slice() {
        [one] => one.size.to_string(),
        _ => "mix".to_string(),
    };
    format!("{}{rw}-{bs}", if random { "rand" } else { "" })
}

/// The command-line flag that sets a profile key (what the user typed, not the key's name).
fn flag_of(key: &str) -> String {
    match key {
        "block_sizes" => "--bs".into(),
        "read_pct" => "--rw".into(),
        _ => format!("--{}", key.replace('_', "-")),
    }
}

fn steady(s: &str) -> Result<SteadyState, CliError> {
    let bad = || {
        CliError::BadInput(format!(
            "--steady: use K:X (K samples within X%), e.g. 10:5; got {s:?}"
        ))
    };
    let (k, x) = s.split_once(':').ok_or_else(bad)?;
    let samples: u32 = k.parse().map_err(|_| bad())?;
    let within_pct: f64 = x.trim_end_matches('%').parse().map_err(|_| bad())?;
    if samples < 2 || !(within_pct > 0.0 && within_pct < 100.0) {
        return Err(bad());
    }
    Ok(SteadyState {
        samples,
        within_pct,
    })
}

fn options(a: &IoArgs) -> Result<IoOptions, CliError> {
    if let Some(n) = a.group_commit {
        flags::check(&GROUP_COMMIT_KEY, "--group-commit", n)?;
    }
    if let Some(ms) = a.max_p99_ms {
        flags::check(&MAX_P99_MS, "--max-p99-ms", ms)?;
    }
    let classes = match &a.workload {
        Some(path) => parse_classes(&read_input(path)?, &path.display().to_string(), &a.target)?,
        None => {
            let p = profile(a)?;
            vec![IoClass {
                name: p.name.clone(),
                target: a.target.clone(),
                profile: p,
                group_commit: a.group_commit,
            }]
        }
    };
    let warmup = warmup(a)?;
    Ok(IoOptions {
        classes,
        engine: if a.engine == "io_uring" {
            EngineKind::IoUring
        } else {
            EngineKind::Psync
        },
        size_bytes: a.size.map(|s| s.0),
        duration_ns: a.run.duration.0,
        warmup_ns: warmup.max().0,
        warmup_auto: warmup.is_auto(),
        direct: !a.buffered,
        sync: if a.sync == "fdatasync" {
            SyncMode::Fdatasync
        } else {
            SyncMode::Dsync
        },
        keep: a.keep,
        overwrite: a.overwrite.clone(),
        force_destroy: a.force_destroy.clone(),
        seed: a.run.seed,
        steady: a.steady.as_deref().map(steady).transpose()?,
        precondition: a.precondition,
        verify: a.verify,
    })
}

/// The warm-up asked for (5 s unless given), its length or limit checked against the flag
/// that set it.
fn warmup(a: &IoArgs) -> Result<Warmup, CliError> {
    let w = resolve_warmup(
        a.run.warmup,
        a.run.warmup_max,
        false,
        TimeSpan::from_secs(5),
    );
    let flag = if w.is_auto() {
        "--warmup-max"
    } else {
        "--warmup"
    };
    flags::check(&IO_WARMUP, flag, flags::span(w.max().0))?;
    Ok(w)
}

/// A sweep when the flags ask for one.
fn sweep(a: &IoArgs, opts: &IoOptions) -> Result<Option<storlab_io::sweep::Sweep>, CliError> {
    if !a.sweep && a.sweep_rates.is_empty() {
        return Ok(None);
    }
    let points: Vec<LoadPoint> = if a.sweep_rates.is_empty() {
        flags::check(&IO_SWEEP_MAX, "--sweep-max", a.sweep_max)?;
        doubling(a.sweep_max)
    } else {
        sweep_rates(&a.sweep_rates)?
    };
    Ok(Some(run_sweep(opts, &points, a.max_p99_ms)?))
}

/// The runs `a` asks for (one, or one per load point), for `storlab compare`.
pub fn runs(a: &IoArgs) -> Result<Vec<Run>, CliError> {
    let opts = options(a)?;
    Ok(match sweep(a, &opts)? {
        Some(s) => s.runs,
        None => vec![run_io(&opts)?],
    })
}

/// One run of `a` (no load sweep) with the latency histogram of every measured I/O, for a
/// caller that merges several hosts' runs (the Python package's `io_cluster`).
pub fn run_with_latency(a: &IoArgs) -> Result<(Run, storlab_core::LatencyHistogram), CliError> {
    if a.sweep || !a.sweep_rates.is_empty() {
        return Err(CliError::BadInput(
            "--sweep and --sweep-rates: a run merged across hosts is one load point".into(),
        ));
    }
    Ok(storlab_io::run_io_with_latency(&options(a)?)?)
}

pub fn run(a: IoArgs) -> Result<(), CliError> {
    let mut inputs = vec![("--target", a.target.as_path())];
    inputs.extend(a.workload.as_deref().map(|w| ("--workload", w)));
    crate::output::check_json(a.run.json.as_deref(), &inputs)?;
    let opts = options(&a)?;
    let runs = if let Some(sweep) = sweep(&a, &opts)? {
        print!("{}", sweep_table(&sweep.points, &sweep.runs, sweep.knee));
        match (a.max_p99_ms, sweep.knee) {
            (Some(c), Some(k)) => println!(
                "  knee: {} IO/s at {} with p99 {} ms (ceiling {c} ms)",
                num(sweep.runs[k].metrics.iops, 0),
                point_name(&sweep.points[k]),
                num(sweep.runs[k].metrics.latency_ms.p99, 2)
            ),
            (Some(c), None) => println!("  no load point kept p99 under {c} ms"),
            _ => {}
        }
        sweep.runs
    } else {
        let run = run_io(&opts)?;
        print!("{}", table::single(&run));
        print!("{}", table::real_io(&run));
        vec![run]
    };
    let partial = runs.iter().any(|r| r.partial);
    let failed_verify = runs.iter().any(|r| {
        r.verify
            .as_ref()
            .is_some_and(|v| v.corrupt + v.misplaced + v.lost + v.unwritten > 0)
    });
    if let Some(path) = &a.run.json {
        write_results(&json_output(path), runs)?;
        println!("results: {}", path.display());
    }
    if partial {
        return Err(CliError::Failed(
            "interrupted; partial results written".into(),
        ));
    }
    if failed_verify {
        return Err(CliError::Failed(
            "data verification found bad blocks (see the result)".into(),
        ));
    }
    Ok(())
}

/// The arrival rates of `--sweep-rates`, each checked against the declaration of
/// `rate_iops` (as `--rate-iops` is).
fn sweep_rates(rates: &[f64]) -> Result<Vec<LoadPoint>, CliError> {
    flags::check(
        &SWEEP_POINTS,
        "--sweep-rates:",
        flags::count(rates.len() as u64),
    )?;
    rates
        .iter()
        .map(|&r| {
            flags::check(&RATE_IOPS_KEY, "--sweep-rates: each rate", r)?;
            Ok(LoadPoint::Rate(r))
        })
        .collect()
}

fn point_name(p: &LoadPoint) -> String {
    match p {
        LoadPoint::Outstanding(k) => format!("{k} outstanding"),
        LoadPoint::Rate(r) => format!("{} IO/s offered", num(*r, 0)),
    }
}

fn sweep_table(points: &[LoadPoint], runs: &[Run], knee: Option<usize>) -> String {
    let rows: Vec<Vec<String>> = points
        .iter()
        .zip(runs)
        .enumerate()
        .map(|(i, (p, r))| {
            let util = r.devices.first().map_or(0.0, |d| d.util_pct);
            vec![
                point_name(p),
                num(r.metrics.iops, 0),
                num(r.metrics.mbps, 1),
                num(r.metrics.latency_ms.mean, 3),
                num(r.metrics.latency_ms.p99, 3),
                num(util, 0),
                if Some(i) == knee {
                    "<- knee".into()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    render(
        &["load", "IO/s", "MB/s", "mean ms", "p99 ms", "util %", ""],
        &rows,
    )
}
