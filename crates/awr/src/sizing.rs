//! Segment sizes a report implies. A report gives no segment sizes, but it gives each
//! tablespace's physical reads (Tablespace IO Stats: reads times blocks per read) and the
//! buffer cache's size, and the characterization says how the logical reads spread over the
//! segments (index visits over the index segments, table visits and scans over the others,
//! each by its share). With every segment's blocks visited uniformly, the size that makes a
//! segment miss the cache as often as the report shows follows from the characteristic-time
//! approximation of an LRU cache (Che, Tung and Wang, IEEE JSAC 20(7), 2002): a block
//! visited `λ` times a second stays cached while it is visited again within the cache's
//! characteristic time `T`, so it misses a share `m = exp(-λT)` of its visits; a segment of
//! `N` blocks with `L` visits a second has `λ = L / N`, so `N = L T / -ln m`; and the
//! segments' cached blocks fill the cache: `Σ N (1 - m) = C` gives `T`.
//!
//! The sizes are an estimate (the data set that behaves as the report's did, with uniform
//! visits within each segment), for a user who does not know the real ones; they are offered
//! in the import's notes, never filled in silently.

use storlab_core::character::{Characterization, SegmentKind};

/// Smallest miss ratio a segment is sized for (a segment the report shows no reads of is
/// sized as if one visit in this many missed: small, nearly all cached).
const MIN_MISS_RATIO: f64 = 1e-4;
/// Largest miss ratio a segment is sized for (a segment nearly every visit of which misses is
/// sized as if this share missed).
const MAX_MISS_RATIO: f64 = 0.999;

/// Visits a second on each segment of `c` (0 for log segments), from its transactions' rates
/// and the segments' shares among the segments of their kind, as the simulated database
/// spreads them.
fn visits_per_s(c: &Characterization, tps: f64) -> Vec<f64> {
    let (mut index, mut table) = (0.0, 0.0);
    for t in &c.transactions {
        let v = t.weight * t.logical_reads * tps;
        index += v * t.index_share;
        table += v * (1.0 - t.index_share);
    }
    let is_index = |k: SegmentKind| k == SegmentKind::Index;
    let placed = |k: SegmentKind| k != SegmentKind::Log;
    let sum = |f: &dyn Fn(SegmentKind) -> bool| -> f64 {
        c.segments
            .iter()
            .filter(|s| f(s.kind))
            .map(|s| s.share)
            .sum()
    };
    let index_total = sum(&|k| is_index(k));
    let table_total = sum(&|k| placed(k) && !is_index(k));
    c.segments
        .iter()
        .map(|s| match s.kind {
            SegmentKind::Log => 0.0,
            SegmentKind::Index if index_total > 0.0 => index * s.share / index_total,
            _ if table_total > 0.0 => table * s.share / table_total,
            _ => 0.0,
        })
        .collect()
}

/// Blocks read a second from each segment's tablespace (reads times blocks per read),
/// scaled so they sum to the Load Profile's physical reads; None without the figures.
fn misses_per_s(c: &Characterization) -> Option<Vec<f64>> {
    let o = c.observed.as_ref()?;
    let total = o.physical_reads_per_s?;
    let elapsed = o.elapsed_s.filter(|e| *e > 0.0);
    let blocks: Vec<f64> = c
        .segments
        .iter()
        .map(|s| {
            let Some(io) = o.tablespaces.iter().find(|t| t.tablespace == s.tablespace) else {
                return 0.0;
            };
            let reads = io
                .reads_per_s
                .or_else(|| Some(io.reads? / elapsed?))
                .unwrap_or(0.0);
            reads.max(0.0) * io.blocks_per_read.unwrap_or(1.0).max(1.0)
        })
        .collect();
    let sum: f64 = blocks.iter().sum();
    (sum > 0.0).then(|| blocks.iter().map(|b| b * total / sum).collect())
}

