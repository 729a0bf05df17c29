//! Opening a trace for `storlab sim --trace`: format detection, the reader, the device map.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use storlab_core::result::Run;

use storlab_sim::trace::{
    detect_format, read_line_limited, TraceFormat, TraceReader, MAX_LINE_BYTES,
};
use storlab_sim::{RunOptions, TraceMode, TraceSource};

use crate::cli::SimArgs;
use crate::error::CliError;

/// Whether the replay read its trace to the end (set while the simulation runs).
#[derive(Clone, Default)]
pub struct TraceEnd(Arc<AtomicBool>);

impl TraceEnd {
    fn reached(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The trace's bytes, noting when the replay asks past the last of them.
struct EndWatch<R> {
    inner: R,
    end: TraceEnd,
}

impl<R: BufRead> Read for EndWatch<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.end.0.store(true, Ordering::Relaxed);
        }
        Ok(n)
    }
}

impl<R: BufRead> BufRead for EndWatch<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        let buf = self.inner.fill_buf()?;
        if buf.is_empty() {
            self.end.0.store(true, Ordering::Relaxed);
        }
        Ok(buf)
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
    }
}

/// Builds the trace source named by the arguments, with what tells whether the replay
/// reached the trace's end.
pub fn open(a: &SimArgs) -> Result<(Option<TraceSource>, TraceEnd), CliError> {
    let end = TraceEnd::default();
    let Some(path) = &a.trace else {
        return Ok((None, end));
    };
    let name = path.display().to_string();
    let format = format(a, path, &name)?;
    let mode = mode(a)?;
    let mut map = Vec::new();
    for m in &a.trace_map {
        let (dev, target) = m.split_once('=').ok_or_else(|| {
            CliError::BadInput(format!("--trace-map: use DEVICE=TARGET; got {m:?}"))
        })?;
        map.push((dev.to_string(), target.to_string()));
    }
    let input = EndWatch {
        inner: BufReader::with_capacity(1 << 16, open_file(path, &name)?),
        end: end.clone(),
    };
    let reader = TraceReader::new(input, format, &name);
    let source = TraceSource {
        feed: Box::new(reader),
        file: name,
        mode,
        map,
    };
    Ok((Some(source), end))
}

/// Advice about a trace that ended before the run did: a longer `--duration` would add no
/// I/O. `fitted`: the window was fitted to an open-loop trace ([`fit_window`]); `end`: what
/// the closed-loop replay found.
pub fn advise(a: &SimArgs, run: &mut Run, fitted: bool, end: &TraceEnd) {
    if fitted {
        for w in &mut run.warnings {
            *w = w
                .replace(
                    ": raise --duration for stable figures",
                    ": the trace holds no more after its warm-up; a longer trace gives stable \
                     figures",
                )
                .replace(": raise --duration", ": the trace ends there");
        }
        return;
    }
    if a.trace_outstanding.is_none() || !end.reached() {
        return;
    }
    let (said, advice) = closed_loop_end(run);
    let mut advised = false;
    for w in &mut run.warnings {
        if let Some(at) = w.find(": raise --duration") {
            w.truncate(at);
            *w += &format!(": {advice}");
            advised = true;
        }
    }
    if !advised {
        run.warnings.extend(said);
    }
}

