//! What a built-in test's transactions do, declared once: a test is a mix of transaction
//! types, each type a list of statements, and each statement reaches its rows by primary key
//! (one row, or a range of consecutive keys) or appends them at the end of a table. The
//! simulator plans every operation of a built-in test from this declaration, and works out
//! the test's workload characterization (blocks visited and changed, rows inserted, redo
//! and CPU per transaction) from it and the schema.

/// How a statement reaches the rows it touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Rows by primary key from a random key: the index descent to the key, the leaves the
    /// keys span, the heap blocks the rows lie in (one row: one leaf, one heap block).
    Key,
    /// Rows inserted at the end of the table: the descent to the primary key's right edge
    /// (an indexed table), the leaf and the last heap blocks written, the blocks the insert
    /// starts created rather than read.
    Append,
}

/// How many rows a statement touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    One,
    /// The range a range test touches (`[database] range_rows`, by default the test's
    /// `rows_per_op`).
    Range,
    /// The rows a commit inserts (`[database] rows_per_commit`).
    PerCommit,
}

/// Which table a statement works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// One of the test's tables (primary key indexed), the same for every statement of a
    /// transaction, picked at random per transaction.
    Tables,
    /// The history table the transactions append to (no index), after the test's tables.
    History,
}

/// One statement of a transaction type, run `times` times in a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Statement {
    pub shape: Shape,
    pub rows: Rows,
    pub target: Target,
    /// It changes the rows (an append always does).
    pub writes: bool,
    pub times: u32,
}

/// One transaction type of a test's mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxType {
    /// Its name in the results' per-type response times.
    pub name: &'static str,
    /// Percent of the transactions (the types of a test sum to 100).
    pub weight_pct: u32,
    pub statements: &'static [Statement],
}

impl TxType {
    /// It changes data, and so commits.
    pub fn writes(&self) -> bool {
        self.statements.iter().any(|s| s.writes)
    }

    /// Statements per execution.
    pub fn statement_count(&self) -> u32 {
        self.statements.iter().map(|s| s.times).sum()
    }
}

/// The type of a transaction whose draw is `u` (0 to 99): the draws fall to the types from
/// the last declared back, each taking as many values as its percent (the OLTP mix's write
/// type, declared second, takes 0 to 39). With one type there is nothing to draw.
pub fn pick(types: &[TxType], u: u64) -> usize {
    let mut below = 0u64;
    for (i, t) in types.iter().enumerate().rev() {
        below += u64::from(t.weight_pct);
        if u < below {
            return i;
        }
    }
    0
}

const fn key(rows: Rows, writes: bool, times: u32) -> Statement {
    Statement {
        shape: Shape::Key,
        rows,
        target: Target::Tables,
        writes,
        times,
    }
}

const fn one(name: &'static str, statements: &'static [Statement]) -> [TxType; 1] {
    [TxType {
        name,
        weight_pct: 100,
        statements,
    }]
}

/// `dpaws/update-row`: one row of a random table updated by primary key.
pub const UPDATE_ROW: [TxType; 1] = one("update", &[key(Rows::One, true, 1)]);
/// `dpaws/select-row`.
pub const SELECT_ROW: [TxType; 1] = one("read", &[key(Rows::One, false, 1)]);
/// `dpaws/update-range`: a range of consecutive keys updated.
pub const UPDATE_RANGE: [TxType; 1] = one("update", &[key(Rows::Range, true, 1)]);
/// `dpaws/select-range`.
pub const SELECT_RANGE: [TxType; 1] = one("read", &[key(Rows::Range, false, 1)]);
/// `orabench/load-conventional`: a commit's rows appended at the end of a random table.
pub const LOAD: [TxType; 1] = one(
    "insert",
    &[Statement {
        shape: Shape::Append,
        rows: Rows::PerCommit,
        target: Target::Tables,
        writes: true,
        times: 1,
    }],
);

/// Share of OLTP transactions that write, percent.
pub const OLTP_WRITE_PCT: u32 = 40;
/// Primary-key reads of an OLTP read transaction; updates of a write one (which also appends
/// one row to the history table).
pub const OLTP_READS: u32 = 5;
pub const OLTP_UPDATES: u32 = 2;
/// Row size of the OLTP history table (item, delta, timestamp), bytes.
pub const OLTP_HISTORY_ROW_BYTES: u64 = 24;

/// The OLTP mix (`oltp/medium`, `oltp/heavy`).
pub const OLTP: [TxType; 2] = [
    TxType {
        name: "read",
        weight_pct: 100 - OLTP_WRITE_PCT,
        statements: &[key(Rows::One, false, OLTP_READS)],
    },
    TxType {
        name: "write",
        weight_pct: OLTP_WRITE_PCT,
        statements: &[
            key(Rows::One, true, OLTP_UPDATES),
            Statement {
                shape: Shape::Append,
                rows: Rows::One,
                target: Target::History,
                writes: true,
                times: 1,
            },
        ],
    },
];

/// The mix appends to the history table (which then follows the test's tables).
pub fn has_history(types: &[TxType]) -> bool {
    types
        .iter()
        .flat_map(|t| t.statements)
        .any(|s| s.target == Target::History)
}

/// The mix appends to the test's own tables (which then grow).
pub fn appends_to_tables(types: &[TxType]) -> bool {
    types
        .iter()
        .flat_map(|t| t.statements)
        .any(|s| s.shape == Shape::Append && s.target == Target::Tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oltp_draw_gives_writes_the_lowest_forty_values() {
        assert_eq!(pick(&OLTP, 0), 1);
        assert_eq!(pick(&OLTP, 39), 1);
        assert_eq!(pick(&OLTP, 40), 0);
        assert_eq!(pick(&OLTP, 99), 0);
        assert_eq!(pick(&UPDATE_ROW, 57), 0);
        let writes = (0..100).filter(|&u| OLTP[pick(&OLTP, u)].writes()).count();
        assert_eq!(writes as u32, OLTP_WRITE_PCT);
    }

    #[test]
    fn appends_always_write_and_mixes_sum_to_a_hundred() {
        for types in [
            &UPDATE_ROW[..],
            &SELECT_ROW,
            &UPDATE_RANGE,
            &SELECT_RANGE,
            &LOAD,
            &OLTP,
        ] {
            assert_eq!(types.iter().map(|t| t.weight_pct).sum::<u32>(), 100);
            for s in types.iter().flat_map(|t| t.statements) {
                assert!(s.writes || s.shape == Shape::Key);
                assert!(s.times >= 1);
            }
        }
        assert_eq!(OLTP[0].statement_count(), 5);
        assert_eq!(OLTP[1].statement_count(), 3);
        assert!(has_history(&OLTP) && !has_history(&LOAD));
        assert!(appends_to_tables(&LOAD) && !appends_to_tables(&OLTP));
        assert!(!SELECT_RANGE[0].writes() && UPDATE_RANGE[0].writes());
    }
}
