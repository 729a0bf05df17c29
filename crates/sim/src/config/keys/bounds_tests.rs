//! Every bound declared in the tables is the one the parsers enforce: for each key declared
//! with `Bounds::Int` or `Bounds::Float`, in every section of an array file, a workload file,
//! a disk model and `[database]`, a value just outside is refused as bad input naming the key
//! (`raid_groups[0].disks`) and the bound; an exclusive bound is tested with the bound itself.
//! The cases come from the tables, so a bound added to a declaration is tested with no test
//! written.

use storlab_core::keys::{Bounds, Key, Kind};

use super::*;
use crate::config::database::DATABASE_KEYS;
use crate::config::{parse_array, parse_workload, ConfigError, SystemSpec};

const GROUP: &str =
    "[[raid_groups]]\nname = \"g\"\nlevel = \"raid5\"\ndisks = 5\ndisk_model = \"hdd-10k\"\n";

/// The lines of `required` except the one setting `name`, then `name = value`.
fn with(required: &str, name: &str, value: &str) -> String {
    let mut out: String = required
        .lines()
        .filter(|l| !l.starts_with(&format!("{name} =")))
        .map(|l| format!("{l}\n"))
        .collect();
    out += &format!("{name} = {value}\n");
    out
}

/// An array file whose section `path` holds `name = value` (with the keys it requires).
fn array_with(path: &str, name: &str, value: &str) -> Option<String> {
    let top = "name = \"t\"\n";
    let section = |header: &str, required: &str| {
        format!("{top}{GROUP}{header}\n{}", with(required, name, value))
    };
    Some(match path {
        "host" => section("[host]", ""),
        "host.paths[0]" => section("[[host.paths]]", "name = \"p0\""),
        "controllers" => section("[controllers]", ""),
        "raid_groups[0]" => format!("{top}{}", with(GROUP, name, value)),
        "disk_groups[0]" => section(
            "[[disk_groups]]",
            "name = \"dg\"\ndisks = 4\ndisk_model = \"hdd-10k\"",
        ),
        "virtual_disks[0]" => section(
            "[[disk_groups]]\nname = \"dg\"\ndisks = 4\ndisk_model = \"hdd-10k\"\n[[virtual_disks]]",
            "name = \"v\"\ndisk_group = \"dg\"\nlevel = \"vraid5\"\nsize = \"1GiB\"",
        ),
        "luns[0]" => section("[[luns]]", "name = \"l\"\ngroup = \"g\""),
        "volumes[0]" => section(
            "[[volumes]]",
            "name = \"v\"\nkind = \"stripe\"\nluns = [\"g\"]",
        ),
        "failures[0]" => section("[[failures]]", "at = \"1s\"\ndisk = \"g.d0\""),
        "rebuild" => section("[rebuild]", ""),
        "back_ends[0]" => section(
            "[[back_ends]]",
            "name = \"l\"\nmbps = 100.0\ndisks = [\"g\"]",
        ),
        "host_ports[0]" => section(
            "[[host_ports]]",
            "name = \"fa\"\nmbps = 100.0\npaths = [\"p0\"]",
        ),
        "disk_models.h" => section("[disk_models.h]", "base = \"hdd-10k\""),
        "disk_models.s" => section("[disk_models.s]", "base = \"ssd-nvme\""),
        _ => return None,
    })
}

/// The message path of a declared section: `[host]` is `host`, `[[raid_groups]]` the first
/// entry, `raid_groups[0]`.
fn message_path(section: &str) -> String {
    match section
        .strip_prefix("[[")
        .and_then(|s| s.strip_suffix("]]"))
    {
        Some(list) => format!("{list}[0]"),
        None => section.trim_matches(['[', ']']).to_string(),
    }
}

/// Parses a file with `key = value` in the section under test (None: no file for it).
type Parse<'a> = dyn Fn(&str, &str) -> Option<Result<(), ConfigError>> + 'a;

