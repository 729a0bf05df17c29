//! Trace replay: block-trace records issued as host I/O, open loop at their timestamps (with
//! a speed factor) or closed loop with a fixed number outstanding. Records are pulled one at a
//! time from the reader, so memory does not grow with the trace.
//!
//! Each trace device maps to a target (a volume or a LUN): by the caller's map, else the
//! n-th device seen goes to the n-th target (volumes if the array has any, else LUNs),
//! wrapping around. Addresses beyond the target wrap around its capacity.

use std::io::BufRead;

use super::{HostIo, HostPart, Issuer};
use crate::config::{resolve_placement, ConfigError, SystemSpec};
use crate::engine::{Event, SimTime};
use crate::model::Stack;
use crate::trace::{TraceError, TraceReader, TraceRecord};

/// How records are issued.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TraceMode {
    /// At their timestamps divided by `speed` (2.0 = twice as fast).
    OpenLoop {
        /// Speed factor.
        speed: f64,
    },
    /// As fast as `outstanding` I/Os in flight allow.
    ClosedLoop {
        /// I/Os kept in flight.
        outstanding: u32,
    },
}

/// A stream of trace records with its device names.
pub trait TraceFeed {
    /// The next record, an error for a malformed line, or None at the end.
    fn next_record(&mut self) -> Option<Result<TraceRecord, TraceError>>;
    /// Name of device `index` (seen already).
    fn device_name(&self, index: u32) -> String;
    /// Lines read so far, and those of them skipped (headers, other actions), for messages.
    fn lines_read(&self) -> (u64, u64) {
        (0, 0)
    }
}

impl<R: BufRead> TraceFeed for TraceReader<R> {
    fn next_record(&mut self) -> Option<Result<TraceRecord, TraceError>> {
        self.next()
    }
    fn device_name(&self, index: u32) -> String {
        self.devices()
            .get(index as usize)
            .cloned()
            .unwrap_or_default()
    }
    fn lines_read(&self) -> (u64, u64) {
        (self.lines(), self.skipped())
    }
}

/// A trace to replay, as handed to [`crate::Model::with_trace`].
pub struct TraceSource {
    /// The records.
    pub feed: Box<dyn TraceFeed>,
    /// File name for messages.
    pub file: String,
    /// Open or closed loop.
    pub mode: TraceMode,
    /// Device name -> volume, LUN or group name.
    pub map: Vec<(String, String)>,
}

pub(super) struct TraceRt {
    feed: Box<dyn TraceFeed>,
    file: String,
    mode: TraceMode,
    map: Vec<(String, String)>,
    /// Target of each trace device index, resolved on first use.
    device_target: Vec<Option<u32>>,
    default_targets: Vec<String>,
    next: Option<TraceRecord>,
    /// Records read so far.
    records: u64,
    error: Option<ConfigError>,
}

impl HostPart {
    /// Replays `source` (in addition to any workload streams).
    pub fn set_trace(&mut self, spec: &SystemSpec, source: TraceSource) {
        let default_targets = if spec.volumes.is_empty() {
            spec.luns.iter().map(|l| l.name.clone()).collect()
        } else {
            spec.volumes.iter().map(|v| v.name.clone()).collect()
        };
        self.trace = Some(Box::new(TraceRt {
            feed: source.feed,
            file: source.file,
            mode: source.mode,
            map: source.map,
            device_target: Vec::new(),
            default_targets,
            next: None,
            records: 0,
            error: None,
        }));
    }

    /// A trace is replayed.
    pub fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// The error that stopped the replay (a malformed record), once.
    #[inline]
    pub fn take_trace_error(&mut self) -> Option<ConfigError> {
        self.trace.as_mut().and_then(|t| t.error.take())
    }

    pub(super) fn start_trace(s: &mut Stack) {
        let Some(t) = s.host.trace.as_ref() else {
            return;
        };
        match t.mode {
            TraceMode::OpenLoop { .. } => {
                if let Some(at) = s.host.fetch_record() {
                    s.core.schedule(at, Event::TraceNext);
                }
            }
            TraceMode::ClosedLoop { outstanding } => {
                for _ in 0..outstanding {
                    if s.host.fetch_record().is_none() {
                        break;
                    }
                    Self::issue_record(s, s.core.now);
                }
            }
        }
    }