/// Where a closed-loop replay ran out of trace: a warning saying so when it left part of
/// the window without I/O (None when it lasted to the window's end), and the advice for
/// the warnings that would ask for a longer `--duration`.
fn closed_loop_end(run: &Run) -> (Option<String>, String) {
    let replayed = run.sim.as_ref().map_or(0, |s| s.host_ios);
    let warmup_s = run.workload.warmup_s;
    let window_s = run.workload.duration_s;
    if run.metrics.ios == 0 {
        let advice = format!(
            "the trace ended during the {warmup_s} s warm-up, after {replayed} I/Os replayed \
             closed loop; lower --warmup (0 measures from the start) or replay a longer trace"
        );
        return (Some(format!("nothing measured: {advice}")), advice);
    }
    let last = run.series.iter().rposition(|p| p.iops > 0.0);
    let lasted_s = last.map_or(0.0, |i| run.series[i].t_s + 1.0).min(window_s);
    if lasted_s >= window_s {
        return (None, "the trace ends there".into());
    }
    let advice = format!(
        "the trace ended about {lasted_s} s into the {window_s} s measured window ({:.0} s into \
         the run), after {replayed} I/Os replayed closed loop; set --duration {lasted_s}s or \
         replay a longer trace",
        warmup_s + lasted_s
    );
    let said = format!("rates are diluted by the window's end without I/O: {advice}");
    (Some(said), advice)
}

fn open_file(path: &Path, name: &str) -> Result<File, CliError> {
    File::open(path).map_err(|e| CliError::BadInput(format!("{name}: cannot read: {e}")))
}

/// The trace's format: `--trace-format`, else detected from its first lines.
fn format(a: &SimArgs, path: &Path, name: &str) -> Result<TraceFormat, CliError> {
    Ok(match &a.trace_format {
        Some(f) => TraceFormat::parse(f)
            .ok_or_else(|| CliError::BadInput(format!("--trace-format: unknown format {f:?}")))?,
        None => {
            let head = head_lines(BufReader::new(open_file(path, name)?), name)?;
            let lines: Vec<&str> = head.iter().map(String::as_str).collect();
            detect_format(&lines).ok_or_else(|| {
                CliError::BadInput(format!("{name}: cannot tell the trace format from its first {} lines; give --trace-format spc|msr|blkparse|fio", lines.len()))
            })?
        }
    })
}

/// Open loop at `--trace-speed`, or closed loop with `--trace-outstanding` I/Os in flight.
fn mode(a: &SimArgs) -> Result<TraceMode, CliError> {
    if !(a.trace_speed > 0.0 && a.trace_speed.is_finite()) {
        return Err(CliError::BadInput(format!(
            "--trace-speed must be a positive number; got {}",
            a.trace_speed
        )));
    }
    Ok(match a.trace_outstanding {
        Some(n) => {
            let key = &crate::flags::TRACE_OUTSTANDING;
            crate::flags::check(key, "--trace-outstanding", n)?;
            TraceMode::ClosedLoop { outstanding: n }
        }
        None => TraceMode::OpenLoop {
            speed: a.trace_speed,
        },
    })
}

/// Share of a short trace the warm-up may take at most.
const WARMUP_SHARE: f64 = 0.2;

/// The run's window fitted to an open-loop trace that ends before `--warmup` plus
/// `--duration`: the warm-up cut to at most a fifth of the trace, and the measured window
/// ending at the trace's end (rounded up to a whole second), so that no rate is diluted by
/// simulated time without I/O. Says what it changed on stderr; returns whether it did (the
/// run's advice then speaks of the trace, not of `--duration`).
pub fn fit_window(a: &SimArgs, opts: &mut RunOptions) -> Result<bool, CliError> {
    let (Some(path), None) = (&a.trace, a.trace_outstanding) else {
        return Ok(false);
    };
    let horizon_ns = opts.warmup_ns.saturating_add(opts.duration_ns);
    let name = path.display().to_string();
    let Some(span_ns) = open_loop_span(a, path, &name, horizon_ns)? else {
        return Ok(false);
    };
    let (warmup_ns, duration_ns) = fitted(span_ns, opts.warmup_ns);
    let secs = |ns: u64| ns as f64 / 1e9;
    let warmup_said = if warmup_ns < opts.warmup_ns {
        format!(
            "the warm-up is cut from {} s to {} s (at most a fifth of the trace) and ",
            secs(opts.warmup_ns),
            secs(warmup_ns)
        )
    } else {
        String::new()
    };
    eprintln!(
        "storlab: {name} ends {:.1} s into the replay (at speed {}), before --warmup plus \
         --duration ({} s): {warmup_said}{} s are measured, to the trace's end",
        secs(span_ns),
        a.trace_speed,
        secs(horizon_ns),
        secs(duration_ns)
    );
    opts.warmup_ns = warmup_ns;
    opts.duration_ns = duration_ns;
    Ok(true)
}

