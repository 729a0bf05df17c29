//! The keys of a job (`test = "job/..."`, or a real suite's test that is a job such as
//! `orabench/delete-batched`) in a `[database]` section: fixed-size work the simulated
//! database runs once, to completion. Declared once here: the parser fills the defaults in
//! and checks the bounds from this table. Other tests refuse these keys (as unknown keys).
//!
//! ```toml
//! [database]
//! test = "job/create-tablespace"
//! data = "datavol"
//! log = "logvol"
//! size = "16GiB"       # each file (create-tablespace, copy-file)
//! files = 2            # created at once (create-tablespace)
//! write_size = "1MiB"  # each large read or write
//! outstanding = 1      # I/Os in flight per file (create) or in the copy pipeline
//! source = "srcvol"    # where a copy or a load reads its input (default: the data target)
//! sort_memory = "64MiB" # index-build: the sort's memory
//! indexed_update = false # update-all: the updated column has an index of its own
//! ```

use serde::Serialize;
use storlab_core::dbtest;
use storlab_core::keys::{self, Default, Key, Kind};
use storlab_core::ByteSize;

use super::super::workload::Placement;
use super::super::{ConfigError, SystemSpec};
use super::{placement, DbSpec, Names};
use crate::db::layout::Layout;
use crate::db::undo;

/// Most files created at once.
pub const MAX_FILES: u64 = 64;
/// Largest job file: 64 TiB.
pub const MAX_JOB_BYTES: u64 = 64 << 40;
/// Largest single read or write of a job: 64 MiB.
pub const MAX_WRITE_BYTES: u64 = 64 << 20;
/// Most I/Os a job keeps in flight per file.
pub const MAX_JOB_OUTSTANDING: u64 = 1024;
/// Largest sort memory: 1 TiB.
pub const MAX_SORT_BYTES: u64 = 1 << 40;

use Default::Value as D;

/// Every key a job adds to `[database]`, in the order the docs list them.
pub const JOB_KEYS: &[Key] = &[
    Key::new(
        "size",
        Kind::Size,
        D("\"1GiB\""),
        "job/create-tablespace: each data file's size; job/copy-file: the file's size",
    )
    .int(1 << 20, MAX_JOB_BYTES),
    Key::new(
        "files",
        Kind::Count,
        D("1"),
        "job/create-tablespace: data files created at once, one after another on the data \
         target",
    )
    .int(1, MAX_FILES)
    .unit("files"),
    Key::new(
        "write_size",
        Kind::Size,
        D("\"1MiB\""),
        "size of each large read and write of the job (a multiple of 8 KiB)",
    )
    .int(8 << 10, MAX_WRITE_BYTES),
    Key::new(
        "outstanding",
        Kind::Count,
        D("1"),
        "I/Os the job keeps in flight: per file being created, in the copy or load \
         pipeline, or for the scan",
    )
    .int(1, MAX_JOB_OUTSTANDING)
    .unit("I/Os"),
    Key::new(
        "source",
        Kind::NameOrNames,
        Default::Derived("the data target"),
        "where a copy or a load reads its input file: a volume, or LUN and group names",
    ),
    Key::new(
        "sort_memory",
        Kind::Size,
        D("\"64MiB\""),
        "job/index-build: memory of the sort; a larger sort writes its sorted runs to the \
         data target and reads them back once",
    )
    .int(1 << 20, MAX_SORT_BYTES),
    Key::new(
        "indexed_update",
        Kind::Bool,
        D("false"),
        "job/update-all: the updated column has an index of its own (the size of the \
         primary key's), so each row's entry moves: its old and its new leaf are changed, \
         read first when not in the buffer cache; false: the column is in no index (the \
         job's definition), and the update touches no index",
    ),
];

/// What a job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum JobKind {
    CreateTablespace,
    CopyFile,
    LoadDirect,
    LoadConventional,
    IndexBuild,
    UpdateAll,
    DeleteAll,
}

impl JobKind {
    /// The job named `name` ([`dbtest::JOB_NAMES`]).
    pub fn parse(name: &str) -> Option<JobKind> {
        let kinds = [
            JobKind::CreateTablespace,
            JobKind::CopyFile,
            JobKind::LoadDirect,
            JobKind::LoadConventional,
            JobKind::IndexBuild,
            JobKind::UpdateAll,
            JobKind::DeleteAll,
        ];
        let i = dbtest::JOB_NAMES.iter().position(|n| *n == name)?;
        Some(kinds[i])
    }

    pub fn name(self) -> &'static str {
        dbtest::JOB_NAMES[self as usize]
    }

    /// The job works on a table of `rows` rows of `row_bytes` (else on files of `size`).
    pub fn has_table(self) -> bool {
        !matches!(self, JobKind::CreateTablespace | JobKind::CopyFile)
    }

    /// The job reads an input file from `source`.
    pub fn reads_input(self) -> bool {
        matches!(
            self,
            JobKind::CopyFile | JobKind::LoadDirect | JobKind::LoadConventional
        )
    }

    /// The job changes rows through the buffer cache and commits every `rows_per_commit`.
    pub fn commits_rows(self) -> bool {
        matches!(
            self,
            JobKind::LoadConventional | JobKind::UpdateAll | JobKind::DeleteAll
        )
    }
}

