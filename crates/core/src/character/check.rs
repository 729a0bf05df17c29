//! Reading a characterization section by section from its declared keys: unknown keys are
//! refused, declared defaults filled in, declared bounds checked, then each section is typed
//! and the rules across keys are checked. Every error names the key path.

use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::keys_table::*;
use super::{CharacterError, Characterization, Engine, Instance, Observed, Step, Transaction};
use crate::keys::{self, Key, Kind};

/// How far the weights of the transaction types, or the shares of the segments, may sum away
/// from 1.
pub const WEIGHT_TOLERANCE: f64 = 1e-6;

type Failure = (String, String);

fn path(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Refuses keys not declared, fills the declared defaults in, requires the keys declared
/// required and checks the declared bounds ([`keys::check_section`]), naming the key path.
fn prepare(table: &mut toml::Table, declared: &[Key], prefix: &str) -> Result<(), Failure> {
    keys::check_section(table, declared).map_err(|(k, reason)| (path(prefix, &k), reason))
}

/// A stand-in value of a key's type, to find which key a typing error is about.
fn stand_in(key: &Key) -> toml::Value {
    match key.kind {
        Kind::Count => toml::Value::Integer(1),
        Kind::Number => toml::Value::Float(0.0),
        Kind::Size => toml::Value::String("0".into()),
        Kind::Bool => toml::Value::Boolean(false),
        Kind::Choice(c) => toml::Value::String(c.first().copied().unwrap_or("").into()),
        Kind::Text | Kind::Time => toml::Value::String(String::new()),
        Kind::Other(_) => toml::Value::String("uniform".into()),
        Kind::Names => toml::Value::Array(Vec::new()),
        Kind::NameOrNames => toml::Value::String(String::new()),
        Kind::Table => toml::Value::Table(toml::Table::new()),
        Kind::Tables => toml::Value::Array(Vec::new()),
    }
}

/// Types a prepared section; a typing error names the key it is about when one is.
fn typed<T: DeserializeOwned>(
    table: toml::Table,
    declared: &[Key],
    prefix: &str,
) -> Result<T, Failure> {
    match toml::Value::Table(table.clone()).try_into::<T>() {
        Ok(v) => Ok(v),
        Err(e) => {
            let message = e.message().to_string();
            for key in declared.iter().filter(|k| table.contains_key(k.name)) {
                let mut t = table.clone();
                t.insert(key.name.into(), stand_in(key));
                if toml::Value::Table(t).try_into::<T>().is_ok() {
                    return Err((path(prefix, key.name), message));
                }
            }
            Err((prefix.to_string(), message))
        }
    }
}

fn take_table(top: &mut toml::Table, key: &str, prefix: &str) -> Result<toml::Table, Failure> {
    match top.remove(key) {
        Some(toml::Value::Table(t)) => Ok(t),
        Some(_) => Err((path(prefix, key), "must be a table".into())),
        None => Err((path(prefix, key), "is required".into())),
    }
}

/// The entries of an array of tables, each prepared and typed.
fn entries<T: DeserializeOwned>(
    top: &mut toml::Table,
    key: &str,
    declared: &[Key],
    prefix: &str,
    fill: &mut dyn FnMut(&mut toml::Table, &str) -> Result<(), Failure>,
) -> Result<Vec<T>, Failure> {
    let at = path(prefix, key);
    let items = match top.remove(key) {
        None => return Ok(Vec::new()),
        Some(toml::Value::Array(items)) => items,
        Some(_) => return Err((at, "must be an array of tables ([[...]])".into())),
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let here = format!("{at}[{i}]");
        let toml::Value::Table(mut t) = item else {
            return Err((here, "must be a table".into()));
        };
        prepare(&mut t, declared, &here)?;
        fill(&mut t, &here)?;
        out.push(typed(t, declared, &here)?);
    }
    Ok(out)
}

fn no_fill(_: &mut toml::Table, _: &str) -> Result<(), Failure> {
    Ok(())
}

/// A segment's tablespace defaults to its name.
fn segment_fill(t: &mut toml::Table, _: &str) -> Result<(), Failure> {
    if !t.contains_key("tablespace") {
        if let Some(name) = t.get("name").cloned() {
            t.insert("tablespace".into(), name);
        }
    }
    Ok(())
}

/// The `[[transactions]]` entries with their `[[transactions.steps]]`, each step checked
/// against its own declared keys.
fn transactions(top: &mut toml::Table) -> Result<Vec<Transaction>, Failure> {
    let mut steps: Vec<Vec<Step>> = Vec::new();
    let mut take_steps = |t: &mut toml::Table, here: &str| -> Result<(), Failure> {
        steps.push(entries(t, "steps", STEP_KEYS, here, &mut no_fill)?);
        Ok(())
    };
    let mut list: Vec<Transaction> =
        entries(top, "transactions", TRANSACTION_KEYS, "", &mut take_steps)?;
    for (t, s) in list.iter_mut().zip(steps) {
        t.steps = s;
    }
    Ok(list)
}

/// The scalar keys at the top of a characterization.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Top {
    name: String,
    engine: Engine,
    source: String,
    sessions: u32,
    block_bytes: u32,
}

/// Reads a characterization from a TOML value (a file's TOML, or its JSON converted).
pub(super) fn parse_value(
    value: toml::Value,
    file: &str,
) -> Result<Characterization, CharacterError> {
    read(value).map_err(|(key, reason)| CharacterError::Invalid {
        file: file.into(),
        key,
        reason,
    })
}

