//! A built-in test as a workload characterization: what its declared mix
//! (`storlab_core::dbtest::mix`) does per transaction on this database's tables, worked out
//! from the schema. A statement reaching `n` rows by key visits the index levels above the
//! leaves, the leaves its keys span and the heap blocks its rows lie in, `n` consecutive keys
//! from a random first one spanning `1 + (n - 1) / k` blocks of `k` keys on average; an
//! append visits the same at the table's end and writes the leaf and heap blocks. The
//! characterization is what the sessions plan, before the engine's own mechanics: Oracle's
//! undo blocks and their redo, a measured profile's extra changes, and the CPU of undo visits
//! come on top of it in a run.
//!
//! The characterization also carries the statements themselves (`[[transactions.steps]]`),
//! its tables' rows and their primary keys' heights and leaves, so a file of it describes
//! the test's blocks key by key as the declaration does.

use storlab_core::character::{
    steps::ANY_TABLE, Changes, Characterization, Instance, Reach, Segment, SegmentKind,
    SegmentSize, Step, Transaction,
};
use storlab_core::dbtest::mix::{Rows, Shape, Statement, Target, TxType};
use storlab_core::ByteSize;

use super::DbSpec;
use crate::db::layout::{Layout, Segment as Laid};
use crate::db::workload_mix::{RowRedo, WorkloadMix};

/// Log bytes of inserting a row besides its data: the heap-insert record (record and block
/// headers, the compact tuple header) and, for an indexed table, the B-tree insert record
/// with its index tuple: about PostgreSQL's WAL record sizes.
pub const INSERT_LOG_BYTES: u64 = 52;
pub const INDEX_INSERT_LOG_BYTES: u64 = 64;

/// Log bytes of inserting `rows` rows of `row_bytes` into a table, `indexed` or not.
pub fn insert_log_bytes(row_bytes: u64, rows: u64, indexed: bool) -> u64 {
    let index = if indexed { INDEX_INSERT_LOG_BYTES } else { 0 };
    rows * (INSERT_LOG_BYTES + row_bytes + index)
}

/// Blocks `n` consecutive keys from a random first one span, at `per_block` keys a block.
fn span(n: u64, per_block: f64) -> f64 {
    1.0 + n.saturating_sub(1) as f64 / per_block.max(1.0)
}

/// One statement's figures on one table, per execution.
#[derive(Default, Clone, Copy)]
struct Figures {
    index_visits: f64,
    heap_visits: f64,
    changed: f64,
    inserted: f64,
    redo: f64,
    rows: f64,
}

fn statement(spec: &DbSpec, st: &Statement, seg: &Laid, indexed: bool) -> Figures {
    let n = match st.rows {
        Rows::One => 1,
        Rows::Range => spec.range_rows.min(spec.rows),
        Rows::PerCommit => spec.rows_per_commit,
    };
    let levels = seg.level_blocks.len();
    let leaves = seg.level_blocks[levels - 1];
    let keys_per_leaf = seg.table.rows as f64 / leaves.max(1) as f64;
    let descent = (levels - 1) as f64 + span(n, keys_per_leaf);
    let heap = span(n, seg.rows_per_block as f64);
    let times = f64::from(st.times);
    let f = match st.shape {
        Shape::Key => Figures {
            index_visits: descent,
            heap_visits: heap,
            changed: if st.writes { heap } else { 0.0 },
            inserted: 0.0,
            redo: if st.writes {
                (n * spec.log_bytes_per_row) as f64
            } else {
                0.0
            },
            rows: n as f64,
        },
        Shape::Append => Figures {
            index_visits: if indexed { descent } else { 0.0 },
            heap_visits: heap,
            changed: heap + if indexed { span(n, keys_per_leaf) } else { 0.0 },
            inserted: n as f64,
            redo: insert_log_bytes(seg.table.row_bytes, n, indexed) as f64,
            rows: n as f64,
        },
    };
    Figures {
        index_visits: f.index_visits * times,
        heap_visits: f.heap_visits * times,
        changed: f.changed * times,
        inserted: f.inserted * times,
        redo: f.redo * times,
        rows: f.rows * times,
    }
}

/// Statement `st` as a characterization's step.
fn step(spec: &DbSpec, st: &Statement) -> Step {
    let rows = match st.rows {
        Rows::One => 1,
        Rows::Range => spec.range_rows.min(spec.rows),
        Rows::PerCommit => spec.rows_per_commit,
    };
    let (reach, changes) = match (st.shape, st.rows) {
        (Shape::Append, _) => (Reach::Append, None),
        (Shape::Key, Rows::One) => (Reach::Key, st.writes.then_some(Changes::Table)),
        (Shape::Key, _) => (Reach::Range, st.writes.then_some(Changes::Table)),
    };
    Step {
        table: match st.target {
            Target::Tables => ANY_TABLE.to_string(),
            Target::History => HISTORY.to_string(),
        },
        reach,
        rows,
        changes,
        times: st.times,
    }
}

/// The history table's segment.
const HISTORY: &str = "history";

