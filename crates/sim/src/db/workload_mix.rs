//! A workload characterization as the simulated database runs it: its segments laid out one
//! after another in the page space of the data files, and each transaction planned as the
//! block visits, changes, new blocks, redo and CPU its type averages per execution.
//!
//! - A session picks the transaction type by weight, from its own random stream.
//! - Per-execution averages are fractional: each session carries the fraction of every
//!   quantity of every type to its next execution of that type, so the counts average out to
//!   the characterization's exactly instead of being rounded away.
//! - `logical_reads` visits split into scan visits (`scan_share`: one run of consecutive blocks
//!   on a table segment, read by multiblock reads), index visits (`index_share`, on index
//!   segments) and table visits; a segment is picked by its `share` among the segments of its
//!   kind, a block by the segment's access skew (uniform, Zipf over the blocks, or a hot set;
//!   the hottest blocks first in the segment).
//! - `blocks_changed` of the visits are written (point visits first, then scan visits); at
//!   most every visited block. When segments give a `change_share`, the changed point visits
//!   go instead to a segment drawn by those shares, to a block drawn evenly from the blocks
//!   its `change_set` holds (its first; the whole segment without one).
//! - `rows_inserted` fill new blocks at the end of a growing table segment, at
//!   [`ROW_BYTES_INSERTED`] bytes a row (a characterization gives no row size): the blocks
//!   are created, not read. A table grows when the mix inserts rows; it reserves a quarter of
//!   its size for them and the inserts wrap in that room (the space of deleted rows reused).
//!   A table that never grows reserves nothing.
//! - A type with `steps` plans its visits from them instead ([`steps`]): the blocks of the
//!   keys and rows each statement reaches, and the table an append step writes grows (it
//!   reserves room as above, or the room its data set declares: [`WorkloadMix::with_rooms`]).

use serde::Serialize;
use storlab_core::character::{Access, Characterization, SegmentKind, Transaction};

use super::layout::NEW_BLOCK;
use crate::rng::Rng;

mod steps;

pub use steps::RowRedo;

/// Bytes an inserted row takes in its block (a row of about 100 bytes with its header and
/// slot), for turning `rows_inserted` into new blocks.
pub const ROW_BYTES_INSERTED: u64 = 128;
/// The engine's block.
pub const BLOCK_BYTES: u64 = 8192;
/// Room a growing table reserves for its inserts: this fraction of its size.
const GROWTH_RESERVE: f64 = 0.25;

/// One segment in the page space.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MixSegment {
    pub name: String,
    pub first_block: u64,
    pub blocks: u64,
    /// Blocks reserved after the segment for its inserts (0: it does not grow).
    pub reserve_blocks: u64,
    /// A table segment (heap blocks: PostgreSQL's hint bits are on them).
    #[serde(skip)]
    pub heap: bool,
    #[serde(skip)]
    access: Access,
    #[serde(skip)]
    zipf: Option<Zipf>,
    /// The hot set's blocks of a `hot` access skew (0 for the others), worked out once.
    #[serde(skip)]
    hot_blocks: u64,
    /// The blocks its changes fall on (its first), when it gives a change share.
    #[serde(skip)]
    change_blocks: u64,
}

/// Segment indexes with their shares, and the shares' total (summed once, in list order, so
/// a pick draws exactly as summing them at every pick did).
#[derive(Clone, Debug, Default, PartialEq)]
struct Shares {
    list: Vec<(usize, f64)>,
    total: f64,
}

impl Shares {
    fn new(list: Vec<(usize, f64)>) -> Shares {
        let total = list.iter().map(|p| p.1).sum();
        Shares { list, total }
    }

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// A segment drawn by share (uniformly when the shares are all 0).
    fn pick(&self, rng: &mut Rng) -> usize {
        let list = &self.list;
        if self.total <= 0.0 {
            return list[rng.below(list.len() as u64) as usize].0;
        }
        let mut u = rng.unit_f64() * self.total;
        for &(i, share) in list {
            if u < share {
                return i;
            }
            u -= share;
        }
        list[list.len() - 1].0
    }
}

