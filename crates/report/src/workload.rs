//! What a workload is, read from its name and effective parameters: its human name, its
//! headline metric, and the load point of a sweep run.

use serde_json::Value;
use storlab_core::result::{Run, WorkloadKind};

/// A figure the report compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Metric {
    /// I/Os per second.
    Iops,
    /// MB/s (10^6 bytes).
    Mbps,
    /// Mean latency, ms.
    LatMeanMs,
    /// 99th percentile latency, ms.
    LatP99Ms,
    /// Database rows per second.
    RowsPerS,
    /// Database transactions per minute.
    TxPerMin,
}

impl Metric {
    /// Short label with the unit ("IOPS", "MB/s", "rows/s").
    pub fn label(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::Mbps => "MB/s",
            Metric::LatMeanMs => "mean latency, ms",
            Metric::LatP99Ms => "p99 latency, ms",
            Metric::RowsPerS => "rows/s",
            Metric::TxPerMin => "tx/min",
        }
    }

    /// Key used in anchors and the `metric` field of findings.
    pub fn key(self) -> &'static str {
        match self {
            Metric::Iops => "iops",
            Metric::Mbps => "mbps",
            Metric::LatMeanMs => "lat_mean_ms",
            Metric::LatP99Ms => "lat_p99_ms",
            Metric::RowsPerS => "rows_per_s",
            Metric::TxPerMin => "tx_per_min",
        }
    }

    /// The figure in `run`, when the run has it.
    pub fn of(self, run: &Run) -> Option<f64> {
        let m = &run.metrics;
        match self {
            Metric::Iops => Some(m.iops),
            Metric::Mbps => Some(m.mbps),
            Metric::LatMeanMs => Some(m.latency_ms.mean),
            Metric::LatP99Ms => Some(m.latency_ms.p99),
            Metric::RowsPerS => m.rows_per_s,
            Metric::TxPerMin => m.tx_per_min,
        }
    }
}

/// The bar-chart metrics of a workload: only those its runs carry.
pub fn chart_metrics(runs: &[&Run]) -> Vec<Metric> {
    let db = runs.iter().any(|r| is_db(r));
    let mut v = Vec::new();
    if db {
        v.extend([Metric::RowsPerS, Metric::TxPerMin]);
    }
    v.extend([Metric::Iops, Metric::Mbps, Metric::LatMeanMs]);
    v.retain(|m| runs.iter().any(|r| m.of(r).is_some_and(|x| x > 0.0)));
    v
}

/// True when `name` or its runs are a database workload.
pub fn is_db_workload(name: &str, runs: &[&Run]) -> bool {
    (name.contains('/') && runs.is_empty()) || runs.iter().any(|r| is_db(r))
}

fn is_db(run: &Run) -> bool {
    run.workload.kind == WorkloadKind::Db || run.metrics.rows_per_s.is_some()
}

/// The figure findings compare for a workload: rows/s for database workloads, MB/s for
/// sequential or large-block (>= 256 KiB) I/O, IOPS otherwise.
pub fn headline(name: &str, runs: &[&Run]) -> Metric {
    if runs.iter().any(|r| is_db(r)) {
        return Metric::RowsPerS;
    }
    let (short, size) = split_profile(name);
    let sequential = short.starts_with("seq")
        || runs
            .iter()
            .flat_map(|r| profiles(&r.workload.parameters))
            .any(|p| p.get("pattern").and_then(Value::as_str) == Some("sequential"));
    let block = size.or_else(|| {
        runs.iter()
            .flat_map(|r| profiles(&r.workload.parameters))
            .filter_map(|p| p.get("block_sizes")?.get(0)?.get("size").and_then(bytes))
            .max()
    });
    if sequential || block.is_some_and(|b| b >= 256 * 1024) {
        Metric::Mbps
    } else {
        Metric::Iops
    }
}

/// `randwrite-8k` -> ("randwrite", Some(8192)); names without a size suffix -> (name, None).
fn split_profile(name: &str) -> (&str, Option<u64>) {
    match name.rsplit_once('-') {
        Some((head, tail)) => match parse_size(tail) {
            Some(b) => (head, Some(b)),
            None => (name, None),
        },
        None => (name, None),
    }
}

/// "8k", "1m", "512" -> bytes (binary multiples, as storlab's ByteSize writes them).
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim().to_ascii_lowercase();
    let (num, mult) = match s.chars().last()? {
        'k' => (&s[..s.len() - 1], 1u64 << 10),
        'm' => (&s[..s.len() - 1], 1 << 20),
        'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s.as_str(), 1),
    };
    let n: u64 = num.parse().ok()?;
    n.checked_mul(mult)
}

fn bytes(v: &Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| v.as_f64().map(|f| f as u64))
        .or_else(|| parse_size(v.as_str()?))
}

