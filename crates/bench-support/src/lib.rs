//! What the benchmarks share (`fio_compare` in storlab-io, `pgbench_compare` in storlab-db,
//! `sim_throughput` in storlab-sim, each a dev-dependency on this crate): the machine facts and
//! JSON report every result carries, the statistics of alternating rounds, and number
//! formatting.
//!
//! Rounds. On a small shared machine one run of each tool says little: another tenant's load,
//! or which CPU a thread lands on, moves a figure by 10-20% from one run to the next. So the
//! tools take turns (storlab, other, storlab, other, ...) in short rounds, each round's two runs
//! give one ratio, and the bench reports the median of those ratios with their min and max.
//! Neighbouring runs see nearly the same machine; the median ignores the odd disturbed pair.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

/// The first line of a command's standard output, when it ran and printed something.
pub fn command_line(cmd: impl AsRef<OsStr>, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// The 1-minute load average (other work on the machine shows here).
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// User and system CPU seconds of `who` (`RUSAGE_SELF` or `RUSAGE_CHILDREN`).
pub fn rusage(who: libc::c_int) -> (f64, f64) {
    // SAFETY: an all-zero rusage is a valid out parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is valid for writes for the duration of the call.
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return (0.0, 0.0);
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(ru.ru_utime), secs(ru.ru_stime))
}

/// The mount that holds `path`, from /proc/self/mountinfo (longest matching mount point).
pub fn mount_of(path: &Path) -> Value {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let Ok(text) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return Value::Null;
    };
    let mut best: Option<(usize, Value)> = None;
    for line in text.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let Some(mount_point) = left.split(' ').nth(4) else {
            continue;
        };
        // Mount points escape spaces and the like as octal (\040).
        let mount_point = mount_point.replace("\\040", " ");
        if !path.starts_with(&mount_point) {
            continue;
        }
        let mut r = right.split(' ');
        let (fstype, source) = (r.next().unwrap_or(""), r.next().unwrap_or(""));
        if best
            .as_ref()
            .is_none_or(|(len, _)| mount_point.len() >= *len)
        {
            best = Some((
                mount_point.len(),
                json!({"mount_point": mount_point, "fstype": fstype, "source": source}),
            ));
        }
    }
    best.map_or(Value::Null, |(_, v)| v)
}

/// CPUs, kernel, CPU model, load average and (for `dir`) the mount holding it.
pub fn machine(dir: Option<&Path>) -> Value {
    let nproc = std::thread::available_parallelism()
        .ok()
        .map(|n| n.get() as u64);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_string());
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    let mut m = json!({
        "nproc": nproc, "kernel": kernel, "cpu_model": cpu_model,
        "load_average_1m_at_start": load_average(),
    });
    if let Some(dir) = dir {
        m["device"] = mount_of(dir);
    }
    m
}

/// Writes `report` as target/bench/`file_name` (pretty JSON) and says where.
pub fn write_report(file_name: &str, report: &Value) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/bench");
    std::fs::create_dir_all(dir).expect("create target/bench");
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| PathBuf::from(dir));
    let path = dir.join(file_name);
    let text = serde_json::to_string_pretty(report).expect("a JSON value serializes") + "\n";
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    println!("wrote {}", path.display());
}

/// Median, smallest and largest of a set of per-round figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// How many figures (rounds where both tools succeeded, for ratios).
    pub n: usize,
}

impl Spread {
    /// The spread of the finite values, or None when there are none. The median of an even
    /// count is the mean of the middle two.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
        let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Spread {
            median,
            min: v[0],
            max: v[n - 1],
            n,
        })
    }

    pub fn json(s: Option<Spread>) -> Value {
        s.map_or(
            Value::Null,
            |s| json!({"median": s.median, "min": s.min, "max": s.max, "rounds": s.n}),
        )
    }

    /// `0.981x (0.950-1.020x)`.
    pub fn ratio_text(s: Option<Spread>) -> String {
        s.map_or_else(
            || "-".into(),
            |s| format!("{:.3}x ({:.3}-{:.3}x)", s.median, s.min, s.max),
        )
    }
}

/// a / b, when both are there and b is positive.
pub fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// 12345.6 -> "12,346".
pub fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < -0.5 {
        out.insert(0, '-');
    }
    out
}

/// `f(x)`, or "-" when there is no figure.
pub fn opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.map_or_else(|| "-".to_string(), f)
}

/// "met", "NOT met", or unknown when a tool failed in every round.
pub fn verdict(met: Option<bool>) -> &'static str {
    match met {
        Some(true) => "met",
        Some(false) => "NOT met",
        None => "unknown (a tool failed)",
    }
}

/// The JSON of one tool's run: its figures, or its error.
pub fn run_json<T>(r: &Result<T, String>, figures: impl Fn(&T) -> Value) -> Value {
    match r {
        Ok(t) => figures(t),
        Err(e) => json!({"error": e}),
    }
}