/// Segment sizes in bytes, by name, that reproduce the report's physical reads per
/// tablespace in its buffer cache (see the module doc); empty when the report lacks the
/// buffer cache, the transaction rate, the physical reads or the tablespace reads.
pub fn size_estimates(c: &Characterization) -> Vec<(String, u64)> {
    let block = f64::from(c.block_bytes);
    let frames = c.instance.buffer_cache.0 as f64 / block;
    let tps = c.observed.as_ref().and_then(|o| o.transactions_per_s);
    let (Some(tps), Some(misses)) = (tps, misses_per_s(c)) else {
        return Vec::new();
    };
    if frames < 1.0 || tps <= 0.0 {
        return Vec::new();
    }
    let visits = visits_per_s(c, tps);
    // Per segment: visits, miss ratio and -ln of it, for the segments visited.
    let sized: Vec<(usize, f64, f64, f64)> = visits
        .iter()
        .zip(&misses)
        .enumerate()
        .filter(|(_, (v, _))| **v > 0.0)
        .map(|(i, (&v, &p))| {
            let m = (p / v).clamp(MIN_MISS_RATIO, MAX_MISS_RATIO);
            (i, v, m, -m.ln())
        })
        .collect();
    let per_t: f64 = sized.iter().map(|&(_, v, m, x)| v * (1.0 - m) / x).sum();
    if per_t <= 0.0 {
        return Vec::new();
    }
    let t = frames / per_t;
    sized
        .into_iter()
        .map(|(i, v, _, x)| {
            let blocks = (v * t / x).ceil().max(1.0);
            (c.segments[i].name.clone(), (blocks * block) as u64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use storlab_core::character::{Engine, Transaction};
    use storlab_core::character::{Instance, IoStat, Observed, Segment, SegmentSize};
    use storlab_core::ByteSize;

    fn segment(name: &str, kind: SegmentKind, share: f64) -> Segment {
        Segment::plain(name, kind, SegmentSize::Unknown, name, share)
    }

    fn reads(tablespace: &str, per_s: f64) -> IoStat {
        IoStat {
            tablespace: tablespace.into(),
            reads_per_s: Some(per_s),
            ..IoStat::default()
        }
    }

    /// Two segments, 600 and 400 visits a second, missing 60 and 4 of them, in a cache of
    /// 1,000 blocks: each size makes its miss ratio exp(-λT), and the cached parts fill the
    /// cache.
    #[test]
    fn sizes_reproduce_each_segments_miss_ratio_and_fill_the_cache() {
        let c = Characterization {
            name: "t".into(),
            engine: Engine::Oracle,
            source: "test".into(),
            sessions: 1,
            block_bytes: 8192,
            transactions: vec![Transaction {
                name: "average".into(),
                weight: 1.0,
                logical_reads: 100.0,
                index_share: 0.4,
                scan_share: 0.0,
                blocks_changed: 0.0,
                rows_inserted: 0.0,
                redo_bytes: 0.0,
                cpu_ms: 0.0,
                statements: 1.0,
                think_ms: 0.0,
                temp_bytes: 0.0,
                physical_reads: None,
                physical_writes: None,
                steps: Vec::new(),
            }],
            segments: vec![
                segment("DATA", SegmentKind::Table, 0.5),
                segment("IDX", SegmentKind::Index, 0.5),
            ],
            instance: Instance {
                cpus: 1,
                cpu_busy_pct: None,
                buffer_cache: ByteSize(1000 * 8192),
                log_buffer: ByteSize(1 << 20),
                db_time_per_s: None,
                settings: Default::default(),
            },
            observed: Some(Observed {
                transactions_per_s: Some(10.0),
                physical_reads_per_s: Some(64.0),
                tablespaces: vec![reads("DATA", 60.0), reads("IDX", 4.0)],
                ..Observed::default()
            }),
        };
        let sizes = size_estimates(&c);
        let blocks: Vec<f64> = sizes.iter().map(|(_, b)| *b as f64 / 8192.0).collect();
        assert_eq!(sizes[0].0, "DATA");
        assert_eq!(sizes[1].0, "IDX");
        // The cache's characteristic time T from either segment: -ln m / λ.
        let t_data = -(0.1f64.ln()) * blocks[0] / 600.0;
        let t_idx = -(0.01f64.ln()) * blocks[1] / 400.0;
        assert!((t_data / t_idx - 1.0).abs() < 0.01, "{blocks:?}");
        let cached = blocks[0] * 0.9 + blocks[1] * 0.99;
        assert!((cached / 1000.0 - 1.0).abs() < 0.01, "{cached}");
        // Without the tablespace reads there is nothing to size by.
        let mut bare = c.clone();
        bare.observed = None;
        assert!(size_estimates(&bare).is_empty());
    }
}
