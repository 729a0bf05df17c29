//! Workload characterization: what a database workload does, described so a simulated
//! database can run it. A mix of transaction types (each: blocks visited, split into index
//! and table, scans, blocks changed, rows inserted, redo, CPU, statements, think time per
//! execution), the data set (segments, sizes, access skew), the sessions and the server, and
//! optionally what the real server was observed doing (rates, top events, I/O per tablespace
//! and file), for calibrating a model and checking its predictions.
//!
//! One serde type is the schema of TOML and JSON files alike (the same keys). Every section's
//! keys are declared in [`keys_table`]; reading a file fills the declared defaults in, checks
//! the declared bounds, rejects unknown keys and then checks the rules across keys (weights and
//! shares sum to 1, unique names). Errors name the file, the key path and the bound.
//!
//! ```toml
//! name = "order entry"
//! engine = "oracle"
//! sessions = 200
//!
//! [[transactions]]
//! name = "new order"
//! weight = 1.0
//! logical_reads = 120.0
//! index_share = 0.7
//! blocks_changed = 14.0
//! redo_bytes = 6000.0
//! cpu_ms = 4.0
//!
//! [[segments]]
//! name = "orders"
//! kind = "table"
//! size = "40g"
//! access = "hot:0.1/0.9"
//! share = 1.0
//!
//! [instance]
//! cpus = 16
//! buffer_cache = "8g"
//! ```

use serde::{Deserialize, Serialize};

mod access;
mod check;
mod from_results;
pub mod keys_table;
pub mod settings;
pub mod steps;

pub use access::{Access, SegmentSize, MAX_ZIPF_THETA};
pub use check::WEIGHT_TOLERANCE;
pub use from_results::from_results;
pub use steps::{Changes, Reach, Step};

/// Bytes of the undo record Oracle writes for each block an update changes (headers and a
/// short before image; the simulated database's undo, `storlab_sim::db::undo`, explains the
/// figure): the undo and its redo that a characterization's changes bring under
/// `engine = "oracle"`, and that an imported report's figures already hold.
pub const ORACLE_UNDO_UPDATE_RECORD_BYTES: u64 = 120;
/// Bytes of an 8 KiB undo block that hold undo records (after its headers).
pub const ORACLE_UNDO_BLOCK_RECORD_BYTES: u64 = 8100;

/// The simulated buffer cache's highest usage count (its clock sweep: an access adds one, up
/// to this; each pass of the hand takes one away), for estimates of how it caches.
pub const SIM_BUFFER_MAX_USAGE: u8 = 5;

/// A characterization that cannot be read or breaks a rule.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CharacterError {
    /// The text is not TOML or JSON.
    #[error("{file}: {message}")]
    Parse {
        /// File name as given.
        file: String,
        /// The parser's message (with the line).
        message: String,
    },
    /// A value or a key breaks a rule.
    #[error("{file}: {key}: {reason}")]
    Invalid {
        /// File name as given.
        file: String,
        /// Key path (`transactions[1].weight`); empty for the whole file.
        key: String,
        /// The rule, the bound and the value found.
        reason: String,
    },
}

/// The engine whose mechanics run the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Oracle,
    Postgresql,
}

/// A database workload, as the simulator runs it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Characterization {
    pub name: String,
    pub engine: Engine,
    pub source: String,
    pub sessions: u32,
    pub block_bytes: u32,
    pub transactions: Vec<Transaction>,
    pub segments: Vec<Segment>,
    pub instance: Instance,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Observed>,
}

/// One transaction type; every quantity is an average per execution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transaction {
    pub name: String,
    /// Share of the executions (the weights of all types sum to 1).
    pub weight: f64,
    /// Blocks visited (buffer gets).
    pub logical_reads: f64,
    /// Share of `logical_reads` on index blocks.
    pub index_share: f64,
    /// Share of `logical_reads` made by multiblock or full scans.
    pub scan_share: f64,
    pub blocks_changed: f64,
    pub rows_inserted: f64,
    pub redo_bytes: f64,
    pub cpu_ms: f64,
    pub statements: f64,
    pub think_ms: f64,
    /// Bytes a sort or hash join writes to temp and reads back (work beyond its memory); 0:
    /// everything fits in memory.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub temp_bytes: f64,
    /// Blocks read from storage, as observed (not an input of the model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_reads: Option<f64>,
    /// Blocks written to storage, as observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_writes: Option<f64>,
    /// The statements by key, range or append ([`steps`]); when given, they plan the
    /// execution's block visits, changes and inserts instead of draws by share.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// What a segment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SegmentKind {
    Table,
    Index,
    Undo,
    Temp,
    Log,
}

