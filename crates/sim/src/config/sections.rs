//! An array file's TOML made what its parser reads, section by section, from the declarations
//! in [`super::keys`]: keys not declared are refused, declared defaults filled in, required
//! keys required, and every value's type and bounds checked, each message naming the file,
//! the key (`controllers.cache`, `raid_groups[2].disks`), the reason and the bound. Serde then
//! reads the tables and finds every key present; checks between keys stay with the
//! resolution (`resolve`, `host`, `virtual_disks`).

use storlab_core::keys::{check_section, Key};

use super::keys::{
    ARRAY_ENTRY_KEYS, ARRAY_KEYS, BACK_END_KEYS, CONTROLLER_KEYS, DISK_GROUP_KEYS,
    FAILURE_GROUP_KEYS, FAILURE_KEYS, HDD_KEYS, HOST_KEYS, HOST_PORT_KEYS, LUN_KEYS, PATH_KEYS,
    RAID_GROUP_KEYS, REBUILD_KEYS, SSD_KEYS, VIRTUAL_DISK_KEYS, VOLUME_KEYS,
};
use super::{merge_tables, ConfigError};
use crate::device::models::{builtin_model, BUILTIN_MODELS};

/// `path.key`, or `key` at the top level.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Checks one section (`path` names it in messages) against `keys` and fills its defaults.
pub(crate) fn section(
    table: &mut toml::Table,
    keys: &[Key],
    file: &str,
    path: &str,
) -> Result<(), ConfigError> {
    check_section(table, keys)
        .map_err(|(k, reason)| ConfigError::invalid(file, join(path, &k), reason))
}

/// The table under `key` (an empty one when absent), checked as a section.
fn sub_section(
    parent: &mut toml::Table,
    key: &str,
    keys: &[Key],
    file: &str,
    path: &str,
) -> Result<(), ConfigError> {
    let value = parent
        .entry(key)
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let toml::Value::Table(table) = value else {
        return Err(ConfigError::invalid(
            file,
            path,
            format!("must be a table; got {value}"),
        ));
    };
    section(table, keys, file, path)
}

/// Every table of the array under `key` (`[[raid_groups]]`), checked as a section named
/// `path[i]`.
pub(super) fn list(
    parent: &mut toml::Table,
    key: &str,
    keys: &[Key],
    file: &str,
    path: &str,
) -> Result<(), ConfigError> {
    let Some(value) = parent.get_mut(key) else {
        return Ok(());
    };
    let toml::Value::Array(items) = value else {
        return Err(ConfigError::invalid(
            file,
            path,
            format!("must be an array of tables ([[{path}]]); got {value}"),
        ));
    };
    for (i, item) in items.iter_mut().enumerate() {
        let at = format!("{path}[{i}]");
        let toml::Value::Table(table) = item else {
            return Err(ConfigError::invalid(
                file,
                at,
                format!("must be a table; got {item}"),
            ));
        };
        section(table, keys, file, &at)?;
    }
    Ok(())
}

