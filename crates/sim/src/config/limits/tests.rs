//! Every size that drives the model's memory or time is refused at validation with its bound
//! (these inputs panicked or grew without limit before the bounds existed).

use crate::config::{parse_array, parse_workload, ConfigError, SystemSpec};

const SMALL: &str = "name = \"t\"\n[[raid_groups]]\nname = \"g\"\nlevel = \"raid5\"\ndisks = 5\ndisk_model = \"hdd-15k\"\n";

/// The key and reason of an array file's validation error.
fn invalid(text: &str) -> (String, String) {
    match parse_array(text, "x.toml") {
        Err(ConfigError::Invalid { file, key, reason }) => {
            assert_eq!(file, "x.toml");
            (key, reason)
        }
        other => panic!("expected an Invalid error, got {other:?}"),
    }
}

fn group(body: &str) -> String {
    format!("name = \"t\"\n[[raid_groups]]\nname = \"g\"\ndisk_model = \"hdd-15k\"\n{body}\n")
}

fn model(keys: &str, level: &str, disks: u32) -> String {
    format!(
        "name = \"t\"\n[disk_models.m]\n{keys}\n[[raid_groups]]\nname = \"g\"\nlevel = \"{level}\"\n\
         disks = {disks}\ndisk_model = \"m\"\n"
    )
}

fn workload_error(text: &str) -> (String, String) {
    let system = parse_array(SMALL, "a.toml").unwrap();
    match parse_workload(text, "w.toml", &system) {
        Err(ConfigError::Invalid { key, reason, .. }) => (key, reason),
        other => panic!("expected an Invalid error, got {other:?}"),
    }
}

#[test]
fn thousands_of_disks_in_a_group_are_refused_with_the_bound() {
    let (key, reason) = invalid(&group("level = \"raid5\"\ndisks = 4000"));
    assert_eq!(key, "raid_groups[0].disks");
    assert!(
        reason.contains("at most 1024") && reason.contains("4000"),
        "{reason}"
    );
}

#[test]
fn a_petabyte_disk_in_a_raid5_group_is_refused_with_the_group_bound() {
    let (key, reason) = invalid(&model("base = \"hdd-15k\"\ncapacity_gb = 1e6", "raid5", 8));
    assert_eq!(key, "raid_groups.g");
    assert!(
        reason.contains("7.00 PB") && reason.contains("1 PiB"),
        "{reason}"
    );
    let (key, reason) = invalid(&model("base = \"ssd-nvme\"\ncapacity_gb = 1e9", "jbod", 1));
    assert_eq!(key, "disk_models.m.capacity_gb");
    assert!(reason.contains("at most 1000000 GB"), "{reason}");
}

#[test]
fn the_largest_accepted_group_builds_a_model() {
    // One disk of 1 PB is the largest group there is; it must build and run, not panic.
    let spec = parse_array(
        &model("base = \"hdd-7k2\"\ncapacity_gb = 1e6", "jbod", 1),
        "x",
    )
    .expect("a 1 PB group is accepted");
    let w = crate::profile_workload("randwrite-8k", &spec).unwrap();
    let opts = crate::RunOptions {
        duration_ns: 100_000_000,
        warmup_ns: 0,
        seed: 1,
        warmup_auto: false,
        stop: None,
    };
    let run = crate::simulate(&spec, &w, opts).unwrap();
    assert!(run.metrics.ios > 0);
}

/// A RAID 0 group of two SSDs of `capacity_gb` (stripe unit 64 KiB, 128 sectors).
fn two_ssds(capacity_gb: &str) -> String {
    model(
        &format!("base = \"ssd-nvme\"\ncapacity_gb = {capacity_gb}"),
        "raid0",
        2,
    )
}

