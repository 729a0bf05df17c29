//! What a block device holds, for the write gate: nothing (zeros wherever storlab looks), or
//! exactly what a storlab run left there, or data storlab did not write.
//!
//! A signature probe ([`super::detect_signature`]) knows the formats it knows; a device can
//! hold a database's raw files, an application's own format or a file system newer than the
//! probe. So a device without a signature is written only when it is blank or holds what
//! storlab left: storlab reads the first and last MiB whole and 4 KiB at [`SAMPLES`] places
//! evenly spread between them; all zeros is blank. When a run that wrote a device ends,
//! storlab records a fingerprint of those same bytes (and the device's size) in its private
//! state directory, `/var/tmp/storlab-<uid>/devices` (mode 0700, this user's); a device whose
//! bytes still give a recorded fingerprint is as storlab left it. Anything else (a run killed
//! before it recorded, other data written since) needs `--force-destroy` naming the device.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes read whole at each end of the device.
const EDGE: u64 = 1 << 20;
/// Places between the two ends where [`SAMPLE`] bytes are read.
pub(super) const SAMPLES: u64 = 64;
/// Bytes read at each sampled place.
const SAMPLE: u64 = 4096;
/// Fingerprints kept in the record (the most recent ones).
const KEPT: usize = 256;
/// Numbers the temporary names of one process's record writes.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// What storlab read of a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Look {
    /// Offset of the first non-zero byte read, None when all were zeros.
    pub first_nonzero: Option<u64>,
    /// FNV-1a (64 bits) over the size and every byte read, in order.
    pub fingerprint: u64,
}

/// The ranges read, in order: the first EDGE bytes, SAMPLES places between, the last EDGE
/// bytes (the whole device when it is smaller than both ends).
fn ranges(size: u64) -> Vec<(u64, u64)> {
    if size <= 2 * EDGE + SAMPLES * SAMPLE {
        return vec![(0, size)];
    }
    let mut out = vec![(0, EDGE)];
    let (lo, hi) = (EDGE, size - EDGE - SAMPLE);
    for i in 0..SAMPLES {
        // Evenly from lo to hi, aligned down to 4 KiB (direct I/O and sector sizes).
        let at = (lo + (hi - lo) * (i + 1) / (SAMPLES + 1)) & !(SAMPLE - 1);
        out.push((at.max(lo), SAMPLE));
    }
    out.push((size - EDGE, EDGE));
    out
}

/// Reads the bytes the gate looks at of `dev`, `size` bytes long.
pub(super) fn look(dev: &mut (impl Read + Seek), size: u64) -> io::Result<Look> {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    mix(&size.to_le_bytes());
    let mut first_nonzero = None;
    let mut buf = vec![0u8; 64 * 1024];
    for (from, len) in ranges(size) {
        dev.seek(SeekFrom::Start(from))?;
        let mut done = 0;
        while done < len {
            let n = (len - done).min(buf.len() as u64) as usize;
            dev.read_exact(&mut buf[..n])?;
            if first_nonzero.is_none() {
                if let Some(i) = buf[..n].iter().position(|&b| b != 0) {
                    first_nonzero = Some(from + done + i as u64);
                }
            }
            mix(&buf[..n]);
            done += n as u64;
        }
    }
    Ok(Look {
        first_nonzero,
        fingerprint: hash,
    })
}

/// storlab's private state directory, `/var/tmp/storlab-<uid>` (it survives a reboot),
/// created if missing; an error when it cannot be trusted (not a directory of this user's
/// with no access for others). The device record here and the database's cluster records
/// both live in it.
pub fn state_dir() -> io::Result<PathBuf> {
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc::geteuid() };
    let dir = PathBuf::from(format!("/var/tmp/storlab-{uid}"));
    let _ = fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = fs::symlink_metadata(&dir)?;
    if !(meta.is_dir() && meta.uid() == uid && meta.permissions().mode() & 0o077 == 0) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a private directory of this user's, so storlab keeps no records there",
                dir.display()
            ),
        ));
    }
    Ok(dir)
}

/// The record's fingerprints (none when there is no record).
fn recorded(dir: &Path) -> Vec<u64> {
    let Ok(text) = storlab_core::input::read_text_bounded(
        &dir.join("devices"),
        storlab_core::input::TEXT_MAX_BYTES,
    ) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| u64::from_str_radix(l.split_whitespace().next()?, 16).ok())
        .collect()
}

/// Whether `look` is what a storlab run left on a device (its fingerprint is recorded).
pub(super) fn left_by_storlab(look: &Look) -> bool {
    state_dir().is_ok_and(|dir| recorded(&dir).contains(&look.fingerprint))
}

/// Records the device at `path` as storlab leaves it now (after a run wrote it).
pub(super) fn record(path: &Path) -> io::Result<()> {
    let mut dev = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)?;
    let size = dev.seek(SeekFrom::End(0))?;
    let look = look(&mut dev, size)?;
    let dir = state_dir()?;
    // One writer at a time: runs ending together each add their fingerprint.
    let lock = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
        .open(dir.join("devices.lock"))?;
    // SAFETY: flock on a descriptor this function owns; released when `lock` closes.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let mut kept = recorded(&dir);
    kept.retain(|&f| f != look.fingerprint);
    kept.push(look.fingerprint);
    let from = kept.len().saturating_sub(KEPT);
    let mut text = String::new();
    for f in &kept[from..] {
        text.push_str(&format!("{f:016x}\n"));
    }
    // A fresh name beside the record, then a rename: a reader sees the old or the new one.
    let tmp = dir.join(format!(
        "devices.{}.{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, dir.join("devices"))) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    drop(lock);
    Ok(())
}
