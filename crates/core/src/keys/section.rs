//! A TOML section against its declared keys: unknown keys refused, defaults filled in,
//! required keys required, every value checked; and values built for a flag's check.

use super::{Default, Key};

/// A whole number as a TOML value, for [`Key::check_flag`] (saturating: a count beyond i64
/// is beyond every bound).
pub fn count_value(n: u64) -> toml::Value {
    toml::Value::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

/// A duration in ns as a TOML value, for [`Key::check_flag`] (`"1500000000ns"`).
pub fn span_value(ns: u64) -> toml::Value {
    toml::Value::String(format!("{ns}ns"))
}

/// The default of `key` as a TOML value (None: none declared, or one that does not parse).
pub fn default_value(key: &Key) -> Option<toml::Value> {
    let Default::Value(text) = key.default else {
        return None;
    };
    toml::from_str::<toml::Table>(&format!("v = {text}"))
        .ok()?
        .remove("v")
}

/// Fills the declared defaults of `keys` into `table` where the key is absent.
pub fn fill_defaults(table: &mut toml::Table, keys: &[Key]) {
    for key in keys {
        if !table.contains_key(key.name) {
            if let Some(v) = default_value(key) {
                table.insert(key.name.to_string(), v);
            }
        }
    }
}

/// Checks every declared key of `table` against its type and bounds: the first that breaks
/// them, as (key, reason).
pub fn check_table(table: &toml::Table, keys: &[Key]) -> Result<(), (&'static str, String)> {
    for key in keys {
        if let Some(v) = table.get(key.name) {
            key.check(v).map_err(|reason| (key.name, reason))?;
        }
    }
    Ok(())
}

/// The first key of `table` that `keys` does not declare, with the reason naming the keys
/// that are.
pub fn unknown_key(table: &toml::Table, keys: &[Key]) -> Result<(), (String, String)> {
    match table.keys().find(|k| find(keys, k).is_none()) {
        None => Ok(()),
        Some(k) => {
            let allowed: Vec<&str> = keys.iter().map(|k| k.name).collect();
            Err((
                k.clone(),
                format!("unknown key (allowed: {})", allowed.join(", ")),
            ))
        }
    }
}

/// Makes `table` what its parser reads: refuses keys `keys` does not declare, fills the
/// declared defaults in, requires the keys declared [`Default::Required`], and checks every
/// value's type and bounds. The first problem, as (key, reason).
pub fn check_section(table: &mut toml::Table, keys: &[Key]) -> Result<(), (String, String)> {
    unknown_key(table, keys)?;
    fill_defaults(table, keys);
    if let Some(k) = keys
        .iter()
        .find(|k| k.default == Default::Required && !table.contains_key(k.name))
    {
        return Err((k.name.to_string(), format!("is required ({})", k.help)));
    }
    check_table(table, keys).map_err(|(k, reason)| (k.to_string(), reason))
}

/// The declared key named `name`.
pub fn find<'a>(keys: &'a [Key], name: &str) -> Option<&'a Key> {
    keys.iter().find(|k| k.name == name)
}