/// Two disks of 562949.9533 GB keep 2^40 - 256 sectors each in whole stripe units: a group
/// of exactly [`MAX_GROUP_BYTES`]. It is accepted and runs (its write cache at its largest); a
/// stripe unit more per disk (disks of 562949.9534 GB) is refused, naming the bound in bytes.
#[test]
fn a_group_at_the_bound_runs_and_one_past_it_is_refused_with_the_bound() {
    use super::MAX_GROUP_BYTES;
    let spec = parse_array(&two_ssds("562949.9533"), "x").expect("a group at the bound");
    assert_eq!(
        spec.groups[0].layout.capacity_sectors() * 512,
        MAX_GROUP_BYTES
    );
    let w = crate::profile_workload("randwrite-8k", &spec).unwrap();
    let opts = crate::RunOptions {
        duration_ns: 20_000_000,
        warmup_ns: 0,
        seed: 1,
        warmup_auto: false,
        stop: None,
    };
    assert!(crate::simulate(&spec, &w, opts).unwrap().metrics.ios > 0);
    let (key, reason) = invalid(&two_ssds("562949.9534"));
    assert_eq!(key, "raid_groups.g");
    assert!(
        reason.contains("holds 1125899906711552 bytes")
            && reason.contains("at most 1125899906580480 bytes")
            && reason.contains("1 PiB less 256 KiB"),
        "{reason}"
    );
}

/// A virtual disk of `size` over a disk group of five 1 PB SSDs.
fn big_virtual_disk(level: &str, size: &str) -> String {
    format!(
        "name = \"t\"\n[disk_models.m]\nbase = \"ssd-nvme\"\ncapacity_gb = 1e6\n\
         [[disk_groups]]\nname = \"dg\"\ndisks = 5\ndisk_model = \"m\"\n\
         [[virtual_disks]]\nname = \"vd\"\ndisk_group = \"dg\"\nlevel = \"{level}\"\n\
         size = \"{size}\"\n"
    )
}

/// A virtual disk's `size` is bounded by [`MAX_GROUP_BYTES`] (a byte more is refused by the
/// key), and so is the size rounded up to whole stripes, under the virtual disk's own key.
#[test]
fn a_virtual_disk_at_the_bound_is_accepted_and_past_it_refused() {
    use super::MAX_GROUP_BYTES;
    let bound = format!("{MAX_GROUP_BYTES}b");
    // VRAID 0 over 5 disks: 2^41 - 2^9 sectors fill whole stripes of 5 x 256 sectors.
    let spec = parse_array(&big_virtual_disk("vraid0", &bound), "x").expect("at the bound");
    assert_eq!(
        spec.groups[0].layout.capacity_sectors() * 512,
        MAX_GROUP_BYTES
    );
    let past = format!("{}b", MAX_GROUP_BYTES + 1);
    let (key, reason) = invalid(&big_virtual_disk("vraid0", &past));
    assert_eq!(key, "virtual_disks[0].size");
    assert!(reason.contains("at most 1099511627520k"), "{reason}");
    // VRAID 5 over 5 disks: 4 data disks of 2^39 - 2^7 sectors, rounded up to 2^39.
    let (key, reason) = invalid(&big_virtual_disk("vraid5", &bound));
    assert_eq!(key, "virtual_disks.vd");
    assert!(
        reason.contains("holds 1125899906842624 bytes")
            && reason.contains("at most 1125899906580480 bytes")
            && reason.contains("use a smaller size"),
        "{reason}"
    );
}

#[test]
fn too_many_groups_or_disks_in_all_are_refused() {
    let many = |n: u32| -> String {
        (0..n)
            .map(|i| {
                format!(
                    "[[raid_groups]]\nname = \"g{i}\"\ncount = 4096\nlevel = \"jbod\"\ndisks = 1\n\
                     disk_model = \"hdd-15k\"\n"
                )
            })
            .collect()
    };
    let (key, reason) = invalid(&format!("name = \"t\"\n{}", many(50)));
    assert_eq!(key, "raid_groups[1].count");
    assert!(
        reason.contains("at most 4096") && reason.contains("8192"),
        "{reason}"
    );
    let (key, reason) = invalid(&group("level = \"raid0\"\ndisks = 64\ncount = 4096"));
    assert_eq!(key, "raid_groups");
    assert!(
        reason.contains("at most 16384") && reason.contains("262144"),
        "{reason}"
    );
}

