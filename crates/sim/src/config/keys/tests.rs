//! Each declared section is what its parser accepts: the same keys, and the declared defaults
//! as the only ones (the parser has none of its own, so a default missing from the
//! declaration is a parse error, not a silent second value).

use serde::de::DeserializeOwned;
use storlab_core::keys::{check_section, fill_defaults, serde_fields, Default, Key};

use super::*;
use crate::config::host::{FailureFile, LunFile, PathFile, RebuildFile, VolumeFile};
use crate::config::host_ports::HostPortFile;
use crate::config::virtual_disks::{DiskGroupFile, VirtualDiskFile};
use crate::config::{ArrayEntryFile, ArrayFile, ControllersFile, HostFile, RaidGroupFile};
use crate::device::hdd::HddParams;
use crate::device::models::{builtin_model, BUILTIN_MODELS};
use crate::device::ssd::SsdParams;

fn names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().map(|k| k.name).collect()
}

fn try_parse<T: DeserializeOwned>(t: &toml::Table) -> Result<T, toml::de::Error> {
    toml::Value::Table(t.clone()).try_into()
}

/// `required` with the declared defaults filled in parses; without any one of them it does
/// not: the declared defaults are the parser's, and its only ones.
fn defaults_only_from_declaration<T: DeserializeOwned>(keys: &[Key], required: &str) {
    let mut filled: toml::Table = toml::from_str(required).expect("toml");
    fill_defaults(&mut filled, keys);
    try_parse::<T>(&filled).unwrap_or_else(|e| panic!("{filled}: {e}"));
    for key in keys
        .iter()
        .filter(|k| matches!(k.default, Default::Value(_)))
    {
        let mut without = filled.clone();
        without.remove(key.name);
        assert!(
            try_parse::<T>(&without).is_err(),
            "{} has a default in the parser besides the declared one",
            key.name
        );
    }
}

/// The struct parsed from `required` alone equals the one parsed with every declared default
/// filled in (for a type that keeps defaults of its own: the I/O profile `storlab io` reads).
fn defaults_agree<T: DeserializeOwned + PartialEq + std::fmt::Debug>(keys: &[Key], required: &str) {
    let bare: toml::Table = toml::from_str(required).expect("toml");
    let mut filled = bare.clone();
    fill_defaults(&mut filled, keys);
    let parse = |t: &toml::Table| try_parse::<T>(t).unwrap_or_else(|e| panic!("{t}: {e}"));
    assert_eq!(parse(&bare), parse(&filled), "{filled}");
}

#[test]
fn every_section_declares_exactly_the_keys_its_parser_accepts() {
    assert_eq!(serde_fields::<ArrayFile>(), names(ARRAY_KEYS));
    assert_eq!(serde_fields::<HostFile>(), names(HOST_KEYS));
    assert_eq!(serde_fields::<PathFile>(), names(PATH_KEYS));
    assert_eq!(serde_fields::<HostPortFile>(), names(HOST_PORT_KEYS));
    assert_eq!(serde_fields::<ControllersFile>(), names(CONTROLLER_KEYS));
    assert_eq!(serde_fields::<ArrayEntryFile>(), names(ARRAY_ENTRY_KEYS));
    assert_eq!(serde_fields::<RaidGroupFile>(), names(RAID_GROUP_KEYS));
    assert_eq!(serde_fields::<DiskGroupFile>(), names(DISK_GROUP_KEYS));
    assert_eq!(serde_fields::<VirtualDiskFile>(), names(VIRTUAL_DISK_KEYS));
    assert_eq!(serde_fields::<LunFile>(), names(LUN_KEYS));
    assert_eq!(serde_fields::<VolumeFile>(), names(VOLUME_KEYS));
    assert_eq!(serde_fields::<FailureFile>(), names(FAILURE_KEYS));
    assert_eq!(serde_fields::<RebuildFile>(), names(REBUILD_KEYS));
    assert_eq!(serde_fields::<HddParams>(), names(HDD_KEYS));
    assert_eq!(serde_fields::<SsdParams>(), names(SSD_KEYS));
    // A stream: its target, the base profile, then every key of an I/O profile.
    let mut stream = vec!["target", "profile"];
    stream.extend(serde_fields::<storlab_core::IoProfile>());
    assert_eq!(stream, names(STREAM_KEYS));
}

