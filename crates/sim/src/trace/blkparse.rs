//! Default text output of blkparse:
//! `dev cpu seq time pid action RWBS sector + count [process]`.

use super::fields::{parse_seconds_ns, parse_u64, words};
use super::{Devices, Raw};

/// Parser state: the one action whose events become records.
pub(super) struct Blkparse {
    action: String,
}

impl Blkparse {
    pub(super) fn new(action: &str) -> Self {
        Blkparse {
            action: action.to_owned(),
        }
    }

    /// Parses one non-blank, non-comment line; Ok(None) for lines that are not events,
    /// events of other actions, and events that move no data. `Raw::time` is in ns.
    pub(super) fn parse(
        &mut self,
        line: &[u8],
        devices: &mut Devices,
    ) -> Result<Option<Raw>, String> {
        let mut f = words(line);
        let dev = f.next("device")?;
        if !is_major_minor(dev.text) {
            return Ok(None);
        }
        f.next("cpu")?.uint("a CPU number")?;
        f.next("sequence")?.uint("a sequence number")?;
        let time = f.next("time")?.seconds_ns()?;
        f.next("pid")?.uint("a process id")?;
        if f.next("action")?.text != self.action.as_bytes() {
            return Ok(None);
        }
        let rwbs = f.next("RWBS")?.text;
        let write = if rwbs.contains(&b'D') {
            return Ok(None);
        } else if rwbs.contains(&b'W') {
            true
        } else if rwbs.contains(&b'R') {
            false
        } else {
            return Ok(None);
        };
        let offset = f
            .next("sector")?
            .sectors_to_bytes("a number of 512-byte sectors")?;
        let plus = f.next("+")?;
        if plus.text != b"+" {
            return Err(plus.fail("is not \"+\" between sector and count"));
        }
        let count_field = f.next("count")?;
        let count = count_field.uint("a number of 512-byte sectors")?;
        if count == 0 && rwbs.contains(&b'F') {
            return Ok(None);
        }
        let bytes = count_field.check_size(count, 512)?;
        let device = devices.get_or_add(dev.str()?)?;
        Ok(Some(Raw {
            time,
            device,
            offset,
            bytes,
            write,
        }))
    }
}

/// `major,minor`, e.g. `8,16`.
fn is_major_minor(t: &[u8]) -> bool {
    match t.iter().position(|&b| b == b',') {
        Some(comma) => parse_u64(&t[..comma]).is_some() && parse_u64(&t[comma + 1..]).is_some(),
        None => false,
    }
}

/// True if `line` looks like a blkparse event line (for format detection).
pub(super) fn looks_like_event(line: &[u8]) -> bool {
    let mut w = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty());
    let (Some(dev), Some(cpu), Some(seq), Some(time), Some(pid), Some(action), Some(_rwbs)) = (
        w.next(),
        w.next(),
        w.next(),
        w.next(),
        w.next(),
        w.next(),
        w.next(),
    ) else {
        return false;
    };
    is_major_minor(dev)
        && parse_u64(cpu).is_some()
        && parse_u64(seq).is_some()
        && time.contains(&b'.')
        && parse_seconds_ns(time).is_some()
        && parse_u64(pid).is_some()
        && action.len() <= 2
        && action.iter().all(u8::is_ascii_alphabetic)
}