/// Checks every section of an array file and fills its defaults in; `[disk_models.NAME]`
/// tables come out complete (`base` resolved, every parameter present and checked).
pub(super) fn prepare_array(table: &mut toml::Table, file: &str) -> Result<(), ConfigError> {
    section(table, ARRAY_KEYS, file, "")?;
    sub_section(table, "host", HOST_KEYS, file, "host")?;
    if let Some(toml::Value::Table(host)) = table.get_mut("host") {
        list(host, "paths", PATH_KEYS, file, "host.paths")?;
    }
    arrays(table, file)?;
    sub_section(table, "controllers", CONTROLLER_KEYS, file, "controllers")?;
    sub_section(table, "rebuild", REBUILD_KEYS, file, "rebuild")?;
    for (key, keys) in [
        ("raid_groups", RAID_GROUP_KEYS),
        ("disk_groups", DISK_GROUP_KEYS),
        ("virtual_disks", VIRTUAL_DISK_KEYS),
        ("luns", LUN_KEYS),
        ("volumes", VOLUME_KEYS),
        ("host_ports", HOST_PORT_KEYS),
        ("back_ends", BACK_END_KEYS),
        ("failures", FAILURE_KEYS),
    ] {
        list(table, key, keys, file, key)?;
    }
    if let Some(toml::Value::Array(volumes)) = table.get_mut("volumes") {
        for (i, volume) in volumes.iter_mut().enumerate() {
            if let toml::Value::Table(v) = volume {
                let path = format!("volumes[{i}].failure_groups");
                list(v, "failure_groups", FAILURE_GROUP_KEYS, file, &path)?;
            }
        }
    }
    let Some(value) = table.get_mut("disk_models") else {
        return Ok(());
    };
    let toml::Value::Table(models) = value else {
        return Err(ConfigError::invalid(
            file,
            "disk_models",
            format!("must be a table of models ([disk_models.NAME]); got {value}"),
        ));
    };
    for (name, model) in models.iter_mut() {
        let path = format!("disk_models.{name}");
        let toml::Value::Table(t) = model else {
            return Err(ConfigError::invalid(
                file,
                path,
                format!("must be a table; got {model}"),
            ));
        };
        if BUILTIN_MODELS.contains(&name.as_str()) {
            return Err(ConfigError::invalid(
                file,
                path,
                format!(
                    "{name:?} is a built-in model; give yours another name (base = {name:?} \
                     starts it from the built-in's parameters)"
                ),
            ));
        }
        *t = disk_model(std::mem::take(t), file, &path)?;
    }
    Ok(())
}

/// `[[arrays]]`, each with its `[arrays.controllers]`; a file with them keeps no top-level
/// `[controllers]` (each array has its own).
fn arrays(table: &mut toml::Table, file: &str) -> Result<(), ConfigError> {
    list(table, "arrays", ARRAY_ENTRY_KEYS, file, "arrays")?;
    let Some(toml::Value::Array(items)) = table.get_mut("arrays") else {
        return Ok(());
    };
    let any = !items.is_empty();
    for (i, item) in items.iter_mut().enumerate() {
        if let toml::Value::Table(t) = item {
            let path = format!("arrays[{i}].controllers");
            sub_section(t, "controllers", CONTROLLER_KEYS, file, &path)?;
        }
    }
    if any && table.contains_key("controllers") {
        return Err(ConfigError::invalid(
            file,
            "controllers",
            "a file with [[arrays]] gives each array its own [arrays.controllers]; move              [controllers] into them",
        ));
    }
    Ok(())
}

/// A `[disk_models.NAME]` table made complete: the built-in `base` under it, then checked
/// against the parameters of its `kind`.
fn disk_model(mut table: toml::Table, file: &str, path: &str) -> Result<toml::Table, ConfigError> {
    if let Some(base) = table.remove("base") {
        let base_name = base.as_str().unwrap_or_default().to_string();
        let base_model = builtin_model(&base_name).ok_or_else(|| {
            ConfigError::invalid(
                file,
                format!("{path}.base"),
                format!(
                    "unknown built-in model {base}; built-ins: {}",
                    BUILTIN_MODELS.join(", ")
                ),
            )
        })?;
        let base_table = toml::Table::try_from(&base_model)
            .map_err(|e| ConfigError::invalid(file, path, e.to_string()))?;
        table = merge_tables(base_table, table);
    }
    let (keys, kind) = match table.remove("kind") {
        Some(k) if k.as_str() == Some("hdd") => (HDD_KEYS, k),
        Some(k) if k.as_str() == Some("ssd") => (SSD_KEYS, k),
        other => {
            let got = other.map_or("nothing".to_string(), |k| k.to_string());
            return Err(ConfigError::invalid(
                file,
                format!("{path}.kind"),
                format!(
                    "must be \"hdd\" or \"ssd\" (or give base = a built-in model: {}); got {got}",
                    BUILTIN_MODELS.join(", ")
                ),
            ));
        }
    };
    section(&mut table, keys, file, path)?;
    table.insert("kind".into(), kind);
    Ok(table)
}
