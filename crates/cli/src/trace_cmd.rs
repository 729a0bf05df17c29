//! Opening a trace for `storlab sim --trace`: format detection, the reader, the device map.

use std::fs::File;
use std::io::{BufRead, BufReader};

use storlab_sim::trace::{
    detect_format, read_line_limited, TraceFormat, TraceReader, MAX_LINE_BYTES,
};
use storlab_sim::{TraceMode, TraceSource};

use crate::cli::SimArgs;
use crate::error::CliError;

/// Builds the trace source named by the arguments.
pub fn open(a: &SimArgs) -> Result<Option<TraceSource>, CliError> {
    let Some(path) = &a.trace else {
        return Ok(None);
    };
    let name = path.display().to_string();
    let open =
        || File::open(path).map_err(|e| CliError::BadInput(format!("{name}: cannot read: {e}")));
    let format = match &a.trace_format {
        Some(f) => TraceFormat::parse(f)
            .ok_or_else(|| CliError::BadInput(format!("--trace-format: unknown format {f:?}")))?,
        None => {
            let head = head_lines(BufReader::new(open()?), &name)?;
            let lines: Vec<&str> = head.iter().map(String::as_str).collect();
            detect_format(&lines).ok_or_else(|| {
                CliError::BadInput(format!("{name}: cannot tell the trace format from its first {} lines; give --trace-format spc|msr|blkparse|fio", lines.len()))
            })?
        }
    };
    if !(a.trace_speed > 0.0 && a.trace_speed.is_finite()) {
        return Err(CliError::BadInput(format!(
            "--trace-speed must be a positive number; got {}",
            a.trace_speed
        )));
    }
    let mode = match a.trace_outstanding {
        Some(0) => {
            return Err(CliError::BadInput(
                "--trace-outstanding must be at least 1".into(),
            ))
        }
        Some(n) => TraceMode::ClosedLoop { outstanding: n },
        None => TraceMode::OpenLoop {
            speed: a.trace_speed,
        },
    };
    let mut map = Vec::new();
    for m in &a.trace_map {
        let (dev, target) = m.split_once('=').ok_or_else(|| {
            CliError::BadInput(format!("--trace-map: use DEVICE=TARGET; got {m:?}"))
        })?;
        map.push((dev.to_string(), target.to_string()));
    }
    let reader = TraceReader::new(BufReader::with_capacity(1 << 16, open()?), format, &name);
    Ok(Some(TraceSource {
        feed: Box::new(reader),
        file: name,
        mode,
        map,
    }))
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