/// A transaction type's figures, and the visits it makes of each segment's index and heap
/// (the tables picked evenly).
fn transaction(spec: &DbSpec, layout: &Layout, ty: &TxType) -> (Transaction, Vec<[f64; 2]>) {
    let mut visits = vec![[0.0; 2]; layout.segments.len()];
    let history = layout.segments.len() - 1;
    let tables = layout.segments.len() - usize::from(spec.test.has_history());
    let mut sum = Figures::default();
    for st in ty.statements {
        let (on, indexed): (Vec<usize>, bool) = match st.target {
            Target::Tables => ((0..tables).collect(), true),
            Target::History => (vec![history], false),
        };
        let each = 1.0 / on.len() as f64;
        for t in on {
            let f = statement(spec, st, &layout.segments[t], indexed);
            visits[t][0] += f.index_visits * each;
            visits[t][1] += f.heap_visits * each;
            sum.index_visits += f.index_visits * each;
            sum.heap_visits += f.heap_visits * each;
            sum.changed += f.changed * each;
            sum.inserted += f.inserted * each;
            sum.redo += f.redo * each;
            sum.rows += f.rows * each;
        }
    }
    let reads = sum.index_visits + sum.heap_visits;
    let commit = if ty.writes() {
        spec.log_bytes_per_commit as f64
    } else {
        0.0
    };
    let cpu_ns = spec.cpu_ns_per_block as f64 * reads
        + spec.cpu_ns_per_row as f64 * sum.rows
        + spec.cpu_ns_per_statement as f64 * f64::from(ty.statement_count())
        + if ty.writes() {
            spec.cpu_ns_per_commit as f64
        } else {
            0.0
        }
        + spec.client_cpu_ns as f64;
    let t = Transaction {
        name: ty.name.to_string(),
        weight: f64::from(ty.weight_pct) / 100.0,
        logical_reads: reads,
        index_share: if reads > 0.0 {
            sum.index_visits / reads
        } else {
            0.0
        },
        scan_share: 0.0,
        blocks_changed: sum.changed,
        rows_inserted: sum.inserted,
        redo_bytes: sum.redo + commit,
        cpu_ms: cpu_ns / 1e6,
        statements: f64::from(ty.statement_count()),
        think_ms: spec.think_ns as f64 / 1e6,
        temp_bytes: 0.0,
        physical_reads: None,
        physical_writes: None,
        steps: ty.statements.iter().map(|st| step(spec, st)).collect(),
    };
    (t, visits)
}

impl DbSpec {
    /// The built-in test this database runs, as a workload characterization on its tables
    /// (None for a characterization's or a job's run, whose workload is not a built-in mix).
    pub fn builtin_character(&self) -> Option<Characterization> {
        let def = self.test.def();
        if self.character.is_some() || self.job.is_some() || def.mix.is_empty() {
            return None;
        }
        let layout = Layout::new(&self.tables);
        let mut visits = vec![[0.0; 2]; layout.segments.len()];
        let mut transactions = Vec::new();
        for ty in def.mix {
            let (t, v) = transaction(self, &layout, ty);
            for (all, one) in visits.iter_mut().zip(&v) {
                all[0] += one[0] * t.weight;
                all[1] += one[1] * t.weight;
            }
            transactions.push(t);
        }
        let total: f64 = visits.iter().map(|v| v[0] + v[1]).sum::<f64>().max(1e-300);
        let tables = layout.segments.len() - usize::from(self.test.has_history());
        let mut segments = Vec::new();
        for (k, (seg, v)) in layout.segments.iter().zip(&visits).enumerate() {
            let name = if k < tables {
                format!("{}_{:02}", def.suite(), k + 1)
            } else {
                HISTORY.to_string()
            };
            // A growing table's segment holds its starting rows (the characterization adds
            // its growth room); the index covers the grown table, as in the run.
            let grows = k >= tables || storlab_core::dbtest::mix::appends_to_tables(def.mix);
            let heap_blocks = if grows {
                crate::db::schema::heap_blocks(self.rows, seg.rows_per_block)
            } else {
                seg.table.heap_blocks()
            };
            let indexed = k < tables;
            let parts = [
                (true, seg.table.index_blocks(), v[0]),
                (false, heap_blocks, v[1]),
            ];
            for (index, blocks, n) in parts {
                if index && !indexed {
                    continue;
                }
                let (segment_name, kind) = if index {
                    (format!("{name}_pk"), SegmentKind::Index)
                } else {
                    (name.clone(), SegmentKind::Table)
                };
                let size = SegmentSize::Known(ByteSize(blocks * 8192));
                segments.push(Segment {
                    rows: (!index).then_some(self.rows),
                    table: index.then(|| name.clone()),
                    levels: index.then_some(seg.level_blocks.len() as u32),
                    leaf_blocks: index.then(|| seg.level_blocks.last().copied().unwrap_or(1)),
                    ..Segment::plain(segment_name, kind, size, "data", n / total)
                });
            }
        }
        Some(Characterization {
            name: def.name.to_string(),
            engine: self.engine,
            source: format!(
                "the built-in test {} (storlab_core::dbtest): {} table{} of {} rows",
                def.name,
                tables,
                if tables == 1 { "" } else { "s" },
                self.rows
            ),
            sessions: self.sessions,
            block_bytes: 8192,
            transactions,
            segments,
            instance: Instance {
                cpus: self.cpus,
                cpu_busy_pct: None,
                buffer_cache: ByteSize(self.buffer_blocks * 8192),
                log_buffer: ByteSize(self.log_buffer_bytes),
                db_time_per_s: None,
                settings: Default::default(),
            },
            observed: None,
        })
    }
}