#[test]
fn caches_beyond_their_bounds_are_refused() {
    let (key, reason) = invalid(&format!("{SMALL}[controllers]\ncache = \"1000t\"\n"));
    assert_eq!(key, "controllers.cache");
    assert!(reason.contains("at most 16t"), "{reason}");
    let (key, reason) = invalid(&format!("{SMALL}[controllers]\ncache = \"16t\"\n"));
    assert_eq!(key, "controllers.cache");
    assert!(reason.contains("134217728"), "{reason}");
}

#[test]
fn time_values_are_bounded_and_the_bound_is_named() {
    let cases = [
        (
            "[host]\nlink_latency = \"1000000h\"\n",
            "host.link_latency",
            "at most 1 s",
        ),
        (
            "[controllers]\noverhead = \"2s\"\n",
            "controllers.overhead",
            "at most 1 s",
        ),
        (
            "[rebuild]\nstart_delay = \"200h\"\n",
            "rebuild.start_delay",
            "604800 s",
        ),
        (
            "[[failures]]\nat = \"1000000h\"\ndisk = \"g.d1\"\n",
            "failures[0].at",
            "604800 s",
        ),
        (
            "[host]\nlink_mbps = 1e-300\n",
            "host.link_mbps",
            "at least 0.01 and at most 10000000 MB/s; got 1e-300",
        ),
    ];
    for (extra, want_key, want) in cases {
        let (key, reason) = invalid(&format!("{SMALL}{extra}"));
        assert_eq!(key, want_key, "{extra}");
        assert!(reason.contains(want), "{extra}: {reason}");
        assert!(!reason.contains("00000000000000000000"), "{reason}");
    }
}

#[test]
fn duplicate_lun_and_volume_names_are_refused_naming_both() {
    let luns = "[[luns]]\nname = \"x\"\ngroup = \"g\"\nsize = \"1g\"\n\
                [[luns]]\nname = \"x\"\ngroup = \"g\"\nsize = \"1g\"\n";
    let (key, reason) = invalid(&format!("{SMALL}{luns}"));
    assert_eq!(key, "luns[1].name");
    assert!(reason.contains("luns[0] and luns[1]"), "{reason}");
    let two_groups = SMALL.replace("name = \"g\"", "name = \"g\"\ncount = 2");
    let clash = "[[luns]]\nname = \"g-1\"\ngroup = \"g-0\"\nsize = \"1g\"\n";
    let (key, reason) = invalid(&format!("{two_groups}{clash}"));
    assert_eq!(key, "luns[0].name");
    assert!(reason.contains("the LUN of group \"g-1\""), "{reason}");
    let vols = "[[volumes]]\nname = \"v\"\nkind = \"concat\"\nluns = [\"g\"]\n\
                [[volumes]]\nname = \"v\"\nkind = \"concat\"\nluns = [\"g\"]\n";
    let (key, reason) = invalid(&format!("{SMALL}{vols}"));
    assert_eq!(key, "volumes[1].name");
    assert!(reason.contains("volumes[0] and volumes[1]"), "{reason}");
}

#[test]
fn a_user_model_named_like_a_builtin_is_refused() {
    let text = "name = \"t\"\n[disk_models.hdd-10k]\nbase = \"hdd-15k\"\n\
                [[raid_groups]]\nname = \"g\"\nlevel = \"raid5\"\ndisks = 5\ndisk_model = \"hdd-10k\"\n";
    let (key, reason) = invalid(text);
    assert_eq!(key, "disk_models.hdd-10k");
    assert!(reason.contains("built-in"), "{reason}");
}

