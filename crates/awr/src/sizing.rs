//! Segment sizes a report implies. A report gives no segment sizes, but it gives each
//! tablespace's physical reads (Tablespace IO Stats: reads times blocks per read) and the
//! buffer cache's size, and the characterization says how the logical reads spread over the
//! segments (index visits over the index segments, table visits and scans over the others,
//! each by its share). With every segment's blocks visited uniformly, the size that makes a
//! segment miss the simulated cache as often as the report shows follows from how that cache
//! replaces blocks ([`clock`]): with the hand passing each frame every `R` seconds, a block
//! visited `λ` times a second misses `m(λR)` of its visits; a segment of `N` blocks with `L`
//! visits a second has `λ = L / N`, so `N = L R / a` for the `a` with `m(a)` the segment's miss
//! ratio; and the cache holds the segments' cached blocks, `Σ N (1 - m)`, besides the
//! simulated Oracle's undo (each session's undo segment header and current undo block, and
//! the undo blocks filled lately: `u` a second, each staying about `k R`, `k` its visits up
//! to the usage cap), which gives `R`.
//!
//! An LRU cache (the characteristic-time approximation of Che, Tung and Wang, IEEE JSAC
//! 20(7), 2002: `m = exp(-λT)`) sized the acme report's segments for 2,500 blocks read a
//! second; the simulated cache read 2,819 with them: a cache holding 97% of the data misses
//! far more for each block it holds less, so the replacement policy and the undo's frames
//! both count.
//!
//! The sizes are an estimate (the data set that behaves as the report's did, with uniform
//! visits within each segment), for a user who does not know the real ones; they are offered
//! in the import's notes, never filled in silently.

pub(crate) mod clock;

use storlab_core::character::{
    Characterization, Engine, SegmentKind, ORACLE_UNDO_BLOCK_RECORD_BYTES,
    ORACLE_UNDO_UPDATE_RECORD_BYTES, SIM_BUFFER_MAX_USAGE,
};

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

/// Frames the simulated Oracle's undo holds in the cache at a hand period of `r` seconds:
/// `fixed + per_r × r` (see the module doc).
fn undo_frames(c: &Characterization, tps: f64) -> (f64, f64) {
    if c.engine != Engine::Oracle {
        return (0.0, 0.0);
    }
    let records_per_s: f64 = c
        .transactions
        .iter()
        .map(|t| t.weight * t.blocks_changed * tps)
        .sum();
    if records_per_s <= 0.0 {
        return (0.0, 0.0);
    }
    let (record, block) = (
        ORACLE_UNDO_UPDATE_RECORD_BYTES as f64,
        ORACLE_UNDO_BLOCK_RECORD_BYTES as f64,
    );
    let blocks_per_s = records_per_s * record / block;
    // Each undo block takes the records of this many transactions, each a visit.
    let changes_per_txn = records_per_s / tps;
    let visits = (block / (record * changes_per_txn)).clamp(1.0, f64::from(SIM_BUFFER_MAX_USAGE));
    (2.0 * f64::from(c.sessions), blocks_per_s * visits)
}

/// How the simulated cache holds the segments the estimate sizes: the hand's period `r`
/// (seconds) and, per visited segment (by index), its visits a second and its visits
/// between passes.
pub(crate) struct ClockFit {
    pub r: f64,
    pub segments: Vec<(usize, f64, f64)>,
}

/// The fit of the module doc; None when the report lacks the buffer cache, the transaction
/// rate, the physical reads or the tablespace reads.
pub(crate) fn clock_fit(c: &Characterization) -> Option<ClockFit> {
    let frames = c.instance.buffer_cache.0 as f64 / f64::from(c.block_bytes);
    let tps = c.observed.as_ref()?.transactions_per_s?;
    let misses = misses_per_s(c)?;
    if frames < 1.0 || tps <= 0.0 {
        return None;
    }
    let visits = visits_per_s(c, tps);
    // Per segment: visits, miss ratio and the visits between passes that give it.
    let sized: Vec<(usize, f64, f64, f64)> = visits
        .iter()
        .zip(&misses)
        .enumerate()
        .filter(|(_, (v, _))| **v > 0.0)
        .map(|(i, (&v, &p))| {
            let m = (p / v).clamp(MIN_MISS_RATIO, MAX_MISS_RATIO);
            (i, v, m, clock::visits_per_pass(m))
        })
        .collect();
    let per_r: f64 = sized.iter().map(|&(_, v, m, a)| v * (1.0 - m) / a).sum();
    let (undo_fixed, undo_per_r) = undo_frames(c, tps);
    // Without room for the undo's fixed frames, the segments take the whole cache.
    let room = if frames > 2.0 * undo_fixed {
        frames - undo_fixed
    } else {
        frames
    };
    if per_r <= 0.0 {
        return None;
    }
    Some(ClockFit {
        r: room / (per_r + undo_per_r),
        segments: sized.into_iter().map(|(i, v, _, a)| (i, v, a)).collect(),
    })
}

/// Segment sizes in bytes, by name, that reproduce the report's physical reads per
/// tablespace in the simulated buffer cache (see the module doc); empty when the report lacks
/// the buffer cache, the transaction rate, the physical reads or the tablespace reads.
pub fn size_estimates(c: &Characterization) -> Vec<(String, u64)> {
    let Some(fit) = clock_fit(c) else {
        return Vec::new();
    };
    let block = f64::from(c.block_bytes);
    fit.segments
        .into_iter()
        .map(|(i, v, a)| {
            let blocks = (v * fit.r / a).ceil().max(1.0);
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
        // The hand's period R from either segment: a / λ, for the a that misses m.
        let r_data = clock::visits_per_pass(0.1) * blocks[0] / 600.0;
        let r_idx = clock::visits_per_pass(0.01) * blocks[1] / 400.0;
        assert!((r_data / r_idx - 1.0).abs() < 0.01, "{blocks:?}");
        let cached = blocks[0] * 0.9 + blocks[1] * 0.99;
        assert!((cached / 1000.0 - 1.0).abs() < 0.01, "{cached}");
        // Changes bring the simulated Oracle's undo into the cache: 2 sessions hold 4 frames
        // (undo headers and current blocks), and 20 changes a second fill 0.3 undo blocks a
        // second, each visited by up to 5 transactions: the segments get the rest.
        let mut changing = c.clone();
        changing.sessions = 2;
        changing.transactions[0].blocks_changed = 2.0;
        let (fixed, per_r) = undo_frames(&changing, 10.0);
        assert_eq!(fixed, 4.0);
        assert!(
            (per_r - 20.0 * 120.0 / 8100.0 * 5.0).abs() < 1e-9,
            "{per_r}"
        );
        let less = size_estimates(&changing);
        let r = r_data * (1000.0 - 4.0) / (1000.0 + per_r * r_data);
        let want = blocks[0] * r / r_data;
        let got = less[0].1 as f64 / 8192.0;
        assert!((got / want - 1.0).abs() < 0.01, "{got} {want}");
        // Without the tablespace reads there is nothing to size by.
        let mut bare = c.clone();
        bare.observed = None;
        assert!(size_estimates(&bare).is_empty());
    }
}
