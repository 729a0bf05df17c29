//! Host-visible I/O counters shared by the simulator and the real I/O engine: latency
//! histograms per operation, bytes, and a per-second series. Memory is bounded: histograms
//! and one entry per second, never one entry per I/O.

use crate::result::SeriesPoint;
use crate::LatencyHistogram;

/// Length of one series interval.
pub const INTERVAL_NS: u64 = 1_000_000_000;

#[derive(Clone, Copy, Debug, Default)]
struct Interval {
    reads: u64,
    writes: u64,
    bytes: u64,
    latency_ns: u128,
}

/// Host-visible I/O over the measured window.
#[derive(Clone, Debug, Default)]
pub struct HostStats {
    /// Latency of reads (reads and writes are kept apart, so each I/O updates one histogram;
    /// [`HostStats::all`] merges them).
    pub read: LatencyHistogram,
    /// Latency of writes.
    pub write: LatencyHistogram,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    series: Vec<Interval>,
    window_start_ns: u64,
    /// The interval the last I/O fell in, and where it starts: the next I/O usually falls in
    /// it too, and then needs no division.
    last_interval: usize,
    last_interval_start_ns: u64,
}

impl HostStats {
    /// Counting starts at `start_ns`.
    pub fn new(start_ns: u64) -> HostStats {
        HostStats {
            window_start_ns: start_ns,
            last_interval_start_ns: start_ns,
            ..HostStats::default()
        }
    }

    /// Records one completed I/O.
    #[inline(always)]
    pub fn record(&mut self, now_ns: u64, write: bool, bytes: u64, latency_ns: u64) {
        if write {
            self.write.record(latency_ns);
            self.write_bytes += bytes;
        } else {
            self.read.record(latency_ns);
            self.read_bytes += bytes;
        }
        let i = if now_ns.wrapping_sub(self.last_interval_start_ns) < INTERVAL_NS {
            self.last_interval
        } else {
            let i = ((now_ns - self.window_start_ns) / INTERVAL_NS) as usize;
            self.last_interval = i;
            self.last_interval_start_ns = self.window_start_ns + i as u64 * INTERVAL_NS;
            i
        };
        if i >= self.series.len() {
            self.series.resize(i + 1, Interval::default());
        }
        let slot = &mut self.series[i];
        if write {
            slot.writes += 1;
        } else {
            slot.reads += 1;
        }
        slot.bytes += bytes;
        slot.latency_ns += latency_ns as u128;
    }

    /// Adds another recorder's counts (same window start), e.g. one per worker thread.
    pub fn merge(&mut self, other: &HostStats) {
        self.read.merge(&other.read);
        self.write.merge(&other.write);
        self.read_bytes += other.read_bytes;
        self.write_bytes += other.write_bytes;
        if self.series.len() < other.series.len() {
            self.series.resize(other.series.len(), Interval::default());
        }
        for (a, b) in self.series.iter_mut().zip(&other.series) {
            a.reads += b.reads;
            a.writes += b.writes;
            a.bytes += b.bytes;
            a.latency_ns += b.latency_ns;
        }
    }

    /// Latency of every I/O: reads and writes merged.
    pub fn all(&self) -> LatencyHistogram {
        let mut all = self.read.clone();
        all.merge(&self.write);
        all
    }

    /// I/Os recorded.
    pub fn count(&self) -> u64 {
        self.read.count() + self.write.count()
    }

    /// Throughput and latency over a window of `secs` seconds.
    pub fn metrics(&self, secs: f64) -> crate::result::Metrics {
        let secs = secs.max(1e-9);
        let per_s = |n: u64| round3(n as f64 / secs);
        crate::result::Metrics {
            iops: per_s(self.count()),
            read_iops: per_s(self.read.count()),
            write_iops: per_s(self.write.count()),
            mbps: round3((self.read_bytes + self.write_bytes) as f64 / 1e6 / secs),
            read_mbps: round3(self.read_bytes as f64 / 1e6 / secs),
            write_mbps: round3(self.write_bytes as f64 / 1e6 / secs),
            latency_ms: self.all().summary_ms(),
            read_latency_ms: (!self.read.is_empty()).then(|| self.read.summary_ms()),
            write_latency_ms: (!self.write.is_empty()).then(|| self.write.summary_ms()),
            ios: self.count(),
            ..crate::result::Metrics::default()
        }
    }

    /// Per-second series over `intervals` intervals (trailing empty ones included).
    pub fn series(&self, intervals: usize) -> Vec<SeriesPoint> {
        (0..intervals)
            .map(|i| {
                let s = self.series.get(i).copied().unwrap_or_default();
                let n = s.reads + s.writes;
                let secs = INTERVAL_NS as f64 / 1e9;
                SeriesPoint {
                    t_s: i as f64 * secs,
                    iops: n as f64 / secs,
                    read_iops: s.reads as f64 / secs,
                    write_iops: s.writes as f64 / secs,
                    mbps: round3(s.bytes as f64 / 1e6 / secs),
                    latency_ms_mean: if n == 0 {
                        0.0
                    } else {
                        round4(s.latency_ns as f64 / n as f64 / 1e6)
                    },
                    rows_per_s: None,
                }
            })
            .collect()
    }
}

/// Rounds to 3 decimals (stable, compact JSON).
pub fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}

/// Rounds to 4 decimals.
pub fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_counts_add_up_to_totals() {
        let mut h = HostStats::new(5 * INTERVAL_NS);
        let mut t = 5 * INTERVAL_NS;
        for i in 0..3000u64 {
            t += 1_000_000; // 1 ms apart: 1000 per second
            h.record(t, i % 3 == 0, 8192, 2_000_000);
        }
        let s = h.series(4);
        assert_eq!(s.len(), 4);
        let total: f64 = s.iter().map(|p| p.iops).sum();
        assert_eq!(total as u64, h.count());
        assert_eq!(s[3].iops, 1.0);
        assert!((s[1].latency_ms_mean - 2.0).abs() < 1e-9);
        assert_eq!(h.read.count() + h.write.count(), 3000);
    }

    #[test]
    fn all_merges_reads_and_writes() {
        let mut h = HostStats::new(0);
        for i in 0..400u64 {
            // Reads at 1 ms, writes at 9 ms, one in four a write.
            let write = i % 4 == 0;
            h.record(
                i * 1_000_000,
                write,
                4096,
                if write { 9_000_000 } else { 1_000_000 },
            );
        }
        let all = h.all();
        assert_eq!((all.count(), h.count()), (400, 400));
        assert_eq!((all.min(), all.max()), (1_000_000, 9_000_000));
        let m = h.metrics(1.0);
        assert_eq!(
            (m.ios, m.iops, m.read_iops, m.write_iops),
            (400, 400.0, 300.0, 100.0)
        );
        // Mean of 300 at 1 ms and 100 at 9 ms.
        assert!((m.latency_ms.mean - 3.0).abs() < 1e-6, "{:?}", m.latency_ms);
    }

    #[test]
    fn an_io_recorded_late_lands_in_its_own_second() {
        // Threads of the real engine merge late; a record for an earlier second must not be
        // counted in the second recorded last.
        let mut h = HostStats::new(0);
        h.record(2 * INTERVAL_NS + 5, false, 512, 1_000);
        h.record(INTERVAL_NS - 1, true, 512, 1_000);
        h.record(2 * INTERVAL_NS + 7, false, 512, 1_000);
        h.record(3 * INTERVAL_NS, false, 512, 1_000);
        let iops: Vec<f64> = h.series(4).iter().map(|p| p.iops).collect();
        assert_eq!(iops, vec![1.0, 0.0, 2.0, 1.0]);
    }
}
