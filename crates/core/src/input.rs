//! Reading a file a user names, whole, with a bound on its size: a file (or a device, a pipe)
//! that never ends or is far larger than any such input stops at the bound with an error
//! instead of taking the machine's memory.

use std::io::{self, Read};
use std::path::Path;

/// The most a configuration-sized text is read: array, workload, plan and case files, drive
/// descriptions, characterizations and database reports (the largest shipped is under 100 KB;
/// an AWR report in HTML runs to a few MB).
pub const TEXT_MAX_BYTES: u64 = 64 << 20;

/// The most a result file or a drive trace is read.
pub const DATA_MAX_BYTES: u64 = 1 << 30;

/// The bytes of the file at `path`; an error of kind `InvalidData` when it holds more than
/// `max` bytes, saying so with the bound.
pub fn read_bounded(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let hint = file.metadata().map(|m| m.len().min(max)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "larger than {} MiB, the most storlab reads of such a file",
                max >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// The text of the file at `path`, as [`read_bounded`] reads it; an error of kind
/// `InvalidData` when it is not UTF-8.
pub fn read_text_bounded(path: &Path, max: u64) -> io::Result<String> {
    String::from_utf8(read_bounded(path, max)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("storlab-input-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("f");
        std::fs::write(&path, bytes).expect("write");
        path
    }

    #[test]
    fn a_file_at_the_bound_is_read_and_one_byte_more_is_refused() {
        let path = temp_file("bound", &[b'x'; 3 << 20]);
        assert_eq!(
            read_bounded(&path, 3 << 20).expect("at the bound").len(),
            3 << 20
        );
        let err = read_bounded(&path, (3 << 20) - 1).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            err.to_string(),
            "larger than 2 MiB, the most storlab reads of such a file"
        );
        std::fs::remove_dir_all(path.parent().expect("dir")).expect("clean up");
    }

    #[test]
    fn an_endless_device_stops_at_the_bound() {
        let err = read_bounded(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
    }

    #[test]
    fn text_that_is_not_utf8_is_refused() {
        let path = temp_file("utf8", &[b'a', 0xff, b'b']);
        let err = read_text_bounded(&path, TEXT_MAX_BYTES).unwrap_err();
        assert_eq!(err.to_string(), "stream did not contain valid UTF-8");
        assert_eq!(
            read_text_bounded(&path, 2).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        std::fs::remove_dir_all(path.parent().expect("dir")).expect("clean up");
    }
}