/// One segment of the data set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    pub name: String,
    pub kind: SegmentKind,
    pub size: SegmentSize,
    pub tablespace: String,
    pub access: Access,
    /// Share of the workload's block accesses (the shares of all segments sum to 1).
    pub share: f64,
    /// A table's rows, for steps reaching them by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// An index's table: the index is that table's primary key, one entry per row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// A primary key's B-tree height, root to leaf (1: the root is the only leaf).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<u32>,
    /// A primary key's leaf blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf_blocks: Option<u64>,
    /// Share of the workload's changed blocks that fall on this segment (None: the changes
    /// are the transaction's first visits, wherever they fall).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_share: Option<f64>,
    /// The blocks (its first, as many as fit in this size) its changes fall on, evenly
    /// (None: the whole segment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_set: Option<crate::ByteSize>,
}

impl Segment {
    /// A segment of uniform access with none of the optional facts (rows, primary key, change
    /// set): what a source knows when it sees only a tablespace, its size and its share.
    pub fn plain(
        name: impl Into<String>,
        kind: SegmentKind,
        size: SegmentSize,
        tablespace: impl Into<String>,
        share: f64,
    ) -> Segment {
        Segment {
            name: name.into(),
            kind,
            size,
            tablespace: tablespace.into(),
            access: Access::Uniform,
            share,
            rows: None,
            table: None,
            levels: None,
            leaf_blocks: None,
            change_share: None,
            change_set: None,
        }
    }
}

/// The server the workload ran on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Instance {
    pub cpus: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_busy_pct: Option<f64>,
    pub buffer_cache: crate::ByteSize,
    pub log_buffer: crate::ByteSize,
    /// Average active sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db_time_per_s: Option<f64>,
    /// The server's settings as it reported them (`[instance.settings]`, keys declared in
    /// [`settings::SETTINGS_KEYS`]); empty when not captured.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub settings: std::collections::BTreeMap<String, String>,
}

/// What the real server did over the observed interval; rates are per second.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observed {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_reads_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_reads_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_writes_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redo_bytes_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_changes_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_calls_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executes_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parses_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollbacks_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db_cpu_per_s: Option<f64>,
    /// Background processes' CPU seconds (Oracle's background cpu time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background_cpu_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct_reads_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_fetches_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tablespaces: Vec<IoStat>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<IoStat>,
}

/// One timed event (a wait event, or `DB CPU`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waits: Option<f64>,
    pub time_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_db_time: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_class: Option<String>,
}

/// I/O of one tablespace, or of one of its files.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IoStat {
    pub tablespace: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_avg_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks_per_read: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_waits: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_wait_avg_ms: Option<f64>,
}

impl Characterization {
    /// Reads a characterization from TOML text; `file` names it in errors.
    pub fn from_toml(text: &str, file: &str) -> Result<Characterization, CharacterError> {
        let value: toml::Value = toml::from_str(text).map_err(|e| CharacterError::Parse {
            file: file.into(),
            message: e.to_string().trim_end().to_string(),
        })?;
        check::parse_value(value, file)
    }

    /// Reads a characterization from JSON text (the same keys as TOML).
    pub fn from_json(text: &str, file: &str) -> Result<Characterization, CharacterError> {
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| CharacterError::Parse {
                file: file.into(),
                message: e.to_string(),
            })?;
        Self::from_json_value(json, file)
    }

    /// A characterization from JSON already parsed; checked like [`Self::from_json`].
    pub fn from_json_value(
        json: serde_json::Value,
        file: &str,
    ) -> Result<Characterization, CharacterError> {
        let value =
            check::json_to_toml(json, "").map_err(|(key, reason)| CharacterError::Invalid {
                file: file.into(),
                key,
                reason,
            })?;
        check::parse_value(value, file)
    }

    /// Reads TOML or JSON, chosen by the file name's extension (`.json`: JSON, else TOML).
    pub fn from_text(text: &str, file: &str) -> Result<Characterization, CharacterError> {
        if file.to_ascii_lowercase().ends_with(".json") {
            Self::from_json(text, file)
        } else {
            Self::from_toml(text, file)
        }
    }

    /// Checks every rule a file is checked against (bounds, sums, names); `file` names the
    /// characterization in the error.
    pub fn validate(&self, file: &str) -> Result<(), CharacterError> {
        let value = toml::Value::try_from(self).map_err(|e| CharacterError::Invalid {
            file: file.into(),
            key: String::new(),
            reason: e.to_string(),
        })?;
        check::parse_value(value, file).map(|_| ())
    }

    /// The characterization as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_else(|e| format!("# not representable in TOML: {e}\n"))
    }

    /// The characterization as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Key paths of the values the source left unknown (segment sizes), which must be filled in
    /// before the workload is simulated.
    pub fn unknowns(&self) -> Vec<String> {
        self.segments
            .iter()
            .enumerate()
            .filter(|(_, s)| s.size == SegmentSize::Unknown)
            .map(|(i, s)| format!("segments[{i}].size ({})", s.name))
            .collect()
    }
}

#[cfg(test)]
mod tests;
