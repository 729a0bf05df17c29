use crate::config::{parse_array, parse_workload, profile_workload, ConfigError};
use crate::device::DiskModel;

const GOOD: &str = r#"
name = "t"
[[raid_groups]]
name = "rg"
count = 2
level = "raid5"
disks = 5
disk_model = "hdd-10k"
stripe_unit = "64k"
"#;

fn with_group(group: &str) -> String {
    format!("name = \"t\"\n[[raid_groups]]\nname = \"rg\"\ndisk_model = \"hdd-10k\"\n{group}\n")
}

fn invalid(text: &str) -> (String, String) {
    match parse_array(text, "x.toml") {
        Err(ConfigError::Invalid { file, key, reason }) => {
            assert_eq!(file, "x.toml");
            (key, reason)
        }
        other => panic!("expected an Invalid error, got {other:?}"),
    }
}

#[test]
fn good_file_resolves_groups_and_controllers() {
    let s = parse_array(GOOD, "x.toml").unwrap();
    assert_eq!(s.groups.len(), 2);
    assert_eq!(s.groups[0].name, "rg-0");
    assert_eq!(s.groups[1].name, "rg-1");
    assert_eq!(s.groups[0].controller, 0);
    assert_eq!(s.groups[1].controller, 1);
    assert_eq!(s.member_disks(), 10);
    assert_eq!(s.groups[0].layout.stripe_unit_sectors(), 128);
    let c = &s.controllers;
    // 4 GiB minus twice 1 GiB (own NVS + peer's mirror copy) of 8 KiB segments.
    assert_eq!(c.read_cache_segments, (2u64 << 30) / 8192);
    assert_eq!(c.write_cache_pages, (1u64 << 30) / 4096);
    assert!(c.destage_low_pages < c.destage_high_pages);
}

#[test]
fn the_destage_queue_follows_the_member_disks_unless_set() {
    let mixed = "name = \"t\"\n[[raid_groups]]\nname = \"h\"\nlevel = \"raid5\"\ndisks = 5\n\
                 disk_model = \"hdd-15k\"\n[[raid_groups]]\nname = \"s\"\nlevel = \"raid0\"\n\
                 disks = 2\ndisk_model = \"ssd-slc\"\n[[raid_groups]]\nname = \"e\"\n\
                 level = \"raid0\"\ndisks = 2\ndisk_model = \"ssd-emlc\"\n[[raid_groups]]\n\
                 name = \"n\"\nlevel = \"raid0\"\ndisks = 2\ndisk_model = \"ssd-nvme\"\n";
    let queues = |text: &str| -> Vec<u32> {
        let s = parse_array(text, "x.toml").unwrap();
        let c = &s.controllers;
        s.groups
            .iter()
            .map(|g| c.destage_queue_for(&g.model))
            .collect()
    };
    // HDD: 4; SSDs: one per flash die (16, 32, 128 dies), within their queue depth (64, 64,
    // 1024).
    assert_eq!(queues(mixed), [4, 16, 32, 128]);
    // A die count above the queue depth is capped by it.
    let deep = "[disk_models.wide]\nbase = \"ssd-emlc\"\nchannels = 16\ndies_per_channel = 8\n";
    let wide = format!(
        "{}{deep}",
        with_group("level = \"raid0\"\ndisks = 2").replace("hdd-10k", "wide")
    );
    assert_eq!(queues(&wide), [64]);
    let set = mixed.replacen(
        "name = \"t\"\n",
        "name = \"t\"\n[controllers]\ndestage_queue_per_disk = 6\n",
        1,
    );
    assert_eq!(queues(&set), [6, 6, 6, 6]);
    let (key, reason) = invalid(&set.replace("= 6", "= 0"));
    assert_eq!(key, "controllers.destage_queue_per_disk");
    assert!(reason.contains("at least 1 and at most 256"), "{reason}");
}

