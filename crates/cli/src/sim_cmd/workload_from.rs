//! `storlab sim --workload-from FILE`: a workload characterization run on the simulated
//! database. FILE is a characterization (TOML or JSON), or an Oracle AWR or Statspack report
//! (text or HTML) turned into one; which it is comes from its contents, in
//! [`read_characterization`], the one place a new kind of input is added.

use std::path::Path;

use storlab_core::character::{Characterization, SegmentSize};
use storlab_core::ByteSize;
use storlab_sim::config::character_workload;
use storlab_sim::db::scan_path::multiblock_read_count;
use storlab_sim::{SystemSpec, WorkloadSpec};

use super::DatabaseKeys;
use crate::cli::SimArgs;
use crate::error::CliError;

/// The kinds of input `--workload-from` reads, with the JSON already parsed when it is JSON
/// (a file is parsed once).
#[derive(Clone, Debug, PartialEq)]
enum Input {
    /// A characterization, TOML or JSON (parsed, when it is JSON).
    Characterization(Option<serde_json::Value>),
    /// An Oracle AWR report (text or HTML) or a Statspack report.
    Report,
    /// A `storlab db` result file (`storlab.results/1`).
    DbResult(serde_json::Value),
}

/// Tells the kinds apart by their contents: JSON with a results `schema` is a result file,
/// other JSON a characterization; a text naming the workload repository or Statspack, or an
/// HTML page, is a report; anything else is read as a TOML characterization.
fn kind_of(text: &[u8]) -> Input {
    let head = String::from_utf8_lossy(&text[..text.len().min(64 * 1024)]).to_ascii_lowercase();
    let trimmed = head.trim_start();
    if trimmed.starts_with('{') {
        return match serde_json::from_slice::<serde_json::Value>(text) {
            Ok(v) if v.get("schema").is_some() && v.get("runs").is_some() => Input::DbResult(v),
            Ok(v) => Input::Characterization(Some(v)),
            // Read as a characterization, whose parser names the mistake.
            Err(_) => Input::Characterization(None),
        };
    }
    if head.contains("workload repository") || head.contains("statspack") || head.contains("<html")
    {
        return Input::Report;
    }
    Input::Characterization(None)
}

/// Reads the characterization in `path`, whatever kind of input it is. Each report's notes
/// (sections missing, estimates) are printed to stderr.
pub(crate) fn read_characterization(path: &Path) -> Result<Characterization, CliError> {
    let file = path.display().to_string();
    let bytes = storlab_core::input::read_bounded(path, storlab_core::input::TEXT_MAX_BYTES)
        .map_err(|e| CliError::BadInput(format!("{file}: cannot read it: {e}")))?;
    let (c, notes) = characterization_from_bytes(bytes, path)?;
    eprint!("{notes}");
    Ok(c)
}

/// The characterization in the contents of the file `path` (which names it in messages and
/// tells JSON from TOML, as in [`read_characterization`]), with a report's notes (empty for
/// other kinds of input).
pub fn characterization_from_bytes(
    bytes: Vec<u8>,
    path: &Path,
) -> Result<(Characterization, String), CliError> {
    let file = path.display().to_string();
    let bad = |e: storlab_core::character::CharacterError| CliError::BadInput(e.to_string());
    match kind_of(&bytes) {
        // JSON is read as JSON when the file is named so (as Characterization::from_text does).
        Input::Characterization(Some(json)) if file.to_ascii_lowercase().ends_with(".json") => {
            Ok((
                Characterization::from_json_value(json, &file).map_err(bad)?,
                String::new(),
            ))
        }
        Input::Characterization(_) => {
            let text = String::from_utf8(bytes).map_err(|_| {
                CliError::BadInput(format!(
                    "{file}: not UTF-8 text; give a characterization (TOML or JSON) or an AWR or \
                     Statspack report"
                ))
            })?;
            Ok((
                Characterization::from_text(&text, &file).map_err(bad)?,
                String::new(),
            ))
        }
        Input::Report => {
            let (c, report) = storlab_awr::parse_report(&bytes, &file)
                .map_err(|e| CliError::BadInput(e.to_string()))?;
            Ok((c, report.to_string()))
        }
        // A storlab db result: its test's measured per-statement counters, per transaction.
        // Its segments' sizes are unknown: --segment-size gives them.
        Input::DbResult(json) => {
            let results = crate::output::results_from_json(json, &bytes, path)?;
            let c = storlab_core::character::from_results(&results, None, &file).map_err(bad)?;
            Ok((c, String::new()))
        }
    }
}