/// A job's resolved keys.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobSpec {
    pub kind: JobKind,
    /// Each file's bytes (create-tablespace, copy-file).
    pub size_bytes: u64,
    pub files: u32,
    pub write_bytes: u64,
    pub outstanding: u32,
    /// Where the input is read (copy, loads); None: the data target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Placement>,
    pub sort_memory_bytes: u64,
    /// update-all: the updated column has an index of its own.
    pub indexed_update: bool,
}

/// The job keys of `table`, taken out of it, checked and resolved (`name`: the test).
pub(super) fn take_job(
    table: &mut toml::Table,
    kind: JobKind,
    file: &str,
    system: &SystemSpec,
) -> Result<JobSpec, ConfigError> {
    let bad = |k: &str, r: String| ConfigError::invalid(file, format!("database.{k}"), r);
    let mut own = toml::Table::new();
    for k in JOB_KEYS {
        if let Some(v) = table.remove(k.name) {
            own.insert(k.name.to_string(), v);
        }
    }
    if table.contains_key("sessions") {
        return Err(bad(
            "sessions",
            format!("{} runs in one session; remove sessions", kind.name()),
        ));
    }
    if own.contains_key("indexed_update") && kind != JobKind::UpdateAll {
        return Err(bad(
            "indexed_update",
            format!(
                "applies to job/update-all only; remove it from {}",
                kind.name()
            ),
        ));
    }
    let source = own.remove("source");
    keys::fill_defaults(&mut own, JOB_KEYS);
    keys::check_table(&own, JOB_KEYS).map_err(|(k, r)| bad(k, r))?;
    let size = |k: &str| -> Result<u64, ConfigError> {
        let v = own.get(k).cloned().unwrap_or(toml::Value::Integer(0));
        v.try_into::<ByteSize>()
            .map(|b| b.0)
            .map_err(|e| bad(k, e.message().to_string()))
    };
    let count = |k: &str| own.get(k).and_then(toml::Value::as_integer).unwrap_or(1);
    let write_bytes = size("write_size")?;
    if write_bytes % 8192 != 0 {
        return Err(bad(
            "write_size",
            format!("must be a multiple of 8 KiB (8192 bytes); got {write_bytes}"),
        ));
    }
    let source = match source {
        Some(v) => {
            let names: Names = v
                .try_into()
                .map_err(|e: toml::de::Error| bad("source", e.message().to_string()))?;
            Some(placement(names, system, file, "source")?)
        }
        None => None,
    };
    Ok(JobSpec {
        kind,
        size_bytes: size("size")?,
        files: u32::try_from(count("files")).unwrap_or(1),
        write_bytes,
        outstanding: u32::try_from(count("outstanding")).unwrap_or(1),
        source,
        sort_memory_bytes: size("sort_memory")?,
        indexed_update: own
            .get("indexed_update")
            .and_then(toml::Value::as_bool)
            .unwrap_or(false),
    })
}

/// A job's keys taken out of a `[database]` table, before the rest of it is parsed.
pub(super) struct Pending {
    spec: JobSpec,
    rows_per_commit_given: bool,
}

/// When `table` runs a job: its keys taken out and checked, and `test` and `sessions` set
/// to what the rest of the parser needs (a table that does not grow, one session).
pub(super) fn take_if_job(
    table: &mut toml::Table,
    file: &str,
    system: &SystemSpec,
) -> Result<Option<Pending>, ConfigError> {
    let Some(kind) = table
        .get("test")
        .and_then(toml::Value::as_str)
        .and_then(JobKind::parse)
    else {
        return Ok(None);
    };
    let rows_per_commit_given = table.contains_key("rows_per_commit");
    let spec = take_job(table, kind, file, system)?;
    table.insert("test".into(), toml::Value::String(BASE_TEST.into()));
    // A job's one table of 100-byte rows, not the base test's data set.
    table.entry("tables").or_insert(toml::Value::Integer(1));
    table
        .entry("row_bytes")
        .or_insert(toml::Value::Integer(100));
    table.insert("sessions".into(), toml::Value::Integer(1));
    Ok(Some(Pending {
        spec,
        rows_per_commit_given,
    }))
}

/// The test whose tables a job works on: one table that does not grow.
const BASE_TEST: &str = "dpaws/select-row";

/// Where a job's work lies, bytes: its files or scratch space on the data target after the
/// database's page space, and its input file on the source target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobExtents {
    /// First byte of the job's own space on the data target (files, new index, sort runs).
    pub scratch_base: u64,
    /// Bytes of the new index and of the sort's runs (index-build), or of the updated
    /// column's index (update-all with `indexed_update`); 0 otherwise.
    pub index_bytes: u64,
    pub sort_bytes: u64,
    /// The sort does not fit in `sort_memory`: its runs are written and read once.
    pub spills: bool,
    /// First byte of the sort's runs on the data target, when they go there (else on
    /// `[database] temp`, from its first byte).
    pub runs_base: u64,
    /// The input file: its first byte on the source target, and its bytes.
    pub input_base: u64,
    pub input_bytes: u64,
    /// Bytes of the data target the job needs, its input included when it is there.
    pub data_need: u64,
    /// The input is on the data target.
    pub input_on_data: bool,
}