#[test]
fn declared_defaults_are_the_parsers_only_defaults() {
    // The top level needs its sections' tables, which the parser fills from their own
    // declarations.
    defaults_only_from_declaration::<ArrayFile>(
        ARRAY_KEYS,
        "name = \"a\"\n[host]\nlinks = 2\nlink_mbps = 400.0\nlink_latency = \"20us\"\n\
         paths = []\nmultipath = \"round-robin\"\nqueue_depth_per_lun = 0\nscheduler = \"none\"\n\
         nr_requests = 0\n\
         [controllers]\ncount = 2\ncache = \"4GiB\"\nwrite_cache = \"1GiB\"\n\
         write_policy = \"write-back\"\nmirror_writes = true\n\
         failover_write_policy = \"write-back\"\nmirror_mbps = 800.0\nmirror_latency = \"20us\"\n\
         overhead = \"10us\"\nprocessors = 1\nparity_cost = \"0\"\ndestage_high_pct = 80.0\ndestage_low_pct = 60.0\npaced_destage = true\ndestage_order = \"address\"\nfull_stripe_hold = \"0\"\n\
         read_segment = \"8KiB\"\nprefetch = \"1MiB\"\nsequential_trigger = 2\n\
         staging = \"block\"\n\
         [rebuild]\nrate_mbps = 50.0\npriority = \"low\"\nstart_delay = 0\n",
    );
    defaults_only_from_declaration::<HostFile>(HOST_KEYS, "");
    defaults_only_from_declaration::<PathFile>(PATH_KEYS, "name = \"p0\"");
    defaults_only_from_declaration::<ControllersFile>(CONTROLLER_KEYS, "");
    defaults_only_from_declaration::<RaidGroupFile>(
        RAID_GROUP_KEYS,
        "name = \"g\"\nlevel = \"raid5\"\ndisks = 4\ndisk_model = \"hdd-10k\"",
    );
    defaults_only_from_declaration::<DiskGroupFile>(
        DISK_GROUP_KEYS,
        "name = \"dg\"\ndisks = 8\ndisk_model = \"hdd-10k\"",
    );
    defaults_only_from_declaration::<VirtualDiskFile>(
        VIRTUAL_DISK_KEYS,
        "name = \"v\"\ndisk_group = \"dg\"\nlevel = \"vraid5\"\nsize = \"10GiB\"",
    );
    defaults_only_from_declaration::<LunFile>(LUN_KEYS, "name = \"l\"\ngroup = \"g\"");
    defaults_only_from_declaration::<VolumeFile>(VOLUME_KEYS, "name = \"v\"\nkind = \"concat\"");
    defaults_only_from_declaration::<FailureFile>(FAILURE_KEYS, "at = \"5s\"");
    defaults_only_from_declaration::<RebuildFile>(REBUILD_KEYS, "");
    defaults_agree::<storlab_core::IoProfile>(&STREAM_KEYS[2..], "");
}

#[test]
fn declared_defaults_fit_their_bounds() {
    let sections = ARRAY_SECTIONS.iter().chain(WORKLOAD_SECTIONS);
    let keys = sections.flat_map(|s| s.keys.iter());
    for key in keys.chain(HDD_KEYS).chain(SSD_KEYS) {
        if let Some(v) = storlab_core::keys::default_value(key) {
            key.check(&v)
                .unwrap_or_else(|e| panic!("default of {}: {e}", key.name));
        }
    }
}

#[test]
fn every_builtin_model_gives_exactly_its_declared_parameters_within_their_bounds() {
    for name in BUILTIN_MODELS {
        let model = builtin_model(name).expect("built-in");
        let mut table = toml::Table::try_from(&model).expect("serializes");
        let keys = match table
            .remove("kind")
            .and_then(|k| k.as_str().map(String::from))
        {
            Some(k) if k == "hdd" => HDD_KEYS,
            Some(k) if k == "ssd" => SSD_KEYS,
            other => panic!("{name}: kind {other:?}"),
        };
        let given = table.clone();
        check_section(&mut table, keys).unwrap_or_else(|(k, e)| panic!("{name}.{k}: {e}"));
        // Parameters a built-in leaves out (the measured-drive ones it does not have, which
        // are not written when they hold their "absent" value) are exactly their declared
        // defaults; every other parameter is given.
        for (key, value) in &table {
            if given.get(key) != Some(value) {
                let declared = keys.iter().find(|k| k.name == key).expect("declared");
                assert!(
                    given.get(key).is_none()
                        && storlab_core::keys::default_value(declared).as_ref() == Some(value),
                    "{name}.{key}: left out but not its declared default"
                );
            }
        }
    }
}
