//! A read on a drive that frees the bus while its buffer runs dry (see the parent module;
//! DiskSim's `Hold bus entire read xfer = 0`).
//!
//! Once connected, the drive sends what its buffer holds of the read at the interface rate,
//! and goes on as long as more has come in by the time a transfer ends. When it has sent
//! all it holds it disconnects, paying its read disconnect overhead (the one after a read
//! or after a write, by the previous command), and reconnects once the read's water mark
//! is buffered beyond what it sent, or the rest of the read is in, and not before its
//! disconnect is done; each reconnection pays the reselect and data preparation overheads
//! (DiskSim pays a read's reconnections its first reselect overhead: its other one is for
//! writes with an extra disconnect). A drive that holds the bus sends each block as it
//! comes in instead, which is the same when a reconnection costs nothing and the water
//! mark is one block: the read is then timed as on such a drive.

use super::super::layout::MediaRun;
use super::super::Hdd;
use super::{ms_ns, Measured};

impl Measured {
    /// The read water mark of a read of `n` blocks, in blocks (at least one).
    pub(super) fn water(&self, n: u64) -> u64 {
        if self.fixed_water > 0 {
            self.fixed_water
        } else {
            ((self.watermark * n as f64).floor() as u64).max(1)
        }
    }

    /// The disconnect and reconnect overheads of a read's bus cycles, ns, when a read of
    /// `n` blocks frees the bus and that changes its timing (`None` otherwise).
    pub(super) fn bus_cycles(&self, n: u64, after_write: bool) -> Option<(u64, u64)> {
        let o = &self.overheads;
        if !o.read_frees_bus {
            return None;
        }
        let disconnect = ms_ns(if after_write {
            o.read_disconnect_after_write
        } else {
            o.read_disconnect_after_read
        });
        let reconnect = ms_ns(o.reselect + o.data_prep);
        (disconnect + reconnect > 0 || self.water(n) > 1).then_some((disconnect, reconnect))
    }
}

/// Blocks of a read of `n` in the buffer at `t_ns`: those `k` with `ready(k) <= t_ns`, the
/// ready times rising with the block.
fn buffered(n: u64, t_ns: u64, ready: &impl Fn(u64) -> u64) -> u64 {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ready(mid) <= t_ns {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// When block `k` of the read, `pre` blocks of it buffered before the head reads the rest
/// in `runs` from `start_ns`, is in the buffer.
pub(super) fn run_ready_ns(runs: &[MediaRun], pre: u64, start_ns: u64, k: u64) -> u64 {
    if k < pre {
        return 0;
    }
    let mut i = k - pre;
    let mut end = start_ns;
    for r in runs {
        end = start_ns + r.start_ns + (r.sectors as f64 * r.ns_per_sector) as u64;
        if i < r.sectors {
            return start_ns + r.start_ns + ((i + 1) as f64 * r.ns_per_sector) as u64;
        }
        i -= r.sectors;
    }
    end
}

impl Hdd {
    /// When the last block of a read of `n` blocks has crossed the interface, from the
    /// command's start, on a drive that frees the bus: it first sends at `first_send_ns`,
    /// block `k` is in the buffer at `ready(k)`, a reconnection needs `water` blocks beyond
    /// those sent, and the cycle costs `(disconnect, reconnect)` ns.
    pub(super) fn read_bus_cycles_end_ns(
        &self,
        n: u64,
        water: u64,
        (disconnect, reconnect): (u64, u64),
        first_send_ns: u64,
        ready: impl Fn(u64) -> u64,
    ) -> u64 {
        let (mut t, mut sent) = (first_send_ns, 0);
        if n == 0 {
            return t;
        }
        loop {
            let have = buffered(n, t, &ready);
            if have > sent {
                t += self.iface_ns(have - sent);
                sent = have;
                if sent >= n {
                    return t;
                }
                continue;
            }
            let want = (sent + water).min(n);
            t = (t + disconnect).max(ready(want - 1)) + reconnect;
        }
    }
}
