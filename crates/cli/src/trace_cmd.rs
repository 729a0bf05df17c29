//! Opening a trace for `storlab sim --trace`: format detection, the reader, the device map.

use std::fs::File;
use std::io::{BufRead, BufReader};

use storlab_sim::trace::{detect_format, TraceFormat, TraceReader};
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
            let head: Vec<String> = BufReader::new(open()?)
                .lines()
                .take(20)
                .map_while(Result::ok)
                .collect();
            let lines: Vec<&str> = head.iter().map(String::as_str).collect();
            detect_format(&lines).ok_or_else(|| {
                CliError::BadInput(format!("{name}: cannot tell the trace format from its first lines; give --trace-format spc|msr|blkparse|fio"))
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
