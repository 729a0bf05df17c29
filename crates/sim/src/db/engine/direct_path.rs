//! Scan reads apart from single-block reads: Oracle's `db file scattered read` (a multiblock
//! read into the buffer cache, see [`super::character`]) and `direct path read` (a scan
//! larger than a tenth of the buffer cache, [`crate::db::scan_path`]: runs of the blocks the
//! scan visits, `multiblock_read_count` at a time, read from the device into the session's
//! memory, whatever the buffer cache or the host's file cache hold, and left out of both).
//! A block the scan changes goes through the buffer cache. Oracle checkpoints the segment's
//! dirty blocks before reading it direct; the model does not (its reads see the device).

use storlab_core::character::Engine;
use storlab_core::result::WaitEvent;

use super::character::ScanStep;
use super::{DbEngine, DbIo, Stack, BLOCK_SECTORS};
use crate::db::scan_path;

/// What a session's pending read is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum ReadKind {
    #[default]
    Single,
    Scattered,
    Direct,
}

/// Scan reads of the measured window: count and time waited.
#[derive(Default)]
pub(super) struct ScanWaits {
    scattered: u64,
    scattered_ns: u64,
    direct: u64,
    direct_ns: u64,
    /// Blocks read direct path.
    pub direct_blocks: u64,
}

impl DbEngine {
    /// Session `s`'s read completed after `waited_ns`: counted under its kind (measured
    /// window only); its next read is a single-block one unless said otherwise.
    #[inline]
    pub(super) fn count_read(&mut self, s: u32, waited_ns: u64, measuring: bool) {
        let kind = std::mem::take(&mut self.sessions[s as usize].read_kind);
        if !measuring {
            return;
        }
        let st = &mut self.stats;
        let (n, ns) = match kind {
            ReadKind::Single => (&mut st.read_waits, &mut st.read_wait_ns),
            ReadKind::Scattered => (
                &mut st.scan_waits.scattered,
                &mut st.scan_waits.scattered_ns,
            ),
            ReadKind::Direct => (&mut st.scan_waits.direct, &mut st.scan_waits.direct_ns),
        };
        *n += 1;
        *ns += waited_ns;
    }

    /// Whether session `s`'s scan reads direct path.
    pub(super) fn scan_reads_direct(&self, s: u32) -> bool {
        let (a, b) = self.sessions[s as usize].scan;
        scan_path::reads_direct(self.spec.engine, (b - a) as u64, self.spec.buffer_blocks)
    }

    /// Session `s`'s current scan visit, read direct path: the run of consecutive blocks
    /// from it that the scan visits and does not change, at most `max` blocks, in one read.
    pub(super) fn direct_read(&mut self, s: u32, max: u64, stack: &mut Stack) -> ScanStep {
        let sess = &mut self.sessions[s as usize];
        let i = sess.next;
        let block = sess.plan[i].0;
        let mut n = 1u64;
        while n < max && i + (n as usize) < sess.scan.1 {
            let (b, w) = sess.plan[i + n as usize];
            if w || b != block + n {
                break;
            }
            n += 1;
        }
        sess.read_span = n;
        sess.read_kind = ReadKind::Direct;
        sess.wait_start = stack.now();
        if stack.measuring() {
            // A multiblock read of the scan too.
            self.stats.scan_reads += 1;
            self.stats.scan_blocks += n;
            self.stats.scan_waits.direct_blocks += n;
        }
        let sectors = BLOCK_SECTORS;
        stack.issue_db_io(
            DbIo::Read(s),
            self.data,
            block * sectors,
            n * sectors,
            false,
        );
        ScanStep::Wait
    }

    /// Single-block reads as reported: with PostgreSQL its scans' reads count with them (one
    /// wait event, as before); Oracle reports them apart. (time ns, count)
    pub(super) fn single_read_waits(&self) -> (u64, u64) {
        let st = &self.stats;
        if self.spec.engine == Engine::Oracle {
            (st.read_wait_ns, st.read_waits)
        } else {
            let w = &st.scan_waits;
            (
                st.read_wait_ns + w.scattered_ns + w.direct_ns,
                st.read_waits + w.scattered + w.direct,
            )
        }
    }

    /// Oracle's scan wait events over a window of `total_ns` session time.
    pub(super) fn scan_wait_events(&self, total_ns: f64) -> Vec<WaitEvent> {
        if self.spec.engine != Engine::Oracle {
            return Vec::new();
        }
        let w = &self.stats.scan_waits;
        [
            ("db file scattered read", w.scattered_ns, w.scattered),
            ("direct path read", w.direct_ns, w.direct),
        ]
        .into_iter()
        .map(|(event, ns, n)| super::report::wait_event(event, ns, n, total_ns))
        .collect()
    }
}