#[test]
fn workload_loads_beyond_their_bounds_are_refused() {
    let stream = |keys: &str| format!("[[streams]]\nprofile = \"randread-8k\"\n{keys}\n");
    let (key, reason) = workload_error(&stream("jobs = 1\nrate_iops = 1e15"));
    assert_eq!(key, "streams[0].rate_iops");
    assert!(reason.contains("at most 10000000"), "{reason}");
    let (key, reason) = workload_error(&stream("jobs = 4096\niodepth = 65536"));
    assert_eq!(key, "streams");
    assert!(
        reason.contains("at most 1048576") && reason.contains("268435456"),
        "{reason}"
    );
    let (key, reason) = workload_error(&stream("think_time = \"1000000h\""));
    assert_eq!(key, "streams[0].think_time");
    assert!(reason.contains("at most 3600 s"), "{reason}");
    let (key, reason) = workload_error(&stream("").repeat(300));
    assert_eq!(key, "streams");
    assert!(reason.contains("at most 256"), "{reason}");
}

#[test]
fn database_sizes_beyond_their_bounds_are_refused() {
    let db = |keys: &str| {
        format!("[database]\ntest = \"dpaws/update-row\"\ndata = \"g\"\nlog = \"g\"\n{keys}\n")
    };
    for (keys, want_key, want) in [
        (
            "sessions = 4000000000",
            "database.sessions",
            "at most 100000",
        ),
        ("buffer = \"16t\"", "database.buffer", "at most 1t"),
        ("os_cache = \"1t\"", "database.os_cache", "at most 256g"),
        ("rows = 9000000000000000000", "database.rows", "4294967294"),
        ("cpus = 4000000000", "database.cpus", "at most 4096"),
        (
            "checkpoint_interval = \"1000000h\"",
            "database.checkpoint_interval",
            "604800 s",
        ),
    ] {
        let (key, reason) = workload_error(&db(keys));
        assert_eq!(key, want_key, "{keys}");
        assert!(reason.contains(want), "{keys}: {reason}");
    }
}

#[test]
fn a_run_longer_than_a_week_is_refused() {
    let system: SystemSpec = parse_array(SMALL, "a.toml").unwrap();
    let w = crate::profile_workload("randread-8k", &system).unwrap();
    let opts = crate::RunOptions {
        duration_ns: 8 * 86_400 * 1_000_000_000,
        warmup_ns: 0,
        seed: 1,
        warmup_auto: false,
        stop: None,
    };
    match crate::simulate(&system, &w, opts) {
        Err(ConfigError::Invalid { key, reason, .. }) => {
            assert_eq!(key, "--duration");
            assert!(reason.contains("604800 s"), "{reason}");
        }
        other => panic!("expected an Invalid error, got {other:?}"),
    }
}

/// An ASM-like volume over two LUNs whose `failure_groups` entries are `groups`.
fn asm_volume(groups: &str) -> String {
    format!(
        "{SMALL}[[luns]]\nname = \"a\"\ngroup = \"g\"\nsize = \"10GiB\"\n[[luns]]\nname = \"b\"\n\
         group = \"g\"\nsize = \"10GiB\"\n\
         [[volumes]]\nname = \"v\"\nkind = \"asm\"\nredundancy = \"normal\"\n\
         failure_groups = [{groups}]\n"
    )
}

