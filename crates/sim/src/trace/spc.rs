//! SPC / UMass ASCII traces: `ASU,LBA,Size,Opcode,Timestamp[,...]`.

use super::fields::{csv, parse_seconds_ns, parse_u64};
use super::{Devices, Raw};
use std::fmt::Write;

/// Parser state: the last ASU seen and its device index, so repeated ASUs cost nothing.
#[derive(Default)]
pub(super) struct Spc {
    last: Option<(u64, u32)>,
    name: String,
}

impl Spc {
    /// Parses one non-blank, non-comment line; Ok(None) for a header line.
    pub(super) fn parse(
        &mut self,
        line: &[u8],
        devices: &mut Devices,
    ) -> Result<Option<Raw>, String> {
        let mut f = csv(line);
        let asu_field = f.next("ASU")?;
        let asu = match asu_field.uint("an ASU number") {
            Ok(v) => v,
            Err(_) if asu_field.text.eq_ignore_ascii_case(b"asu") => return Ok(None),
            Err(e) => return Err(e),
        };
        let offset = f
            .next("LBA")?
            .sectors_to_bytes("a number of 512-byte blocks")?;
        let bytes = f.next("Size")?.size()?;
        let op = f.next("Opcode")?;
        let write = match op.text {
            b"r" | b"R" => false,
            b"w" | b"W" => true,
            _ => return Err(op.fail("is not an opcode (r, R, w or W)")),
        };
        let time = f.next("Timestamp")?.seconds_ns()?;
        let device = match self.last {
            Some((a, d)) if a == asu => d,
            _ => {
                self.name.clear();
                let _ = write!(self.name, "asu{asu}");
                let d = devices.get_or_add(&self.name)?;
                self.last = Some((asu, d));
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

/// True if `line` looks like an SPC record or header (for format detection).
pub(super) fn looks_like(line: &[u8]) -> bool {
    let mut f = line.split(|&b| b == b',').map(<[u8]>::trim_ascii);
    let (Some(asu), Some(lba), Some(size), Some(op), Some(ts)) =
        (f.next(), f.next(), f.next(), f.next(), f.next())
    else {
        return false;
    };
    if asu.eq_ignore_ascii_case(b"asu") && lba.eq_ignore_ascii_case(b"lba") {
        return true;
    }
    parse_u64(asu).is_some()
        && parse_u64(lba).is_some()
        && parse_u64(size).is_some()
        && matches!(op, b"r" | b"R" | b"w" | b"W")
        && parse_seconds_ns(ts).is_some()
}
