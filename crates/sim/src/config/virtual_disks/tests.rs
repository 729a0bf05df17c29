//! Disk groups laid out as redundancy sets: the keys, their bounds and the capacity the
//! reserve takes.

use crate::config::{parse_array, ConfigError};

/// A group of `disks` 36 GB disks with `extra` keys, one virtual disk of `size`.
fn sets_file(disks: u32, extra: &str, size: &str) -> String {
    format!(
        "name = \"t\"\n[disk_models.small]\nbase = \"hdd-10k\"\ncapacity_gb = 36.4\n\
         [[disk_groups]]\nname = \"dg\"\ndisks = {disks}\ndisk_model = \"small\"\n{extra}\n\
         [[virtual_disks]]\nname = \"vd\"\ndisk_group = \"dg\"\nlevel = \"vraid5\"\nsize = \"{size}\"\n"
    )
}

fn invalid(text: &str) -> (String, String) {
    match parse_array(text, "x.toml") {
        Err(ConfigError::Invalid { key, reason, .. }) => (key, reason),
        other => panic!("expected an Invalid error, got {other:?}"),
    }
}

#[test]
fn sparing_lays_the_group_out_as_redundancy_sets() {
    let s = parse_array(&sets_file(84, "sparing = \"single\"", "100g"), "x.toml").expect("valid");
    let rs = s.disk_groups[0].sets.as_ref().expect("redundancy sets");
    assert_eq!(rs.sets.len(), 10);
    assert_eq!(rs.segment_sectors, 4096);
    let v = s.groups[0].layout.sets().expect("a layout over sets");
    assert_eq!(v.set_count(), 10);
    assert!(s.groups[0].layout.capacity_sectors() * 512 >= 100 << 30);
    // Without the key, the same group stripes over all its disks as before.
    let s = parse_array(&sets_file(84, "", "100g"), "x.toml").expect("valid");
    assert!(s.disk_groups[0].sets.is_none());
    assert!(s.groups[0].layout.sets().is_none());
}

#[test]
fn the_reserve_shrinks_what_virtual_disks_can_use() {
    // 16 disks of 36.4 GB: 2 sets of 8. VRAID 5 stores 5/4 of the data: 16 disks hold
    // 465 GB of data with no reserve, 7/8 of it (407 GB) with single sparing, 3/4
    // (349 GB) with double.
    let fits = |sparing: &str, size: &str| {
        parse_array(
            &sets_file(16, &format!("sparing = \"{sparing}\""), size),
            "x.toml",
        )
        .is_ok()
    };
    assert!(fits("none", "420g"));
    assert!(!fits("single", "420g"));
    assert!(fits("single", "370g"));
    assert!(!fits("double", "370g"));
    assert!(fits("double", "320g"));
    let (key, reason) = invalid(&sets_file(16, "sparing = \"double\"", "370g"));
    assert_eq!(key, "virtual_disks[0].size");
    assert!(reason.contains("reserved capacity"), "{reason}");
}

#[test]
fn bad_set_keys_are_rejected_with_the_key() {
    let cases = [
        (
            sets_file(84, "sparing = \"triple\"", "10g"),
            "disk_groups[0].sparing",
        ),
        (
            sets_file(84, "sparing = \"single\"\nset_disks = 12", "10g"),
            "disk_groups[0].set_disks",
        ),
        (
            sets_file(84, "sparing = \"single\"\nset_disks = 5", "10g"),
            "disk_groups[0].set_disks",
        ),
        (
            sets_file(5, "sparing = \"single\"", "1g"),
            "disk_groups[0].disks",
        ),
        (
            sets_file(84, "sparing = \"single\"\nspares = 2", "10g"),
            "disk_groups[0].spares",
        ),
        (
            sets_file(84, "sparing = \"single\"\nsegment_size = \"3m\"", "10g"),
            "disk_groups[0].segment_size",
        ),
        (
            sets_file(84, "sparing = \"single\"\nsegment_size = \"128m\"", "10g"),
            "disk_groups[0].segment_size",
        ),
    ];
    for (text, want) in cases {
        let err = parse_array(&text, "x.toml").expect_err(want).to_string();
        assert!(err.contains(want), "{want}: {err}");
    }
    // A 1 MiB stripe unit makes a 4 MiB stripe: no whole stripes in a 2 MiB segment.
    let text = sets_file(84, "sparing = \"single\"", "10g")
        .replace("size = \"10g\"", "size = \"10g\"\nstripe_unit = \"1m\"");
    let (key, reason) = invalid(&text);
    assert_eq!(key, "virtual_disks[0].stripe_unit");
    assert!(reason.contains("segment_size"), "{reason}");
}

/// RAID groups and virtual disks count together against one bound, whether the virtual
/// disk is laid out over redundancy sets or striped over its whole disk group.
#[test]
fn virtual_disks_count_with_the_raid_groups_against_one_bound() {
    let groups = "[[raid_groups]]\nname = \"g\"\ncount = 4000\nlevel = \"jbod\"\ndisks = 1\n\
                  disk_model = \"hdd-15k\"\n";
    for sparing in ["sparing = \"single\"", ""] {
        let text = format!("{}count = 97\n{groups}", sets_file(84, sparing, "1g"));
        let (key, reason) = invalid(&text);
        assert_eq!(key, "virtual_disks[0].count", "{sparing:?}");
        assert!(
            reason.contains("RAID groups and virtual disks in all")
                && reason.contains("at most 4096")
                && reason.contains("4097"),
            "{sparing:?}: {reason}"
        );
        // One fewer fits.
        assert!(parse_array(&text.replace("count = 97", "count = 96"), "x.toml").is_ok());
    }
}
