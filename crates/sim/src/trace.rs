//! Readers for block I/O traces, so that real workloads can be replayed on simulated arrays.
//!
//! [`TraceReader`] reads any [`std::io::BufRead`] (the simulator never opens files itself;
//! the caller passes the stream and a display name used in messages) and yields one
//! [`TraceRecord`] per I/O. Every record carries its time in nanoseconds since the trace's
//! first record, a device index into [`TraceReader::devices`], the byte offset, the length
//! in bytes and the direction. [`detect_format`] guesses a format from a file's first lines.
//!
//! # Common rules
//!
//! - Empty lines and lines whose first non-blank character is `#` are skipped in every format.
//!   Leading and trailing blanks (including a `\r` before the `\n`) are ignored.
//! - Real traces can be slightly out of order: records are returned in file order, never
//!   rejected for it. A record earlier than the trace's first record gets `time_ns` 0 (the
//!   type is unsigned); the replayer sorts or otherwise handles the order.
//! - Numbers are plain unsigned decimals. Negative numbers, zero or over-4-GiB sizes
//!   (`bytes` must fit a `u32`), byte offsets past `u64`, unknown opcodes and timestamps
//!   that are not decimal numbers (exponent notation included) are errors.
//!   Decimal seconds keep 9 fractional digits (nanoseconds); further digits are truncated.
//! - A malformed line yields `Err(TraceError)` with the 1-based line number and a reason
//!   naming the field and its value, e.g. `field 3 (Size): "abc" is not a number of bytes`.
//!   Calling `next` again continues with the following line, so a caller may count or log
//!   errors and go on. A read error from the underlying stream is returned once (with the
//!   number of the line being read) and then ends the iteration, and so does a line longer
//!   than [`MAX_LINE_BYTES`] (the rest of it is not read).
//! - Lines that are valid but describe no data transfer (headers, other actions, flushes,
//!   discards, summaries) are skipped and counted by [`TraceReader::skipped`].
//! - Iteration reuses one line buffer and does not allocate per line; only a new device
//!   name or an error message allocates.
//!
//! # SPC (`spc`): UMass trace repository / SPC-1 ASCII format
//!
//! `ASU,LBA,Size,Opcode,Timestamp[,...]`, comma separated. ASU is the application storage
//! unit number (device `asu{N}`); LBA is in 512-byte blocks (`offset_bytes = LBA * 512`);
//! Size is in bytes; Opcode is `r`/`R` (read) or `w`/`W` (write); Timestamp is in seconds
//! (decimal). Extra trailing fields are ignored. A header line starting with the field
//! `ASU` is skipped.
//!
//! # MSR Cambridge (`msr`)
//!
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`. Timestamp is a Windows
//! filetime (100 ns ticks since 1601; `time_ns` is `(ticks - first ticks) * 100`); Type is
//! `Read` or `Write` in any case; Offset and Size are in bytes; ResponseTime is ignored and
//! may be absent. The device is `{Hostname}_{DiskNumber}` with the disk number in plain
//! decimal, e.g. `hm_0`. A header line starting with the field `Timestamp` is skipped.
//!
//! # blkparse (`blkparse`): default text output of `blkparse`
//!
//! `  8,16   1       12     0.000123456  4321  Q   W 123456 + 8 [proc]`: device
//! `major,minor` (the device name, e.g. `8,16`), CPU, sequence number, time in seconds
//! (decimal), pid, action, RWBS, then `sector + count`, both in 512-byte sectors. One I/O
//! shows up under several actions (Q, G, I, D, C, ...), so only one action is used: `Q`
//! (queued) unless [`TraceReader::with_blkparse_action`] picks another. Lines of other
//! actions, and lines whose first field is not `major,minor` (the per-CPU and total
//! summaries at the end) are skipped. An RWBS containing `D` (discard) is skipped; else
//! `W` is a write and `R` a read; any other RWBS (`N`, a bare flush `F`...) is skipped, as is
//! a flush (`F`) carrying 0 sectors. Skipped lines are counted.
//!
//! # fio iolog (`fio`), versions 2 and 3
//!
//! The first non-blank, non-comment line must be `fio version 2 iolog` or
//! `fio version 3 iolog` (until it is found, each line is an error). Version 2 lines
//! are `filename action [offset length]`; version 3 lines have a leading timestamp:
//! `timestamp filename action [offset length]`. Actions are add, open, close, read, write,
//! sync, datasync, sync_file_range, trim and wait. Only read and write give records
//! (offset and length in bytes); the others are skipped and counted. The device is the
//! file name, registered by `add` or by its first read or write.
//!
//! Time units: fio's documentation does not name the unit of the v3 timestamp, but fio
//! writes it as microseconds since the start of the job and replays it against a
//! microsecond clock, so v3 timestamps are read as microseconds. Version 2 has no
//! timestamps: a record's time is the sum of the preceding `wait` actions, whose offset
//! field is a delay in microseconds relative to the previous wait (as fio documents it);
//! a v2 log without waits puts every record at time 0. A `wait` in a v3 log is skipped,
//! as fio ignores it there.

use std::collections::BTreeMap;
use std::io::BufRead;

mod blkparse;
#[cfg(test)]
mod edge_tests;
mod fields;
mod fio;
mod msr;
mod spc;
#[cfg(test)]
mod tests;

/// A trace file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// UMass / SPC-1 ASCII: `ASU,LBA,Size,Opcode,Timestamp`.
    Spc,
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
    /// Default text output of `blkparse`.
    Blkparse,
    /// fio iolog, version 2 or 3.
    Fio,
}

impl TraceFormat {
    /// Every format, in a fixed order.
    pub const ALL: [TraceFormat; 4] = [Self::Spc, Self::Msr, Self::Blkparse, Self::Fio];

    /// Parses a format name: `spc`, `msr`, `blkparse` or `fio`.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The format's name, as accepted by [`TraceFormat::parse`].
    pub fn name(self) -> &'static str {
        match self {
            Self::Spc => "spc",
            Self::Msr => "msr",
            Self::Blkparse => "blkparse",
            Self::Fio => "fio",
        }
    }
}

/// Guesses the format from the first non-empty, non-comment lines; None when unsure.
///
/// The lines that look like a format must all look like the same one (a CSV header line
/// counts for its format), and they must outnumber the lines that look like none: a
/// malformed line among good ones does not hide the format (reading then stops at that line
/// with its number and reason), but mostly unrecognisable text is no trace. Non-event lines
/// after blkparse events are expected (summaries). A fio log is known by its header line
/// alone, which must come first.
pub fn detect_format(first_lines: &[&str]) -> Option<TraceFormat> {
    let mut guess = None;
    let (mut matching, mut other) = (0usize, 0usize);
    for line in first_lines.iter().map(|l| l.trim()) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if guess.is_none() && other == 0 && fio::is_header(line.as_bytes()) {
            return Some(TraceFormat::Fio);
        }
        match (classify(line), guess) {
            (Some(f), None) => guess = Some(f),
            (Some(f), Some(g)) if f != g => return None,
            (None, Some(TraceFormat::Blkparse)) => continue,
            (None, _) if fio::is_header(line.as_bytes()) => return None,
            (None, _) => {
                other += 1;
                continue;
            }
            _ => {}
        }
        matching += 1;
    }
    guess.filter(|_| matching > other)
}

/// The longest line a trace may have, in bytes: real records are under 200 bytes, and a file
/// without line breaks (a binary file, zeros) must not be read whole into memory.
pub const MAX_LINE_BYTES: usize = 4096;

/// Reads one line, its `\n` included, into `buf` (cleared first), taking at most
/// `max + 1` bytes of it from `input`: `Ok(None)` at the end of the input, `Ok(Some(false))`
/// for a line, `Ok(Some(true))` for a line longer than `max` bytes (the rest of it left
/// unread).
pub fn read_line_limited<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<bool>> {
    buf.clear();
    loop {
        let avail = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok((!buf.is_empty()).then_some(false));
        }
        let room = avail.len().min(max + 1 - buf.len());
        if let Some(i) = avail[..room].iter().position(|&b| b == b'\n') {
            buf.extend_from_slice(&avail[..=i]);
            input.consume(i + 1);
            return Ok(Some(false));
        }
        buf.extend_from_slice(&avail[..room]);
        input.consume(room);
        if buf.len() > max {
            return Ok(Some(true));
        }
    }
}

fn classify(line: &str) -> Option<TraceFormat> {
    let bytes = line.as_bytes();
    if blkparse::looks_like_event(bytes) {
        return Some(TraceFormat::Blkparse);
    }
    if spc::looks_like(bytes) {
        return Some(TraceFormat::Spc);
    }
    if msr::looks_like(bytes) {
        return Some(TraceFormat::Msr);
    }
    None
}

/// One I/O of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// Nanoseconds since the trace's first record (0 for records earlier than it).
    pub time_ns: u64,
    /// Index into the reader's device list ([`TraceReader::devices`]).
    pub device: u32,
    /// Byte offset on the device.
    pub offset_bytes: u64,
    /// Length in bytes (at least 1).
    pub bytes: u32,
    /// True for a write, false for a read.
    pub write: bool,
}

/// A malformed line or a read error, with the file's display name and the 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {reason}")]
pub struct TraceError {
    /// Display name of the trace, as given to [`TraceReader::new`].
    pub file: String,
    /// 1-based line number.
    pub line: u64,
    /// What is wrong, naming the field and its value.
    pub reason: String,
}

/// A record as a format parser sees it: time in the format's own unit, not yet relative.
struct Raw {
    time: u64,
    device: u32,
    offset: u64,
    bytes: u32,
    write: bool,
}

/// Device names and their indices; looking up an existing name does not allocate.
#[derive(Default)]
struct Devices {
    names: Vec<String>,
    index: BTreeMap<String, u32>,
    last: usize,
}

impl Devices {
    fn get_or_add(&mut self, name: &str) -> Result<u32, String> {
        if self.names.get(self.last).is_some_and(|n| n == name) {
            return u32::try_from(self.last).map_err(|_| "too many devices".to_string());
        }
        let idx = match self.index.get(name) {
            Some(&i) => i,
            None => {
                let i =
                    u32::try_from(self.names.len()).map_err(|_| "too many devices".to_string())?;
                self.names.push(name.to_owned());
                self.index.insert(name.to_owned(), i);
                i
            }
        };
        self.last = idx as usize;
        Ok(idx)
    }
}

enum Parser {
    Spc(spc::Spc),
    Msr(msr::Msr),
    Blkparse(blkparse::Blkparse),
    Fio(fio::Fio),
}

impl Parser {
    fn parse(&mut self, line: &[u8], devices: &mut Devices) -> Result<Option<Raw>, String> {
        match self {
            Self::Spc(p) => p.parse(line, devices),
            Self::Msr(p) => p.parse(line, devices),
            Self::Blkparse(p) => p.parse(line, devices),
            Self::Fio(p) => p.parse(line, devices),
        }
    }

    /// Nanoseconds per unit of [`Raw::time`].
    fn ns_per_unit(&self) -> u64 {
        match self {
            Self::Spc(_) | Self::Blkparse(_) => 1,
            Self::Msr(_) => 100,
            Self::Fio(_) => 1_000,
        }
    }
}

/// Reads a trace line by line, yielding one record per I/O (see the module doc).
pub struct TraceReader<R: BufRead> {
    input: R,
    file: String,
    parser: Parser,
    buf: Vec<u8>,
    devices: Devices,
    first_time: Option<u64>,
    lines: u64,
    skipped: u64,
    done: bool,
}

impl<R: BufRead> TraceReader<R> {
    /// A reader of `reader` in `format`; `file` names the trace in error messages.
    pub fn new(reader: R, format: TraceFormat, file: &str) -> Self {
        let parser = match format {
            TraceFormat::Spc => Parser::Spc(spc::Spc::default()),
            TraceFormat::Msr => Parser::Msr(msr::Msr::default()),
            TraceFormat::Blkparse => Parser::Blkparse(blkparse::Blkparse::new("Q")),
            TraceFormat::Fio => Parser::Fio(fio::Fio::default()),
        };
        TraceReader {
            input: reader,
            file: file.to_owned(),
            parser,
            buf: Vec::with_capacity(256),
            devices: Devices::default(),
            first_time: None,
            lines: 0,
            skipped: 0,
            done: false,
        }
    }

    /// For blkparse, takes the events of `action` (e.g. "D" for issued, "C" for completed)
    /// instead of the default "Q" (queued); does nothing for other formats.
    pub fn with_blkparse_action(mut self, action: &str) -> Self {
        if let Parser::Blkparse(p) = &mut self.parser {
            *p = blkparse::Blkparse::new(action);
        }
        self
    }

    /// Names of the devices seen so far, indexed by [`TraceRecord::device`] (e.g. "asu0",
    /// "hm_0" for MSR host hm disk 0, "8,16" for blkparse major,minor, the file name for fio).
    pub fn devices(&self) -> &[String] {
        &self.devices.names
    }

    /// Lines read so far (for speed reports).
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Lines skipped so far although neither blank nor comments: headers, other blkparse
    /// actions and summaries, discards, flushes, non-read/write fio actions.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    fn error(&self, line: u64, reason: String) -> TraceError {
        TraceError {
            file: self.file.clone(),
            line,
            reason,
        }
    }

    fn record(&mut self, raw: Raw) -> Result<TraceRecord, String> {
        let first = *self.first_time.get_or_insert(raw.time);
        let time_ns = raw
            .time
            .saturating_sub(first)
            .checked_mul(self.parser.ns_per_unit())
            .ok_or("timestamp is more than 584 years after the first record")?;
        Ok(TraceRecord {
            time_ns,
            device: raw.device,
            offset_bytes: raw.offset,
            bytes: raw.bytes,
            write: raw.write,
        })
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TraceRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match read_line_limited(&mut self.input, &mut self.buf, MAX_LINE_BYTES) {
                Ok(None) => self.done = true,
                Ok(Some(true)) => {
                    // The rest of the line is unread: nothing after it can be trusted.
                    self.done = true;
                    self.lines += 1;
                    let reason = format!(
                        "the line is longer than {MAX_LINE_BYTES} bytes, the most a trace \
                         line may have: is this a trace file?"
                    );
                    return Some(Err(self.error(self.lines, reason)));
                }
                Ok(Some(false)) => {
                    self.lines += 1;
                    let line = self.buf.trim_ascii();
                    if line.is_empty() || line[0] == b'#' {
                        continue;
                    }
                    let parsed = self.parser.parse(line, &mut self.devices);
                    let result = match parsed {
                        Ok(Some(raw)) => self.record(raw),
                        Ok(None) => {
                            self.skipped += 1;
                            continue;
                        }
                        Err(reason) => Err(reason),
                    };
                    return Some(result.map_err(|reason| self.error(self.lines, reason)));
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(self.error(self.lines + 1, format!("read error: {e}"))));
                }
            }
        }
        None
    }
}
