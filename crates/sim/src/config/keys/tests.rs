//! Each declared section is what its parser accepts: the same keys, the same defaults.

use serde::de::DeserializeOwned;
use storlab_core::keys::{fill_defaults, serde_fields, Key};

use super::*;
use crate::config::host::{FailureFile, LunFile, PathFile, RebuildFile, VolumeFile};
use crate::config::virtual_disks::{DiskGroupFile, VirtualDiskFile};
use crate::config::{ArrayFile, ControllersFile, HostFile, RaidGroupFile};
use crate::device::hdd::HddParams;
use crate::device::ssd::SsdParams;

fn names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().map(|k| k.name).collect()
}

fn parse<T: DeserializeOwned>(t: &toml::Table) -> T {
    toml::Value::Table(t.clone())
        .try_into()
        .unwrap_or_else(|e| panic!("{t}: {e}"))
}

/// The struct parsed from `required` alone equals the one parsed with every declared default
/// filled in: the declared defaults are the parser's.
fn defaults_agree<T: DeserializeOwned + PartialEq + std::fmt::Debug>(keys: &[Key], required: &str) {
    let bare: toml::Table = toml::from_str(required).expect("toml");
    let mut filled = bare.clone();
    fill_defaults(&mut filled, keys);
    assert_eq!(parse::<T>(&bare), parse::<T>(&filled), "{filled}");
}

#[test]
fn every_section_declares_exactly_the_keys_its_parser_accepts() {
    assert_eq!(serde_fields::<ArrayFile>(), names(ARRAY_KEYS));
    assert_eq!(serde_fields::<HostFile>(), names(HOST_KEYS));
    assert_eq!(serde_fields::<PathFile>(), names(PATH_KEYS));
    assert_eq!(serde_fields::<ControllersFile>(), names(CONTROLLER_KEYS));
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
fn declared_defaults_are_the_parsers() {
    defaults_agree::<ArrayFile>(ARRAY_KEYS, "name = \"a\"");
    defaults_agree::<HostFile>(HOST_KEYS, "");
    defaults_agree::<PathFile>(PATH_KEYS, "name = \"p0\"");
    defaults_agree::<ControllersFile>(CONTROLLER_KEYS, "");
    defaults_agree::<RaidGroupFile>(
        RAID_GROUP_KEYS,
        "name = \"g\"\nlevel = \"raid5\"\ndisks = 4\ndisk_model = \"hdd-10k\"",
    );
    defaults_agree::<DiskGroupFile>(
        DISK_GROUP_KEYS,
        "name = \"dg\"\ndisks = 8\ndisk_model = \"hdd-10k\"",
    );
    defaults_agree::<VirtualDiskFile>(
        VIRTUAL_DISK_KEYS,
        "name = \"v\"\ndisk_group = \"dg\"\nlevel = \"vraid5\"\nsize = \"10GiB\"",
    );
    defaults_agree::<LunFile>(LUN_KEYS, "name = \"l\"\ngroup = \"g\"");
    defaults_agree::<VolumeFile>(VOLUME_KEYS, "name = \"v\"\nkind = \"concat\"");
    defaults_agree::<FailureFile>(FAILURE_KEYS, "at = \"5s\"");
    defaults_agree::<RebuildFile>(REBUILD_KEYS, "");
    defaults_agree::<storlab_core::IoProfile>(&STREAM_KEYS[2..], "");
}

#[test]
fn declared_defaults_fit_their_bounds() {
    let sections = ARRAY_SECTIONS.iter().chain(WORKLOAD_SECTIONS);
    for key in sections.flat_map(|s| s.keys.iter()) {
        if let Some(v) = storlab_core::keys::default_value(key) {
            key.check(&v)
                .unwrap_or_else(|e| panic!("default of {}: {e}", key.name));
        }
    }
}
