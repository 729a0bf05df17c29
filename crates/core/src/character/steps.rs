//! Steps: what a transaction type does to rows it reaches by key, as a list of statements
//! (`[[transactions.steps]]`), for workloads whose blocks follow from their keys rather than
//! from shares of visits: the built-in tests, and any workload a user describes the same way.
//!
//! A step works on a table segment that says how many rows it holds (`rows`) and, for key and
//! range steps, has a primary-key index (an index segment whose `table` names it, with its
//! `levels`). Then:
//!
//! - `key`: `rows` keys from a random first one, the same range for the index and the heap:
//!   the index levels above the leaves, the leaves holding the keys, the heap blocks holding
//!   the rows. `changes` marks the heap blocks (`table`) and the leaves too (`table+index`)
//!   changed: the blocks of the rows the statement reached, never others.
//! - `range`: the same as `key` (consecutive keys: consecutive leaves and heap blocks); a
//!   separate word so a reader sees a range statement.
//! - `append`: `rows` rows inserted at the end of the table (and at the right edge of its
//!   primary key): each append goes on from the row the last one ended at, so appends fill
//!   the table's last block before starting the next; the blocks they start are created,
//!   not read. Appends always change the blocks they write.
//!
//! A table picked as `"*"` is one of the tables with a primary key, evenly, once per
//! execution: every `"*"` step of an execution works on the same table.

use serde::{Deserialize, Serialize};

use super::{Characterization, SegmentKind};

/// Any of the indexed tables, picked once per execution.
pub const ANY_TABLE: &str = "*";

/// How a step reaches its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reach {
    Key,
    Range,
    Append,
}

/// Which blocks a step changes, of those holding the rows it reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Changes {
    #[serde(rename = "none")]
    Nothing,
    /// The heap blocks holding the rows.
    #[serde(rename = "table")]
    Table,
    /// The heap blocks and the index leaves holding the rows' keys.
    #[serde(rename = "table+index")]
    TableAndIndex,
}

/// One statement of a transaction type, run `times` in a row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// A table segment's name, or [`ANY_TABLE`].
    pub table: String,
    pub reach: Reach,
    pub rows: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Changes>,
    pub times: u32,
}

impl Step {
    /// The blocks it changes: as given, else none for key and range steps and the table
    /// and index for appends.
    pub fn changes(&self) -> Changes {
        match (self.changes, self.reach) {
            (Some(c), _) => c,
            (None, Reach::Append) => Changes::TableAndIndex,
            (None, _) => Changes::Nothing,
        }
    }

    /// It changes data.
    pub fn writes(&self) -> bool {
        self.changes() != Changes::Nothing
    }
}

type Failure = (String, String);

/// The index segment that is table segment `table`'s primary key, if any.
pub fn primary_key(c: &Characterization, table: &str) -> Option<usize> {
    c.segments
        .iter()
        .position(|s| s.kind == SegmentKind::Index && s.table.as_deref() == Some(table))
}

/// The table segments a `"*"` step picks from: those with rows and a primary key.
pub fn indexed_tables(c: &Characterization) -> Vec<usize> {
    c.segments
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == SegmentKind::Table && s.rows.is_some())
        .filter(|(_, s)| primary_key(c, &s.name).is_some())
        .map(|(i, _)| i)
        .collect()
}

/// The rules of steps and of the segment keys they read.
pub(super) fn rules(c: &Characterization) -> Result<(), Failure> {
    for (i, s) in c.segments.iter().enumerate() {
        let at = |k: &str| format!("segments[{i}].{k}");
        if s.rows.is_some() && s.kind != SegmentKind::Table {
            return Err((at("rows"), "only a table segment holds rows".into()));
        }
        let index_key = [
            ("table", s.table.is_some()),
            ("levels", s.levels.is_some()),
            ("leaf_blocks", s.leaf_blocks.is_some()),
        ];
        if s.kind != SegmentKind::Index {
            if let Some((k, _)) = index_key.iter().find(|(_, given)| *given) {
                return Err((at(k), "only an index segment takes it".into()));
            }
            continue;
        }
        let Some(table) = &s.table else {
            if let Some((k, _)) = index_key.iter().find(|(_, given)| *given) {
                return Err((at(k), "needs the index's `table`".into()));
            }
            continue;
        };
        let indexed = c.segments.iter().find(|t| &t.name == table);
        if !indexed.is_some_and(|t| t.kind == SegmentKind::Table && t.rows.is_some()) {
            return Err((
                at("table"),
                format!("{table:?} is not a table segment with `rows`"),
            ));
        }
        if s.levels.is_none() {
            return Err((
                at("levels"),
                "is required for a primary key (its B-tree's height, root to leaf)".into(),
            ));
        }
        if c.segments
            .iter()
            .filter(|o| o.table.as_ref() == Some(table))
            .count()
            > 1
        {
            return Err((at("table"), format!("{table:?} has two primary keys")));
        }
    }
    for (i, t) in c.transactions.iter().enumerate() {
        for (j, step) in t.steps.iter().enumerate() {
            step_rules(c, step)
                .map_err(|(k, r)| (format!("transactions[{i}].steps[{j}].{k}"), r))?;
        }
    }
    Ok(())
}

fn step_rules(c: &Characterization, step: &Step) -> Result<(), Failure> {
    let keyed = step.reach != Reach::Append;
    if step.reach == Reach::Append && step.changes() == Changes::Nothing {
        return Err((
            "changes".into(),
            "an append changes the blocks it writes".into(),
        ));
    }
    let tables: Vec<usize> = if step.table == ANY_TABLE {
        let v = indexed_tables(c);
        if v.is_empty() {
            return Err((
                "table".into(),
                "\"*\" picks a table with `rows` and a primary key; the segments have none".into(),
            ));
        }
        v
    } else {
        match c.segments.iter().position(|s| s.name == step.table) {
            Some(k) if c.segments[k].kind == SegmentKind::Table && c.segments[k].rows.is_some() => {
                vec![k]
            }
            _ => {
                return Err((
                    "table".into(),
                    format!("{:?} is not a table segment with `rows`", step.table),
                ))
            }
        }
    };
    for k in tables {
        let s = &c.segments[k];
        if keyed && primary_key(c, &s.name).is_none() {
            return Err((
                "reach".into(),
                format!(
                    "a {} step needs a primary key on {:?}: an index segment with \
                     `table = {:?}`",
                    if step.reach == Reach::Key {
                        "key"
                    } else {
                        "range"
                    },
                    s.name,
                    s.name
                ),
            ));
        }
        let rows = s.rows.unwrap_or(0);
        if keyed && step.rows > rows {
            return Err((
                "rows".into(),
                format!(
                    "must be at most the {rows} rows of {:?}; got {}",
                    s.name, step.rows
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
