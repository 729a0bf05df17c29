//! fio's side of the comparison: installing it, its command line, running it and reading the
//! figures of its JSON output.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::placement::{Watcher, Whose};
use crate::{support, Case, Measured, BLOCK, RAMP_S, RUNTIME_S};

fn apt_get(args: &[&str]) -> bool {
    println!("  apt-get {}", args.join(" "));
    Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// fio's version, installing fio with apt-get first when it is missing and this is root.
pub fn ensure_fio() -> Option<String> {
    if let Some(v) = support::command_line("fio", &["--version"]) {
        return Some(v);
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        println!("fio is not on PATH and this process is not root: not installing it");
        return None;
    }
    println!("fio is not on PATH: installing it");
    let install = ["install", "-y", "-q", "fio"];
    if !apt_get(&install) {
        apt_get(&["update", "-q"]);
        apt_get(&install);
    }
    support::command_line("fio", &["--version"])
}

pub fn fio_args(file: &Path, case: &Case) -> Vec<String> {
    // fio separates file names with ':'; a literal one is escaped.
    let name = file.display().to_string().replace(':', "\\:");
    [
        "--name=storlab-compare".to_string(),
        format!("--filename={name}"),
        "--size=1g".into(),
        "--allow_file_create=0".into(),
        "--readonly".into(),
        "--rw=randread".into(),
        format!("--bs={BLOCK}"),
        "--direct=1".into(),
        format!("--ioengine={}", case.fio_engine),
        format!("--iodepth={}", case.iodepth),
        "--numjobs=1".into(),
        "--time_based".into(),
        format!("--runtime={RUNTIME_S}"),
        format!("--ramp_time={RAMP_S}"),
        "--norandommap".into(),
        "--randrepeat=0".into(),
        "--output-format=json".into(),
    ]
    .into()
}

fn num(v: &Value, pointer: &str) -> Option<f64> {
    v.pointer(pointer).and_then(Value::as_f64)
}

/// fio's JSON document (fio may print notes before it).
fn fio_document(stdout: &str) -> Result<Value, String> {
    let start = if stdout.starts_with('{') {
        0
    } else {
        stdout
            .find("\n{")
            .map(|i| i + 1)
            .ok_or_else(|| format!("no JSON in fio's output: {}", stdout.trim()))?
    };
    serde_json::Deserializer::from_str(&stdout[start..])
        .into_iter::<Value>()
        .next()
        .ok_or("empty fio output")?
        .map_err(|e| format!("fio's JSON: {e}"))
}

pub fn run_fio(args: &[String]) -> Result<Measured, String> {
    let child = Command::new("fio")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start fio: {e}"))?;
    let watcher = Watcher::start(Whose::ChildrenOf(child.id()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("fio's output: {e}"))?;
    let placement = watcher.finish();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("fio failed ({}): {}", out.status, stderr.trim()));
    }
    let v = fio_document(&String::from_utf8_lossy(&out.stdout))?;
    let error = num(&v, "/jobs/0/error").unwrap_or(0.0);
    if error != 0.0 {
        return Err(format!("fio job error {error}: {}", stderr.trim()));
    }
    let field = |p: &str| num(&v, p).ok_or_else(|| format!("fio's JSON has no {p}"));
    let iops = field("/jobs/0/read/iops")?;
    let (usr, sys) = (field("/jobs/0/usr_cpu")?, field("/jobs/0/sys_cpu")?);
    // fio's usr_cpu and sys_cpu are percentages of job_runtime: times it, the job's CPU.
    let runtime_s = num(&v, "/jobs/0/job_runtime")
        .filter(|r| *r > 0.0)
        .or_else(|| num(&v, "/jobs/0/read/runtime"))
        .ok_or("fio's JSON has no runtime")?
        / 1000.0;
    let ios = num(&v, "/jobs/0/read/total_ios")
        .filter(|n| *n > 0.0)
        .unwrap_or(iops * runtime_s);
    if ios <= 0.0 {
        return Err("fio completed no I/O".into());
    }
    let pointer = |p: &str| v.pointer(p).cloned().unwrap_or_default();
    Ok(Measured {
        iops,
        cpu_ns_per_io: (usr + sys) / 100.0 * runtime_s / ios * 1e9,
        lat_mean_ms: field("/jobs/0/read/lat_ns/mean")? / 1e6,
        placement,
        detail: json!({
            "usr_cpu_pct": usr, "sys_cpu_pct": sys, "runtime_s": runtime_s, "ios": ios,
            "clat_p99_ms": num(&v, "/jobs/0/read/clat_ns/percentile/99.000000").map(|n| n / 1e6),
            "iodepth_level_pct": pointer("/jobs/0/iodepth_level"),
            "iodepth_complete_pct": pointer("/jobs/0/iodepth_complete"),
            "load_after": support::load_average(),
        }),
    })
}
