//! MSR Cambridge traces: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.

use super::fields::{csv, parse_u64};
use super::{Devices, Raw};
use std::fmt::Write;

/// Parser state: the last host and disk seen and their device index.
#[derive(Default)]
pub(super) struct Msr {
    last_host: Vec<u8>,
    last_disk: u64,
    last_device: Option<u32>,
    name: String,
}

impl Msr {
    /// Parses one non-blank, non-comment line; Ok(None) for a header line.
    /// `Raw::time` is the filetime in 100 ns ticks.
    pub(super) fn parse(
        &mut self,
        line: &[u8],
        devices: &mut Devices,
    ) -> Result<Option<Raw>, String> {
        let mut f = csv(line);
        let ts = f.next("Timestamp")?;
        let time = match ts.uint("a Windows filetime (100 ns ticks)") {
            Ok(v) => v,
            Err(_) if ts.text.eq_ignore_ascii_case(b"timestamp") => return Ok(None),
            Err(e) => return Err(e),
        };
        let host = f.next("Hostname")?;
        let disk = f.next("DiskNumber")?.uint("a disk number")?;
        let ty = f.next("Type")?;
        let write = if ty.text.eq_ignore_ascii_case(b"write") {
            true
        } else if ty.text.eq_ignore_ascii_case(b"read") {
            false
        } else {
            return Err(ty.fail("is not a type (Read or Write)"));
        };
        let offset = f.next("Offset")?.uint("a number of bytes")?;
        let bytes = f.next("Size")?.size()?;
        let device = match self.last_device {
            Some(d) if self.last_disk == disk && self.last_host == host.text => d,
            _ => {
                let name = host.str()?;
                self.name.clear();
                let _ = write!(self.name, "{name}_{disk}");
                let d = devices.get_or_add(&self.name)?;
                self.last_host.clear();
                self.last_host.extend_from_slice(host.text);
                self.last_disk = disk;
                self.last_device = Some(d);
                d
            }
        };
        Ok(Some(Raw {
            time,
            device,
            offset,
            bytes,
            write,
        }))
    }
}

/// True if `line` looks like an MSR record or header (for format detection).
pub(super) fn looks_like(line: &[u8]) -> bool {
    let mut f = line.split(|&b| b == b',').map(<[u8]>::trim_ascii);
    let (Some(ts), Some(host), Some(disk), Some(ty), Some(offset), Some(size)) =
        (f.next(), f.next(), f.next(), f.next(), f.next(), f.next())
    else {
        return false;
    };
    if ts.eq_ignore_ascii_case(b"timestamp") && host.eq_ignore_ascii_case(b"hostname") {
        return true;
    }
    parse_u64(ts).is_some()
        && !host.is_empty()
        && parse_u64(disk).is_some()
        && (ty.eq_ignore_ascii_case(b"read") || ty.eq_ignore_ascii_case(b"write"))
        && parse_u64(offset).is_some()
        && parse_u64(size).is_some()
}