/// The characterization laid out and ready to plan transactions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkloadMix {
    pub segments: Vec<MixSegment>,
    /// Blocks of the whole page space (segments and their reserves).
    pub blocks: u64,
    /// Blocks of one multiblock read of a scan.
    pub multiblock_read_count: u64,
    #[serde(skip)]
    types: Vec<Transaction>,
    /// Per type: its CPU and think time, ns (worked out once, not at every execution).
    #[serde(skip)]
    times_ns: Vec<(u64, u64)>,
    /// Cumulative weights of the types.
    #[serde(skip)]
    cumulative: Vec<f64>,
    /// Segment indexes (with their shares) of index, table-like and growing segments.
    #[serde(skip)]
    index: Shares,
    #[serde(skip)]
    table: Shares,
    #[serde(skip)]
    growing: Shares,
    /// Per segment: its rows and primary key, when steps reach it by key.
    #[serde(skip)]
    keyed: Vec<Option<steps::Keyed>>,
    /// Per type: its steps (empty: its visits are drawn by share).
    #[serde(skip)]
    steps: Vec<Vec<steps::Planned>>,
    /// The table segments a `"*"` step picks from.
    #[serde(skip)]
    any_tables: Vec<usize>,
    /// Segment indexes with their change shares (empty: the changes are the first visits).
    #[serde(skip)]
    changes: Shares,
    /// The steps' redo row by row, when the data set gives it (None: each type's average).
    #[serde(skip)]
    row_redo: Option<steps::RowRedo>,
}

/// What one planned execution does besides its block visits.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MixOp {
    pub tx_type: usize,
    pub commits: bool,
    pub log_bytes: u64,
    pub cpu_ns: u64,
    pub think_ns: u64,
    /// Plan entries `scan.0..scan.1` are the scan's visits.
    pub scan: (usize, usize),
    /// Rows its steps reached (0 for a type without steps).
    pub rows: u64,
}

/// A session's fractions carried between executions, per type: visits, scan visits, index
/// visits, changed blocks, new blocks, redo bytes.
pub type Carry = Vec<[f64; 6]>;

/// Whole units of `x` with `carry`, the fraction kept in `carry`.
fn take(x: f64, carry: &mut f64) -> u64 {
    let total = x + *carry;
    let n = total.floor().max(0.0);
    *carry = total - n;
    n as u64
}

impl WorkloadMix {
    /// Lays out `c` (every segment's size known; 8 KiB blocks) with scans read
    /// `multiblock_read_count` blocks at a time.
    pub fn new(c: &Characterization, multiblock_read_count: u64) -> Result<WorkloadMix, String> {
        WorkloadMix::laid_out(c, multiblock_read_count, None)
    }

    /// Lays out `c` like [`WorkloadMix::new`], each growing table segment with the room its
    /// data set declares (`room_blocks`, one entry per segment) instead of a quarter of its
    /// size, and its steps' redo worked out row by row (`row_redo`) instead of taken from
    /// each type's average.
    pub fn with_rooms(
        c: &Characterization,
        room_blocks: &[u64],
        row_redo: steps::RowRedo,
    ) -> Result<WorkloadMix, String> {
        let mut m = WorkloadMix::laid_out(c, 1, Some(room_blocks))?;
        m.row_redo = Some(row_redo);
        Ok(m)
    }