    /// Reads the next record into `next`; returns its due time (open loop).
    fn fetch_record(&mut self) -> Option<SimTime> {
        let t = self.trace.as_mut()?;
        match t.feed.next_record()? {
            Ok(r) => {
                let speed = match t.mode {
                    TraceMode::OpenLoop { speed } => speed,
                    TraceMode::ClosedLoop { .. } => 1.0,
                };
                t.next = Some(r);
                t.records += 1;
                Some(SimTime((r.time_ns as f64 / speed) as u64))
            }
            Err(e) => {
                t.error = Some(ConfigError::invalid(
                    &t.file,
                    format!("line {}", e.line),
                    e.reason,
                ));
                None
            }
        }
    }

    /// At the end of a run: the trace's malformed line if reading it stopped at one (also
    /// when that happened before any event), or an error if it held no I/O record at all: a
    /// replay of nothing is no result.
    pub fn trace_outcome(&mut self) -> Result<(), ConfigError> {
        let Some(t) = self.trace.as_mut() else {
            return Ok(());
        };
        if let Some(e) = t.error.take() {
            return Err(e);
        }
        if t.records > 0 {
            return Ok(());
        }
        let (lines, skipped) = t.feed.lines_read();
        Err(ConfigError::invalid(
            &t.file,
            "trace",
            format!(
                "holds no read or write record: {lines} lines read, {skipped} of them skipped \
                 (headers, other actions, flushes, discards), the rest blank or comments"
            ),
        ))
    }

    /// The next record is due (open loop).
    pub fn on_trace_next(s: &mut Stack) {
        Self::issue_record(s, s.core.now);
        if let Some(at) = s.host.fetch_record() {
            s.core.schedule(at.max(s.core.now), Event::TraceNext);
        }
    }

    /// A trace I/O completed: closed loop, the next record goes.
    pub(super) fn trace_request_done(s: &mut Stack) {
        let host = &mut s.host;
        if matches!(
            host.trace.as_ref().map(|t| t.mode),
            Some(TraceMode::ClosedLoop { .. })
        ) && host.fetch_record().is_some()
        {
            Self::issue_record(s, s.core.now);
        }
    }

    /// Issues the fetched record; `start_at` is when it was due.
    fn issue_record(s: &mut Stack, start_at: SimTime) {
        let host = &mut s.host;
        let Some(r) = host.trace.as_mut().and_then(|t| t.next.take()) else {
            return;
        };
        let Some(target) = host.trace_target(&s.core.spec, r.device) else {
            return;
        };
        let cap = host.targets[target as usize].volume.capacity_sectors();
        let sectors = (r.bytes as u64).div_ceil(512).clamp(1, cap);
        let lba = (r.offset_bytes / 512) % (cap - sectors + 1);
        let io = HostIo {
            target,
            lba,
            sectors,
            write: r.write,
        };
        Self::issue(s, Issuer::Trace, io, start_at);
    }

    /// The target of trace device `device`, resolved and cached on first use.
    fn trace_target(&mut self, spec: &SystemSpec, device: u32) -> Option<u32> {
        let t = self.trace.as_mut()?;
        if let Some(Some(target)) = t.device_target.get(device as usize) {
            return Some(*target);
        }
        let name = t.feed.device_name(device);
        let mapped = t
            .map
            .iter()
            .find(|(d, _)| *d == name)
            .map(|(_, v)| v.clone());
        let target_name = mapped.unwrap_or_else(|| {
            t.default_targets[device as usize % t.default_targets.len()].clone()
        });
        let file = t.file.clone();
        let placement = match resolve_placement(std::slice::from_ref(&target_name), spec) {
            Ok(s) => s,
            Err(e) => {
                if let Some(t) = self.trace.as_mut() {
                    t.error = Some(ConfigError::invalid(&file, format!("device {name}"), e));
                }
                return None;
            }
        };
        let target = match self.add_target(spec, placement.volume, &placement.luns) {
            Ok(t) => t,
            Err(e) => {
                if let Some(t) = self.trace.as_mut() {
                    t.error = Some(ConfigError::invalid(&file, format!("device {name}"), e));
                }
                return None;
            }
        };
        let t = self.trace.as_mut()?;
        if t.device_target.len() <= device as usize {
            t.device_target.resize(device as usize + 1, None);
        }
        t.device_target[device as usize] = Some(target);
        Some(target)
    }
}