/// Warm-up and measured time for a trace lasting `span_ns`: a warm-up of at most
/// [`WARMUP_SHARE`] of it (rounded down to a tenth of a second), and a window to the trace's
/// end rounded up to a whole second.
fn fitted(span_ns: u64, warmup_ns: u64) -> (u64, u64) {
    const SECOND: u64 = 1_000_000_000;
    // In whole tenths of a second, for a readable title.
    const TENTH: u64 = SECOND / 10;
    let share_ns = (span_ns as f64 * WARMUP_SHARE) as u64 / TENTH * TENTH;
    let warmup_ns = warmup_ns.min(share_ns);
    let end_ns = span_ns.div_ceil(SECOND).max(1) * SECOND;
    (warmup_ns, end_ns.saturating_sub(warmup_ns).max(SECOND))
}

/// When the open-loop replay ends before `horizon_ns` of simulated time, its length; None
/// when it lasts at least that long. Reads the trace only up to the first record at or
/// beyond the horizon; a malformed line stops the scan (the replay itself reports it).
fn open_loop_span(
    a: &SimArgs,
    path: &Path,
    name: &str,
    horizon_ns: u64,
) -> Result<Option<u64>, CliError> {
    let speed = match mode(a)? {
        TraceMode::OpenLoop { speed } => speed,
        TraceMode::ClosedLoop { .. } => return Ok(None),
    };
    let format = format(a, path, name)?;
    let reader = TraceReader::new(
        BufReader::with_capacity(1 << 16, open_file(path, name)?),
        format,
        name,
    );
    let mut span_ns = 0u64;
    for record in reader {
        let Ok(r) = record else {
            return Ok(None);
        };
        span_ns = span_ns.max((r.time_ns as f64 / speed) as u64);
        if span_ns >= horizon_ns {
            return Ok(None);
        }
    }
    Ok(Some(span_ns))
}

/// The first 20 lines of a trace for format detection, each read only up to the longest a
/// trace line may be (a file with no line breaks is refused at once, not read whole).
fn head_lines<R: BufRead>(mut input: R, name: &str) -> Result<Vec<String>, CliError> {
    let mut lines = Vec::new();
    let mut buf = Vec::new();
    while lines.len() < 20 {
        let long = read_line_limited(&mut input, &mut buf, MAX_LINE_BYTES)
            .map_err(|e| CliError::BadInput(format!("{name}: cannot read: {e}")))?;
        match long {
            None => break,
            Some(true) => {
                return Err(CliError::BadInput(format!(
                    "{name}: line {}: the line is longer than {MAX_LINE_BYTES} bytes, the most a \
                     trace line may have: is this a trace file?",
                    lines.len() + 1
                )))
            }
            Some(false) => lines.push(String::from_utf8_lossy(&buf).trim_end().to_string()),
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_trace_keeps_a_fifth_for_warm_up_and_measures_to_its_end() {
        const S: u64 = 1_000_000_000;
        // 12 s of trace, 10 s asked: 2.4 s of warm-up, then to its end at 12 s.
        assert_eq!(fitted(12 * S, 10 * S), (2_400_000_000, 9_600_000_000));
        // A short warm-up asked for stays.
        assert_eq!(fitted(12 * S, S), (S, 11 * S));
        // No warm-up, an empty trace: one second measured.
        assert_eq!(fitted(0, 0), (0, S));
        assert_eq!(fitted(0, 10 * S), (0, S));
        // 11.45 s: a fifth is 2.29 s, cut to 2.2 s; the window ends at 12 s.
        assert_eq!(
            fitted(11_448_295_000, 10 * S),
            (2_200_000_000, 9_800_000_000)
        );
    }
}