impl DbSpec {
    /// The built-in test this database runs, laid out for the sessions to plan
    /// ([`DbSpec::builtin_character`] on the tables as this section sizes them): a growing
    /// table has the room the section gives it (as many rows again), and the statements'
    /// redo is worked out row by row (`log_bytes_per_row` a changed row, the insert records
    /// of an inserted one). None when the database runs no built-in mix.
    pub fn builtin_mix(&self) -> Option<Result<WorkloadMix, String>> {
        let c = self.builtin_character()?;
        let layout = Layout::new(&self.tables);
        let tables = layout.segments.len() - usize::from(self.test.has_history());
        let grows_all = storlab_core::dbtest::mix::appends_to_tables(self.test.def().mix);
        let (mut rooms, mut inserted) = (Vec::new(), Vec::new());
        for (k, seg) in layout.segments.iter().enumerate() {
            let indexed = k < tables;
            if indexed {
                rooms.push(0);
                inserted.push(0);
            }
            let start = crate::db::schema::heap_blocks(self.rows, seg.rows_per_block);
            let grows = !indexed || grows_all;
            rooms.push(if grows {
                seg.table.heap_blocks().saturating_sub(start)
            } else {
                0
            });
            inserted.push(insert_log_bytes(seg.table.row_bytes, 1, indexed));
        }
        let redo = RowRedo {
            changed_row: self.log_bytes_per_row,
            inserted_row: inserted,
        };
        Some(WorkloadMix::with_rooms(&c, &rooms, redo))
    }
}

/// The array the docs' characterizations are worked out on (placement only: the figures do
/// not depend on it).
const DOCS_ARRAY: &str = include_str!("../../../../../examples/arrays/enterprise-raid5.toml");

/// The built-in test `name` as a characterization, on `[database]` defaults (its declared
/// data set: DPAWS 15 tables of 14 to 805 bytes), its data on `datavol` and its log on `logvol` of the example enterprise array.
pub fn declared_character(name: &str) -> Result<Characterization, String> {
    let system = crate::config::parse_array(DOCS_ARRAY, "enterprise-raid5.toml")
        .map_err(|e| e.to_string())?;
    let text = format!(
        "name = \"{name}\"\n[database]\ntest = \"{name}\"\ndata = \"datavol\"\nlog = \"logvol\"\n"
    );
    let w = crate::config::parse_workload(&text, name, &system).map_err(|e| e.to_string())?;
    w.database
        .as_ref()
        .and_then(DbSpec::builtin_character)
        .ok_or_else(|| format!("{name} runs no declared mix"))
}

/// docs/db.md's table of the built-in tests as characterizations.
pub fn characters_md() -> String {
    let mut out = String::from(
        "\n## The built-in tests as characterizations\n\n\
         Each test the sessions run is declared once (`storlab_core::dbtest::mix`) as a mix of \
         transaction types, each a list of statements reaching rows by primary key (one row, \
         or a range of consecutive keys) or appending them at a table's end. The simulator \
         plans every operation from that declaration; with the schema it gives the test's \
         workload characterization below (per execution, on 1,000,000 rows a table, DPAWS on \
         its 15 tables of 14 to 805 bytes, the other keys at their defaults, PostgreSQL's \
         block format). A run reports what its transactions did per execution in \
         `workload.parameters.per_transaction` (`logical_reads`, `blocks_changed`, \
         `redo_bytes`, as planned: Oracle's undo comes on top). Redo includes the commit \
         record; CPU is `cpu_per_block` per block visited, `cpu_per_row` per row, \
         `cpu_per_statement` per statement and `cpu_per_commit` per commit.\n\n\
         | test | type | weight | logical reads | index share | blocks changed | rows inserted \
         | redo bytes | CPU ms | statements | think ms |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for d in storlab_core::dbtest::DB_TESTS
        .iter()
        .filter(|d| !d.mix.is_empty())
    {
        let c = match declared_character(d.name) {
            Ok(c) => c,
            Err(e) => {
                out += &format!("| `{}` | {e} |\n", d.name);
                continue;
            }
        };
        for t in &c.transactions {
            let r = |x: f64| storlab_core::histogram::round_to(x, 2);
            out += &format!(
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                d.name,
                t.name,
                r(t.weight),
                r(t.logical_reads),
                r(t.index_share),
                r(t.blocks_changed),
                r(t.rows_inserted),
                r(t.redo_bytes),
                storlab_core::histogram::round_to(t.cpu_ms, 4),
                r(t.statements),
                r(t.think_ms)
            );
        }
    }
    out
}