fn size_name(b: u64) -> String {
    match b {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

/// Human name of a workload: `randwrite-8k` -> "random-write", `seqwrite-1m` ->
/// "sequential-write 1 MiB", `dpaws/update-row` -> "update-row"; 8 KiB (the database block)
/// is left unsaid; unknown names pass through.
pub fn human_name(name: &str) -> String {
    if let Some((suite, test)) = name.split_once('/') {
        return match suite {
            "dpaws" | "orabench" => test.to_string(),
            _ => format!("{suite} {test}"),
        };
    }
    if name == "oltp-60-40" {
        return "OLTP 60/40".into();
    }
    let (head, size) = split_profile(name);
    let base = match head {
        "randread" => "random-read",
        "randwrite" => "random-write",
        "seqread" => "sequential-read",
        "seqwrite" => "sequential-write",
        _ => return name.to_string(),
    };
    match size {
        Some(8192) | None => base.to_string(),
        Some(b) => format!("{base} {}", size_name(b)),
    }
}

/// The group a workload falls in when differences are "within N%": "reads", "writes", or its
/// own human name.
pub fn category(name: &str) -> String {
    let h = human_name(name);
    let read_words = ["read", "select", "scan", "aggregate"];
    let write_words = ["write", "update", "insert", "load", "delete", "redo"];
    if read_words.iter().any(|w| h.contains(w)) && !write_words.iter().any(|w| h.contains(w)) {
        "reads".into()
    } else if write_words.iter().any(|w| h.contains(w)) && !h.contains("read") {
        "writes".into()
    } else {
        h
    }
}

/// The I/O profiles in a run's parameters: simulated runs list them, real runs nest them in
/// `classes[].profile`; a bare profile object counts as one.
fn profiles(params: &Value) -> Vec<&Value> {
    match params {
        Value::Array(a) => a.iter().collect(),
        Value::Object(o) => match o.get("classes").and_then(Value::as_array) {
            Some(c) => c.iter().filter_map(|c| c.get("profile")).collect(),
            None if o.contains_key("pattern") || o.contains_key("iodepth") => vec![params],
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Load of one sweep point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Load {
    /// Outstanding I/Os (jobs x iodepth, or `outstanding`).
    Outstanding(f64),
    /// Open-loop arrival rate, I/Os per second offered.
    Rate(f64),
    /// Database client sessions.
    Clients(f64),
}

impl Load {
    /// The load as a number, for ordering.
    pub fn value(self) -> f64 {
        match self {
            Load::Outstanding(x) | Load::Rate(x) | Load::Clients(x) => x,
        }
    }

    /// "16 outstanding", "5000 IO/s offered", "8 clients".
    pub fn label(self) -> String {
        match self {
            Load::Outstanding(x) => format!("{x:.0} outstanding"),
            Load::Rate(x) => format!("{x:.0} IO/s offered"),
            Load::Clients(x) => format!("{x:.0} clients"),
        }
    }
}

/// The load point of a run, as `storlab io --sweep` sets it: a rate (`rate_iops`) when the
/// first profile is open loop, else its outstanding I/Os (`jobs` x `iodepth`); top-level
/// `rate_iops`, `outstanding`, `iodepth` or (database) `clients` keys are read first.
pub fn load_point(run: &Run) -> Option<Load> {
    let p = &run.workload.parameters;
    let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64);
    if let Some(r) = num(p, "rate_iops") {
        return Some(Load::Rate(r));
    }
    if let Some(o) = num(p, "outstanding") {
        return Some(Load::Outstanding(o));
    }
    if let Some(d) = num(p, "iodepth") {
        return Some(Load::Outstanding(d * num(p, "jobs").unwrap_or(1.0)));
    }
    if let Some(c) = num(p, "clients") {
        return Some(Load::Clients(c));
    }
    let first = profiles(p).into_iter().next()?;
    if let Some(r) = num(first, "rate_iops") {
        return Some(Load::Rate(r));
    }
    let depth = num(first, "iodepth")?;
    Some(Load::Outstanding(depth * num(first, "jobs").unwrap_or(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_names() {
        assert_eq!(human_name("randwrite-8k"), "random-write");
        assert_eq!(human_name("seqwrite-1m"), "sequential-write 1 MiB");
        assert_eq!(human_name("randread-1k"), "random-read 1 KiB");
        assert_eq!(human_name("dpaws/update-row"), "update-row");
        assert_eq!(human_name("oltp/medium"), "oltp medium");
        assert_eq!(human_name("my-own"), "my-own");
    }

    #[test]
    fn categories() {
        assert_eq!(category("randread-8k"), "reads");
        assert_eq!(category("seqwrite-1m"), "writes");
        assert_eq!(category("dpaws/update-row"), "writes");
        assert_eq!(category("oltp-60-40"), "OLTP 60/40");
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("8k"), Some(8192));
        assert_eq!(parse_size("1m"), Some(1 << 20));
        assert_eq!(parse_size("row"), None);
        assert_eq!(split_profile("seqread-1m"), ("seqread", Some(1 << 20)));
    }
}
