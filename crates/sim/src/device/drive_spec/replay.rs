//! Replay of a measured drive trace through the disk model, and the demerit figure that
//! compares two service-time distributions.
//!
//! A trace line is `OP TAG LBN SECTORS SERVICE_US NEXT_US`: `R` or `W`, a label of the
//! original experiment (not used), the first 512-byte block, the length in blocks, the
//! service time the real drive took (us) and the idle time from this request's completion to
//! the next one's issue (us). The replay issues the requests the same way: one at a time,
//! each `NEXT_US` after the previous one completed in the model.

use std::path::Path;

use crate::device::hdd::{Hdd, HddParams};

/// One request of a trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRequest {
    pub write: bool,
    pub lba: u64,
    pub sectors: u32,
    /// Measured service time, ms.
    pub service_ms: f64,
    /// Idle time after completion before the next request, ms.
    pub next_ms: f64,
}

/// The highest first block of a trace's request: 2^48 blocks of 512 bytes, 128 PiB, beyond
/// any drive (a larger number would also lose its last digits as a float).
pub const MAX_LBN: u64 = 1 << 48;

/// Reads a trace; errors name the file and line.
pub fn read_trace(path: &Path) -> Result<Vec<TraceRequest>, String> {
    let text = storlab_core::input::read_text_bounded(path, storlab_core::input::DATA_MAX_BYTES)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    parse_trace(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses trace text (see the module documentation).
pub fn parse_trace(text: &str) -> Result<Vec<TraceRequest>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        let bad = |what: &str| format!("line {}: {what}; got `{}`", i + 1, line.trim());
        let [op, _tag, lba, sectors, service, next] = f[..] else {
            return Err(bad("expected `OP TAG LBN SECTORS SERVICE_US NEXT_US`"));
        };
        let write = match op {
            "R" | "r" => false,
            "W" | "w" => true,
            _ => return Err(bad("OP must be R or W")),
        };
        let num = |s: &str, what: &str| -> Result<f64, String> {
            s.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| bad(&format!("{what} must be a number, zero or more")))
        };
        let sectors = num(sectors, "SECTORS")?;
        if !(1.0..=65536.0).contains(&sectors) {
            return Err(bad("SECTORS must be 1 to 65536"));
        }
        let next_us = num(next, "NEXT_US")?;
        if next_us > 3.6e9 {
            return Err(bad("NEXT_US must be at most an hour"));
        }
        let lba = num(lba, "LBN")?;
        if lba.fract() != 0.0 || lba > MAX_LBN as f64 {
            return Err(bad(&format!(
                "LBN must be a whole number from 0 to {MAX_LBN} (2^48 blocks of 512 bytes)"
            )));
        }
        out.push(TraceRequest {
            write,
            lba: lba as u64,
            sectors: sectors as u32,
            service_ms: num(service, "SERVICE_US")? / 1e3,
            next_ms: next_us / 1e3,
        });
    }
    Ok(out)
}

/// What a replay gives.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    /// Simulated service time of each request, ms.
    pub service_ms: Vec<f64>,
    /// Reads the model served from its buffer (no seek, no rotational wait, no media).
    pub read_hits: usize,
}

/// Simulated service times (ms) of the trace's requests on a drive of model `p`, issued one
/// at a time with the trace's idle times; the spindle starts at angle zero.
pub fn replay(p: &HddParams, trace: &[TraceRequest]) -> Result<Replay, String> {
    let mut disk = Hdd::new(p, 0)?;
    let cap = disk.capacity_sectors();
    let mut now_ns = 0u64;
    let mut out = Replay {
        service_ms: Vec::with_capacity(trace.len()),
        read_hits: 0,
    };
    for (i, r) in trace.iter().enumerate() {
        if r.lba
            .checked_add(u64::from(r.sectors))
            .is_none_or(|end| end > cap)
        {
            return Err(format!(
                "request {} (LBN {} + {} sectors) lies past the drive's {cap} blocks",
                i + 1,
                r.lba,
                r.sectors
            ));
        }
        disk.enqueue(now_ns, i as u32, r.lba, r.sectors, r.write);
        let Some((_, access)) = disk.start_next(now_ns) else {
            return Err(format!("request {}: the drive did not start it", i + 1));
        };
        let service_ns = access.total_ns();
        now_ns = now_ns.saturating_add(service_ns);
        disk.finish(now_ns);
        out.service_ms.push(service_ns as f64 / 1e6);
        if !r.write
            && access.seek_ns == 0
            && access.rotate_ns == 0
            && access.transfer_ns <= disk.interface_ns(r.sectors)
        {
            out.read_hits += 1;
        }
        now_ns = now_ns.saturating_add((r.next_ms * 1e6) as u64);
    }
    Ok(out)
}

/// Quantiles sampled for the demerit.
pub const DEMERIT_QUANTILES: usize = 10_000;

/// The value at quantile `q` (0 < q <= 1) of sorted `xs`: the empirical distribution's
/// points are (x_k, k/n) for k = 1..n, joined by straight lines (below 1/n, the first).
fn quantile(xs: &[f64], q: f64) -> f64 {
    let n = xs.len();
    let pos = (q * n as f64 - 1.0).clamp(0.0, (n - 1) as f64);
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    xs[lo] + (xs[hi] - xs[lo]) * (pos - lo as f64)
}

/// The values at quantiles 1/n, 2/n, ..., 1 of `xs` (unsorted), the points of a CDF picture;
/// empty when `xs` is empty or `n` is 0.
pub fn quantiles(xs: &[f64], n: usize) -> Vec<f64> {
    if xs.is_empty() {
        return Vec::new();
    }
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    (1..=n).map(|i| quantile(&s, i as f64 / n as f64)).collect()
}

/// Root-mean-square horizontal distance between the two distributions' CDFs, in the
/// values' unit, over quantiles 0.0001 ... 1.0 (0 when either is empty).
pub fn demerit(measured: &[f64], simulated: &[f64]) -> f64 {
    if measured.is_empty() || simulated.is_empty() {
        return 0.0;
    }
    let sorted = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        s
    };
    let (a, b) = (sorted(measured), sorted(simulated));
    let sum: f64 = (1..=DEMERIT_QUANTILES)
        .map(|i| {
            let q = i as f64 / DEMERIT_QUANTILES as f64;
            (quantile(&a, q) - quantile(&b, q)).powi(2)
        })
        .sum();
    (sum / DEMERIT_QUANTILES as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_block_beyond_2_to_the_48_is_refused_with_its_line() {
        let last = format!("R Hit {MAX_LBN} 8 5557.0 44572.0\n");
        let trace = parse_trace(&last).expect("the last LBN allowed");
        assert_eq!(trace[0].lba, 1 << 48);
        let text = format!(
            "R Hit 0 4 1.0 2.0\nR Hit {}3 4 5557.0 44572.0\n",
            "3".repeat(120)
        );
        let err = parse_trace(&text).unwrap_err();
        assert!(
            err.starts_with(
                "line 2: LBN must be a whole number from 0 to 281474976710656 (2^48 blocks of \
                 512 bytes); got `R Hit 333"
            ),
            "{err}"
        );
        let err = parse_trace("W x 12.5 4 1.0 2.0").unwrap_err();
        assert!(err.contains("LBN must be a whole number"), "{err}");
    }
}