#[test]
fn raid_rules_are_enforced_with_the_key() {
    let (key, reason) = invalid(&with_group("level = \"raid5\"\ndisks = 2"));
    assert_eq!(key, "raid_groups[0].disks");
    assert!(reason.contains("raid5") && reason.contains('3'), "{reason}");
    let (key, reason) = invalid(&with_group("level = \"raid6\"\ndisks = 3"));
    assert_eq!(key, "raid_groups[0].disks");
    assert!(reason.contains("raid6"), "{reason}");
    let (key, reason) = invalid(&with_group("level = \"raid10\"\ndisks = 5"));
    assert_eq!(key, "raid_groups[0].disks");
    assert!(reason.contains("even"), "{reason}");
    let (key, reason) = invalid(&with_group(
        "level = \"raid5\"\ndisks = 5\nstripe_unit = \"48k\"",
    ));
    assert_eq!(key, "raid_groups[0].stripe_unit");
    assert!(
        reason.contains("power of two") && reason.contains("48k"),
        "{reason}"
    );
    let (key, _) = invalid(&with_group("level = \"raid7\"\ndisks = 5"));
    assert_eq!(key, "raid_groups[0].level");
}

#[test]
fn unknown_model_lists_the_known_ones() {
    let text = GOOD.replace("hdd-10k", "hdd-11k");
    let (key, reason) = invalid(&text);
    assert_eq!(key, "raid_groups[0].disk_model");
    assert!(
        reason.contains("hdd-11k") && reason.contains("hdd-10k"),
        "{reason}"
    );
}

