//! fio iologs, version 2 (`filename action [offset length]`) and version 3
//! (`timestamp filename action [offset length]`, timestamp in microseconds).

use super::fields::words;
use super::{Devices, Raw};

const V2_HEADER: &[u8] = b"fio version 2 iolog";
const V3_HEADER: &[u8] = b"fio version 3 iolog";

/// True if `line` is a fio iolog header of version 2 or 3.
pub(super) fn is_header(line: &[u8]) -> bool {
    line == V2_HEADER || line == V3_HEADER
}

/// Parser state: the log's version (0 until the header is read) and, for version 2,
/// the sum of the waits so far in microseconds.
#[derive(Default)]
pub(super) struct Fio {
    version: u8,
    waited_us: u64,
}

impl Fio {
    /// Parses one non-blank, non-comment line; Ok(None) for the header and for actions
    /// that move no data. `Raw::time` is in microseconds.
    pub(super) fn parse(
        &mut self,
        line: &[u8],
        devices: &mut Devices,
    ) -> Result<Option<Raw>, String> {
        if self.version == 0 {
            self.version = match line {
                V2_HEADER => 2,
                V3_HEADER => 3,
                _ => {
                    return Err(format!(
                        "expected the header \"fio version 2 iolog\" or \"fio version 3 iolog\", found {:?}",
                        String::from_utf8_lossy(line)
                    ))
                }
            };
            return Ok(None);
        }
        let mut f = words(line);
        let time = if self.version == 3 {
            f.next("timestamp")?.uint("a number of microseconds")?
        } else {
            self.waited_us
        };
        let file = f.next("filename")?;
        let action = f.next("action")?;
        let write = match action.text {
            b"read" => false,
            b"write" => true,
            b"add" => {
                devices.get_or_add(file.str()?)?;
                return Ok(None);
            }
            b"wait" if self.version == 2 => {
                let delay = f.next("offset")?;
                let us = delay.uint("a number of microseconds")?;
                self.waited_us = self
                    .waited_us
                    .checked_add(us)
                    .ok_or_else(|| delay.fail("makes the total wait overflow"))?;
                return Ok(None);
            }
            b"open" | b"close" | b"sync" | b"datasync" | b"sync_file_range" | b"trim" | b"wait" => {
                return Ok(None)
            }
            _ => {
                return Err(action.fail(
                    "is not an iolog action (add, open, close, read, write, sync, datasync, \
                     sync_file_range, trim, wait)",
                ))
            }
        };
        let offset = f.next("offset")?.uint("a number of bytes")?;
        let bytes = f.next("length")?.size()?;
        let device = devices.get_or_add(file.str()?)?;
        Ok(Some(Raw {
            time,
            device,
            offset,
            bytes,
            write,
        }))
    }
}