    fn laid_out(
        c: &Characterization,
        multiblock_read_count: u64,
        room_blocks: Option<&[u64]>,
    ) -> Result<WorkloadMix, String> {
        let grows = c
            .transactions
            .iter()
            .any(|t| t.steps.is_empty() && t.rows_inserted > 0.0);
        let any_tables = storlab_core::character::steps::indexed_tables(c);
        let appended = |i: usize, name: &str| {
            c.transactions.iter().flat_map(|t| &t.steps).any(|st| {
                st.reach == storlab_core::character::Reach::Append
                    && (st.table == name
                        || (st.table == storlab_core::character::steps::ANY_TABLE
                            && any_tables.contains(&i)))
            })
        };
        let mut next = 0u64;
        let mut segments = Vec::new();
        for (i, s) in c.segments.iter().enumerate() {
            let placed = !matches!(s.kind, SegmentKind::Log);
            let bytes = match s.size.known() {
                Some(b) => b.0,
                None if !placed => 0,
                None => return Err(format!("segments[{i}].size ({}) is unknown", s.name)),
            };
            let blocks = if placed {
                bytes.div_ceil(BLOCK_BYTES).max(1)
            } else {
                0
            };
            let reserve = match room_blocks {
                _ if !(grows || appended(i, &s.name)) || s.kind != SegmentKind::Table => 0,
                Some(r) => r.get(i).copied().unwrap_or(0),
                None => ((blocks as f64 * GROWTH_RESERVE).ceil() as u64).max(1),
            };
            segments.push(MixSegment {
                name: s.name.clone(),
                first_block: next,
                blocks,
                reserve_blocks: reserve,
                heap: s.kind == SegmentKind::Table,
                access: s.access,
                zipf: match s.access {
                    Access::Zipf { theta } if blocks > 1 => Some(Zipf::new(blocks, theta)),
                    _ => None,
                },
                hot_blocks: match s.access {
                    Access::Hot { data, .. } => {
                        ((data * blocks as f64).round() as u64).clamp(1, blocks.max(1))
                    }
                    _ => 0,
                },
                change_blocks: s
                    .change_set
                    .map_or(blocks, |b| b.0 / BLOCK_BYTES)
                    .clamp(1, blocks.max(1)),
            });
            next += blocks + reserve;
        }
        let of_kind = |f: &dyn Fn(SegmentKind) -> bool| -> Vec<(usize, f64)> {
            let v: Vec<(usize, f64)> = c
                .segments
                .iter()
                .enumerate()
                .filter(|(i, s)| f(s.kind) && segments[*i].blocks > 0)
                .map(|(i, s)| (i, s.share))
                .collect();
            v
        };
        let placed = of_kind(&|k| k != SegmentKind::Log);
        if placed.is_empty() {
            return Err("no segment holds data (only log segments)".into());
        }
        let or_all = |v: Vec<(usize, f64)>| if v.is_empty() { placed.clone() } else { v };
        let mut acc = 0.0;
        let cumulative = c
            .transactions
            .iter()
            .map(|t| {
                acc += t.weight;
                acc
            })
            .collect();
        let keyed = steps::keyed(c, &segments)?;
        Ok(WorkloadMix {
            keyed,
            steps: steps::planned(c),
            any_tables,
            blocks: next,
            multiblock_read_count: multiblock_read_count.max(1),
            types: c.transactions.clone(),
            times_ns: c
                .transactions
                .iter()
                .map(|t| {
                    let ns = |ms: f64| (ms * 1e6).round() as u64;
                    (ns(t.cpu_ms), ns(t.think_ms))
                })
                .collect(),
            cumulative,
            index: Shares::new(or_all(of_kind(&|k| k == SegmentKind::Index))),
            table: Shares::new(or_all(of_kind(&|k| {
                k != SegmentKind::Index && k != SegmentKind::Log
            }))),
            growing: Shares::new(
                of_kind(&|k| k == SegmentKind::Table)
                    .into_iter()
                    .filter(|&(i, _)| segments[i].reserve_blocks > 0)
                    .collect(),
            ),
            changes: Shares::new(
                c.segments
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| segments[*i].blocks > 0)
                    .filter_map(|(i, s)| Some((i, s.change_share?)))
                    .collect(),
            ),
            segments,
            row_redo: None,
        })
    }

    /// Every type's statements each reach one row by key and none appends or draws by share:
    /// an execution's plan depends only on the session's random numbers.
    pub fn single_rows(&self) -> bool {
        self.row_redo.is_some()
            && self.steps.iter().all(|t| {
                !t.is_empty()
                    && t.iter()
                        .all(|st| st.reach == storlab_core::character::Reach::Key && st.rows == 1)
            })
    }

    /// The transaction types' names, in order.
    pub fn type_names(&self) -> Vec<String> {
        self.types.iter().map(|t| t.name.clone()).collect()
    }

    /// Where the inserts go, all at their start: per segment the next insert block of its
    /// growth room (inserts drawn by `rows_inserted`), then per segment the next row an
    /// append step writes in it.
    pub fn new_appends(&self) -> Vec<u64> {
        vec![0; 2 * self.segments.len()]
    }

    /// A session's carries, all zero.
    pub fn new_carry(&self) -> Carry {
        vec![[0.0; 6]; self.types.len()]
    }

    fn pick_type(&self, rng: &mut Rng) -> usize {
        let total = self.cumulative.last().copied().unwrap_or(1.0);
        let u = rng.unit_f64() * total;
        self.cumulative
            .iter()
            .position(|&c| u < c)
            .unwrap_or(self.types.len() - 1)
    }

    /// A block of segment `i`, drawn by its access skew.
    fn pick_block(&self, i: usize, rng: &mut Rng) -> u64 {
        let s = &self.segments[i];
        let n = s.blocks;
        let offset = match (s.access, &s.zipf) {
            (Access::Hot { accesses, .. }, _) => {
                let hot = s.hot_blocks;
                if rng.unit_f64() < accesses || hot == n {
                    rng.below(hot)
                } else {
                    hot + rng.below(n - hot)
                }
            }
            (Access::Zipf { .. }, Some(z)) => z.sample(rng) - 1,
            _ => rng.below(n),
        };
        s.first_block + offset
    }

    /// Plans one execution of session's next transaction into `out` (cleared first): its
    /// point visits, then its scan's, then the blocks its inserts create; or its steps'
    /// visits. `appends` holds where the inserts go ([`WorkloadMix::new_appends`]).
    pub fn plan(
        &self,
        rng: &mut Rng,
        carry: &mut Carry,
        appends: &mut [u64],
        out: &mut Vec<(u64, bool)>,
    ) -> MixOp {
        out.clear();
        let ty = self.pick_type(rng);
        let t = &self.types[ty];
        let c = &mut carry[ty];
        if !self.steps[ty].is_empty() {
            let log_bytes = match self.row_redo {
                Some(_) => 0,
                None => take(t.redo_bytes, &mut c[5]),
            };
            return self.plan_steps(ty, rng, log_bytes, appends, out);
        }
        let visits = take(t.logical_reads, &mut c[0]);
        let scan = take(t.logical_reads * t.scan_share, &mut c[1]).min(visits);
        let index = take(t.logical_reads * t.index_share, &mut c[2]).min(visits - scan);
        let changed = take(t.blocks_changed, &mut c[3]).min(visits);
        let rows_per_block = (BLOCK_BYTES / ROW_BYTES_INSERTED) as f64;
        let new_blocks = take(t.rows_inserted / rows_per_block, &mut c[4]);
        let log_bytes = take(t.redo_bytes, &mut c[5]);
        for k in 0..visits - scan {
            let list = if k < index { &self.index } else { &self.table };
            let seg = list.pick(rng);
            out.push((self.pick_block(seg, rng), false));
        }
        let scan_start = out.len();
        if scan > 0 {
            let seg = self.table.pick(rng);
            let s = &self.segments[seg];
            let mut off = rng.below(s.blocks);
            for _ in 0..scan {
                out.push((s.first_block + off, false));
                off = (off + 1) % s.blocks;
            }
        }
        let scan_end = out.len();
        for (k, e) in out.iter_mut().take(changed as usize).enumerate() {
            if k < scan_start && !self.changes.is_empty() {
                let seg = self.changes.pick(rng);
                let s = &self.segments[seg];
                e.0 = s.first_block + rng.below(s.change_blocks);
            }
            e.1 = true;
        }
        if new_blocks > 0 && !self.growing.is_empty() {
            let seg = self.growing.pick(rng);
            let s = &self.segments[seg];
            for _ in 0..new_blocks {
                let at = appends[seg] % s.reserve_blocks;
                appends[seg] = at + 1;
                out.push(((s.first_block + s.blocks + at) | NEW_BLOCK, true));
            }
        }
        MixOp {
            tx_type: ty,
            commits: changed > 0 || new_blocks > 0 || t.redo_bytes > 0.0,
            log_bytes,
            cpu_ns: self.times_ns[ty].0,
            think_ns: self.times_ns[ty].1,
            scan: (scan_start, scan_end),
            rows: 0,
        }
    }
}