#[test]
fn a_bad_failure_group_entry_names_its_index_and_key() {
    let ok = "{ name = \"fa\", luns = [\"a\"] }";
    parse_array(
        &asm_volume(&format!("{ok}, {{ name = \"fb\", luns = [\"b\"] }}")),
        "x",
    )
    .expect("two good failure groups");
    let (key, reason) = invalid(&asm_volume(&format!(
        "{ok}, {{ name = 1, luns = [\"b\"] }}"
    )));
    assert_eq!(key, "volumes[0].failure_groups[1].name");
    assert!(reason.contains("must be a string; got 1"), "{reason}");
    let (key, reason) = invalid(&asm_volume(&format!(
        "{ok}, {{ name = \"fb\", luns = \"b\" }}"
    )));
    assert_eq!(key, "volumes[0].failure_groups[1].luns");
    assert!(reason.contains("must be a list of names"), "{reason}");
    let (key, reason) = invalid(&asm_volume(&format!("{ok}, {{ name = \"fb\" }}")));
    assert_eq!(key, "volumes[0].failure_groups[1].luns");
    assert!(reason.contains("is required"), "{reason}");
    let (key, reason) = invalid(&asm_volume(&format!(
        "{ok}, {{ name = \"fb\", lun = [\"b\"] }}"
    )));
    assert_eq!(key, "volumes[0].failure_groups[1].lun");
    assert!(
        reason.contains("unknown key (allowed: name, luns)"),
        "{reason}"
    );
}

#[test]
fn a_bad_block_size_entry_names_its_index_and_key() {
    let stream = |sizes: &str| format!("[[streams]]\nblock_sizes = [{sizes}]\n");
    let ok = "{ size = \"8KiB\", weight = 1.0 }";
    let (key, reason) = workload_error(&stream(&format!(
        "{ok}, {{ size = \"128MiB\", weight = 1.0 }}"
    )));
    assert_eq!(key, "streams[0].block_sizes[1].size");
    assert!(
        reason.contains("at most 64m") && reason.contains("got 128m"),
        "{reason}"
    );
    let (key, reason) = workload_error(&stream(&format!(
        "{ok}, {{ size = \"4KiB\", weight = \"x\" }}"
    )));
    assert_eq!(key, "streams[0].block_sizes[1].weight");
    assert!(reason.contains("must be a number"), "{reason}");
    let (key, reason) = workload_error(&stream(&format!("{ok}, {{ size = \"4KiB\" }}")));
    assert_eq!(key, "streams[0].block_sizes[1].weight");
    assert!(reason.contains("is required"), "{reason}");
}

/// A RAID group, a virtual disk striped over its disk group and one laid out over
/// redundancy sets refuse a stripe unit that is not a power of two with one message, which
/// names the bounds their keys declare.
#[test]
fn every_stripe_unit_that_is_not_a_power_of_two_gets_one_message_with_the_declared_bounds() {
    use crate::config::keys::{RAID_GROUP_KEYS, VIRTUAL_DISK_KEYS};
    use storlab_core::keys::{find, Bounds};

    use super::STRIPE_UNIT_BYTES;

    let (min, max) = STRIPE_UNIT_BYTES;
    for keys in [RAID_GROUP_KEYS, VIRTUAL_DISK_KEYS] {
        let declared = find(keys, "stripe_unit").expect("stripe_unit is declared");
        assert_eq!(declared.bounds, Bounds::Int(min, max));
    }
    let virtual_disk = |sparing: &str| {
        format!(
            "name = \"t\"\n[[disk_groups]]\nname = \"dg\"\ndisks = 16\ndisk_model = \"hdd-10k\"\n\
             {sparing}\n[[virtual_disks]]\nname = \"vd\"\ndisk_group = \"dg\"\nlevel = \"vraid5\"\n\
             size = \"10g\"\nstripe_unit = \"48k\"\n"
        )
    };
    let want = "must be a power of two between 4k and 1m; got 48k";
    for (text, key) in [
        (
            group("level = \"raid5\"\ndisks = 5\nstripe_unit = \"48k\""),
            "raid_groups[0].stripe_unit",
        ),
        (virtual_disk(""), "virtual_disks[0].stripe_unit"),
        (
            virtual_disk("sparing = \"single\""),
            "virtual_disks[0].stripe_unit",
        ),
    ] {
        assert_eq!(invalid(&text), (key.to_string(), want.to_string()));
    }
}