#[test]
fn unknown_keys_are_rejected_by_name() {
    // Named with their section and entry, and the keys the section takes.
    let text = GOOD.replace("stripe_unit", "stripe_size");
    let (key, reason) = invalid(&text);
    assert_eq!(key, "raid_groups[0].stripe_size");
    assert!(
        reason.contains("unknown key") && reason.contains("stripe_unit"),
        "{reason}"
    );
    let text = format!("{GOOD}\n[controllers]\ncache_size = \"4g\"\n");
    let err = parse_array(&text, "x.toml").unwrap_err().to_string();
    assert!(err.contains("controllers.cache_size"), "{err}");
    // TOML that does not parse still names the line.
    match parse_array("name = \"t\"\n[[raid_groups]\n", "x.toml") {
        Err(ConfigError::Parse { file, message }) => {
            assert_eq!(file, "x.toml");
            assert!(message.contains("line 2"), "{message}");
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn zero_and_negative_sizes_are_rejected() {
    let text = format!("{GOOD}\n[host]\nlink_mbps = 0\n");
    let (key, _) = invalid(&text);
    assert_eq!(key, "host.link_mbps");
    let text = format!("{GOOD}\n[controllers]\nread_segment = \"0\"\n");
    let (key, _) = invalid(&text);
    assert_eq!(key, "controllers.read_segment");
    let text = GOOD.replace("stripe_unit = \"64k\"", "stripe_unit = \"-64k\"");
    assert!(parse_array(&text, "x.toml").is_err());
    let text = format!("{GOOD}\n[controllers]\nwrite_cache = \"3g\"\n");
    let (key, reason) = invalid(&text);
    assert_eq!(key, "controllers.write_cache");
    assert!(reason.contains("does not fit"), "{reason}");
}

#[test]
fn controller_must_exist() {
    let (key, _) = invalid(&with_group("level = \"raid5\"\ndisks = 5\ncontroller = 2"));
    assert_eq!(key, "raid_groups[0].controller");
}

#[test]
fn user_models_inherit_from_a_base_and_are_validated() {
    let text = format!(
        "{}\n[disk_models.fast]\nbase = \"hdd-10k\"\nrpm = 15000\n",
        GOOD.replace("hdd-10k", "fast")
    );
    let s = parse_array(&text, "x.toml").unwrap();
    match &s.groups[0].model {
        DiskModel::Hdd(p) => {
            assert_eq!(p.rpm, 15000);
            assert_eq!(p.seek_avg_ms, 4.7);
        }
        DiskModel::Ssd(_) => panic!("expected an HDD"),
    }
    let text = format!(
        "{}\n[disk_models.fast]\nbase = \"hdd-10k\"\nrpmm = 15000\n",
        GOOD.replace("hdd-10k", "fast")
    );
    let (key, reason) = invalid(&text);
    assert_eq!(key, "disk_models.fast.rpmm");
    assert!(reason.contains("unknown key"), "{reason}");
    let text = format!(
        "{}\n[disk_models.fast]\nbase = \"hdd-10k\"\nseek_avg_ms = 40\n",
        GOOD.replace("hdd-10k", "fast")
    );
    let (key, reason) = invalid(&text);
    assert_eq!(key, "disk_models.fast");
    assert!(reason.contains("seek"), "{reason}");
}

#[test]
fn workload_region_beyond_the_volume_is_rejected() {
    let s = parse_array(GOOD, "x.toml").unwrap();
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"rg-0\"\nregion_size = \"100t\"\n";
    match parse_workload(w, "w.toml", &s) {
        Err(ConfigError::Invalid { key, reason, .. }) => {
            assert_eq!(key, "streams[0].region_size");
            assert!(reason.contains("beyond"), "{reason}");
        }
        other => panic!("expected an Invalid error, got {other:?}"),
    }
    let w = "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"nope\"\n";
    let err = parse_workload(w, "w.toml", &s).unwrap_err().to_string();
    assert!(
        err.contains("streams[0].target") && err.contains("rg-0"),
        "{err}"
    );
    let w = "[[streams]]\nprofile = \"randread-8k\"\nread_pct = 150\n";
    let err = parse_workload(w, "w.toml", &s).unwrap_err().to_string();
    assert!(err.contains("streams[0].read_pct"), "{err}");
    let w =
        "[[streams]]\nprofile = \"randread-8k\"\nblock_sizes = [{ size = \"0\", weight = 1 }]\n";
    let err = parse_workload(w, "w.toml", &s).unwrap_err().to_string();
    assert!(err.contains("block_sizes"), "{err}");
}

#[test]
fn workload_streams_resolve_targets_and_overrides() {
    let s = parse_array(GOOD, "x.toml").unwrap();
    let w = "name = \"mix\"\n[[streams]]\nprofile = \"oltp-60-40\"\ntarget = [\"rg-1\"]\niodepth = 3\n[[streams]]\nprofile = \"redo\"\n";
    let spec = parse_workload(w, "w.toml", &s).unwrap();
    assert_eq!(spec.name, "mix");
    assert_eq!(spec.streams.len(), 2);
    assert_eq!(spec.streams[0].luns, vec![1]);
    assert_eq!(spec.streams[0].profile.iodepth, 3);
    assert_eq!(spec.streams[0].profile.read_pct, 60.0);
    assert_eq!(spec.streams[1].luns, vec![0, 1]);
    let err = profile_workload("randread-9k", &s).unwrap_err().to_string();
    assert!(
        err.contains("randread-9k") && err.contains("randread-8k"),
        "{err}"
    );
}

#[test]
fn unknown_and_misplaced_targets_say_which() {
    let s = parse_array(
        &format!("{GOOD}\n[[volumes]]\nname = \"vol\"\nkind = \"stripe\"\nstripe = \"1m\"\nluns = [\"rg-0\", \"rg-1\"]\n"),
        "x.toml",
    )
    .unwrap();
    let target = |t: &str| {
        let w = format!("[[streams]]\nprofile = \"randread-8k\"\ntarget = {t}\n");
        parse_workload(&w, "w.toml", &s).unwrap_err().to_string()
    };
    let unknown = target("[\"rg-7\"]");
    assert!(
        unknown.contains("\"rg-7\"") && unknown.contains("known: vol, rg-0, rg-1"),
        "{unknown}"
    );
    assert!(!unknown.contains("only target"), "{unknown}");
    let mixed = target("[\"vol\", \"rg-0\"]");
    assert!(
        mixed.contains("\"vol\" is a volume") && mixed.contains("only target"),
        "{mixed}"
    );
    assert!(parse_workload(
        "[[streams]]\nprofile = \"randread-8k\"\ntarget = \"vol\"\n",
        "w.toml",
        &s
    )
    .is_ok());
}

#[test]
fn values_of_the_wrong_type_are_named_with_their_key() {
    // (before the file, after it, key, what the message says the key takes)
    for (top, extra, want_key, want) in [
        (
            "",
            "[host]\nlinks = \"two\"\n",
            "host.links",
            "whole number",
        ),
        (
            "",
            "[controllers]\nmirror_writes = 1\n",
            "controllers.mirror_writes",
            "true or false",
        ),
        (
            "",
            "[rebuild]\npriority = \"urgent\"\n",
            "rebuild.priority",
            "\"low\", \"high\"",
        ),
        (
            "",
            "[[volumes]]\nname = \"v\"\nkind = \"stripe\"\nluns = [1, 2]\n",
            "volumes[0].luns",
            "list of names",
        ),
        ("host = 3\n", "", "host", "a table"),
        (
            "",
            "[disk_models.m]\nkind = \"tape\"\n",
            "disk_models.m.kind",
            "\"hdd\" or \"ssd\"",
        ),
    ] {
        let (key, reason) = invalid(&format!("{top}{GOOD}{extra}"));
        assert_eq!(key, want_key, "{extra}");
        assert!(reason.contains(want), "{extra}: {reason}");
    }
}

/// The bounds a power-of-two rule states are the declared ones, not a copy.
#[test]
fn a_segment_that_is_not_a_power_of_two_names_the_declared_bounds() {
    use crate::config::keys::{READ_SEGMENT, SEGMENT_SIZE};
    let text = format!("{GOOD}\n[controllers]\nread_segment = \"3k\"\n");
    let (key, reason) = invalid(&text);
    assert_eq!(key, "controllers.read_segment");
    let bounds = READ_SEGMENT.describe_bounds();
    assert_eq!(
        reason,
        format!("must be a power of two from {bounds}; got 3k")
    );
    assert_eq!(bounds, "512 to 1m");
    assert_eq!(SEGMENT_SIZE.describe_bounds(), "1m to 64m");
}

#[test]
fn a_cache_slot_counts_the_read_cache_in_slots_of_whole_segments() {
    let s = parse_array(GOOD, "x.toml").unwrap();
    assert_eq!(s.controllers.slot_segments, 1);
    assert_eq!(
        s.controllers.read_cache_slots,
        s.controllers.read_cache_segments
    );
    let text = format!("{GOOD}\n[controllers]\ncache_slot = \"64k\"\n");
    let c = parse_array(&text, "x.toml").unwrap().controllers;
    // 2 GiB of read cache: 262,144 segments of 8 KiB, 32,768 slots of 64 KiB.
    assert_eq!((c.slot_segments, c.read_cache_slots), (8, 32_768));
    for (slot, want) in [
        ("4k", "from read_segment (8k) to 64 of them (512k); got 4k"),
        ("24k", "got 24k"),
        ("1m", "got 1m"),
    ] {
        let (key, reason) = invalid(&format!("{GOOD}\n[controllers]\ncache_slot = \"{slot}\"\n"));
        assert_eq!(key, "controllers.cache_slot");
        assert!(reason.contains(want), "{slot}: {reason}");
    }
}

#[test]
fn a_database_without_placement_goes_on_the_array_s_volumes() {
    let array = |name: &str| {
        let path = format!(
            "{}/../../examples/arrays/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        parse_array(&std::fs::read_to_string(&path).unwrap(), &path).unwrap()
    };
    let targets = |name: &str| {
        let (d, l) = array(name).default_db_targets();
        (d.to_string(), l.to_string())
    };
    let pair = |d: &str, l: &str| (d.to_string(), l.to_string());
    // Data and log volumes of their own.
    assert_eq!(targets("enterprise-raid5.toml"), pair("datavol", "logvol"));
    // A data volume only: the log after the data.
    assert_eq!(targets("midrange-raid10.toml"), pair("datavol", "datavol"));
    // The array's only volume (an ASM disk group mirroring SSDs with HDDs).
    assert_eq!(targets("asm-prfg.toml"), pair("data", "data"));
    // Several volumes, none of them datavol; or none at all: every LUN.
    assert_eq!(targets("redo-raid5-vs-jbod.toml"), pair("all", "all"));
    assert_eq!(targets("evagroup-vraid5.toml"), pair("all", "all"));
}