/// Checks every key of `keys` just outside its bounds with `parse`; returns what went wrong.
fn refused_outside_bounds(
    path: &str,
    keys: &[Key],
    parse: &Parse,
    checked: &mut usize,
) -> Vec<String> {
    let mut wrong = Vec::new();
    for key in keys {
        for (value, bound) in key.values_outside() {
            let want = format!("{path}.{}", key.name);
            let Some(result) = parse(key.name, &value) else {
                wrong.push(format!("{want}: no file to test it in"));
                continue;
            };
            *checked += 1;
            match result {
                Err(ConfigError::Invalid { key, reason, .. })
                    if key == want && reason.starts_with("must be") && reason.contains(&bound) => {}
                other => wrong.push(format!(
                    "{want} = {value}: want bound {bound}; got {other:?}"
                )),
            }
        }
    }
    wrong
}

fn small_system() -> SystemSpec {
    parse_array(&format!("name = \"t\"\n{GROUP}"), "a.toml").expect("valid")
}

#[test]
fn every_declared_bound_is_enforced_naming_the_key_and_the_bound() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    let array = |path: String| {
        move |name: &str, value: &str| {
            array_with(&path, name, value).map(|text| parse_array(&text, "x.toml").map(|_| ()))
        }
    };
    for s in ARRAY_SECTIONS.iter().filter(|s| s.path != "(top level)") {
        let path = message_path(s.path);
        wrong.extend(refused_outside_bounds(
            &path,
            s.keys,
            &array(path.clone()),
            &mut checked,
        ));
    }
    for (path, keys) in [("disk_models.h", HDD_KEYS), ("disk_models.s", SSD_KEYS)] {
        wrong.extend(refused_outside_bounds(
            path,
            keys,
            &array(path.into()),
            &mut checked,
        ));
    }
    let system = small_system();
    let workload = |required: &'static str| {
        let system = &system;
        move |name: &str, value: &str| {
            let text = with(required, name, value);
            Some(parse_workload(&text, "w.toml", system).map(|_| ()))
        }
    };
    let stream = workload("[[streams]]\nprofile = \"randread-8k\"");
    wrong.extend(refused_outside_bounds(
        "streams[0]",
        STREAM_KEYS,
        &stream,
        &mut checked,
    ));
    let block_size = |name: &str, value: &str| {
        let entry = with("size = \"8k\"\nweight = 1.0", name, value);
        let text =
            format!("[[streams]]\nprofile = \"randread-8k\"\n[[streams.block_sizes]]\n{entry}");
        Some(parse_workload(&text, "w.toml", &system).map(|_| ()))
    };
    wrong.extend(refused_outside_bounds(
        "streams[0].block_sizes[0]",
        BLOCK_SIZE_KEYS,
        &block_size,
        &mut checked,
    ));
    let db = workload("[database]\ntest = \"dpaws/update-row\"\ndata = \"g\"\nlog = \"g\"");
    wrong.extend(refused_outside_bounds(
        "database",
        DATABASE_KEYS,
        &db,
        &mut checked,
    ));
    assert!(
        wrong.is_empty(),
        "{} of {checked}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(checked > 80, "only {checked} values checked");
}

#[test]
fn every_section_with_bounds_has_a_file_to_test_them_in() {
    for s in ARRAY_SECTIONS {
        let bounded = s.keys.iter().any(|k| k.bounds != Bounds::Any);
        let path = message_path(s.path);
        assert!(
            !bounded || array_with(&path, "x", "1").is_some(),
            "{} has bounds and no test file",
            s.path
        );
    }
}

#[test]
fn every_number_size_and_duration_declares_its_bounds() {
    let sections = ARRAY_SECTIONS.iter().chain(WORKLOAD_SECTIONS);
    let keys = sections.flat_map(|s| s.keys.iter());
    let unbounded: Vec<&str> = (keys.chain(HDD_KEYS).chain(SSD_KEYS).chain(DATABASE_KEYS))
        .filter(|k| matches!(k.kind, Kind::Count | Kind::Number | Kind::Size | Kind::Time))
        .filter(|k| k.bounds == Bounds::Any)
        .map(|k| k.name)
        .collect();
    assert!(unbounded.is_empty(), "no bounds declared: {unbounded:?}");
}