/// Zipf over ranks 1..=n with exponent `theta`, drawn by rejection-inversion (Hörmann and
/// Derflinger, 1996): constant expected time for any n and any exponent above 0.
#[derive(Clone, Debug, PartialEq)]
struct Zipf {
    n: f64,
    s: f64,
    h_x1: f64,
    h_n: f64,
    cut: f64,
}

/// ln(1 + x) / x, accurate near 0.
fn ln1p_over(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x / 2.0
    }
}

/// (e^x - 1) / x, accurate near 0.
fn expm1_over(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x / 2.0
    }
}

impl Zipf {
    fn new(n: u64, theta: f64) -> Zipf {
        let mut z = Zipf {
            n: n as f64,
            s: theta,
            h_x1: 0.0,
            h_n: 0.0,
            cut: 0.0,
        };
        z.h_x1 = z.h_int(1.5) - 1.0;
        z.h_n = z.h_int(z.n + 0.5);
        z.cut = 2.0 - z.h_int_inv(z.h_int(2.5) - z.h(2.0));
        z
    }

    /// x^-s.
    fn h(&self, x: f64) -> f64 {
        (-self.s * x.ln()).exp()
    }

    /// The integral of x^-s: (x^(1-s) - 1) / (1 - s), ln x at s = 1.
    fn h_int(&self, x: f64) -> f64 {
        let lx = x.ln();
        expm1_over((1.0 - self.s) * lx) * lx
    }

    fn h_int_inv(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.s)).max(-1.0);
        (ln1p_over(t) * x).exp()
    }

    fn sample(&self, rng: &mut Rng) -> u64 {
        loop {
            let u = self.h_n + rng.unit_f64() * (self.h_x1 - self.h_n);
            let x = self.h_int_inv(u);
            let k = x.round().clamp(1.0, self.n);
            if k - x <= self.cut || u >= self.h_int(k + 0.5) - self.h(k) {
                return k as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests;