fn read(value: toml::Value) -> Result<Characterization, Failure> {
    let toml::Value::Table(mut top) = value else {
        return Err((String::new(), "must be a table of keys".into()));
    };
    prepare(&mut top, CHARACTERIZATION_KEYS, "")?;
    for required in ["transactions", "segments"] {
        if !top.contains_key(required) {
            return Err((required.into(), "is required (at least one entry)".into()));
        }
    }
    let transactions = transactions(&mut top)?;
    let segments = entries(&mut top, "segments", SEGMENT_KEYS, "", &mut segment_fill)?;
    let mut instance = take_table(&mut top, "instance", "")?;
    prepare(&mut instance, INSTANCE_KEYS, "instance")?;
    let settings = match instance.contains_key("settings") {
        false => toml::Table::new(),
        true => take_table(&mut instance, "settings", "instance")?,
    };
    let mut instance: Instance = typed(instance, INSTANCE_KEYS, "instance")?;
    instance.settings = instance_settings(settings)?;
    let observed = match top.contains_key("observed") {
        false => None,
        true => Some(observed(take_table(&mut top, "observed", "")?)?),
    };
    let head: Top = typed(top, CHARACTERIZATION_KEYS, "")?;
    let c = Characterization {
        name: head.name,
        engine: head.engine,
        source: head.source,
        sessions: head.sessions,
        block_bytes: head.block_bytes,
        transactions,
        segments,
        instance,
        observed,
    };
    rules(&c)?;
    Ok(c)
}

/// `[instance.settings]`: declared keys, each a text.
fn instance_settings(
    mut t: toml::Table,
) -> Result<std::collections::BTreeMap<String, String>, Failure> {
    let at = "instance.settings";
    prepare(&mut t, super::settings::SETTINGS_KEYS, at)?;
    typed(t, super::settings::SETTINGS_KEYS, at)
}

fn observed(mut t: toml::Table) -> Result<Observed, Failure> {
    let at = "observed";
    prepare(&mut t, OBSERVED_KEYS, at)?;
    let events = entries(&mut t, "events", EVENT_KEYS, at, &mut no_fill)?;
    let tablespaces = entries(&mut t, "tablespaces", IO_KEYS, at, &mut no_fill)?;
    let files = entries(&mut t, "files", IO_KEYS, at, &mut no_fill)?;
    let mut o: Observed = typed(t, OBSERVED_KEYS, at)?;
    o.events = events;
    o.tablespaces = tablespaces;
    o.files = files;
    Ok(o)
}

/// The name that appears twice in `names`, if any.
fn duplicate<'a>(names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = std::collections::BTreeSet::new();
    names.into_iter().find(|n| !seen.insert(*n))
}

/// Checks a sum of weights or shares is 1.
fn sums_to_one(what: &str, sum: f64) -> Result<(), String> {
    if (sum - 1.0).abs() <= WEIGHT_TOLERANCE {
        return Ok(());
    }
    let hint = if sum > 0.0 {
        format!("; divide each by {sum}")
    } else {
        String::new()
    };
    Err(format!(
        "the {what} must sum to 1 (within {WEIGHT_TOLERANCE}); got {sum}{hint}"
    ))
}

/// The rules across keys.
fn rules(c: &Characterization) -> Result<(), Failure> {
    if !c.block_bytes.is_power_of_two() {
        return Err((
            "block_bytes".into(),
            format!("must be a power of two; got {}", c.block_bytes),
        ));
    }
    if c.transactions.is_empty() {
        return Err(("transactions".into(), "needs at least one entry".into()));
    }
    if let Some(i) = c.transactions.iter().position(|t| t.name.trim().is_empty()) {
        return Err((
            format!("transactions[{i}].name"),
            "must not be empty".into(),
        ));
    }
    if let Some(n) = duplicate(c.transactions.iter().map(|t| t.name.as_str())) {
        return Err((
            "transactions".into(),
            format!("two entries are named {n:?}"),
        ));
    }
    let weights: f64 = c.transactions.iter().map(|t| t.weight).sum();
    sums_to_one("weights of the transaction types", weights)
        .map_err(|r| ("transactions".to_string(), r))?;
    if c.segments.is_empty() {
        return Err(("segments".into(), "needs at least one entry".into()));
    }
    if let Some(i) = c.segments.iter().position(|s| s.name.trim().is_empty()) {
        return Err((format!("segments[{i}].name"), "must not be empty".into()));
    }
    if let Some(n) = duplicate(c.segments.iter().map(|s| s.name.as_str())) {
        return Err(("segments".into(), format!("two entries are named {n:?}")));
    }
    let shares: f64 = c.segments.iter().map(|s| s.share).sum();
    sums_to_one("shares of the segments", shares).map_err(|r| ("segments".to_string(), r))?;
    let changes: Vec<f64> = c.segments.iter().filter_map(|s| s.change_share).collect();
    if !changes.is_empty() {
        sums_to_one("change shares of the segments", changes.iter().sum())
            .map_err(|r| ("segments".to_string(), r))?;
    }
    super::steps::rules(c)
}

/// Converts JSON to the TOML value the same checks read; `null` is refused with its path.
pub(super) fn json_to_toml(json: serde_json::Value, at: &str) -> Result<toml::Value, Failure> {
    use serde_json::Value as J;
    Ok(match json {
        J::Null => {
            let reason = "null is not a value here; leave the key out instead";
            return Err((at.to_string(), reason.into()));
        }
        J::Bool(b) => toml::Value::Boolean(b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => toml::Value::String(s),
        J::Array(items) => toml::Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| json_to_toml(v, &format!("{at}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        J::Object(map) => {
            let mut t = toml::Table::new();
            for (k, v) in map {
                let here = path(at, &k);
                t.insert(k, json_to_toml(v, &here)?);
            }
            toml::Value::Table(t)
        }
    })
}