const MIB: u64 = 1 << 20;

impl JobSpec {
    /// Where the job's work lies for the database `db` (its first table is the job's).
    pub fn extents(&self, db: &DbSpec) -> JobExtents {
        let table = db.tables.first().copied();
        let page_space = Layout::new(&db.tables).blocks() + undo::region_blocks(db.engine, 1);
        let (scratch_base, mut data_need) = if self.kind.has_table() {
            let base = (page_space * 8192).div_ceil(MIB) * MIB;
            (base, base)
        } else {
            (0, self.size_bytes.saturating_mul(u64::from(self.files)))
        };
        let (mut index_bytes, mut sort_bytes, mut spills) = (0, 0, false);
        let mut runs_base = 0;
        if self.kind == JobKind::IndexBuild {
            index_bytes = table.map_or(0, |t| t.index_blocks() * 8192);
            sort_bytes = index_bytes;
            spills = sort_bytes > self.sort_memory_bytes;
            data_need += index_bytes.div_ceil(MIB) * MIB;
            runs_base = data_need;
            if spills && db.temp.is_none() {
                data_need += sort_bytes.div_ceil(MIB) * MIB;
            }
        }
        if self.kind == JobKind::UpdateAll && self.indexed_update {
            index_bytes = table.map_or(0, |t| t.index_blocks() * 8192);
            data_need += index_bytes.div_ceil(MIB) * MIB;
        }
        let input_bytes = match self.kind {
            JobKind::CopyFile => self.size_bytes,
            JobKind::LoadDirect | JobKind::LoadConventional => {
                table.map_or(0, |t| t.rows.saturating_mul(t.row_bytes))
            }
            _ => 0,
        };
        let input_on_data = self.source.as_ref().is_none_or(|s| *s == db.data);
        let input_base = if input_on_data {
            let base = data_need.div_ceil(MIB) * MIB;
            data_need = base.saturating_add(input_bytes);
            base
        } else {
            0
        };
        JobExtents {
            scratch_base,
            index_bytes,
            sort_bytes,
            spills,
            runs_base,
            input_base,
            input_bytes,
            data_need,
            input_on_data,
        }
    }
}

/// The parsed database `db` with its job: the job's commit interval, and its space checked
/// on the data, source and log targets.
pub(super) fn attach(
    mut db: DbSpec,
    pending: Option<Pending>,
    file: &str,
    system: &SystemSpec,
) -> Result<DbSpec, ConfigError> {
    let Some(Pending {
        spec,
        rows_per_commit_given,
    }) = pending
    else {
        return Ok(db);
    };
    let bad = |k: &str, r: String| ConfigError::invalid(file, format!("database.{k}"), r);
    let def = dbtest::find_job(spec.kind.name());
    if !rows_per_commit_given {
        db.rows_per_commit = def.map_or(1, |d| d.rows_per_commit).max(1);
    }
    let e = spec.extents(&db);
    let have = db.data.bytes(system);
    let key = if spec.kind.has_table() {
        "rows"
    } else {
        "size"
    };
    if e.data_need > have {
        return Err(bad(
            key,
            format!(
                "{} needs {} bytes on the data target; it has {have}",
                spec.kind.name(),
                e.data_need
            ),
        ));
    }
    if let Some(t) = db.temp.as_ref().filter(|_| e.spills) {
        if t.bytes(system) < e.sort_bytes {
            return Err(bad(
                "temp",
                format!(
                    "the sort's runs of {} bytes do not fit the temp target ({} bytes)",
                    e.sort_bytes,
                    t.bytes(system)
                ),
            ));
        }
    }
    if let Some(src) = spec.source.as_ref().filter(|_| !e.input_on_data) {
        if src.bytes(system) < e.input_bytes {
            return Err(bad(
                "source",
                format!(
                    "the input file of {} bytes does not fit the source target ({} bytes)",
                    e.input_bytes,
                    src.bytes(system)
                ),
            ));
        }
    }
    if db.log_offset.is_some() {
        let offset = e.data_need.div_ceil(MIB) * MIB;
        let log_need = db.log_file_bytes * u64::from(db.log_groups);
        if offset.saturating_add(log_need) > have {
            return Err(bad(
                "log_file_size",
                format!(
                    "the log files ({log_need} bytes) do not fit on the data target after the \
                     job's {offset} bytes; give the log a target of its own"
                ),
            ));
        }
        db.log_offset = Some(offset);
    }
    db.job = Some(spec);
    Ok(db)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_name_parses_and_every_default_is_in_bounds() {
        for name in dbtest::JOB_NAMES {
            let kind = JobKind::parse(name).expect("parses");
            assert_eq!(kind.name(), name);
            assert!(dbtest::find_job(name).is_some());
        }
        for key in JOB_KEYS {
            if let Some(v) = keys::default_value(key) {
                key.check(&v)
                    .unwrap_or_else(|e| panic!("default of {}: {e}", key.name));
            }
        }
    }
}