/// Fills in (or replaces) segment sizes from `--segment-size NAME=SIZE`.
fn set_sizes(c: &mut Characterization, sizes: &[String]) -> Result<(), CliError> {
    for kv in sizes {
        let bad = |reason: String| CliError::BadInput(format!("--segment-size {kv:?}: {reason}"));
        let (name, size) = kv
            .split_once('=')
            .ok_or_else(|| bad("use NAME=SIZE, e.g. USERS=40GiB".into()))?;
        let bytes: ByteSize = size.trim().parse().map_err(|e| bad(format!("{e}")))?;
        let names: Vec<&str> = c.segments.iter().map(|s| s.name.as_str()).collect();
        let known = names.join(", ");
        let seg = c
            .segments
            .iter_mut()
            .find(|s| s.name == name.trim())
            .ok_or_else(|| {
                bad(format!(
                    "no segment named {:?}; known: {known}",
                    name.trim()
                ))
            })?;
        seg.size = SegmentSize::Known(bytes);
    }
    Ok(())
}

/// The simulated database workload of `--workload-from`: the characterization with
/// `--segment-size` and `--sessions` applied, placed by `--db-data`/`--db-log` and the
/// `[database]` keys of `--db-set` (and `set`, which win).
pub(crate) fn workload(
    a: &SimArgs,
    path: &Path,
    set: &DatabaseKeys,
    system: &SystemSpec,
) -> Result<WorkloadSpec, CliError> {
    let mut c = read_characterization(path)?;
    let file = path.display().to_string();
    set_sizes(&mut c, &a.segment_size)?;
    if let Some(n) = a.sessions {
        c.sessions = n;
    }
    c.validate(&file)
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let mut db = toml::Table::new();
    let list = |s: &str| -> toml::Value {
        toml::Value::Array(
            s.split(',')
                .map(|n| toml::Value::String(n.trim().to_string()))
                .collect(),
        )
    };
    // The placement --db-test takes (its defaults the array's volumes).
    let (data, log) = super::db_placement(a, system);
    db.insert("data".into(), list(&data));
    db.insert("log".into(), list(&log));
    super::db_overrides_keys(a, &mut db)?;
    db.extend(set.iter().map(|(k, v)| (k.clone(), v.clone())));
    Ok(character_workload(
        &c,
        db,
        &file,
        system,
        multiblock_read_count(c.engine, u64::from(c.block_bytes)),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_told_apart_by_their_contents() {
        assert_eq!(
            kind_of(b"name = \"x\"\n[[transactions]]\n"),
            Input::Characterization(None)
        );
        assert_eq!(
            kind_of(b" {\"name\": \"x\"}"),
            Input::Characterization(Some(serde_json::json!({"name": "x"})))
        );
        assert_eq!(kind_of(b"{\"name\": "), Input::Characterization(None));
        assert_eq!(
            kind_of(b"{\"schema\": \"storlab.results/1\", \"runs\": []}"),
            Input::DbResult(serde_json::json!({"schema": "storlab.results/1", "runs": []}))
        );
        assert_eq!(
            kind_of(b"\nWORKLOAD REPOSITORY report for\n"),
            Input::Report
        );
        assert_eq!(kind_of(b"STATSPACK report for"), Input::Report);
        assert_eq!(kind_of(b"<HTML><body>"), Input::Report);
    }

    /// A result file is parsed once into JSON; a mistake in it is still named with its line
    /// and column.
    #[test]
    fn a_result_file_read_from_its_json_names_the_place_of_a_mistake() {
        let text = b"{\"schema\": \"storlab.results/1\",\n \"runs\": 7}";
        let Input::DbResult(json) = kind_of(text) else {
            panic!("a result file")
        };
        let e = crate::output::results_from_json(json, text, Path::new("r.json")).unwrap_err();
        let e = e.to_string();
        assert!(e.starts_with("r.json: not a storlab result file: "), "{e}");
        assert!(e.contains("line 2 column"), "{e}");
    }
}
